"""Mail intake benchmark: N feuilles sent over SMTP by concurrent clients.

Starts the real embedded intake (aiosmtpd) and outbox sender on loopback, with an aiosmtpd
relay that records what it receives; then C concurrent aiosmtplib clients, in a separate
process like real senders, send N sheets from P registered players. Reports the intake
throughput (messages per second until the last ``250``, i.e. stored and committed) and the
time until every receipt reached the relay, then checks that every message was stored once,
submitted once and answered once (one receipt, ``In-Reply-To`` its Message-ID).

    .venv/bin/python bench/mail.py [--messages 1000] [--clients 20] [--players 50]
                                   [--database-url postgresql+psycopg://postgres@127.0.0.1/test]

Without ``--database-url`` a fresh SQLite file in a temporary directory is used.
"""

from __future__ import annotations

import argparse
import asyncio
import email
import email.policy
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

import aiosmtplib
from _common import free_port  # bench/_common.py (a bench script runs from bench/)
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class Relay:
    def __init__(self) -> None:
        self.received: list[bytes] = []

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.received.append(envelope.original_content or b"")
        return "250 OK"


def sheet(i: int, player: int, token: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"Joueur {player} <joueur{player}@bench.example>"
    msg["To"] = f"feuilles+{token}@arbitre.test"
    msg["Subject"] = "Problème : B1"
    msg["Message-ID"] = f"<bench-{i}@bench.example>"
    msg.set_content(f"Bonjour,\n1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 {166 + i % 3}\n"
                    "-- \nJoueur\n")
    return msg


async def send_all(port: int, messages: list[EmailMessage], clients: int) -> list[float]:
    queue: asyncio.Queue[EmailMessage] = asyncio.Queue()
    for m in messages:
        queue.put_nowait(m)
    latencies: list[float] = []

    async def client() -> None:
        smtp = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=60)
        await smtp.connect()
        try:
            while True:
                try:
                    m = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                t0 = time.perf_counter()
                errors, response = await smtp.send_message(m)
                if errors or not response.startswith("2.0.0 Message reçu"):
                    raise RuntimeError(f"refused: {errors} {response}")
                latencies.append(time.perf_counter() - t0)
        finally:
            await smtp.quit()

    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--players", type=int, default=50)
    ap.add_argument("--workers", type=int, default=4, help="intake database threads")
    ap.add_argument("--database-url", default=None)
    ap.add_argument("--client-port", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.client_port:
        # Client mode: run in its own process, like real senders, and report latencies.
        messages = [sheet(i, i % args.players, f"benchtok{i % args.players:04d}")
                    for i in range(args.messages)]
        t0 = time.perf_counter()
        lat = asyncio.run(send_all(args.client_port, messages, args.clients))
        print(json.dumps({"seconds": time.perf_counter() - t0, "latencies": lat}))
        return 0

    import sqlalchemy as sa
    from sqlmodel import SQLModel, select

    import webapp.models  # noqa: F401
    from mailer.intake import start_embedded
    from webapp import create_app
    from webapp.db import get_engine, session_scope
    from webapp.models import (
        Competition,
        InboundMessage,
        OutboxMessage,
        Player,
        Problem,
        ProblemStatus,
        Submission,
    )

    tmp = Path(tempfile.mkdtemp(prefix="arbitre-bench-mail-"))
    url = args.database_url or f"sqlite:///{tmp / 'bench.sqlite3'}"
    schema = f"bench_mail_{int(time.time())}" if url.startswith("postgresql") else None
    relay = Relay()
    relay_port, smtp_port = free_port(), free_port()
    relay_ctl = Controller(relay, hostname="127.0.0.1", port=relay_port)
    relay_ctl.start()
    app = create_app({
        "TESTING": True, "SECRET_KEY": "bench", "DATABASE_URL": url, "DATABASE_SCHEMA": schema,
        "SCHEDULER_ENABLED": False, "SUBMIT_DOMAIN": "arbitre.test",
        "MAIL_SMTP_LISTEN": f"127.0.0.1:{smtp_port}", "SMTP_RELAY": f"127.0.0.1:{relay_port}",
        "OUTBOX_POLL_SECONDS": 0.2, "MAIL_WORKERS": args.workers, "OUTBOX_BATCH": 50,
        "SUBMISSIONS_PER_WINDOW": 0,  # several sheets per player within seconds, by design
    })
    engine = get_engine(app)
    SQLModel.metadata.create_all(engine)
    with session_scope(app) as s:
        # the bench measures the intake, not the sign-up rule: every player may submit
        comp = Competition(slug="bench", name="Banc d'essai", open_registration=True)
        s.add(comp)
        s.flush()
        s.add(Problem(code="B1", competition_id=comp.id, title="Banc", game="integral",
                      status=ProblemStatus.OPEN, publish_at=datetime(2026, 1, 1, tzinfo=UTC),
                      deadline_at=datetime(2099, 1, 1, tzinfo=UTC)))
        for p in range(args.players):
            token = f"benchtok{p:04d}"
            s.add(Player(name=f"Joueur {p}", email=f"joueur{p}@bench.example", token=token))
    handle = start_embedded(app)
    try:
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, __file__, "--client-port", str(smtp_port), "--messages",
             str(args.messages), "--clients", str(args.clients), "--players", str(args.players)],
            check=True, capture_output=True, text=True,
        ).stdout
        report = json.loads(out)
        latencies = report["latencies"]
        t_intake = report["seconds"]
        deadline = time.monotonic() + 300
        while len(relay.received) < args.messages and time.monotonic() < deadline:
            time.sleep(0.1)
        t_answered = time.perf_counter() - t0
        time.sleep(1.0)  # anything sent twice would show up now
    finally:
        handle.stop()
        relay_ctl.stop()

    with session_scope(app) as s:
        inbound = s.exec(select(InboundMessage.status, InboundMessage.message_id)).all()
        subs = s.exec(select(sa.func.count()).select_from(Submission)).one()
        outbox = s.exec(select(OutboxMessage.kind, OutboxMessage.status)).all()
    replies = Counter(
        str(email.message_from_bytes(raw, policy=email.policy.default)["In-Reply-To"])
        for raw in relay.received
    )
    sent_ids = {f"<bench-{i}@bench.example>" for i in range(args.messages)}
    checks = {
        "stored once": len(inbound) == args.messages
        and len({m for _, m in inbound}) == args.messages,
        "all processed": Counter(st for st, _ in inbound) == {"processed": args.messages},
        "submitted once": subs == args.messages,
        "one receipt each, all sent": Counter(outbox) == {("receipt", "sent"): args.messages},
        "answered once": set(replies) == sent_ids and set(replies.values()) == {1},
    }
    latencies.sort()
    print(f"database: {engine.dialect.name}; {args.messages} messages, {args.clients} clients, "
          f"{args.players} players, {args.workers} intake threads")
    print(f"intake: {t_intake:.2f} s -> {args.messages / t_intake:.1f} messages/s "
          f"(250 latency p50 {latencies[len(latencies) // 2] * 1000:.0f} ms, "
          f"p95 {latencies[int(len(latencies) * 0.95)] * 1000:.0f} ms)")
    print(f"all receipts at the relay after {t_answered:.2f} s "
          f"-> {args.messages / t_answered:.1f} answered/s")
    for name, ok in checks.items():
        print(f"  {'OK ' if ok else 'FAIL'} {name}")
    if schema:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())

"""Mail faults benchmark: 1,000 sheets over SMTP from 20 clients while something breaks.

Scenarios (each a fresh database and a fresh run of N sheets):

* ``db``    — the database is stopped (``pg_ctl stop -m fast``) a few seconds into the run and
  started again ``--outage`` seconds later;
* ``kill``  — the serving process (``arbitre mail intake``: SMTP listener, processing,
  outbox sender) is killed with SIGKILL twice, and restarted each time right away, as a
  service manager would;
* ``relay`` — the outgoing relay is down from the start of the run and comes back
  ``--relay-outage`` seconds later (30: after most sheets are in).

Real parts only: a private PostgreSQL instance started here in a temporary directory
(``initdb``/``pg_ctl`` from ``/usr/lib/postgresql/*/bin``, as the ``postgres`` user when run as
root, on a free loopback port — never the machine's shared server), the intake in its own
process, an aiosmtpd relay on loopback, and the senders in another process with aiosmtplib,
behaving like a sending MTA: a message is done only on ``250``; a refusal (``451``), a
dropped or refused connection is retried after a pause.

For each scenario it counts, over the N Message-IDs sent: **stored once** (exactly one
non-duplicate ``inbound_message``), **submitted once** (exactly one ``submission``),
**answered once** (exactly one receipt, sent, and at least one copy of it — same Message-ID
— at the relay), and **lost** (sent but not stored, submitted and answered). Copies of one
receipt at the relay (a process killed between the relay's ``250`` and the ``sent`` mark; the
copy carries the same Message-ID) are counted separately.

    .venv/bin/python bench/faults.py [--scenario db|kill|relay|all] [--messages 1000]
                                     [--clients 20] [--rate 50] [--outage 8]
    .venv/bin/python bench/faults.py --mbox 5000    # local mbox write cost, start vs end
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import email
import email.policy
import glob
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import aiosmtplib
from _common import free_port  # bench/_common.py (a bench script runs from bench/)
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: 1,000 sheets from 200 players: 5 each, under the per-player limit of
#: ``SUBMISSIONS_PER_WINDOW`` (10 a minute), which is not what this benchmark measures.
PLAYERS = 200


def log(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


# --- the private PostgreSQL ------------------------------------------------------------------


class PrivatePostgres:
    """A throwaway cluster in a temporary directory, on a free loopback port."""

    def __init__(self, root: Path) -> None:
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
        if not bins:
            raise SystemExit("PostgreSQL binaries not found under /usr/lib/postgresql/*/bin")
        self.bin = Path(bins[-1])
        self.root = root
        self.data = root / "data"
        self.port = free_port()
        self.user: str | None = None
        if os.geteuid() == 0:  # initdb refuses to run as root
            self.user = "postgres"
            pw = pwd.getpwnam(self.user)
            os.chown(root, pw.pw_uid, pw.pw_gid)
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                  "--no-sync", "-E", "UTF8")
        with open(self.data / "postgresql.conf", "a") as f:
            f.write(f"\nport = {self.port}\nlisten_addresses = '127.0.0.1'\n"
                    f"unix_socket_directories = '{self.root}'\nfsync = on\n"
                    "max_connections = 100\n")

    def start(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "pg.log"), "-w", "start")

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def ensure_stopped(self) -> None:
        with contextlib.suppress(Exception):
            self.stop("immediate")


# --- the relay -------------------------------------------------------------------------------


class Relay:
    def __init__(self, port: int) -> None:
        self.port = port
        self.received: list[bytes] = []
        self.controller: Controller | None = None

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.received.append(envelope.original_content or b"")
        return "250 OK"

    def up(self) -> None:
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def down(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


# --- the senders (client mode, own process) --------------------------------------------------


def sheet(i: int) -> EmailMessage:
    player = i % PLAYERS
    msg = EmailMessage()
    msg["From"] = f"Joueur {player} <joueur{player}@bench.example>"
    msg["To"] = f"feuilles+faulttok{player:04d}@arbitre.test"
    msg["Subject"] = "Problème : F1"
    msg["Message-ID"] = f"<fault-{i}@bench.example>"
    msg["Date"] = "Mon, 30 Nov 2026 12:00:00 +0000"
    msg.set_content(f"1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 {166 + i % 3}\n")
    return msg


async def send_all(port: int, n: int, clients: int, rate: float,
                   give_up: float) -> dict[str, Any]:
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(n):
        queue.put_nowait(i)
    accepted: dict[int, int] = {}  # message -> attempts it took
    attempts: Counter[int] = Counter()
    refusals: Counter[str] = Counter()
    interval = clients / rate if rate > 0 else 0.0
    start = time.monotonic()
    stop_at = start + give_up

    async def client() -> None:
        smtp: aiosmtplib.SMTP | None = None
        while time.monotonic() < stop_at:
            try:
                i = queue.get_nowait()
            except asyncio.QueueEmpty:
                if len(accepted) >= n:
                    break
                await asyncio.sleep(0.2)  # others may put a failed message back
                continue
            t0 = time.monotonic()
            attempts[i] += 1
            try:
                if smtp is None:
                    smtp = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=30)
                    await smtp.connect()
                errors, response = await smtp.send_message(sheet(i))
                if errors:
                    raise RuntimeError(f"recipients refused: {errors}")
                accepted[i] = attempts[i]
            except Exception as exc:
                code = getattr(exc, "code", None)
                refusals[f"{type(exc).__name__}{f' {code}' if code else ''}"] += 1
                if smtp is not None:
                    with contextlib.suppress(Exception):
                        smtp.close()
                    smtp = None
                queue.put_nowait(i)
                await asyncio.sleep(1.0)  # a sending MTA waits before retrying
                continue
            await asyncio.sleep(max(0.0, interval - (time.monotonic() - t0)))
        if smtp is not None:
            try:
                await smtp.quit()
            except Exception:
                smtp.close()

    await asyncio.gather(*(client() for _ in range(clients)))
    return {"seconds": time.monotonic() - start, "accepted": sorted(accepted),
            "retried": sum(1 for a in accepted.values() if a > 1),
            "refusals": dict(refusals)}


# --- the serving process ---------------------------------------------------------------------

SERVER = "import sys; from webapp.mail_cli import main; sys.exit(main(['intake']))"


class Server:
    def __init__(self, env: dict[str, str], logfile: Path, smtp_port: int) -> None:
        self.env, self.logfile, self.smtp_port = env, logfile, smtp_port
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        out = open(self.logfile, "ab")  # noqa: SIM115 (kept open by the child)
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER], cwd=ROOT, env=self.env,
                                     stdout=out, stderr=subprocess.STDOUT)
        out.close()
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}; "
                                   f"see {self.logfile}")
            try:
                with socket.create_connection(("127.0.0.1", self.smtp_port), timeout=1):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("server did not start listening")

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(60)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)


# --- one scenario ----------------------------------------------------------------------------


def run(scenario: str, args: argparse.Namespace) -> bool:
    tmp = Path(tempfile.mkdtemp(prefix=f"arbitre-faults-{scenario}-"))
    tmp.chmod(0o755)  # the postgres user must reach its directory inside
    (tmp / "pg").mkdir()
    pg = PrivatePostgres(tmp / "pg")
    pg.init()
    pg.start()
    try:
        return _run_on(scenario, args, tmp, pg)
    finally:
        pg.ensure_stopped()


def _run_on(scenario: str, args: argparse.Namespace, tmp: Path, pg: PrivatePostgres) -> bool:
    import sqlalchemy as sa
    from sqlmodel import SQLModel, select

    import webapp.models  # noqa: F401
    from webapp import create_app
    from webapp.db import get_engine, session_scope
    from webapp.models import (
        Competition,
        InboundMessage,
        OutboxMessage,
        Player,
        Problem,
        ProblemStatus,
        Registration,
        Submission,
    )

    relay = Relay(free_port())
    smtp_port = free_port()
    config = {
        "DATABASE_URL": pg.url, "SCHEDULER_ENABLED": False, "SUBMIT_DOMAIN": "arbitre.test",
        "MAIL_SMTP_LISTEN": f"127.0.0.1:{smtp_port}", "SMTP_RELAY": f"127.0.0.1:{relay.port}",
        "OUTBOX_POLL_SECONDS": 0.5, "OUTBOX_BATCH": 50,
        # Shortened so a run takes minutes, not hours (defaults: 300 s, 30 s, 6 h).
        "OUTBOX_LEASE_SECONDS": args.lease, "OUTBOX_BACKOFF_SECONDS": 1.0,
        "OUTBOX_BACKOFF_MAX_SECONDS": 8.0,
    }
    app = create_app({"TESTING": True, "SECRET_KEY": "bench",
                      "INSTANCE_PATH": str(tmp / "instance"), **config})
    engine = get_engine(app)
    SQLModel.metadata.create_all(engine)
    with session_scope(app) as s:
        comp = Competition(slug="faults", name="Banc de pannes")
        s.add(comp)
        s.flush()
        s.add(Problem(code="F1", competition_id=comp.id, title="Pannes", game="integral",
                      status=ProblemStatus.OPEN, publish_at=datetime(2026, 1, 1, tzinfo=UTC),
                      deadline_at=datetime(2099, 1, 1, tzinfo=UTC)))
        players = [Player(name=f"Joueur {p}", email=f"joueur{p}@bench.example",
                          token=f"faulttok{p:04d}") for p in range(PLAYERS)]
        s.add_all(players)
        s.flush()
        s.add_all([Registration(competition_id=comp.id, player_id=p.id) for p in players])
    engine.dispose()

    env = {**os.environ, "PYTHONPATH": str(ROOT), "ARBITRE_INSTANCE_PATH": str(tmp / "instance"),
           "ARBITRE_SECRET_KEY": "bench"}
    env.update({f"ARBITRE_{k}": json.dumps(v) if not isinstance(v, str) else v
                for k, v in config.items()})
    server = Server(env, tmp / "server.log", smtp_port)
    if scenario != "relay":
        relay.up()
    server.start()
    events: list[str] = []
    t0 = time.monotonic()
    t0_wall = datetime.now(UTC)

    def at(seconds: float) -> None:
        time.sleep(max(0.0, t0 + seconds - time.monotonic()))

    def faults() -> None:
        if scenario == "db":
            at(3)
            pg.stop("fast")
            events.append(f"{time.monotonic() - t0:.1f} s: database stopped")
            at(3 + args.outage)
            pg.start()
            events.append(f"{time.monotonic() - t0:.1f} s: database started")
        elif scenario == "kill":
            when = 3.0
            for _ in range(2):
                at(when)
                server.kill()
                events.append(f"{time.monotonic() - t0:.1f} s: server SIGKILLed")
                server.start()
                events.append(f"{time.monotonic() - t0:.1f} s: server listening again")
                when = time.monotonic() - t0 + 4.0  # the second kill hits a busy server
        elif scenario == "relay":
            events.append("0.0 s: relay down")
            at(args.relay_outage)
            relay.up()
            events.append(f"{time.monotonic() - t0:.1f} s: relay up")

    injector = threading.Thread(target=faults)
    injector.start()
    try:
        client = subprocess.run(
            [sys.executable, __file__, "--client-port", str(smtp_port), "--messages",
             str(args.messages), "--clients", str(args.clients), "--rate", str(args.rate)],
            check=True, capture_output=True, text=True, cwd=ROOT,
        )
        report = json.loads(client.stdout)
        injector.join()
        t_sent = time.monotonic() - t0
        # Wait until every sheet is answered at the relay (or give up after 10 minutes).
        wanted = {f"<fault-{i}@bench.example>" for i in range(args.messages)}
        deadline = time.monotonic() + 600
        answered: set[str] = set()
        seen = 0
        while time.monotonic() < deadline:
            new = relay.received[seen:]
            seen += len(new)
            answered |= {str(email.message_from_bytes(raw, policy=email.policy.default)
                             ["In-Reply-To"]) for raw in new}
            if wanted <= answered:
                break
            time.sleep(0.2)
        t_answered = time.monotonic() - t0
        time.sleep(args.lease + 2)  # a receipt sent twice would show up now
    finally:
        injector.join()
        server.stop()
        relay.down()

    engine = get_engine(app)
    with session_scope(app) as s:
        inbound = s.exec(select(InboundMessage.id, InboundMessage.message_id,
                                InboundMessage.status)).all()
        reasons = Counter(re.sub(r"\d+", "N", (e or ""))[:90] for e in s.exec(
            select(InboundMessage.error).where(InboundMessage.status != "processed")).all())
        last_processed = s.exec(select(sa.func.max(InboundMessage.processed_at))).one()
        last_sent = s.exec(select(sa.func.max(OutboxMessage.sent_at))).one()
        subs = s.exec(select(Submission.id, Submission.inbound_message_id)).all()
        receipts = s.exec(select(OutboxMessage.message_id, OutboxMessage.status,
                                 OutboxMessage.headers)
                          .where(OutboxMessage.kind == "receipt")).all()
        other_out = s.exec(select(sa.func.count()).select_from(OutboxMessage)
                           .where(OutboxMessage.kind != "receipt")).one()
    engine.dispose()
    pg.stop("fast")

    mid_of = {row_id: mid for row_id, mid, _ in inbound}
    stored = Counter(mid for _, mid, st in inbound if st != "duplicate")
    statuses = Counter(st for _, _, st in inbound)
    submitted = Counter(mid_of.get(inb) for _, inb in subs)
    receipt_rows = Counter(h.get("In-Reply-To") for _, _, h in receipts)
    receipt_sent = Counter(h.get("In-Reply-To") for _, st, h in receipts if st == "sent")
    copies = Counter()  # receipt Message-ID -> copies at the relay
    reply_to: dict[str, str] = {}
    for raw in relay.received:
        m = email.message_from_bytes(raw, policy=email.policy.default)
        copies[str(m["Message-ID"])] += 1
        reply_to[str(m["Message-ID"])] = str(m["In-Reply-To"])
    at_relay = Counter(reply_to.values())  # distinct receipts per sheet
    sent_ids = [f"<fault-{i}@bench.example>" for i in range(args.messages)]
    stored_once = sum(1 for m in sent_ids if stored[m] == 1)
    submitted_once = sum(1 for m in sent_ids if submitted[m] == 1)
    answered_once = sum(1 for m in sent_ids if receipt_rows[m] == 1 and receipt_sent[m] == 1
                        and at_relay[m] == 1)
    lost = sum(1 for m in sent_ids if not (stored[m] and submitted[m] and at_relay[m]))
    extra_copies = sum(c - 1 for c in copies.values() if c > 1)

    print(f"\n== scenario {scenario}: {args.messages} sheets, {args.clients} clients, "
          f"~{args.rate:g}/s, PostgreSQL {pg.bin.parent.name} (private, port {pg.port})")
    for e in events:
        print(f"   {e}")
    print(f"   sending done after {t_sent:.1f} s: {len(report['accepted'])} accepted (250), "
          f"{report['retried']} needed more than one attempt; refusals/errors seen by the "
          f"senders: {report['refusals'] or 'none'}")
    def since(moment: datetime | None) -> str:
        if moment is None:
            return "—"
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return f"{(moment - t0_wall).total_seconds():.1f} s"

    print(f"   all answered at the relay after {t_answered:.1f} s (last sheet processed at "
          f"{since(last_processed)}, last receipt marked sent at {since(last_sent)})")
    print(f"   inbound rows: {dict(statuses)}; other outbox rows: {other_out}")
    for reason, count in reasons.most_common(5):
        print(f"     {count} × {reason}")
    print(f"   stored once {stored_once} / submitted once {submitted_once} / answered once "
          f"{answered_once} / lost {lost}   (target {args.messages} / {args.messages} / "
          f"{args.messages} / 0)")
    print(f"   extra copies of a receipt at the relay (same Message-ID): {extra_copies}")
    ok = (stored_once == submitted_once == answered_once == args.messages and lost == 0)
    if ok:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"   logs kept in {tmp}")
    return ok


def mbox_cost(n: int) -> int:
    """Time of one local-mbox write (no relay) at the start and at the end of ``n`` writes."""
    from flask import Flask

    from mailer.outbox import _deliver_local

    tmp = Path(tempfile.mkdtemp(prefix="arbitre-faults-mbox-"))
    app = Flask("bench", instance_path=str(tmp))
    times: list[float] = []
    for i in range(n):
        msg = sheet(i)
        msg.replace_header("Message-ID", f"<mbox-{i}@bench.example>")
        t = time.perf_counter()
        _deliver_local(app, msg)
        times.append(time.perf_counter() - t)
    t = time.perf_counter()
    _deliver_local(app, sheet(0).__class__())  # no Message-ID: an ordinary append
    again = sheet(5)
    again.replace_header("Message-ID", "<mbox-5@bench.example>")
    _deliver_local(app, again)  # already there: skipped
    t_dup = time.perf_counter() - t
    first, last = sorted(times[:100]), sorted(times[-100:])
    size = (tmp / "outbox.mbox").stat().st_size
    print(f"local mbox, {n} writes ({size / 1e6:.1f} MB): median write {first[50] * 1000:.2f} ms "
          f"for the first 100, {last[50] * 1000:.2f} ms for the last 100; "
          f"one append + one duplicate skipped at the end: {t_dup * 1000:.2f} ms")
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="all", choices=("db", "kill", "relay", "all"))
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--rate", type=float, default=50.0, help="messages per second, all "
                    "clients together (spreads the run over the faults)")
    ap.add_argument("--outage", type=float, default=8.0, help="seconds each fault lasts")
    ap.add_argument("--relay-outage", type=float, default=30.0,
                    help="seconds the relay is down (from the start of the run)")
    ap.add_argument("--lease", type=float, default=5.0, help="OUTBOX_LEASE_SECONDS")
    ap.add_argument("--mbox", type=int, default=0, metavar="N",
                    help="only measure the local mbox write cost over N writes")
    ap.add_argument("--client-port", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.mbox:
        return mbox_cost(args.mbox)
    if args.client_port:
        result = asyncio.run(send_all(args.client_port, args.messages, args.clients,
                                      args.rate, give_up=900))
        print(json.dumps(result))
        return 0
    scenarios = ["db", "kill", "relay"] if args.scenario == "all" else [args.scenario]
    results = {s: run(s, args) for s in scenarios}
    print("\n" + ", ".join(f"{s}: {'OK' if ok else 'FAIL'}" for s, ok in results.items()))
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())

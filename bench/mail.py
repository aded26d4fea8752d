"""Mail intake benchmark: N feuilles sent over SMTP by concurrent clients.

Starts the real embedded intake (aiosmtpd) and outbox sender on loopback, with a relay
that records what it receives; then C concurrent clients send N sheets from P registered
players. The clients and the relay stand for other machines (the players' mail providers,
the deployment's relay): each runs in a process of its own and is the bare SMTP exchange
of ``bench/_smtp.py``, so that they take little of the CPU the server is measured on.
Reports:

* the intake throughput: messages per second until the last ``250`` (stored and committed);
* the receipts' throughput: receipts per second from the first to the last one reaching the
  relay (i.e. leaving the outbox), with the number of relay connections they came over;
* the machine-independent ratio receipts/s ÷ intake/s — at least 1.0 when the receipts
  keep pace with the intake, far below when they pile up behind it;
* p50/p99 of the wait from each message's ``250`` (taken by the client) to its receipt at
  the relay (both ``time.time()`` on this machine), and how many were lost (no receipt);
* the server process's CPU per message, and the load average before and after (the
  machine is shared: give every figure with its load average);

then checks that every message was stored once, submitted once and answered once (one
receipt, ``In-Reply-To`` its Message-ID), and none lost. A benchmark, not a test: the
figures depend on the machine; the checks do not.

    .venv/bin/python bench/mail.py [--messages 1000] [--clients 20] [--players 50]
                                   [--database-url postgresql+psycopg://postgres@127.0.0.1/test]

Without ``--database-url`` a fresh SQLite file in a temporary directory is used.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
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

from _common import free_port  # bench/_common.py (a bench script runs from bench/)
from _smtp import Client, Sink, dot_stuffed  # bench/_smtp.py: the lean peers

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


class Relay:
    """The relay in a process of its own (``--relay-port``, :class:`_smtp.Sink`), as the
    relay of a real deployment is another machine: what it prints (a line a message: its
    wall clock arrival, its In-Reply-To and the connection it came over) read here."""

    def __init__(self, port: int) -> None:
        self.at: list[float] = []  # wall clock (time.time) of each message's arrival
        self.in_reply_to: list[str] = []
        self.peers: set[int] = set()  # one per connection the sender opened
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--relay-port", str(port)],
            stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the relay did not start")
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            at, mid, conn = line.rstrip("\n").split("\t")
            self.in_reply_to.append(mid)
            self.peers.add(int(conn))
            self.at.append(float(at))  # last: the count the main thread polls

    @property
    def received(self) -> int:
        return len(self.at)

    def cpu(self) -> float:
        """The relay process's CPU seconds so far (from ``/proc``)."""
        tick = os.sysconf("SC_CLK_TCK")
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / tick

    def stop(self) -> None:
        self.total_cpu = self.cpu()  # all of it, start-up included (for RUSAGE_CHILDREN)
        self.proc.terminate()
        self.proc.wait(30)
        self._reader.join(30)


def run_relay(port: int) -> int:
    """Relay mode: a :class:`_smtp.Sink` on ``port``, a line on stdout per message."""
    out = sys.stdout

    def record(at: float, mid: str, conn: int) -> None:
        out.write(f"{at!r}\t{mid}\t{conn}\n")
        out.flush()

    async def serve() -> None:
        server = await asyncio.start_server(Sink(record).handle, "127.0.0.1", port,
                                            limit=Sink.LIMIT)
        print("ready", flush=True)
        async with server:
            await server.serve_forever()

    asyncio.run(serve())
    return 0


def seed(app: Any, players: int) -> None:
    """The bench's tables, an open problem B1 and ``players`` players (tokens
    ``benchtok0000``…), in a competition open to all (the benches measure the intake and
    the processing, not the sign-up rule: every player may submit)."""
    from sqlmodel import SQLModel

    import webapp.models  # noqa: F401
    from webapp.db import get_engine, session_scope
    from webapp.models import Competition, Player, Problem, ProblemStatus

    SQLModel.metadata.create_all(get_engine(app))
    with session_scope(app) as s:
        comp = Competition(slug="bench", name="Banc d'essai", open_registration=True)
        s.add(comp)
        s.flush()
        s.add(Problem(code="B1", competition_id=comp.id, title="Banc", game="integral",
                      status=ProblemStatus.OPEN, publish_at=datetime(2026, 1, 1, tzinfo=UTC),
                      deadline_at=datetime(2099, 1, 1, tzinfo=UTC)))
        for p in range(players):
            token = f"benchtok{p:04d}"
            s.add(Player(name=f"Joueur {p}", email=f"joueur{p}@bench.example", token=token))


def finish(engine: Any, schema: str | None, checks: dict[str, bool]) -> int:
    """Print the checks, drop the bench's schema (PostgreSQL); the exit status."""
    import sqlalchemy as sa

    for name, ok in checks.items():
        print(f"  {'OK ' if ok else 'FAIL'} {name}")
    if schema:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    return 0 if all(checks.values()) else 1


def sheet(i: int, player: int, token: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"Joueur {player} <joueur{player}@bench.example>"
    msg["To"] = f"feuilles+{token}@arbitre.test"
    msg["Subject"] = "Problème : B1"
    msg["Message-ID"] = f"<bench-{i}@bench.example>"
    msg.set_content(f"Bonjour,\n1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 {166 + i % 3}\n"
                    "-- \nJoueur\n")
    return msg


def on_the_wire(m: EmailMessage) -> tuple[str, str, str, bytes]:
    """A message as the client sends it: Message-ID, envelope sender and recipient, and
    the ``DATA`` bytes (built before the clock starts, as a provider's queue holds them)."""
    sender = str(m["From"]).rpartition("<")[2].rstrip(">")
    return str(m["Message-ID"]), sender, str(m["To"]), dot_stuffed(m.as_bytes())


async def send_all(port: int, messages: list[tuple[str, str, str, bytes]],
                   clients: int) -> tuple[list[float], dict[str, float]]:
    """Send everything (:func:`on_the_wire`); returns the 250 latencies and, per
    Message-ID, the wall clock time (``time.time``, the same clock as the relay's in the
    other process) of its 250."""
    queue: asyncio.Queue[tuple[str, str, str, bytes]] = asyncio.Queue()
    for m in messages:
        queue.put_nowait(m)
    latencies: list[float] = []
    accepted_at: dict[str, float] = {}

    async def client() -> None:
        smtp = Client("127.0.0.1", port)
        await smtp.connect()
        try:
            while True:
                try:
                    mid, sender, recipient, data = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                t0 = time.perf_counter()
                response = await smtp.send(sender, recipient, data)
                if not response.startswith("250 2.0.0 Message reçu"):
                    raise RuntimeError(f"refused: {response}")
                latencies.append(time.perf_counter() - t0)
                accepted_at[mid] = time.time()
        finally:
            await smtp.quit()

    await asyncio.gather(*(client() for _ in range(clients)))
    return latencies, accepted_at


def thread_cpu(handle: Any) -> Counter[str]:
    """CPU seconds (user + system) of this process's threads, by role: the intake's SMTP
    listener, the intake's database threads (the store batcher and the executor), the
    outbox sender, the rest (watcher, processing threads, main)."""
    roles: dict[Any, str] = {}
    for c in handle.controllers:
        roles[getattr(c, "_thread", None)] = "SMTP listener"
    if handle.batcher is not None:
        roles[handle.batcher._thread] = "store (group commit)"
    if handle.worker is not None:
        roles[handle.worker._thread] = "outbox sender"
    tick = os.sysconf("SC_CLK_TCK")
    cpu: Counter[str] = Counter()
    for thread in threading.enumerate():
        try:
            with open(f"/proc/self/task/{thread.native_id}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        role = roles.get(thread) or thread.name.rstrip("0123456789_-")
        cpu[role] += (int(fields[11]) + int(fields[12])) / tick
    return cpu


def process_cpu(handle: Any) -> Counter[str]:
    """CPU seconds (user + system) of the worker and sender processes, each as it stands
    now (read from ``/proc``: their start-up, before the run, is left out by the caller's
    difference)."""
    pids: list[tuple[str, int]] = []
    for supervisor in {id(x): x for x in (handle.processor, handle.senders)
                       if hasattr(x, "pids")}.values():
        pids += [("worker processes", pid) for pid in supervisor.pids]
        pids += [("sender processes", pid) for pid in supervisor.sender_pids]
    tick = os.sysconf("SC_CLK_TCK")
    cpu: Counter[str] = Counter()
    for role, pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        cpu[role] += (int(fields[11]) + int(fields[12])) / tick
    return cpu


def backend_cpu(engine: Any) -> Counter[int]:
    """PostgreSQL: CPU seconds of each server process serving this database now (read from
    ``/proc``, same machine): the bench's difference counts the work done for the run by
    the connections open at its end (pooled, they live through it)."""
    import sqlalchemy as sa

    if engine.dialect.name != "postgresql":
        return Counter()
    with engine.connect() as conn:
        pids = conn.execute(sa.text("SELECT pid FROM pg_stat_activity "
                                    "WHERE datname = current_database()")).scalars().all()
    tick = os.sysconf("SC_CLK_TCK")
    cpu: Counter[int] = Counter()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except OSError:
            continue
        cpu[int(pid)] = (int(fields[11]) + int(fields[12])) / tick
    return cpu


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of sorted ``values``."""
    return values[min(len(values) - 1, max(0, int(round(q * len(values) + 0.5)) - 1))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=1000)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--players", type=int, default=50)
    ap.add_argument("--workers", type=int, default=4, help="intake database threads")
    ap.add_argument("--process-workers", type=int, default=0,
                    help="MAIL_PROCESS_WORKERS: worker processes processing stored messages "
                         "(PostgreSQL; 0: threads in the serving process)")
    ap.add_argument("--sender-processes", type=int, default=0,
                    help="OUTBOX_SENDER_PROCESSES: outbox sender processes (PostgreSQL; 0: "
                         "the sender thread of the serving process)")
    ap.add_argument("--in-flow-delay", type=float, default=None,
                    help="MAIL_IN_FLOW_DELAY (seconds; 0: off; default: the setting's)")
    ap.add_argument("--in-flow-backlog", type=int, default=None,
                    help="MAIL_IN_FLOW_BACKLOG (default: the setting's)")
    ap.add_argument("--database-url", default=None)
    ap.add_argument("--client-port", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--relay-port", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.relay_port:
        return run_relay(args.relay_port)
    if args.client_port:
        # Client mode: run in its own process, like real senders, and report latencies.
        messages = [on_the_wire(sheet(i, i % args.players, f"benchtok{i % args.players:04d}"))
                    for i in range(args.messages)]
        t0 = time.perf_counter()
        start = time.time()
        cpu0 = time.process_time()
        lat, accepted_at = asyncio.run(send_all(args.client_port, messages, args.clients))
        print(json.dumps({"seconds": time.perf_counter() - t0, "latencies": lat,
                          "start": start, "accepted_at": accepted_at,
                          "sending_cpu": time.process_time() - cpu0}))
        return 0

    import sqlalchemy as sa
    from sqlmodel import select

    import webapp.models  # noqa: F401
    from mailer.intake import start_embedded
    from webapp import create_app
    from webapp.db import get_engine, session_scope
    from webapp.models import (
        InboundMessage,
        OutboxMessage,
        Submission,
    )

    tmp = Path(tempfile.mkdtemp(prefix="arbitre-bench-mail-"))
    url = args.database_url or f"sqlite:///{tmp / 'bench.sqlite3'}"
    schema = f"bench_mail_{int(time.time())}" if url.startswith("postgresql") else None
    relay_port, smtp_port = free_port(), free_port()
    relay = Relay(relay_port)
    app = create_app({
        "TESTING": True, "SECRET_KEY": "bench", "DATABASE_URL": url, "DATABASE_SCHEMA": schema,
        "SCHEDULER_ENABLED": False, "SUBMIT_DOMAIN": "arbitre.test",
        "MAIL_SMTP_LISTEN": f"127.0.0.1:{smtp_port}", "SMTP_RELAY": f"127.0.0.1:{relay_port}",
        "OUTBOX_POLL_SECONDS": 0.2, "MAIL_WORKERS": args.workers, "OUTBOX_BATCH": 50,
        "MAIL_PROCESS_WORKERS": args.process_workers,
        "OUTBOX_SENDER_PROCESSES": args.sender_processes,
        "SUBMISSIONS_PER_WINDOW": 0,  # several sheets per player within seconds, by design
        "MAIL_IN_FLOW_DELAY": args.in_flow_delay, "MAIL_IN_FLOW_BACKLOG": args.in_flow_backlog,
    })
    engine = get_engine(app)
    seed(app, args.players)
    handle = start_embedded(app)
    load_before = os.getloadavg()
    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    threads_before = thread_cpu(handle)
    relay_before = relay.cpu()
    procs_before = process_cpu(handle)
    backends_before = backend_cpu(engine)
    try:
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, __file__, "--client-port", str(smtp_port), "--messages",
             str(args.messages), "--clients", str(args.clients), "--players", str(args.players)],
            check=True, capture_output=True, text=True,
        ).stdout
        report = json.loads(out)
        # the client process has ended, the worker processes not yet: their CPU is what
        # RUSAGE_CHILDREN adds from here to after stop
        children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
        client_cpu = children_before.ru_utime + children_before.ru_stime  # the only one ended
        latencies = report["latencies"]
        accepted_at: dict[str, float] = report["accepted_at"]
        t_intake = report["seconds"]
        deadline = time.monotonic() + 300
        while relay.received < args.messages and time.monotonic() < deadline:
            time.sleep(0.1)
        t_answered = time.perf_counter() - t0
        load_after = os.getloadavg()
        cpu_after = resource.getrusage(resource.RUSAGE_SELF)
        threads_after = thread_cpu(handle)
        relay_cpu = relay.cpu() - relay_before
        procs_after = process_cpu(handle)
        backends_after = backend_cpu(engine)
        time.sleep(1.0)  # anything sent twice would show up now
    finally:
        handle.stop()
        relay.stop()
    # the worker processes' CPU (counted once they have ended, i.e. after stop; they idle
    # during the last second)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)

    with session_scope(app) as s:
        inbound = s.exec(select(InboundMessage.status, InboundMessage.message_id)).all()
        subs = s.exec(select(sa.func.count()).select_from(Submission)).one()
        outbox = s.exec(select(OutboxMessage.kind, OutboxMessage.status)).all()
        processed_at = sorted(t for t in s.exec(select(InboundMessage.processed_at)).all()
                              if t is not None)
    answered = list(zip(relay.in_reply_to, relay.at, strict=True))
    replies = Counter(mid for mid, _ in answered)
    # from the SMTP 250 (client side) to the receipt reaching the relay, i.e. leaving the
    # outbox; the first receipt of each message (a second one is a failure below anyway)
    first_at: dict[str, float] = {}
    for mid, at in answered:
        first_at.setdefault(mid, at)
    waits = sorted(first_at[m] - accepted_at[m] for m in accepted_at if m in first_at)
    lost = sum(1 for m in accepted_at if m not in first_at)
    sent_ids = {f"<bench-{i}@bench.example>" for i in range(args.messages)}
    checks = {
        "stored once": len(inbound) == args.messages
        and len({m for _, m in inbound}) == args.messages,
        "all processed": Counter(st for st, _ in inbound) == {"processed": args.messages},
        "submitted once": subs == args.messages,
        "one receipt each, all sent": Counter(outbox) == {("receipt", "sent"): args.messages},
        "answered once": set(replies) == sent_ids and set(replies.values()) == {1},
        "lost = 0": lost == 0 and len(accepted_at) == args.messages,
    }
    latencies.sort()
    print(f"database: {engine.dialect.name}; {args.messages} messages, {args.clients} clients, "
          f"{args.players} players, {args.workers} intake threads"
          + (f", {args.process_workers} worker processes" if args.process_workers else ""))
    print(f"intake: {t_intake:.2f} s -> {args.messages / t_intake:.1f} messages/s "
          f"(250 latency p50 {latencies[len(latencies) // 2] * 1000:.0f} ms, "
          f"p95 {latencies[int(len(latencies) * 0.95)] * 1000:.0f} ms)")
    print(f"all receipts at the relay after {t_answered:.2f} s "
          f"-> {args.messages / t_answered:.1f} answered/s")
    intake_rate = args.messages / t_intake
    if len(relay.at) > 1:
        # receipts per second while they flow: first to last receipt at the relay
        span = max(relay.at) - min(relay.at)
        receipt_rate = (len(relay.at) - 1) / span if span > 0 else float("inf")
        print(f"receipts: {receipt_rate:.1f} receipts/s (first to last at the relay, over "
              f"{len(relay.peers)} relay connections); ratio receipts/s / intake/s = "
              f"{receipt_rate / intake_rate:.2f} (target >= 1.00)")
    if len(processed_at) > 1:
        span = (processed_at[-1] - processed_at[0]).total_seconds()
        if span > 0:
            rate = (len(processed_at) - 1) / span
            print(f"processing: {rate:.1f} messages/s (first to last processed); "
                  f"ratio to the intake {rate / intake_rate:.2f}")
    if handle.flow is not None:
        flow = handle.flow
        print(f"in-flow control (backlog {flow.limit}, delay {flow.delay:g} s): "
              f"{flow.waited} of {args.messages} answers waited, "
              f"{flow.waited_seconds * 1000 / max(1, flow.waited):.0f} ms on average")
    else:
        print("in-flow control: off")
    if waits:
        print(f"250 -> receipt at the relay: p50 {pct(waits, 0.50) * 1000:.0f} ms, "
              f"p99 {pct(waits, 0.99) * 1000:.0f} ms, max {waits[-1] * 1000:.0f} ms; "
              f"lost {lost}")
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    child_cpu = ((children.ru_utime - children_before.ru_utime)
                 + (children.ru_stime - children_before.ru_stime)) - relay.total_cpu
    # less dependent on the machine's other load than the rates: the CPU the server process
    # (intake, processing, sender, and the bench's relay) spent per message
    print(f"server process CPU: {cpu * 1000 / args.messages:.1f} ms per message "
          f"({cpu:.1f} s in all)"
          + (f"; worker processes: {child_cpu * 1000 / args.messages:.1f} ms per message "
             f"({child_cpu:.1f} s)" if args.process_workers else ""))
    during = procs_after
    during.subtract(procs_before)
    if during:
        print("during the run (start-up left out), ms per message: " + ", ".join(
            f"{role} {seconds * 1000 / args.messages:.1f}" for role, seconds in during.items()))
    backends = sum(backends_after[pid] - backends_before.get(pid, 0.0)
                   for pid in backends_after)
    print(f"client process (the senders, the bench's): {client_cpu * 1000 / args.messages:.1f} "
          f"ms per message ({report['sending_cpu'] * 1000 / args.messages:.1f} sending); "
          f"relay process (the bench's): {relay_cpu * 1000 / args.messages:.1f}"
          " ms per message" + (f"; PostgreSQL server processes of this database: "
                              f"{backends * 1000 / args.messages:.1f} ms per message"
                              if engine.dialect.name == "postgresql" else ""))
    by_thread = threads_after
    by_thread.subtract(threads_before)
    print("server process CPU by thread, ms per message: " + ", ".join(
        f"{role} {seconds * 1000 / args.messages:.1f}"
        for role, seconds in by_thread.most_common()))
    print("load average (1, 5, 15 min): before " + " ".join(f"{x:.2f}" for x in load_before)
          + ", after " + " ".join(f"{x:.2f}" for x in load_after))
    return finish(engine, schema, checks)


if __name__ == "__main__":
    raise SystemExit(main())

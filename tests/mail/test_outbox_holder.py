"""A sender killed mid-send does not make its mails wait for the lease (issue 24 §6).

Killed with SIGKILL while sending a ranking's results, the restarted server left 20 of 120
result mails « sending » until the 300 s outbox lease ran out. A claimed row now records its
holder (host name, pid, the process's start stamp: ``mailer.holder``); any sender that sees
the holder is gone — same host, pid not running, or running a process started at another
time — takes the row back at once. A holder it cannot judge (another host, another boot or
pid namespace, a row claimed before migration 0012) keeps its lease.

Real parts: a child process sending through an aiosmtpd relay on loopback, SIGKILLed while
its second batch hangs in the relay's DATA; then an ``OutboxWorker`` of this process, with
the default 300 s lease, sends everything once. SQLite and PostgreSQL (``-m db``).
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import json
import os
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from flask import Flask

from tests.mail.conftest import wait_for
from tests.mail.helpers import rows
from tests.ports import free_port

pytestmark = [pytest.mark.db, pytest.mark.mail]

ROOT = Path(__file__).resolve().parents[2]
RESULTS = 45  # two full batches of 20 and five more
BATCH = 20

_SENDER = """
import asyncio, json, sys
from webapp import create_app
from mailer.outbox import send_due
app = create_app(json.loads(sys.argv[1]))
asyncio.run(send_due(app))
print("finished", flush=True)
"""


@dataclass
class StallingRelay:
    """Accepts the first ``accept`` messages, then holds every later DATA unanswered while
    ``stall`` is set (the sender is killed meanwhile); a stalled message is never recorded
    as accepted."""

    accept: int
    stall: bool = True
    accepted: list[bytes] = field(default_factory=list)
    stalled: list[bytes] = field(default_factory=list)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        data = envelope.original_content or b""
        if self.stall and len(self.accepted) >= self.accept:
            self.stalled.append(data)
            while self.stall:
                await asyncio.sleep(0.05)
                if server.transport is None or server.transport.is_closing():
                    return "451 4.3.0 client gone"
            return "451 4.3.0 try again"
        self.accepted.append(data)
        return "250 OK"

    def accepted_ids(self) -> list[str]:
        return [str(email.message_from_bytes(d, policy=email.policy.default)["Message-ID"])
                for d in self.accepted]


def _enqueue_results(app: Flask, n: int) -> None:
    from webapp.db import session_scope
    from webapp.models import OutboxKind
    from webapp.services.notify import enqueue, ranking_excerpt

    ranking = [{"rank": i, "name": f"Joueur {i}", "score": 1000 - i, "percent": None}
               for i in range(1, n + 1)]
    with app.app_context(), session_scope(app) as s:
        for i in range(1, n + 1):
            enqueue(session=s, kind=OutboxKind.RESULTS, to_addr=f"joueur{i}@example.org",
                    template="results", dedupe_key=f"results:final:R1:{i}",
                    context={"player_name": f"Joueur {i}", "problem_title": "Rangée n° 1",
                             "ranking": ranking_excerpt(ranking, i), "report_text": "",
                             "final_score": 1000 - i, "rank": i, "participants": n,
                             "results_url": None})


def _statuses(app: Flask) -> dict[str, int]:
    from webapp.models import OutboxMessage

    out: dict[str, int] = {}
    for r in rows(app, OutboxMessage):
        out[r.status] = out.get(r.status, 0) + 1
    return out


def _sender_config(app: Flask, relay_port: int) -> dict[str, Any]:
    keys = ("TESTING", "SECRET_KEY", "DATABASE_URL", "DATABASE_SCHEMA", "BASE_URL",
            "SUBMIT_DOMAIN", "INSTANCE_PATH", "MAIL_FROM")
    config = {k: app.config.get(k) for k in keys}
    config.update(SCHEDULER_ENABLED=False, MAIL_INTAKE_ENABLED=False,
                  SMTP_RELAY=f"127.0.0.1:{relay_port}", SMTP_TIMEOUT=3600.0,
                  # one connection per message of the batch: all 20 hang in DATA at once
                  OUTBOX_BATCH=BATCH, OUTBOX_CONNECTIONS=BATCH)
    return config


def test_a_sender_killed_mid_send_is_relieved_at_once(app: Flask) -> None:
    from mailer.outbox import OutboxWorker
    from webapp.models import OutboxMessage
    from webapp.services import clock

    _enqueue_results(app, RESULTS)
    handler = StallingRelay(accept=BATCH)
    port = free_port()
    # OUTBOX_LEASE_SECONDS stays the default 300 s
    app.config.update(OUTBOX_BATCH=BATCH, SMTP_RELAY=f"127.0.0.1:{port}")
    assert app.config.get("OUTBOX_LEASE_SECONDS") in (None, 300.0)
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    child = subprocess.Popen(
        [sys.executable, "-c", _SENDER, json.dumps(_sender_config(app, port))],
        cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    worker: OutboxWorker | None = None
    try:
        # the first batch is sent and marked, the second hangs in the relay's DATA, and
        # the last five are claimed meanwhile (the sender claims the next batch while one
        # is on the wire): the killed process holds 25 rows
        held_by_child = RESULTS - BATCH
        wait_for(lambda: len(handler.stalled) == BATCH and _statuses(app) == {
            "sent": BATCH, "sending": held_by_child} or child.poll() is not None, timeout=120)
        assert child.poll() is None, child.communicate()
        held = rows(app, OutboxMessage, status="sending")
        assert len(held) == held_by_child
        assert {(r.holder_host, r.holder_pid) for r in held} == {(socket.gethostname(),
                                                                  child.pid)}
        child.send_signal(signal.SIGKILL)
        child.wait(60)
        assert child.returncode == -signal.SIGKILL
        handler.stall = False
        # when each lease of the killed process runs out (claim + 300 s)
        lease_ends = {r.id: r.next_attempt_at for r in rows(app, OutboxMessage,
                                                             status="sending")}
        assert all(end > clock.now() for end in lease_ends.values())
        assert _statuses(app) == {"sent": BATCH, "sending": held_by_child}

        worker = OutboxWorker(app).start()  # a restarted server's sender
        wait_for(lambda: _statuses(app) == {"sent": RESULTS}, timeout=120)
    finally:
        if worker is not None:
            worker.stop()
        if child.poll() is None:
            child.kill()
            child.wait(60)
        for stream in (child.stdout, child.stderr):
            if stream is not None:
                stream.close()
        handler.stall = False
        controller.stop()
    final = rows(app, OutboxMessage)
    assert {r.subject for r in final} == {"Résultats : Rangée n° 1"}
    # none lost, none twice: each row's Message-ID reached the relay exactly once
    assert sorted(handler.accepted_ids()) == sorted(r.message_id for r in final)
    assert len(handler.accepted) == RESULTS
    retaken = [r for r in final if r.attempts == 2]
    assert sorted(r.id for r in retaken) == sorted(lease_ends)
    # sent again before their lease ran out: taken back because their holder was gone
    assert all(r.sent_at is not None and r.sent_at < lease_ends[r.id] for r in retaken)
    assert {r.holder_pid for r in retaken} == {os.getpid()}
    assert sorted(r.attempts for r in final) == [1] * BATCH + [2] * held_by_child


def _hold(app: Flask, row_id: int, host: str | None, pid: int | None,
          start: str | None) -> None:
    from webapp.db import session_scope
    from webapp.models import OutboxMessage, OutboxStatus
    from webapp.services import clock

    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    with app.app_context(), session_scope(app) as s:
        s.execute(sa.update(table).where(table.c.id == row_id).values(
            status=OutboxStatus.SENDING, attempts=1,
            next_attempt_at=clock.now() + timedelta(seconds=300),
            holder_host=host, holder_pid=pid, holder_start=start))


def test_only_holders_surely_gone_lose_their_rows(app: Flask) -> None:
    from mailer import holder
    from mailer.outbox import send_pending
    from webapp.models import OutboxMessage

    me = holder.this_process()
    assert me.start is not None  # Linux: /proc is there
    boot_and_namespace, _, _ = me.start.rpartition("/")
    handler = StallingRelay(accept=100, stall=False)
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    app.config.update(SMTP_RELAY=f"127.0.0.1:{port}")
    alive = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        dead_stamp = wait_for(lambda: holder.stamp_of(dead.pid), timeout=60)
        dead.wait(60)  # exited and reaped: its pid runs nothing now
        alive_stamp = wait_for(lambda: holder.stamp_of(alive.pid), timeout=60)
        _enqueue_results(app, 7)
        ids = [r.id for r in rows(app, OutboxMessage)]
        reused_ticks = int(alive_stamp.rpartition("/")[2]) + 1
        cases = {
            "other host": ("serveur-2.example.org", dead.pid, dead_stamp),
            "alive": (me.host, alive.pid, alive_stamp),
            "pid reused": (me.host, alive.pid, f"{boot_and_namespace}/{reused_ticks}"),
            "other boot": (me.host, dead.pid, "0b0b0b0b-0000-4000-8000-000000000000/"
                           + dead_stamp.split("/", 1)[1]),
            "dead": (me.host, dead.pid, dead_stamp),
            "no holder": (None, None, None),
            "this process": (me.host, me.pid, me.start),
        }
        by_case = dict(zip(cases, ids, strict=True))
        for case, (host, pid, start) in cases.items():
            _hold(app, by_case[case], host, pid, start)
        assert send_pending(app) == 2
    finally:
        alive.communicate(timeout=60)
        controller.stop()
    status = {r.id: r.status for r in rows(app, OutboxMessage)}
    assert {case for case, row_id in by_case.items() if status[row_id] == "sent"} == {
        "pid reused", "dead"}
    assert {case for case, row_id in by_case.items() if status[row_id] == "sending"} == {
        "other host", "alive", "other boot", "no holder", "this process"}
    sent_ids = {r.message_id for r in rows(app, OutboxMessage, status="sent")}
    assert sorted(handler.accepted_ids()) == sorted(sent_ids)

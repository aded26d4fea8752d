"""In-flow control (mailer/flow.py): the intake's ``250`` waits while the accepted work
not yet done is above ``MAIL_IN_FLOW_BACKLOG``, never longer than ``MAIL_IN_FLOW_DELAY``,
the message committed before the wait.

The gauge's own rules are tested with a backlog the test sets (the reader is the gauge's
one input); the backlog's reading on a real database, and the whole intake over real SMTP.
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask import Flask

from mailer.flow import InFlow
from tests.mail.conftest import ANA, Seed
from tests.mail.helpers import make_mail, rows
from tests.waiting import wait_for

SHEET = "Problème : I3\n1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"


class Backlog:
    """The backlog the gauge reads, set by the test (or raising, to stand for a database
    that does not answer)."""

    def __init__(self, value: int) -> None:
        self.value = value
        self.fail = False
        self.reads = 0

    def __call__(self) -> int:
        self.reads += 1
        if self.fail:
            raise OSError("database unavailable")
        return self.value


async def _wait_until(cond: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.005)


def test_under_the_limit_answers_wait_for_one_reading_only() -> None:
    """After a quiet spell the first answer waits for one reading (taken after its message
    was stored); the next ones, under the limit, do not wait at all."""
    backlog = Backlog(0)
    flow = InFlow(backlog, limit=5, delay=30.0)
    try:
        async def run() -> list[float]:
            return [await flow.admit() for _ in range(4)]

        waits = asyncio.run(run())
        assert flow.waited == 1
        assert waits[1:] == [0.0, 0.0, 0.0]
        assert backlog.reads >= 1
    finally:
        flow.stop()


def test_over_the_limit_answers_wait_and_go_in_their_order() -> None:
    backlog = Backlog(10)
    flow = InFlow(backlog, limit=5, delay=60.0)
    done: list[int] = []
    try:
        async def admit(k: int) -> None:
            await flow.admit()
            done.append(k)

        async def run() -> None:
            # a first reading (the gauge was idle): 10 > 5, so this one waits too
            first = asyncio.ensure_future(admit(0))
            await _wait_until(lambda: flow.read_at > 0 and len(flow._waiters) == 1)
            others = [asyncio.ensure_future(admit(k)) for k in (1, 2, 3)]
            await _wait_until(lambda: len(flow._waiters) == 4)
            reads = backlog.reads
            await _wait_until(lambda: backlog.reads >= reads + 3)
            assert done == []  # several readings over the limit: nobody goes
            # at the limit: one past it per reading (5 - 5 + 1), the oldest first
            backlog.value = 5
            await asyncio.wait_for(asyncio.gather(first, *others), 30)

        asyncio.run(run())
        assert done == [0, 1, 2, 3]
        assert flow.waited == 4
    finally:
        flow.stop()


def test_the_delay_is_a_bound_never_a_refusal() -> None:
    backlog = Backlog(1000)
    flow = InFlow(backlog, limit=5, delay=0.3)
    try:
        waited = asyncio.run(flow.admit())
        assert 0.3 <= waited < 30
        assert flow.waited == 1
    finally:
        flow.stop()


def test_a_backlog_that_cannot_be_read_lets_everyone_through(
        caplog: pytest.LogCaptureFixture) -> None:
    backlog = Backlog(1000)
    backlog.fail = True
    flow = InFlow(backlog, limit=5, delay=60.0)
    try:
        with caplog.at_level(logging.WARNING, logger="mailer.flow"):
            async def run() -> list[float]:
                return [await flow.admit() for _ in range(3)]

            waits = asyncio.run(run())
            wait_for(lambda: backlog.reads >= 5)
        assert all(w < 30 for w in waits)
        # logged once for the whole spell, not at every reading
        warnings = [r for r in caplog.records if "cannot read the backlog" in r.message]
        assert len(warnings) == 1
    finally:
        flow.stop()


def test_off_when_the_delay_is_zero() -> None:
    backlog = Backlog(1000)
    flow = InFlow(backlog, limit=0, delay=0.0)
    assert asyncio.run(flow.admit()) == 0.0
    assert backlog.reads == 0 and flow.waited == 0
    flow.stop()


@pytest.mark.db
def test_the_backlog_counts_stored_messages_and_mail_due(app: Flask) -> None:
    from mailer.flow import BacklogReader
    from webapp.db import session_scope
    from webapp.models import InboundMessage, OutboxMessage

    now = datetime.now(UTC)
    with session_scope(app) as s:
        for k, status in enumerate(["stored", "stored", "stored", "processed",
                                    "quarantined", "ignored"]):
            s.add(InboundMessage(received_at=now, channel="smtp", raw=b"x", sha256=f"h{k}",
                                 size=1, status=status))
        for k, (status, due) in enumerate([("pending", now - timedelta(seconds=1)),
                                           ("pending", now - timedelta(days=1)),
                                           ("pending", now + timedelta(hours=1)),
                                           ("sending", now + timedelta(seconds=300)),
                                           ("sending", now - timedelta(seconds=1)),
                                           ("sent", now), ("failed", now)]):
            s.add(OutboxMessage(created_at=now, kind="receipt", to_addr="a@example.org",
                                subject="s", body_text="t", message_id=f"<m{k}@x>",
                                status=status, next_attempt_at=due))
    reader = BacklogReader(app)
    try:
        # 3 stored + what the sender would claim now: 2 pending and due, 1 sending past
        # its lease (its sender stopped); not the one due in an hour, nor the one being
        # sent (its lease ahead: its relay may be slow); failed and sent rows are done
        assert reader() == 6
        with session_scope(app) as s:
            first = s.get(InboundMessage, 1)
            assert first is not None
            first.status = "processed"
        assert reader() == 5  # each reading sees what was committed since
    finally:
        reader.close()


@pytest.fixture
def app_config(app_config: dict[str, Any]) -> dict[str, Any]:
    app_config.update(MAIL_IN_FLOW_BACKLOG=0, MAIL_IN_FLOW_DELAY=120.0)
    return app_config


@pytest.mark.db
@pytest.mark.mail
def test_with_no_backlog_allowed_each_250_comes_once_its_sheet_is_answered(
        app: Flask, seed: Seed, intake: Any, smtp_port: int) -> None:
    """``MAIL_IN_FLOW_BACKLOG`` 0: each ``250`` waits until the message has been processed
    and its receipt taken by the sender — the message itself stored, with its time of
    receipt, before the wait."""
    from webapp.models import InboundMessage, OutboxMessage

    to = f"feuilles+{ANA[2]}@arbitre.test"
    with smtplib.SMTP("127.0.0.1", smtp_port, timeout=150) as client:
        for k in range(3):
            raw = make_mail(frm=f"{ANA[0]} <ana.ionescu@example.org>", to=to,
                            subject="Ma feuille", body=SHEET,
                            message_id=f"<flow{k}@example.org>")
            assert client.sendmail("ana.ionescu@example.org", [to], raw) == {}
            answered_at = datetime.now(UTC)
            inbound = {m.message_id: m for m in rows(app, InboundMessage)}
            mine = inbound[f"<flow{k}@example.org>"]
            assert mine.status == "processed"
            assert mine.processed_at is not None
            assert mine.received_at <= mine.processed_at <= answered_at
            receipts = [o for o in rows(app, OutboxMessage) if o.kind == "receipt"]
            assert len(receipts) == k + 1
            assert all(o.status != "pending" for o in receipts)
    assert intake.flow is not None and intake.flow.waited >= 3


@pytest.mark.db
def test_the_reader_takes_a_new_connection_after_losing_its_own(app: Flask) -> None:
    """PostgreSQL restarted, or the reader's backend ended: that reading fails (the gauge
    lets everyone through), the next one is taken on a new connection."""
    import sqlalchemy as sa

    from mailer.flow import BacklogReader
    from webapp.db import get_engine

    engine = get_engine(app)
    if engine.dialect.name != "postgresql":
        pytest.skip("ends a server process: PostgreSQL only")
    reader = BacklogReader(app)
    try:
        assert reader() == 0
        assert reader._conn is not None
        pid = reader._conn.execute(sa.select(sa.func.pg_backend_pid())).scalar_one()
        with engine.connect() as conn:
            assert conn.execute(sa.select(sa.func.pg_terminate_backend(pid))).scalar_one()
        with pytest.raises(sa.exc.OperationalError):
            reader()
        assert reader._conn is None
        assert reader() == 0
    finally:
        reader.close()

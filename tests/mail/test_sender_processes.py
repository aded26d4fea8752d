"""The outbox sent by sender processes of their own (``OUTBOX_SENDER_PROCESSES``, issue 23
§4: the deadline's results mails).

On PostgreSQL ``arbitre serve`` may start N sender processes beside the mail workers, each
claiming its batches ``FOR UPDATE SKIP LOCKED``. What must hold: no row sent twice by two
senders, every row sent, a sender killed mid-batch restarted and its rows taken again (they
are ``sending`` under its name: the next claim on this host sees that it is gone), nothing
lost. On SQLite the one sender thread of the serving process stays.

Real parts: ``mailer.intake.ProcessWorkers`` (real processes), an aiosmtpd relay on loopback,
the test database (``-m db``).
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import os
import signal
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiosmtpd.smtp import SMTP, Envelope, Session
from flask import Flask

from tests.mail.helpers import relay_for, rows
from tests.waiting import wait_for

pytestmark = [pytest.mark.db, pytest.mark.mail]


def _postgresql_only(app: Flask) -> None:
    if not str(app.config["DATABASE_URL"]).startswith("postgresql"):
        pytest.skip("sender processes claim with FOR UPDATE SKIP LOCKED: PostgreSQL only")


@dataclass
class HoldingRelay:
    """Accepts every message (its Message-ID recorded, with the connection's peer) after
    ``delay`` seconds; while ``hold`` is set, each DATA waits until it is cleared and is
    then answered 421 (the sender that sent it is gone by then: nothing was delivered)."""

    delay: float = 0.0
    hold: threading.Event = field(default_factory=threading.Event)
    held: int = 0
    accepted: list[str] = field(default_factory=list)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if self.hold.is_set():
            self.held += 1
            while self.hold.is_set():
                await asyncio.sleep(0.02)
            return "421 4.3.0 relais arrêté (test)"
        if self.delay:
            await asyncio.sleep(self.delay)
        msg = email.message_from_bytes(envelope.original_content or b"",
                                       policy=email.policy.default)
        self.accepted.append(str(msg["Message-ID"]))
        return "250 OK"


@pytest.fixture
def holding_relay(app: Flask) -> Iterator[HoldingRelay]:
    handler = HoldingRelay()
    app.config.update(OUTBOX_POLL_SECONDS=0.2)
    with relay_for(app, handler):
        yield handler
        handler.hold.clear()  # a held session lets go before the relay stops


def _enqueue(app: Flask, n: int, tag: str) -> None:
    """n notices queued together (one fan-out's INSERTs), whose commit NOTIFYs the senders."""
    from webapp.db import session_scope
    from webapp.models import OutboxKind, Player
    from webapp.services import notify

    players = [Player(id=i, name=f"Joueur {i}", email=f"joueur{i}@example.org")
               for i in range(1, n + 1)]
    with app.app_context(), session_scope(app) as s:
        added = notify._insert_many(s, (notify._new_message(
            kind=OutboxKind.LOGIN, to_addr=p.email, template="login",
            context={"player_name": p.name, "link": f"https://a.test/{p.id}",
                     "expires_minutes": 15},
            dedupe_key=f"{tag}:{p.id}", player_id=None, headers=None, locale=None)
            for p in players))
    assert added == n


def _sent(app: Flask) -> int:
    from webapp.models import OutboxMessage

    return sum(1 for r in rows(app, OutboxMessage) if r.status == "sent")


def test_sender_processes_send_every_row_once(app: Flask,
                                              holding_relay: HoldingRelay) -> None:
    _postgresql_only(app)
    from mailer.intake import APP_FACTORY, ProcessWorkers
    from webapp.models import OutboxMessage

    # small batches on slow connections: the three senders claim side by side
    app.config.update(OUTBOX_BATCH=10, OUTBOX_CONNECTIONS=2)
    holding_relay.delay = 0.01
    senders = ProcessWorkers(app, app.extensions[APP_FACTORY], 0, senders=3)
    try:
        assert senders.wait_ready(120)
        pids = set(senders.sender_pids)
        assert len(pids) == 3 and senders.pids == []
        _enqueue(app, 240, "senders")
        assert wait_for(lambda: _sent(app) == 240, timeout=120)
    finally:
        senders.stop()
    outbox = rows(app, OutboxMessage)
    assert Counter(holding_relay.accepted) == Counter(r.message_id for r in outbox)
    assert set(Counter(holding_relay.accepted).values()) == {1}  # none sent twice
    assert {r.attempts for r in outbox} == {1}
    holders = {r.holder_pid for r in outbox}
    assert holders <= pids and len(holders) >= 2  # the rows were shared among them


def test_a_sender_killed_mid_batch_is_restarted_and_its_rows_sent_once(
        app: Flask, holding_relay: HoldingRelay) -> None:
    _postgresql_only(app)
    from mailer.intake import APP_FACTORY, ProcessWorkers
    from webapp.models import OutboxMessage

    app.config.update(OUTBOX_BATCH=10, OUTBOX_CONNECTIONS=2)
    holding_relay.hold.set()
    senders = ProcessWorkers(app, app.extensions[APP_FACTORY], 0, senders=1)
    try:
        assert senders.wait_ready(120)
        (first,) = senders.sender_pids
        _enqueue(app, 25, "killed")
        # mid-batch: its claim committed, its messages on the wire, none delivered
        assert wait_for(lambda: holding_relay.held >= 1, timeout=120)
        held = [r for r in rows(app, OutboxMessage) if r.status == "sending"]
        assert held and {r.holder_pid for r in held} == {first}
        os.kill(first, signal.SIGKILL)
        holding_relay.hold.clear()  # the relay is fine again: the killed sender's loss only
        assert wait_for(lambda: senders.sender_pids != [first], timeout=120)
        assert wait_for(lambda: _sent(app) == 25, timeout=120)
    finally:
        senders.stop()
    outbox = rows(app, OutboxMessage)
    assert Counter(holding_relay.accepted) == Counter(r.message_id for r in outbox)
    assert set(Counter(holding_relay.accepted).values()) == {1}
    retaken = {r.id for r in held}
    # the killed sender's rows: a second attempt by the new sender, counted as such
    assert {r.attempts for r in outbox if r.id in retaken} == {2}
    assert {r.holder_pid for r in outbox} == set(senders.sender_pids)


def test_serve_starts_sender_processes_on_postgresql_only(app: Flask,
                                                         holding_relay: HoldingRelay) -> None:
    from mailer.intake import start_embedded

    app.config.update(OUTBOX_SENDER_PROCESSES=2, MAIL_SMTP_LISTEN="")
    handle: Any = start_embedded(app)
    try:
        if str(app.config["DATABASE_URL"]).startswith("postgresql"):
            assert handle.worker is None and handle.senders is not None
            assert len(handle.senders.sender_pids) == 2
            _enqueue(app, 5, "serve")
        else:  # one writer: the sender thread of the serving process, as before
            assert handle.worker is not None and handle.senders is None
            _enqueue(app, 5, "serve")
            handle.worker.wake()
        assert wait_for(lambda: _sent(app) == 5, timeout=120)
    finally:
        handle.stop()
    assert len(holding_relay.accepted) == 5

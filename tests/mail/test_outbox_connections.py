"""The outbox sender keeps its relay connections open (issue 23 §3).

A sender pass used to open one SMTP connection (greeting, EHLO, QUIT) per message; it now
carries a whole pass over at most ``OUTBOX_CONNECTIONS`` connections, one envelope after the
other. What must not change: a refusal costs its own message only (a 4xx is retried after
the backoff, a 5xx is ``failed``), a connection the relay cuts costs the message that was on
it (retried, never sent twice), and nothing is lost.

Real parts: an aiosmtpd relay on loopback that counts the connections it serves and refuses
what a test tells it to; ``mailer.outbox.send_due`` as the worker runs it. SQLite and
PostgreSQL (``-m db``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import email
import email.policy
from dataclasses import dataclass, field
from typing import Any

import pytest
from aiosmtpd.smtp import SMTP, Envelope, Session
from flask import Flask

from tests.mail.helpers import relay_for, rows
from tests.waiting import wait_for

pytestmark = [pytest.mark.db, pytest.mark.mail]


@dataclass
class CountingRelay:
    """Records each accepted message with the connection (client port) it came on;
    ``refuse_rcpt``: address -> the answers to give to its next RCPTs, in order;
    ``drop_data``: addresses whose first DATA is answered by closing the connection."""

    refuse_rcpt: dict[str, list[str]] = field(default_factory=dict)
    drop_data: set[str] = field(default_factory=set)
    delay: float = 0.0
    accepted: list[tuple[str, tuple[str, int]]] = field(default_factory=list)
    rcpt_seen: list[tuple[str, tuple[str, int]]] = field(default_factory=list)
    busy: int = 0
    most_busy: int = 0

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope,
                          address: str, rcpt_options: list[str]) -> str:
        self.rcpt_seen.append((address, tuple(session.peer)))
        answers = self.refuse_rcpt.get(address)
        if answers:
            return answers.pop(0)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.busy += 1
        self.most_busy = max(self.most_busy, self.busy)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            (to,) = envelope.rcpt_tos
            if to in self.drop_data:
                self.drop_data.discard(to)
                assert server.transport is not None
                server.transport.close()  # the relay goes away mid-message
                return "421 4.4.2 connexion coupée (test)"
            msg = email.message_from_bytes(envelope.original_content or b"",
                                           policy=email.policy.default)
            self.accepted.append((str(msg["Message-ID"]), tuple(session.peer)))
            return "250 OK"
        finally:
            self.busy -= 1

    def connections(self) -> set[tuple[str, int]]:
        return {peer for _, peer in self.rcpt_seen}


@pytest.fixture
def counting_relay(app: Flask) -> Any:
    handler = CountingRelay()
    # a retry waits an hour: within a pass nothing is retried; the tests end the wait
    app.config.update(OUTBOX_BACKOFF_SECONDS=3600.0)
    with relay_for(app, handler):
        yield handler


def _enqueue(app: Flask, n: int) -> list[str]:
    """n notices to joueurN@example.org; returns the addresses in order."""
    from webapp.db import session_scope
    from webapp.models import OutboxKind
    from webapp.services.notify import enqueue

    to = [f"joueur{i}@example.org" for i in range(1, n + 1)]
    with app.app_context(), session_scope(app) as s:
        for i, addr in enumerate(to, 1):
            enqueue(session=s, kind=OutboxKind.LOGIN, to_addr=addr,
                    template="login", dedupe_key=f"test-connections:{i}",
                    context={"player_name": f"Joueur {i}", "link": f"https://a.test/{i}",
                             "expires_minutes": 15})
    return to


def _send(app: Flask) -> int:
    from mailer.outbox import send_due

    with app.app_context():
        return asyncio.run(send_due(app))


def _backoff_over(app: Flask, row_id: int) -> None:
    """The retry delay of one row has run out (instead of waiting an hour)."""
    import sqlalchemy as sa

    from webapp.db import session_scope
    from webapp.models import OutboxMessage
    from webapp.services import clock

    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    with app.app_context(), session_scope(app) as s:
        s.execute(sa.update(table).where(table.c.id == row_id, table.c.status == "pending")
                  .values(next_attempt_at=clock.now()))


def _by_addr(app: Flask) -> dict[str, Any]:
    from webapp.models import OutboxMessage

    return {r.to_addr: r for r in rows(app, OutboxMessage)}


def test_a_pass_goes_over_one_connection_and_a_refused_recipient_costs_only_its_mail(
        app: Flask, counting_relay: CountingRelay) -> None:
    app.config.update(OUTBOX_CONNECTIONS=1, OUTBOX_BATCH=10)
    to = _enqueue(app, 25)  # three claims of 10, 10 and 5
    temporary, permanent = to[6], to[13]
    counting_relay.refuse_rcpt = {
        temporary: ["451 4.2.1 boîte pleine, réessayez (test)"],
        permanent: ["550 5.1.1 utilisateur inconnu (test)"],
    }

    assert _send(app) == 23
    # the 25 envelopes of the pass, refusals included, over one single connection
    assert len(counting_relay.rcpt_seen) == 25
    assert len(counting_relay.connections()) == 1
    assert {peer for _, peer in counting_relay.accepted} == counting_relay.connections()
    rows_now = _by_addr(app)
    assert rows_now[permanent].status == "failed"
    assert "550" in (rows_now[permanent].last_error or "")
    assert rows_now[temporary].status == "pending"
    assert rows_now[temporary].attempts == 1
    assert "451" in (rows_now[temporary].last_error or "")
    assert {a for a, r in rows_now.items() if r.status == "sent"} == set(to) - {temporary,
                                                                             permanent}

    assert _send(app) == 0  # not due before its backoff
    # after the backoff the 451 one goes, once; nothing else is sent again
    _backoff_over(app, rows_now[temporary].id)
    assert _send(app) == 1
    final = _by_addr(app)
    assert final[temporary].status == "sent" and final[temporary].attempts == 2
    sent_ids = [mid for mid, _ in counting_relay.accepted]
    assert sorted(sent_ids) == sorted(r.message_id for r in final.values()
                                      if r.status == "sent")
    assert len(sent_ids) == len(set(sent_ids)) == 24
    assert final[permanent].status == "failed" and final[permanent].attempts == 1


def test_a_connection_cut_mid_batch_costs_the_mail_on_it_and_none_is_sent_twice(
        app: Flask, counting_relay: CountingRelay) -> None:
    app.config.update(OUTBOX_CONNECTIONS=1, OUTBOX_BATCH=20)
    to = _enqueue(app, 12)
    cut = to[4]
    counting_relay.drop_data = {cut}

    assert _send(app) == 11
    rows_now = _by_addr(app)
    assert rows_now[cut].status == "pending" and rows_now[cut].attempts == 1
    # the message after the cut went on a new connection: two in all
    assert len(counting_relay.connections()) == 2
    _backoff_over(app, rows_now[cut].id)
    assert _send(app) == 1
    final = _by_addr(app)
    assert {r.status for r in final.values()} == {"sent"}
    sent_ids = [mid for mid, _ in counting_relay.accepted]
    assert sorted(sent_ids) == sorted(r.message_id for r in final.values())
    assert len(sent_ids) == len(set(sent_ids)) == 12


def test_parallel_connections_are_bounded_by_the_setting(
        app: Flask, counting_relay: CountingRelay) -> None:
    app.config.update(OUTBOX_CONNECTIONS=3, OUTBOX_BATCH=30)
    counting_relay.delay = 0.05  # every DATA takes a while: the lanes overlap
    _enqueue(app, 30)

    assert _send(app) == 30
    assert counting_relay.most_busy == 3
    assert len(counting_relay.connections()) == 3
    per_connection = [sum(1 for _, p in counting_relay.accepted if p == peer)
                      for peer in counting_relay.connections()]
    assert sum(per_connection) == 30 and min(per_connection) >= 2
    ids = [mid for mid, _ in counting_relay.accepted]
    assert len(set(ids)) == 30


def test_after_a_421_the_sender_does_not_reuse_the_connection(
        app: Flask, counting_relay: CountingRelay) -> None:
    """421 is the relay closing the connection (RFC 5321 §3.8): that mail is retried later,
    the next ones go over a new connection."""
    app.config.update(OUTBOX_CONNECTIONS=1, OUTBOX_BATCH=20)
    to = _enqueue(app, 6)
    closing = to[2]
    counting_relay.refuse_rcpt = {closing: ["421 4.3.2 fermeture du service (test)"]}

    assert _send(app) == 5
    peers = [peer for _, peer in counting_relay.rcpt_seen]
    assert len(set(peers[:3])) == 1 and len(set(peers[3:])) == 1 and peers[2] != peers[3]
    rows_now = _by_addr(app)
    assert rows_now[closing].status == "pending" and "421" in (rows_now[closing].last_error
                                                               or "")
    _backoff_over(app, rows_now[closing].id)
    assert _send(app) == 1
    sent_ids = [mid for mid, _ in counting_relay.accepted]
    assert len(sent_ids) == len(set(sent_ids)) == 6


def test_batches_overlap_and_a_pass_stopped_by_an_error_holds_nothing(
        app: Flask, counting_relay: CountingRelay, monkeypatch: pytest.MonkeyPatch) -> None:
    """The next batch is claimed while one is on the wire. A pass that stops on an error
    (here: the second batch's sending) records the first batch's outcomes and gives the
    batch it claimed ahead back at once (``pending``, due now): nothing is left ``sending``
    for the lease to free, and the next pass sends everything once."""
    from mailer import outbox

    app.config.update(OUTBOX_CONNECTIONS=2, OUTBOX_BATCH=5)
    _enqueue(app, 15)
    real_attempt = outbox._attempt
    batches: list[int] = []

    async def failing_second_batch(app_: Flask, settings: Any, c: Any, msg: Any,
                                   relay: Any) -> dict[str, Any]:
        if c.id not in batches:
            batches.append(c.id)
        if len(batches) > 5:
            raise RuntimeError("pass interrupted (test)")
        return await real_attempt(app_, settings, c, msg, relay)

    monkeypatch.setattr(outbox, "_attempt", failing_second_batch)
    with pytest.raises(RuntimeError):
        _send(app)
    statuses = sorted(r.status for r in rows(app, _outbox_model()))
    # the first batch sent and marked; the second (on the wire when the pass stopped) is
    # left to its lease like any interrupted send; the third, claimed ahead, is pending
    assert statuses.count("sent") == 5
    assert statuses.count("pending") == 5
    assert statuses.count("sending") == 5

    monkeypatch.setattr(outbox, "_attempt", real_attempt)
    assert _send(app) == 5  # the batch given back (the interrupted one waits for its lease)
    ids = [mid for mid, _ in counting_relay.accepted]
    assert len(ids) == len(set(ids)) == 10


def _outbox_model() -> Any:
    from webapp.models import OutboxMessage

    return OutboxMessage


def _sender(app: Flask, runner: asyncio.Runner) -> Any:
    from mailer.outbox import Sender
    from mailer.settings import MailSettings

    return Sender(app, MailSettings.from_config(app.config), runner)


def test_a_sender_keeps_its_connection_from_pass_to_pass_and_closes_it_once_idle(
        app: Flask, counting_relay: CountingRelay) -> None:
    """The sender thread and processes keep their connections between passes (a rush is
    many short passes: one connection, greeting, and TLS and login at a real relay, for
    all of them); one idle ``OUTBOX_KEEP_SECONDS`` is closed with ``QUIT``."""
    app.config.update(OUTBOX_CONNECTIONS=1, OUTBOX_BATCH=10, OUTBOX_KEEP_SECONDS=3600.0)
    with app.app_context(), asyncio.Runner() as runner:
        sender = _sender(app, runner)
        try:
            for n in (3, 4, 2):
                _enqueue_more(app, n)
                assert sender.send_pass() == n
            assert len(counting_relay.accepted) == 9
            assert len(counting_relay.connections()) == 1
            assert sender.relay.opened == 1 and sender.relay.open_connections == 1
            sender.close_idle()  # not idle an hour: kept
            assert sender.relay.open_connections == 1
            # idle longer than the setting (a millisecond here): closed
            sender.settings = dataclasses.replace(sender.settings, keep_seconds=0.001)
            wait_for(lambda: (sender.close_idle(), sender.relay.open_connections == 0)[1])
        finally:
            sender.close()
    assert {r.status for r in rows_of(app)} == {"sent"}


def test_a_kept_connection_the_relay_closed_meanwhile_costs_no_message(app: Flask) -> None:
    """The relay ends an idle connection (its own timeout) between two passes: the next
    pass sees it gone and opens another; no message fails an attempt."""
    from aiosmtpd.controller import Controller

    from tests.ports import free_port

    handler = CountingRelay()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port, timeout=0.5)
    controller.start()
    app.config.update(SMTP_RELAY=f"127.0.0.1:{port}", OUTBOX_CONNECTIONS=1,
                      OUTBOX_KEEP_SECONDS=3600.0, OUTBOX_BACKOFF_SECONDS=3600.0)
    try:
        with app.app_context(), asyncio.Runner() as runner:
            sender = _sender(app, runner)
            try:
                _enqueue_more(app, 2)
                assert sender.send_pass() == 2
                (kept, _), = sender.relay._idle
                # the relay's timeout ends it; the client sees it once its loop runs
                wait_for(lambda: (runner.run(asyncio.sleep(0.02)), not kept.is_connected)[1])
                _enqueue_more(app, 3)
                assert sender.send_pass() == 3
                assert sender.relay.opened == 2
            finally:
                sender.close()
    finally:
        controller.stop()
    final = rows_of(app)
    assert {(r.status, r.attempts) for r in final} == {("sent", 1)}
    assert len(handler.accepted) == 5 and len(handler.connections()) == 2


_ENQUEUED = [0]


def _enqueue_more(app: Flask, n: int) -> None:
    """n more notices, to addresses not used before in the test."""
    from webapp.db import session_scope
    from webapp.models import OutboxKind
    from webapp.services.notify import enqueue

    with app.app_context(), session_scope(app) as s:
        for _ in range(n):
            _ENQUEUED[0] += 1
            i = _ENQUEUED[0]
            enqueue(session=s, kind=OutboxKind.LOGIN, to_addr=f"suivant{i}@example.org",
                    template="login", dedupe_key=f"test-kept:{i}",
                    context={"player_name": f"Joueur {i}", "link": f"https://a.test/{i}",
                             "expires_minutes": 15})


def rows_of(app: Flask) -> list[Any]:
    from webapp.models import OutboxMessage

    return list(rows(app, OutboxMessage))

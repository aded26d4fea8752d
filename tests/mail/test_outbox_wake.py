"""Mail queued in the serving process wakes its outbox sender at the commit (issue 23 §4).

The scheduler composes a deadline's results mails 200 per transaction in the process whose
``OutboxWorker`` sends them; the worker used to find each chunk at its next
``OUTBOX_POLL_SECONDS`` tick. Now a fan-out's commit wakes it (``notify.QUEUED_HOOKS``): with
a poll of an hour, the mails are still delivered, once each, and nothing is woken by a
transaction rolled back. Real parts: ``OutboxWorker``, the aiosmtpd relay of the mail
fixtures, the test database (``-m db``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from flask import Flask

from tests.mail.conftest import Relay, Seed
from tests.mail.helpers import rows
from tests.waiting import wait_for

pytestmark = [pytest.mark.db, pytest.mark.mail]


@pytest.fixture
def app_config(app_config: dict[str, Any]) -> dict[str, Any]:
    app_config.update(OUTBOX_POLL_SECONDS=3600.0)  # only a wake-up can start a pass
    return app_config


def _fan_out(app: Flask, seed: Seed, tag: str, *, commit: bool = True) -> int:
    from sqlmodel import select

    from webapp.db import session_scope
    from webapp.models import OutboxKind, Player
    from webapp.services import notify

    with app.app_context(), session_scope(app) as s:
        players = list(s.exec(select(Player).order_by(Player.id)).all())
        added = notify.fan_out(
            session=s, players=players, key=lambda p: f"{tag}:{p.id}",
            kind=OutboxKind.RESULTS, template="results",
            context=lambda p: {"player_name": p.name, "problem_title": "Intégral n° 3",
                               "ranking": [{"rank": 1, "name": p.name, "score": 100}]})
        if not commit:
            s.rollback()
    return added


def test_a_fan_out_committed_in_this_process_wakes_the_sender(
        app: Flask, seed: Seed, relay: Relay) -> None:
    from mailer.outbox import OutboxWorker
    from webapp.models import OutboxMessage
    from webapp.services import notify

    worker = OutboxWorker(app).start()
    try:
        assert worker.wake in app.extensions[notify.QUEUED_HOOKS]
        assert _fan_out(app, seed, "premier") == 2
        assert wait_for(lambda: len(relay.handler.accepted) == 2, timeout=60)
        # a second fan-out, after the first pass ended and the worker went back to its wait
        assert _fan_out(app, seed, "second") == 2
        assert wait_for(lambda: len(relay.handler.accepted) == 4, timeout=60)
    finally:
        worker.stop()
    assert worker.wake not in app.extensions[notify.QUEUED_HOOKS]
    outbox = rows(app, OutboxMessage)
    assert {r.status for r in outbox} == {"sent"} and len(outbox) == 4
    ids = Counter(str(m["Message-ID"]) for m in relay.handler.messages())
    assert ids == Counter(r.message_id for r in outbox)  # each once


def test_a_rolled_back_fan_out_wakes_nothing_and_leaves_nothing(
        app: Flask, seed: Seed) -> None:
    from webapp.models import OutboxMessage
    from webapp.services import notify

    woken: list[int] = []
    app.extensions[notify.QUEUED_HOOKS] = [lambda: woken.append(1)]
    assert _fan_out(app, seed, "annulé", commit=False) == 2
    assert woken == [] and rows(app, OutboxMessage) == []
    assert _fan_out(app, seed, "validé") == 2
    assert woken == [1]

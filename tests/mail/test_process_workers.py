"""Processing in worker processes (``MAIL_PROCESS_WORKERS``, issue 23 §3), and the batch's
shared reads (one duplicate query per batch).

On PostgreSQL the stored messages may be processed by worker processes of their own, each
claiming its lane of senders ``FOR UPDATE SKIP LOCKED``. What must hold, as with the
threads: every message processed once (one sheet, one receipt), one player's messages in
the order they arrived, a failing message quarantined alone, the sender woken. Real parts:
``mailer.intake.ProcessWorkers`` (real processes) on the test database (``-m db``).
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any

import pytest
from flask import Flask

from tests.mail.conftest import Seed
from tests.mail.helpers import rows
from tests.mail.two_senders import alternating_sheets, assert_each_once_in_order

pytestmark = [pytest.mark.db, pytest.mark.mail]


def _postgresql_only(app: Flask) -> None:
    if not str(app.config["DATABASE_URL"]).startswith("postgresql"):
        pytest.skip("worker processes claim with FOR UPDATE SKIP LOCKED: PostgreSQL only")


def test_copies_within_one_batch_are_duplicates_of_the_first(app: Flask, seed: Seed) -> None:
    from mailer import pipeline
    from webapp.models import InboundMessage, OutboxMessage, Submission

    (item,) = alternating_sheets(1, "worker")
    ids = pipeline.store_many(app, [item, item, item])
    assert pipeline.process_batch(app, ids) == {
        ids[0]: "processed", ids[1]: "duplicate", ids[2]: "duplicate"}
    inbound = rows(app, InboundMessage)
    assert [r.error for r in inbound[1:]] == [f"doublon du message n° {ids[0]}"] * 2
    assert [r.player_id for r in inbound] == [seed.ana_id] * 3
    assert len(rows(app, Submission)) == 1
    assert len(rows(app, OutboxMessage, kind="receipt")) == 1


def test_worker_processes_process_every_message_once_and_each_players_in_order(
        app: Flask, seed: Seed) -> None:
    _postgresql_only(app)
    from mailer import pipeline
    from mailer.intake import APP_FACTORY, ProcessWorkers

    woken = threading.Event()
    workers = ProcessWorkers(app, app.extensions[APP_FACTORY], 2, on_processed=woken.set)
    try:
        items = alternating_sheets(24, "worker")
        # as the listener stores them: in several commits, each NOTIFYing the workers
        ids = [i for k in range(0, 24, 5)
               for i in pipeline.store_many(app, items[k:k + 5], notify=True)]
        assert workers.wait_idle(120)
        assert woken.wait(30)  # the workers' commits woke the sender
    finally:
        workers.stop()

    assert_each_once_in_order(app, seed, ids)


def test_lanes_split_the_senders_and_a_claim_quarantines_only_the_failing_message(
        app: Flask, seed: Seed, monkeypatch: pytest.MonkeyPatch) -> None:
    _postgresql_only(app)
    import webapp.services.submissions as submissions
    from mailer import pipeline
    from webapp.models import InboundMessage, OutboxMessage, Submission

    real_submit = submissions.submit_sheet

    def picky(**kwargs: Any) -> Any:
        if kwargs["text"].endswith("165"):
            raise RuntimeError("panne pour cette feuille")
        return real_submit(**kwargs)

    monkeypatch.setattr(submissions, "submit_sheet", picky)
    ids = pipeline.store_many(app, alternating_sheets(8, "worker"))
    # two lanes: each sender's messages in one of them, all of them in one or the other
    claimed = [pipeline.process_claimed(app, lane=lane, lanes=2, limit=50) for lane in (0, 1)]
    assert sorted(claimed) in ([0, 8], [4, 4])
    assert pipeline.process_claimed(app, lane=0, lanes=1, limit=50) == 0  # nothing left
    inbound = {r.id: r for r in rows(app, InboundMessage)}
    failed = ids[5]  # « ... 84 165 »
    assert inbound[failed].status == "quarantined"
    assert "panne pour cette feuille" in (inbound[failed].error or "")
    assert Counter(r.status for r in inbound.values()) == {"processed": 7, "quarantined": 1}
    assert len(rows(app, Submission)) == 7
    assert len(rows(app, OutboxMessage, kind="receipt")) == 7


def test_a_killed_worker_is_restarted_and_loses_nothing(app: Flask, seed: Seed) -> None:
    _postgresql_only(app)
    import os
    import signal

    from mailer import pipeline
    from mailer.intake import APP_FACTORY, ProcessWorkers
    from webapp.models import InboundMessage, OutboxMessage, Submission

    workers = ProcessWorkers(app, app.extensions[APP_FACTORY], 1)
    try:
        assert workers.wait_ready(120)
        (first,) = workers.pids
        os.kill(first, signal.SIGKILL)
        # stored while the only worker is dead: nothing may be lost, nothing done twice
        ids = pipeline.store_many(app, alternating_sheets(6, "worker"), notify=True)
        assert workers.wait_idle(120)
        assert workers.pids != [first]  # the watcher started another one
    finally:
        workers.stop()
    assert Counter(r.status for r in rows(app, InboundMessage)) == {"processed": 6}
    assert sorted(s.inbound_message_id for s in rows(app, Submission)) == sorted(ids)
    assert len(rows(app, OutboxMessage, kind="receipt")) == 6


def test_the_watcher_listens_again_after_losing_its_connection(app: Flask, seed: Seed) -> None:
    """The watcher's LISTEN connection is cut (a database restart does that): it listens on
    a new one and still restarts a worker that died — before, it only logged the failure, and
    a worker killed afterwards was never replaced."""
    _postgresql_only(app)
    import os
    import signal

    import sqlalchemy as sa

    from mailer import pipeline
    from mailer.intake import APP_FACTORY, ProcessWorkers
    from tests.waiting import wait_for
    from webapp.db import get_engine
    from webapp.models import InboundMessage

    workers = ProcessWorkers(app, app.extensions[APP_FACTORY], 1)
    try:
        assert workers.wait_ready(120)
        cut = workers._listener.info.backend_pid
        with get_engine(app).connect() as conn:
            assert conn.execute(sa.select(sa.func.pg_terminate_backend(cut))).scalar_one()
        assert wait_for(lambda: not workers._listener.closed
                        and workers._listener.info.backend_pid != cut, timeout=120)
        (first,) = workers.pids
        os.kill(first, signal.SIGKILL)
        ids = pipeline.store_many(app, alternating_sheets(4, "watch"), notify=True)
        assert workers.wait_idle(120)
        assert workers.pids != [first]
    finally:
        workers.stop()
    assert Counter(r.status for r in rows(app, InboundMessage)) == {"processed": 4}
    assert len(ids) == 4

"""A Duplicate round's scheduled steps are not starved by a stream of bulletins (PostgreSQL).

A bulletin being stored holds the game FOR SHARE, so that a step (close, correction), which
takes the game alone, never misses an on-time bulletin still being written. A row lock
alone is not fair: PostgreSQL grants a new FOR SHARE beside those held even while a FOR
UPDATE waits, and in the 10,000-player Duplicate burst of 02/12/2026 the round closed 148 s
after its deadline, while late bulletins kept coming. ``duplicate.lock_game`` takes an
advisory lock first, which queues: here two bulletin transactions hand the shared lock to
each other so that one always holds it, and the close, correction, publication and next
draw all go through all the same.

The two-round ZA game of tests/web/za_game.py (round 1 ZAEIBCD, closing 24 h after START)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from sqlmodel import Session, col

from tests.conftest import on_postgres
from tests.web.za_game import START, za_game
from webapp.db import session_scope
from webapp.models import Channel, Competition, DuplicateGame, Player
from webapp.services import clock, duplicate, duplicate_pages, lifecycle

pytestmark = [pytest.mark.db,
              pytest.mark.skipif(not on_postgres(), reason="row-lock queueing: PostgreSQL")]

#: a generous bound on every wait (a busy machine), never a sleep before an assertion
BOUND = 60.0


def test_the_steps_get_the_game_while_bulletins_keep_holding_it_shared(
    app: Flask, ctx: Flask, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    make_player("Bob", "bob@example.fr")
    za_game(app, db_session, competition, tmp_path, code="D1", title="Duplicate du lundi",
            rhythm={"kind": "hours", "hours": 24})
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    game = duplicate_pages.game_by_code(db_session, "D1")
    assert game is not None and game.id is not None
    game_id = game.id
    duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="H7 ZA 22",
                              channel=Channel.WEB, received_at=clock.now())
    db_session.commit()

    stop = threading.Event()
    turn = threading.Condition()
    taken = [0, 0]  # how many times each holder has taken the shared lock
    overlaps = [0, 0]  # times each one held it while the other took it
    errors: list[BaseException] = []

    def holder(me: int) -> None:
        other = 1 - me
        try:
            with app.app_context():
                while not stop.is_set():
                    with session_scope() as s:
                        duplicate.lock_game(s, game_id, shared=True)
                        with turn:
                            taken[me] += 1
                            seen = taken[other]
                            turn.notify_all()
                            # hand over: keep it until the other has taken it anew, so one of
                            # the two always holds it; give up the turn after 0.5 s (when the
                            # other waits in the queue behind a step)
                            def handed(seen: int = seen) -> bool:
                                return taken[other] > seen or stop.is_set()
                            if turn.wait_for(handed, 0.5):
                                overlaps[me] += not stop.is_set()
        except BaseException as exc:  # noqa: BLE001 - reported by the test below
            errors.append(exc)

    holders = [threading.Thread(target=holder, args=(i,), daemon=True) for i in (0, 1)]
    for t in holders:
        t.start()
    done: list[list[str]] = []
    starved = True
    try:
        # the stream is on: the two have held the game at once, in turn, before the close
        with turn:
            assert turn.wait_for(lambda: min(overlaps) >= 3, BOUND)
        frozen_clock.move_to(START + timedelta(hours=24, seconds=1))
        now = clock.now()

        def steps() -> None:
            with app.app_context():
                done.append(duplicate.advance(game_id, now=now))

        runner = threading.Thread(target=steps, daemon=True)
        runner.start()
        runner.join(BOUND)
        starved = runner.is_alive()
    finally:
        stop.set()
        for t in holders:
            t.join(BOUND)
    if starved:  # the stream stopped: let the steps end before the database goes
        runner.join(BOUND)
    assert not starved, "the round's steps waited behind the bulletins as long as they came"
    assert not errors
    assert done == [["close:D1:1", "correct:D1:1", "publish:D1:1", "draw:D1:2"]]


def test_a_web_bulletin_a_mail_batch_and_a_step_never_wait_in_a_cycle(
    app: Flask, ctx: Flask, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """A mail batch locks its players' rows at its start, then takes the game shared for a
    bulletin in it; a web bulletin of one of those players takes his row, then the game: the
    same order, so a step waiting for the game closes no cycle. With the game first in the
    web bulletin, the batch waited behind the step, the step behind the web bulletin and the
    web bulletin behind the batch, until PostgreSQL's deadlock detector (``deadlock_timeout``,
    1 s) let the batch go ahead of the step; here the web bulletin waiting for the player's
    row holds nothing of the game, and the steps go through meanwhile."""
    ana = make_player("Ana", "ana@example.ro")
    za_game(app, db_session, competition, tmp_path, code="D1", title="Duplicate du lundi",
            rhythm={"kind": "hours", "hours": 24})
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    game = duplicate_pages.game_by_code(db_session, "D1")
    assert game is not None and game.id is not None and ana.id is not None
    game_id, ana_id = game.id, ana.id
    in_time = clock.now() + timedelta(hours=1)
    frozen_clock.move_to(START + timedelta(hours=24, seconds=1))
    now = clock.now()
    errors: list[BaseException] = []
    done: list[Any] = []

    def waiting_on_locks() -> int:
        with app.app_context(), session_scope() as s:
            return int(s.execute(sa.text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND wait_event_type = 'Lock'")).scalar_one())

    def until(condition: Callable[[], bool]) -> bool:
        end = time.monotonic() + BOUND
        while time.monotonic() < end:
            if condition():
                return True
            time.sleep(0.02)
        return False

    def web_bulletin() -> None:
        try:
            with app.app_context(), session_scope() as s:
                player = s.get(Player, ana_id)
                g = s.get(DuplicateGame, game_id)
                assert player is not None and g is not None
                done.append(duplicate.submit_bulletin(
                    session=s, player=player, game=g, text="H7 ZA 22", channel=Channel.WEB,
                    received_at=in_time).late)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def steps() -> None:
        try:
            with app.app_context():
                done.append(duplicate.advance(game_id, now=now))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    with app.app_context(), session_scope() as batch:
        # the mail batch: its players' rows first (pipeline._players_by_envelope_token)
        batch.execute(sa.select(Player.id).where(col(Player.id) == ana_id)
                      .with_for_update(key_share=True))
        web = threading.Thread(target=web_bulletin, daemon=True)
        web.start()
        assert until(lambda: waiting_on_locks() >= 1)  # the web bulletin waits for Ana's row
        # ... holding nothing of the game yet
        with app.app_context(), session_scope() as s:
            assert s.execute(sa.text(
                "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database "
                "WHERE d.datname = current_database() AND l.locktype = 'advisory' "
                "AND l.granted")).scalar_one() == 0
        # so the round's steps go through while the batch and the web bulletin are in flight
        step = threading.Thread(target=steps, daemon=True)
        step.start()
        step.join(BOUND)
        assert not step.is_alive()
        duplicate.lock_game(batch, game_id, shared=True)  # the batch's bulletin
    for t in (web, step):
        t.join(BOUND)
        assert not t.is_alive()
    assert not errors, errors
    assert sorted(map(str, done)) == sorted(
        ["False", str(["close:D1:1", "correct:D1:1", "publish:D1:1", "draw:D1:2"])])

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
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlmodel import Session

from tests.conftest import on_postgres
from tests.web.za_game import START, za_game
from webapp.db import session_scope
from webapp.models import Channel, Competition, Player
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

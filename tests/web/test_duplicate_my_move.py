"""Issue 22 §4: « « Mon coup » shows what the player sent for a round scored 0 » (the
Duplicate game page's own results, ``duplicate/game.html`` « Mes résultats »).

The two-round ZA game of tests/web/za_game.py: round 1 draws ZAEIBCD on the empty grid; the
top is ZA at H7 = (Z 10 + A 1) × 2 = 22. Three players: Ana sends « H7 ZAS 24 », a word
that takes an S the draw ZAEIBCD lacks (null: 0); Bob sends « H7 ZA 22 » (the top, 22);
Cléo sends nothing (0, no bulletin)."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session

from tests.web.test_pages import login_player
from tests.web.za_game import START, za_game
from webapp.models import Channel, Competition, Player
from webapp.services import clock, duplicate, duplicate_pages, lifecycle

pytestmark = pytest.mark.db


def _my_row(page: str) -> list[str]:
    m = re.search(r'<tr class="my-result">(.*?)</tr>', page, re.S)
    assert m, "no result row"
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split())
            for c in re.findall(r"<td[^>]*>(.*?)</td>", m.group(1), re.S)]


def test_my_move_shows_what_i_sent_for_a_round_scored_0(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cleo = make_player("Cléo", "cleo@example.fr")
    za_game(app, db_session, competition, tmp_path, code="D1",
            rhythm={"kind": "hours", "hours": 24})
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    game = duplicate_pages.game_by_code(db_session, "D1")
    assert game is not None
    for who, text in ((ana, "H7 ZAS 24"), (bob, "H7 ZA 22")):
        duplicate.submit_bulletin(session=db_session, player=who, game=game, text=text,
                                  channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    frozen_clock.move_to(START + timedelta(hours=24))
    assert lifecycle.run_due(now=clock.now())[:2] == ["close:D1:1", "correct:D1:1"]
    login_player(client, ana)
    row = _my_row(client.get("/duplicate/D1").get_data(as_text=True))
    assert row[0] == "1" and row[1] == "22" and row[3] == "0"
    print("ROW", row)
    assert "H7 ZAS 24" in row[2]
    login_player(client, bob)
    assert _my_row(client.get("/duplicate/D1").get_data(as_text=True))[2:4] == ["H7 ZA", "22"]
    login_player(client, cleo)
    assert _my_row(client.get("/duplicate/D1").get_data(as_text=True))[2:4] == [
        "(aucun bulletin)", "0"]

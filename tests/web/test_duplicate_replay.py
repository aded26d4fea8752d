"""« Rejouer ce tour » (issue 21 « From any position »): every round of a stored game,
replayed and topped alone from its stored position by ``duplicate.replay_round`` (nothing
stored, the action audited), gives the draw, top and verdicts the server stored when it
played the whole game — compared with the golden snapshots recorded before the round games
moved behind one protocol (``tests/data/snapshots/server/<game>.json``), for every family:
the plain Duplicate and the Duplicate Top, the letter-choice games (Complétif, Superjoker,
Métagramme, Elliptique), the Tactique, the Partie de Superscrabble, and the games where the
arbitre retained another top (the later rounds start from his grid). The console's page
shows it in French and in Romanian."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from tests.snapshots import SNAPSHOTS
from tests.web.test_pages import login_arbitre
from tests.web.test_round_snapshots import GAMES, play
from webapp.models import AuditLog, Competition, DuplicateRound, Player
from webapp.services import duplicate

pytestmark = pytest.mark.db


def _snapshot(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((SNAPSHOTS / "server" / f"{name}.json").read_text("utf-8"))
    return data


@pytest.mark.parametrize("name", list(GAMES))
def test_every_round_replayed_from_its_position_gives_what_is_stored(
    name: str, app: Flask, ctx: Flask, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    game = play(name, app, db_session, competition, make_player, frozen_clock, tmp_path)
    snap = _snapshot(name)
    rounds = list(db_session.exec(select(DuplicateRound).where(
        DuplicateRound.game_id == game.id).order_by(col(DuplicateRound.number))).all())
    assert [r.number for r in rounds] == [r["number"] for r in snap["rounds"]]
    for rnd, stored in zip(rounds, snap["rounds"], strict=True):
        replayed = duplicate.replay_round(session=db_session, game=game, rnd=rnd,
                                          actor="arbitre")
        assert replayed.draw == stored["draw"]
        assert replayed.retained == stored["top"]
        if stored["top_overridden_by"] is None:
            assert replayed.top == stored["top"]
        assert replayed.results == stored["results"]
        assert replayed.identical
    db_session.commit()
    audited = db_session.exec(select(AuditLog).where(
        AuditLog.action == "duplicate.replay_round")).all()
    assert len(audited) == len(rounds)


def test_replay_of_an_arbitres_top_shows_the_engines_and_the_retained(
    app: Flask, ctx: Flask, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Duplicate, round 1: the engine tops H7 ZA 22, the arbitre retained H8 ZA (20); the
    verdicts are those against his top; round 2 starts from his grid (ZA at H8)."""
    game = play("duplicate_override", app, db_session, competition, make_player,
                frozen_clock, tmp_path)
    first, second = db_session.exec(select(DuplicateRound).where(
        DuplicateRound.game_id == game.id).order_by(col(DuplicateRound.number))).all()
    one = duplicate.replay_round(session=db_session, game=game, rnd=first, actor="arbitre")
    assert (one.top["ref"], one.top["word"], one.top["score"]) == ("H7", "ZA", 22)
    assert (one.retained["ref"], one.retained["word"]) == ("H8", "ZA")
    assert one.overridden_by == "arbitre" and one.identical
    two = duplicate.replay_round(session=db_session, game=game, rnd=second, actor="arbitre")
    assert two.draw == second.draw and two.top == second.top


@pytest.mark.parametrize(("name", "number", "shown"), [
    ("duplicate", 2, "H7 ZAS"),                # the plain Duplicate: ZA 22, then ZAS 12
    ("completif", 3, "7H ZAS +A"),             # a letter-choice game: the letter taken
    ("tactique", 2, "9G + 7H AS + ZA"),        # two groups, a two-word top (15)
    ("superscrabble", 3, "1A ANTISERA"),       # the arbitre's rack on the grid as it stands
])
def test_console_replays_a_round_in_french_and_romanian(
    name: str, number: int, shown: str, app: Flask, client: FlaskClient, db_session: Session,
    competition: Competition, make_player: Callable[..., Player], frozen_clock: Any,
    tmp_path: Path,
) -> None:
    with app.app_context():
        game = play(name, app, db_session, competition, make_player, frozen_clock, tmp_path)
        code = game.code
    login_arbitre(client, db_session)
    page = client.get(f"/console/duplicate/{code}").get_data(as_text=True)
    assert f"/console/duplicate/{code}/tours/{number}/rejouer" in page
    assert "Rejouer ce tour" in page
    resp = client.post(f"/console/duplicate/{code}/tours/{number}/rejouer")
    text = resp.get_data(as_text=True)
    assert resp.status_code == 200
    assert f"Tour {number} rejoué depuis sa position" in text
    assert "Identique à ce qui est enregistré : tirage, top et verdicts." in text
    assert shown in text
    assert text.count('class="replay-row"') == 4  # Ana, Bob, Cid, Dan
    db_session.expire_all()
    assert db_session.exec(select(AuditLog).where(
        AuditLog.action == "duplicate.replay_round", AuditLog.target == code)).first()
    ro = client.post(f"/console/duplicate/{code}/tours/{number}/rejouer",
                     headers={"Accept-Language": "ro"}).get_data(as_text=True)
    assert f"Runda {number} rejucată din poziția ei" in ro
    assert "Identic cu ce este înregistrat: tragerea, topul și verdictele." in ro

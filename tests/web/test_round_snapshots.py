"""Golden snapshots of the server's round games (issue 21: « pin today's behaviour first,
then move code »): a plain Duplicate and every variant played through the services — created
by ``duplicate.create_game``, bulletins by ``duplicate.submit_bulletin`` (web and e-mail),
rounds drawn, closed, corrected and published by ``lifecycle.run_due`` under the frozen
clock — then the stored JSON compared byte for byte with
``tests/data/snapshots/server/<game>.json``: each ``DuplicateRound``'s ``draw``, ``top``,
``results`` (and its grids and state), each ``DuplicateEntry``'s ``bulletin`` and parse
errors, the game's stored settings and state, and ``duplicate.standings()``. Four games
also pin the arbitre's other top (``duplicate.override_top`` between the correction and the
publication: the bulletins corrected again, the next rounds drawn on the arbitre's grid).

The games are those of the web tests (tests/web/za_game.py, test_duplicate_variants.py,
test_duplicate_variants_more.py, test_duplicate_variants_warnings.py), with the same word
lists, bags and bulletins; the arithmetic is checked there, this file only pins the stored
forms so that moving the engine's code (issue 21) cannot change them silently. Record a
deliberate change with ``ARBITRE_UPDATE_SNAPSHOTS=1``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlmodel import Session, col, select

from puzzles.duplicate import DuplicateSettings
from scoring.tiles import tileset
from tests.snapshots import SNAPSHOTS, check_snapshot
from tests.web.za_game import START, full_bag, use_word_list
from webapp.models import (
    Channel,
    Competition,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    Player,
)
from webapp.services import clock, duplicate, lifecycle

pytestmark = pytest.mark.db

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)
PLAYERS = (("Ana", "ana@example.ro"), ("Bob", "bob@example.fr"), ("Cid", "cid@example.fr"),
           ("Dan", "dan@example.fr"))


def _bag(first: str) -> str:
    rest = tileset("fr").bag() - Counter(first)
    return first + "".join(sorted(rest.elements()))


@dataclass(frozen=True)
class Spec:
    """A game of the web tests: its variant, word list, bag (or Superscrabble start and
    racks), rounds, and per round the bulletins of Ana, Bob, Cid, Dan (None: no bulletin;
    Bob and Dan write by e-mail, Ana and Cid on the web form)."""

    variant: str
    words: tuple[str, ...]
    rounds: int
    plays: tuple[tuple[str | None, ...], ...]
    bag: str | None = None
    superscrabble: dict[str, Any] = field(default_factory=dict)
    #: the arbitre's other top (round → reference, word), retained once the round is
    #: corrected, before its publication (the game then has an hour of review)
    overrides: dict[int, tuple[str, str]] = field(default_factory=dict)


GAMES: dict[str, Spec] = {
    # tests/web/za_game.py and test_duplicate.py: ZA 22, then ZAS 12; a warning, a
    # reference missing, a score missing, a bulletin that cannot be read
    "duplicate": Spec("", ("ZA", "ZAS"), 2, (
        ("H7 ZA 22", "H8 ZA 20", "ZA 22", "n'importe quoi"),
        ("H7 ZAS 12", "ZAS 12", "H7 ZAS", None),
    ), bag=full_bag()),
    # test_duplicate_variants_warnings.py (Duplicate Top, four warnings cost a top)
    "top": Spec("top", ("ZA", "ZAS", "BE"), 4, (
        ("H7 ZA 22", "H8 ZA 20", None, "H8 BE 10"),
        ("H7 ZAS 12", "H7 ZAS 10", None, "H7 ZAS 11"),
        ("7H ZA 12", "7H ZA 21", None, "7H ZA 13"),
        ("7H ZAS 12", "7H ZAS 2", None, "7H ZAS"),
    ), bag=_bag("ZAEIBCDSEAS")),
    # tests/puzzles/test_variants_replay.py's Complétif warnings game, on the server
    "completif": Spec("completif", ("ZA", "ZAS", "SAC"), 4, (
        ("H7 ZA 22 +A", "H7 ZA 20 +A", "H7 ZA 22 +1", None),
        ("9H SAC 18 +A", "9H SAC 17 +A", None, None),
        ("7H ZAS 13 +A", "7H ZAS 14 +A", None, None),
        ("J7 SAC 5 +A", "J7 SAC 6 +A", None, None),
    ), bag=_bag("ZEIBCDSSEC")),
    # test_duplicate_variants.py (SJ1)
    "superjoker": Spec("superjoker", ("ZA", "ZAS"), 1, (
        ("H6 ZAS 24 +AS", "H7 ZAS 24 +A", "H8 ZA 22 +AS", None),
    ), bag=_bag("ZEIBC")),
    # test_duplicate_variants.py (M1)
    "metagramme": Spec("metagramme", ("ZA", "ZAS"), 1, (
        ("H7 ZAS 24 -E +A", "H7 ZAS 24 +A", "H8 ZAS 24 -Z +A", None),
    ), bag=_bag("ZEIBCDS")),
    # test_duplicate_variants_more.py (EL1)
    "elliptique": Spec("elliptique", ("ENTRAILS", "ENTRAIS", "ZA"), 2, (
        ("H2 ENTRAIS 66", "H1 ENTRAILS 70", "H8 ENTRAIS 66", None),
        (None, None, None, "6G ZA 11"),
    ), bag=_bag("ENTRAILS" + "ZAEIBCD")),
    # test_duplicate_variants.py (TA1, TA2)
    "tactique": Spec("tactique", ("ZA", "ZAS", "AS"), 2, (
        ("H7 ZA 22 + H7 ZAS 12 = 34", "H7 ZA 22 + H7 ZAS 12 = 30", "H7 ZA 22", None),
        ("G9 AS 3 + 7H ZA 12 = 15", "7H ZA 12", None, None),
    ), bag=_bag("ZAEIBCDSEOUFGH" + "AAA")),
    # test_duplicate_variants_warnings.py (SW1)
    "superscrabble": Spec("superscrabble", ("LA", "ENTRAILS", "ANTISERA", "STAINERS"), 4, (
        ("8A ANTISERA ; 1", "8A ANTISERA", "8A ANTISERA ; 2", None),
        ("A1 ANTISERA ; 1", "A1 ANTISERA", "A1 ANTISERA ; 2", None),
        ("1A ANTISERA ; 1", "1A ANTISERA", "1A ANTISERA ; 2", None),
        ("E8 STAINERS ; 1", "E8 STAINERS", None, "E8 STAINERS, 8A ANTISERA ; 2"),
    ), superscrabble={"start": "H7 LA", "racks": ["RETAINS"] * 4}),
    # the arbitre's other top (console « Autre top »): test_duplicate.py (H8 ZA), the
    # Métagramme M1 (H7 ZAS -E +A), the Tactique TA2 (H8 + H8, ZA + ZAS), the Superscrabble
    # SS1 (7B ENTRAILS); the later rounds are drawn on the arbitre's grid
    "duplicate_override": Spec("", ("ZA", "ZAS"), 2, (
        ("H7 ZA 22", "H8 ZA 22", "ZA 22", None),
        ("H7 ZAS 12", "H8 ZAS 12", None, "9H AS 2"),
    ), bag=full_bag(), overrides={1: ("H8", "ZA")}),
    "metagramme_override": Spec("metagramme", ("ZA", "ZAS"), 1, (
        ("H7 ZAS 24 -E +A", "H7 ZAS 24 +A", "H8 ZAS 24 -Z +A", None),
    ), bag=_bag("ZEIBCDS"), overrides={1: ("H7", "ZAS -E +A")}),
    "tactique_override": Spec("tactique", ("ZA", "ZAS", "AS"), 2, (
        ("H7 ZA 22 + H7 ZAS 12 = 34", "H8 ZA 22 + H8 ZAS 12 = 34", None, None),
        ("G10 AS 2 + 8G ZA 11 = 13", None, None, None),
    ), bag=_bag("ZAEIBCDSEOUFGH" + "AAA"), overrides={1: ("H8 + H8", "ZA + ZAS")}),
    "superscrabble_override": Spec("superscrabble", ("LA", "ENTRAILS", "ANTISERA"), 1, (
        ("8A ANTISERA, 8H ANTISERA, 7B ENTRAILS ; 3",
         "8H ANTISERA, 8H ANTISERA, H2 ENTRAILS ; 2", None, None),
    ), superscrabble={"start": "H7 LA", "racks": ["RETAINS"]}, overrides={1: ("7B", "ENTRAILS")}),
}


def _round_of(session: Session, game: DuplicateGame, number: int) -> DuplicateRound:
    session.expire_all()
    return session.exec(select(DuplicateRound).where(DuplicateRound.game_id == game.id,
                                                     DuplicateRound.number == number)).one()


def _stored(session: Session, game: DuplicateGame) -> dict[str, Any]:
    """Everything the server stored for ``game``, in its stored key order."""
    session.expire_all()
    g = session.get(DuplicateGame, game.id)
    assert g is not None
    names = {p.id: p.name for p in session.exec(select(Player)).all()}
    rounds = list(session.exec(select(DuplicateRound).where(DuplicateRound.game_id == g.id)
                               .order_by(col(DuplicateRound.number))).all())
    number = {r.id: r.number for r in rounds}
    entries = session.exec(select(DuplicateEntry).where(
        col(DuplicateEntry.round_id).in_(list(number)))).all()
    return {
        "status": str(g.status),
        "settings": g.settings,
        "state_text": g.state_text,
        "rounds": [{
            "number": r.number, "status": str(r.status), "draw": r.draw,
            "state_before": r.state_before, "grid_before": r.grid_before,
            "grid_after": r.grid_after, "top": r.top, "top_overridden_by": r.top_overridden_by,
            "results": r.results,
        } for r in rounds],
        "entries": [{
            "round": number[e.round_id], "player": names[e.player_id], "version": e.version,
            "channel": str(e.channel), "received_at": e.received_at.isoformat(),
            "raw_text": e.raw_text, "late": e.late, "parse_errors": e.parse_errors,
            "bulletin": e.bulletin,
        } for e in sorted(entries, key=lambda e: (number[e.round_id], names[e.player_id],
                                                  e.version))],
        "standings": duplicate.standings(session, g),
    }


def play(name: str, app: Flask, db_session: Session, competition: Competition,
         make_player: Callable[..., Player], frozen_clock: Any,
         tmp_path: Path) -> DuplicateGame:
    """Play the game ``name`` of :data:`GAMES` to its end through the services (code
    ``SN1``): every round drawn, its bulletins sent, closed, corrected, the arbitre's other
    top retained where the game has one, published."""
    spec = GAMES[name]
    use_word_list(app, tmp_path, "".join(f"{w}\n" for w in spec.words), name="w")
    players = [make_player(n, e) for n, e in PLAYERS]
    review = 60 if spec.overrides else 0
    game = duplicate.create_game(
        session=db_session, competition=competition, title=f"Partie {name}", code="SN1",
        settings=DuplicateSettings(lang="fr", rounds=spec.rounds),
        rhythm={"kind": "hours", "hours": 24}, starts_at=START, lexicon_name="w",
        bag_order=spec.bag, variant=spec.variant, review_minutes=review,
        superscrabble=spec.superscrabble or None)
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:SN1:1"]
    for n, row in enumerate(spec.plays, 1):
        rnd = _round_of(db_session, game, n)
        frozen_clock.move_to(rnd.opens_at + HOUR)
        for i, (player, text) in enumerate(zip(players, row, strict=True)):
            if text is not None:
                channel = Channel.EMAIL if i % 2 else Channel.WEB
                duplicate.submit_bulletin(session=db_session, player=player, game=game,
                                          text=text, channel=channel, received_at=clock.now())
                db_session.commit()
        frozen_clock.move_to(rnd.closes_at)
        steps = lifecycle.run_due(now=clock.now())
        if not review:
            assert steps[:3] == [f"close:SN1:{n}", f"correct:SN1:{n}", f"publish:SN1:{n}"]
            continue
        assert steps == [f"close:SN1:{n}", f"correct:SN1:{n}"], steps
        if n in spec.overrides:
            ref, word = spec.overrides[n]
            duplicate.override_top(session=db_session, game=game,
                                   rnd=_round_of(db_session, game, n), ref=ref, word=word,
                                   actor="arbitre", reason="choix de l'arbitre")
            db_session.commit()
        frozen_clock.move_to(rnd.closes_at + review * timedelta(minutes=1))
        assert lifecycle.run_due(now=clock.now())[0] == f"publish:SN1:{n}"
    db_session.expire_all()
    g = db_session.get(DuplicateGame, game.id)
    assert g is not None and g.status == DuplicateStatus.FINISHED
    return g


@pytest.mark.parametrize("name", list(GAMES))
def test_server_game_matches_its_snapshot(
    name: str, app: Flask, ctx: Flask, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    spec = GAMES[name]
    g = play(name, app, db_session, competition, make_player, frozen_clock, tmp_path)
    stored = _stored(db_session, g)
    assert len(stored["rounds"]) == spec.rounds
    check_snapshot(SNAPSHOTS / "server" / f"{name}.json",
                   json.dumps(stored, ensure_ascii=False, indent=1) + "\n")

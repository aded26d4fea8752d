"""Issue 22 §1: « its classement général counts them by the competition's rule » — a
finished correspondence game is one event of its series' standings: its result places its
two players (winner 1st, loser 2nd, a draw shared), the score is each player's final total
as his sheet records it, the percentage the points of his result (100, 50, 0), and the FRSc
place points follow the place (RULES §10 [E18]: 1000 the 1st, 859 the 2nd at value 100; a
draw shares (1000 + 859) / 2 = 929.50).

Word list {ZA, ZAS}; French values Z 10, A 1, S 1, E 1.
- CX1, Ana (RED) – Bob (BLUE), row ZAEEEEE SEEEEEE (nothing left to draw): Ana H8 ZA on the
  centre's double word, (10 + 1) × 2 = 22, recorded 10 (round I cap for RED, RULES §8.1);
  Bob H8 ZAS, 10 + 1 + 1 = 12 (H10 is a plain square), recorded 12 (BLUE's cap 20); then
  four passes end the game: Ana loses her five E's, 10 − 5 = 5; Bob his six, 12 − 6 = 6:
  Bob wins.
- CX2, Cid (RED) – Ana (BLUE), row of 14 E's: four passes, each loses 7: −7 – −7, a draw.
- CX3, Bob (RED) – Cid (BLUE), same row as CX1: Bob H8 ZA (recorded 10), Cid never answers
  and loses on time after the 72 h and the 24 h of grace: Bob wins, 10 to 0.

sum_scores: Ana 5 − 7 = −2, Bob 6 + 10 = 16, Cid −7 + 0 = −7 → Bob, Ana, Cid.
sum_percent: Ana 0 + 50 = 50, Bob 100 + 100 = 200, Cid 50 + 0 = 50 → Bob 200; Ana and Cid
  50 each, both played two games, their best results 50 and 50 — shared 2nd place.
frsc_points: Ana 859 + 929.50 = 1788.50, Bob 1000 + 1000 = 2000, Cid 929.50 + 859 =
  1788.50 → Bob 2000, then Ana and Cid share 2nd (same best results).
A game still in play counts nothing."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session

from tests.web.test_duplicate import START
from webapp.models import Channel, Competition, CorrespondenceGame, Player, RankingRule
from webapp.services import clock, correspondence, lifecycle
from webapp.services.standings import championship_standings

pytestmark = pytest.mark.db

HOUR = timedelta(hours=1)


def _lines(s: Session, comp: Competition) -> list[tuple[int, str, Decimal, bool]]:
    s.expire_all()
    table = championship_standings(s, comp)
    return [(ln.row.place, ln.name, ln.row.total, ln.row.ex_aequo) for ln in table.lines]


def _cells(s: Session, comp: Competition) -> dict[str, list[Decimal | None]]:
    table = championship_standings(s, comp)
    return {ln.name: [c.value if c.played else None for c in ln.row.contributions]
            for ln in table.lines}


def test_finished_correspondence_games_are_events_of_the_standings(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], tmp_path: Path, frozen_clock: Any,
) -> None:
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    ana = make_player("Ana Popescu", "ana@example.ro")
    bob = make_player("Bob Martin", "bob@example.fr")
    cid = make_player("Cid Dumas", "cid@example.fr")
    frozen_clock.move_to(START)
    games: dict[str, CorrespondenceGame] = {}
    for code, red, blue, row in (("CX1", ana, bob, "ZAEEEEESEEEEEE"),
                                 ("CX2", cid, ana, "E" * 14),
                                 ("CX3", bob, cid, "ZAEEEEESEEEEEE")):
        games[code] = correspondence.create_game(
            session=db_session, competition=competition, red=red, blue=blue, row=row,
            starts_at=START, code=code, lexicon_name="za")
    db_session.commit()

    def play(player: Player, code: str, text: str, hours: float) -> tuple[int, int]:
        frozen_clock.move_to(START + hours * HOUR)
        out = correspondence.submit_move(session=db_session, player=player, game=games[code],
                                         text=text, channel=Channel.WEB,
                                         received_at=clock.now())
        db_session.commit()
        return out.score, out.recorded

    assert play(ana, "CX1", "H8 ZA", 1) == (22, 10)
    assert play(bob, "CX1", "H8 ZAS", 2) == (12, 12)
    assert play(bob, "CX3", "H8 ZA", 2.5) == (22, 10)
    for k, who in enumerate((ana, bob, ana, bob)):
        play(who, "CX1", "passe", 3 + k)
    # CX2 still in play, CX3 waiting for Cid: only CX1 counts
    competition.ranking_rule = RankingRule.SUM_SCORES
    db_session.add(competition)
    db_session.commit()
    assert _lines(db_session, competition) == [
        (1, "Bob Martin", Decimal(6), False), (2, "Ana Popescu", Decimal(5), False)]
    for k, who in enumerate((cid, ana, cid, ana)):
        play(who, "CX2", "passe", 10 + k)
    # Cid never plays in CX3: lost on time 72 h + 24 h after Bob's move
    frozen_clock.move_to(START + 2.5 * HOUR + 97 * HOUR)
    lifecycle.run_due(now=clock.now())
    db_session.expire_all()
    finished = {code: (g.status, g.result_red, g.result_blue, correspondence.state_of(g).totals)
                for code, g in ((c, db_session.get(CorrespondenceGame, g.id))
                                for c, g in games.items()) if g is not None}
    assert finished == {"CX1": ("finished", 0.0, 1.0, (5, 6)),
                        "CX2": ("finished", 0.5, 0.5, (-7, -7)),
                        "CX3": ("finished", 1.0, 0.0, (10, 0))}

    for rule, expected, cells in (
        (RankingRule.SUM_SCORES,
         [(1, "Bob Martin", Decimal(16), False), (2, "Ana Popescu", Decimal(-2), False),
          (3, "Cid Dumas", Decimal(-7), False)],
         {"Ana Popescu": [Decimal(5), Decimal(-7), None],
          "Bob Martin": [Decimal(6), None, Decimal(10)],
          "Cid Dumas": [None, Decimal(-7), Decimal(0)]}),
        (RankingRule.SUM_PERCENT,
         [(1, "Bob Martin", Decimal(200), False), (2, "Ana Popescu", Decimal(50), False),
          (2, "Cid Dumas", Decimal(50), True)],
         {"Ana Popescu": [Decimal(0), Decimal(50), None],
          "Bob Martin": [Decimal(100), None, Decimal(100)],
          "Cid Dumas": [None, Decimal(50), Decimal(0)]}),
        (RankingRule.FRSC_POINTS,
         [(1, "Bob Martin", Decimal(2000), False), (2, "Ana Popescu", Decimal("1788.5"), False),
          (2, "Cid Dumas", Decimal("1788.5"), True)],
         {"Ana Popescu": [Decimal(859), Decimal("929.5"), None],
          "Bob Martin": [Decimal(1000), None, Decimal(1000)],
          "Cid Dumas": [None, Decimal("929.5"), Decimal(859)]}),
    ):
        competition.ranking_rule = rule
        db_session.add(competition)
        db_session.commit()
        assert _lines(db_session, competition) == expected, rule
        assert _cells(db_session, competition) == cells, rule
    table = championship_standings(db_session, competition)
    assert [(c.code, c.game, c.title, c.provisional) for c in table.columns] == [
        ("CX1", "correspondence", "Ana Popescu – Bob Martin", False),
        ("CX2", "correspondence", "Cid Dumas – Ana Popescu", False),
        ("CX3", "correspondence", "Bob Martin – Cid Dumas", False)]
    page = client.get("/competitions/cn2026/classement").get_data(as_text=True)
    for code in ("CX1", "CX2", "CX3"):
        assert f'href="/correspondance/{code}"' in page
    assert "1788,50" in page and "929,50" in page

"""Issue 22 §1: « its classement général counts them by the competition's rule » — a
finished Duplicate game is one event of the competition's standings: a player's total
(sum_scores), his percentage of the tops (sum_percent) or the FRSc place points of his
rank (frsc_points, RULES §10 [E18]: places 1–10 earn 1000, 859, 801, … at value 100).

The game is tests/web/test_people.py's three-player ZA game: Ana 34, Bob 34 (1st ex
æquo), Cid 12 (3rd): the tops 22 + 12 = 34, so 100.00 %, 100.00 % and 12/34 = 35.29 %.
FRSc, ex æquo sharing the places' points (ChampionshipSettings.frsc_ex_aequo = "share"):
Ana and Bob (1000 + 859) / 2 = 929.50, Cid 801. Dan, registered (after the game), sent no bulletin:
he is not in the standings (as a player who sent no sheet to a problem). A running game counts
nothing yet."""

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

from tests.web.za_game import START, za_game
from webapp.models import Channel, Competition, Player, RankingRule
from webapp.services import clock, duplicate, lifecycle
from webapp.services.standings import championship_standings

pytestmark = pytest.mark.db


def _lines(s: Session, comp: Competition) -> list[tuple[int, str, Decimal, bool]]:
    table = championship_standings(s, comp)
    return [(ln.row.place, ln.name, ln.row.total, ln.row.ex_aequo) for ln in table.lines]


def test_a_finished_duplicate_is_one_event_of_the_standings(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], tmp_path: Path, frozen_clock: Any,
) -> None:
    ana = make_player("Ana Popescu", "ana@example.ro")
    bob = make_player("Bob Martin", "bob@example.fr")
    cid = make_player("Cid Dumas", "cid@example.fr")
    game = za_game(app, db_session, competition, tmp_path)
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:EX1:1"]
    for rnd, lines in ((1, ((ana, "H7 ZA 22"), (bob, "H8 ZA 22"), (cid, "H7 AZ 22"))),
                       (2, ((ana, "H7 ZAS 12"), (bob, "H7 ZAS 12"), (cid, "H7 ZAS 12")))):
        frozen_clock.move_to(START + timedelta(hours=rnd))
        for pl, line in lines:
            duplicate.submit_bulletin(session=db_session, player=pl, game=game, text=line,
                                      channel=Channel.WEB, received_at=clock.now())
        db_session.commit()
        lifecycle.run_due(now=clock.now())
        if rnd == 1:  # running: nothing counted yet
            assert _lines(db_session, competition) == []
    db_session.expire_all()
    # registered once the game is over, never a bulletin: not counted
    make_player("Dan Ionescu", "dan@example.ro")

    for rule, expected in (
        (RankingRule.SUM_SCORES, [(1, "Ana Popescu", Decimal(34), False),
                                  (1, "Bob Martin", Decimal(34), True),
                                  (3, "Cid Dumas", Decimal(12), False)]),
        (RankingRule.SUM_PERCENT, [(1, "Ana Popescu", Decimal("100"), False),
                                   (1, "Bob Martin", Decimal("100"), True),
                                   (3, "Cid Dumas", Decimal("35.29"), False)]),
        (RankingRule.FRSC_POINTS, [(1, "Ana Popescu", Decimal("929.5"), False),
                                   (1, "Bob Martin", Decimal("929.5"), True),
                                   (3, "Cid Dumas", Decimal(801), False)]),
    ):
        competition.ranking_rule = rule
        db_session.add(competition)
        db_session.commit()
        assert _lines(db_session, competition) == expected, rule
    page = client.get("/competitions/cn2026/classement").get_data(as_text=True)
    assert 'href="/duplicate/EX1"' in page
    assert "929,50" in page

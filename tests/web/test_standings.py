"""The championship's general ranking under each rule, from the problems' rankings."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session

from webapp.models import Ranking, RankingKind
from webapp.services.rankings import standings

pytestmark = pytest.mark.db


def _ranking(db_session, prob, kind, rows):  # type: ignore[no-untyped-def]
    db_session.add(Ranking(problem_id=prob.id, kind=kind, rows=[
        {"rank": r, "player_id": pid, "name": name, "club": "", "score": score,
         "percent": pct}
        for r, pid, name, score, pct in rows
    ]))
    db_session.commit()


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        # Ana 166+100, Bob 82+120, Cid 150 (one problem only)
        ("sum_scores", [(1, "Ana", 266), (2, "Bob", 202), (3, "Cid", 150)]),
        # Ana 100+83.33, Bob 49.4+100, Cid 90.36
        ("sum_percent", [(1, "Ana", 183.33), (2, "Bob", 149.4), (3, "Cid", 90.36)]),
        # RULES §10: Ana 1st then 2nd -> 1000+859; Bob 3rd then 1st -> 801+1000; Cid 2nd -> 859
        ("frsc_points", [(1, "Ana", 1859), (2, "Bob", 1801), (3, "Cid", 859)]),
    ],
)
def test_standings(ctx, db_session: Session, competition, make_problem, rule, expected):
    competition.ranking_rule = rule
    db_session.add(competition)
    p1 = make_problem(code="P1", deadline=timedelta(days=1))
    p2 = make_problem(code="P2", deadline=timedelta(days=2))
    _ranking(db_session, p1, RankingKind.FINAL, [
        (1, 1, "Ana", 166, 100.0), (2, 3, "Cid", 150, 90.36), (3, 2, "Bob", 82, 49.4)])
    _ranking(db_session, p2, RankingKind.PROVISIONAL, [
        (1, 2, "Bob", 120, 100.0), (2, 1, "Ana", 100, 83.33)])
    rows = standings(session=db_session, competition=competition)
    assert [(r["rank"], r["name"], r["total"]) for r in rows] == expected
    assert all(r["provisional"] for r in rows)  # P2 counted with its provisional ranking


def test_equal_totals_share_the_rank(ctx, db_session: Session, competition, make_problem):
    competition.ranking_rule = "sum_scores"
    db_session.add(competition)
    p1 = make_problem(code="P1")
    _ranking(db_session, p1, RankingKind.FINAL, [
        (1, 1, "Ana", 166, 100.0), (2, 2, "Bob", 166, 100.0), (3, 3, "Cid", 82, 49.4)])
    rows = standings(session=db_session, competition=competition)
    assert [(r["rank"], r["name"], r["total"], r["provisional"]) for r in rows] == [
        (1, "Ana", 166, False), (1, "Bob", 166, False), (3, "Cid", 82, False)]

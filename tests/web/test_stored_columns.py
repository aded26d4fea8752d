"""The JSON columns are read into typed values by one reader each (webapp.services.stored):
the pure packages' types come back, defaults stand for what was never stored, and a damaged
column fails loudly (or, for the pages' readable_puzzle, gives None)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session

from puzzles.championship import ChampionshipSettings
from puzzles.families import GameType
from puzzles.feuille import Feuille
from puzzles.problem import Problem as Puzzle
from puzzles.settings import Settings
from puzzles.verify import Report
from webapp.models import Channel, Problem, Submission, Verification
from webapp.services import problems, stored, verification
from webapp.services.submissions import submit_sheet

pytestmark = pytest.mark.db

SHEET = "Problème: J1\n1 ACEFHIR h8 FICHERA 82 82\n"


def test_each_json_column_has_one_typed_reader(
    ctx, db_session: Session, competition, make_player, make_problem, frozen_start
) -> None:
    ana = make_player("Ana Popescu", "ana@example.ro")
    prob = make_problem(code="J1", game="integral", deadline=timedelta(hours=1))
    submit_sheet(session=db_session, player=ana, problem=prob, text=SHEET,
                 channel=Channel.WEB, received_at=frozen_start + timedelta(minutes=1))
    db_session.commit()

    puzzle = stored.puzzle_of(prob)
    assert isinstance(puzzle, Puzzle) and puzzle.game is GameType.INTEGRAL
    assert len(puzzle.stock) == 102  # an Intégral: the whole French bag (RULES §6)
    assert problems.puzzle_of is stored.puzzle_of  # one reader, not two
    assert stored.rule_settings_of(prob) == Settings()  # none stored: the defaults
    assert stored.reference_data_of(prob) is None
    assert stored.standings_settings_of(competition) == ChampionshipSettings()

    sub = db_session.get(Submission, 1)
    assert sub is not None
    feuille = stored.feuille_of(sub)
    assert isinstance(feuille, Feuille)
    assert [(m.ref, m.word, m.score) for m in feuille.moves] == [("H8", "FICHERA", 82)]

    (ver,) = verification.verify_problem(session=db_session, problem=prob, actor="system")
    db_session.commit()
    report = stored.report_of(db_session.get(Verification, ver.id))  # type: ignore[arg-type]
    assert isinstance(report, Report)
    # FICHERA from H8 across: F4 I1 C3 H4, E on the double letter H12 (2), R1 A1 = 16, the
    # star doubles the word: 32, + 50 for the scrabble = 82 (RULES §12)
    assert (report.final_score, [m.score for m in report.moves]) == (82, [82])


def test_a_damaged_problem_json_fails_loudly_but_a_page_can_still_show(
    ctx, db_session: Session, make_problem
) -> None:
    prob = make_problem(code="J2")
    prob.params = {"format": "arbitre-problem", "type": "integral"}  # the letters are gone
    with pytest.raises((ValueError, KeyError, TypeError)):
        stored.puzzle_of(prob)
    assert stored.readable_puzzle(prob) is None
    row = Problem(code="J3", competition_id=prob.competition_id, title="x",
                  game=GameType.INTEGRAL, params={"settings": {"no_such_rule": 1}})
    with pytest.raises(ValueError):
        stored.rule_settings_of(row)

"""Two independent implementations agree: the reference sheets of the solver (built with the
move generator, ``scoring.movegen``) pass the verifier (built on ``check_move``) with every
move valid, no warning, and the solver's cumul as the final score."""

from __future__ import annotations

import pytest

from puzzles.generate import new_problem
from puzzles.problem import GameType
from puzzles.solver import solve
from puzzles.verify import MoveStatus, verify
from scoring.lexicon import Lexicon

GAMES = [
    GameType.INTEGRAL_PARTIEL,
    GameType.RANGEE,
    GameType.ANTICIPATION,
    GameType.ANTICIPATION_AVOCALIQUE,
    GameType.EXCLUSIF_FOND,
    GameType.SERIE_MAXIMAUX,
    GameType.N_SCRABBLE,
    GameType.SUPERSCRABBLE,
]


@pytest.mark.parametrize("game", GAMES)
def test_reference_sheets_pass_the_verifier(game: GameType, french: Lexicon) -> None:
    problem = new_problem(game, seed=5, lexicon=french)
    solution = solve(problem, french, seconds=20, nodes=15)
    report = verify(problem, solution.feuille, french)
    assert report.errors == ()
    ok = {MoveStatus.VALID, MoveStatus.PASSED}
    assert [m.status for m in report.moves + report.scrabbles if m.status not in ok] == []
    assert report.warnings == 0
    if game is GameType.SUPERSCRABBLE:
        assert report.final_score == solution.scrabble_count > 0
    else:
        assert report.final_score == solution.cumul > 0
        assert [m.true_score for m in report.moves if m.status is MoveStatus.VALID] == [
            m.score for m in solution.feuille.moves if not m.passed
        ]

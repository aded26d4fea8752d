"""A rangée sheet broken at one move: the later moves are « non joué » (not zero), so the
sheet stays a valid sheet for the server, and the report page styles the status."""

from __future__ import annotations

from puzzles.problem import GameType, Problem
from puzzles.verify import MoveStatus, verify_text
from tests.puzzles.conftest import lex
from webapp.services.reports import STATUS_CLASS, ZERO_STATUSES
from webapp.services.verification import sheet_is_valid

ROW = "ARTSNOE" + "LLMMPPBBCCDDGGUUIIOOEEAA"


def test_moves_after_a_broken_row_do_not_make_the_sheet_invalid() -> None:
    """« … ce qui entraînera l'annulation du reste de sa solution » (S2, rangée): the
    breaking move is annulled (0), the rest is not played; no move is a zero, so the sheet is
    valid. 1 RAT 6 + 2 RATS 4 = 10."""
    problem = Problem(id="r", game=GameType.RANGEE, row=ROW)
    text = f"Rangée: {ROW}\n1 ART H7 RAT 6 6\n2 S H7 RATS 4 10\n3 O 9H TO 3 13\n4 N 8G NA 2 15\n"
    report = verify_text(problem, text, lex("RAT", "RATS", "TO", "NA"))
    assert [m.status for m in report.moves][-1] is MoveStatus.NOT_PLAYED
    assert report.final_score == 10
    assert sheet_is_valid(report) is True


def test_every_move_status_has_a_report_style() -> None:
    assert set(STATUS_CLASS) == {s.value for s in MoveStatus}
    assert MoveStatus.NOT_PLAYED.value not in ZERO_STATUSES

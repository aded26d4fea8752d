"""The most lines a sheet may hold, per game type (``puzzles.limits``, issue 9 hardening).

RULES §7.1: « Chaque coup utilise de 1 à 7 lettres du stock ; le premier coup en utilise au
moins 2 » — so a 102-tile Intégral has at most 101 moves.
"""

from __future__ import annotations

from puzzles.feuille import parse_feuille
from puzzles.generate import new_problem
from puzzles.limits import (
    SHEET_MARGIN,
    SUPERSCRABBLE_ANSWERS,
    longest_solution,
    max_sheet_entries,
    sheet_entries,
    too_long,
)
from puzzles.problem import GameType, Problem


def test_bounds_per_game_type() -> None:
    assert SHEET_MARGIN == 10
    integral = new_problem("integral", seed=1)
    assert longest_solution(integral) == 102 - 1  # the French bag, move 1 takes 2 tiles
    assert max_sheet_entries(integral) == 101 + 10
    rangee = Problem(id="r", game=GameType.RANGEE, row="A" * 40)
    assert longest_solution(rangee) == 40 - 1
    anticipation = new_problem("anticipation", seed=7)
    assert len(anticipation.order) == 14
    assert longest_solution(anticipation) == 14 + 1  # move 1 may be two lines
    serie = new_problem("serie_maximaux", seed=1)
    assert longest_solution(serie) == len(serie.groups) == 7
    ss = Problem(id="s", game=GameType.SUPERSCRABBLE, rack="ABCDEFG")
    assert longest_solution(ss) == SUPERSCRABBLE_ANSWERS == 1000
    incomplet = Problem(id="i", game=GameType.SUPERSCRABBLE_INCOMPLET, rack="ABCDEFG")
    assert longest_solution(incomplet) == (102 - 7 - 1) + 1000


def test_unreadable_lines_count_once_each() -> None:
    parsed = parse_feuille("1 ACEFHIR h8 FICHERA 82 82\nn'importe quoi\n2 SUW WUS 84 166\n")
    # line 1 a move; line 2 unreadable; line 3 unreadable (no reference) yet kept as a move:
    # three lines, whatever the parser keeps of each
    assert len(parsed.errors) >= 2
    assert sheet_entries(parsed) == 3


def test_too_long_says_the_bound_in_french() -> None:
    integral = new_problem("integral", seed=1)
    ok = "".join(f"{n} A A1 AA 2 {2 * n}\n" for n in range(1, 112))  # 111 lines: the bound
    assert too_long(integral, parse_feuille(ok)) is None
    over = ok + "112 A A1 AA 2 224\n"
    message = too_long(integral, parse_feuille(over))
    assert message is not None
    assert message.startswith("Cette feuille compte 112 coups ou lignes, alors qu'une "
                              "solution de ce problème (Scrabble intégral) en a au plus 101")
    assert "au-delà de 111 lignes, la feuille n'est pas enregistrée" in message

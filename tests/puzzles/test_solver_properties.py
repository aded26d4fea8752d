"""Properties of the reference solutions, over a table of game types and seeds:

- the sheet the solver writes verifies with no zero, no warning, no penalty and no error,
  and the verifier's score is the solver's cumul;
- formatting that sheet as text and parsing it back gives a sheet with the same report.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from puzzles.feuille import format_feuille, parse_feuille
from puzzles.generate import new_problem
from puzzles.problem import GameType, Problem
from puzzles.solver import UNSUPPORTED, Solution, solve
from puzzles.verify import MoveStatus, Report, verify
from scoring.lexicon import Lexicon, default_lexicon

SUPPORTED = [g for g in GameType if g not in UNSUPPORTED]
SEEDS = [0, 1, 2]
#: Node budgets: enough for a few beam widths, small enough for the suite.
NODES = {
    GameType.INTEGRAL: 12,
    GameType.INTEGRAL_PARTIEL: 20,
    GameType.SUPERSCRABBLE_INCOMPLET: 300,
    GameType.ANTICIPATION_AVOCALIQUE: 20,
    GameType.N_SCRABBLE_CONSONNES: 20,
}
DEFAULT_NODES = 60


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return default_lexicon()


_cache: dict[tuple[GameType, int], tuple[Problem, Solution]] = {}


def _solved(game: GameType, seed: int, lexicon: Lexicon) -> tuple[Problem, Solution]:
    key = (game, seed)
    if key not in _cache:
        problem = new_problem(game, seed=seed, lexicon=lexicon)
        sol = solve(problem, lexicon, seconds=300, seed=seed,
                    nodes=NODES.get(game, DEFAULT_NODES))
        _cache[key] = (problem, sol)
    return _cache[key]


def _without_lines(report: Report) -> Report:
    """The report with the sheet's line numbers cleared (text lines vs objects)."""
    return replace(
        report,
        moves=tuple(replace(m, line=0) for m in report.moves),
        scrabbles=tuple(replace(m, line=0) for m in report.scrabbles),
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game", SUPPORTED, ids=[g.value for g in SUPPORTED])
def test_solution_verifies_clean(game: GameType, seed: int, lexicon: Lexicon) -> None:
    problem, sol = _solved(game, seed, lexicon)
    assert sol.complete
    assert sol.feuille.moves or sol.feuille.scrabbles
    report = verify(problem, sol.feuille, lexicon)
    assert report.errors == ()
    assert report.warnings == 0 and report.penalty == 0
    for m in report.moves:
        assert m.status in (MoveStatus.VALID, MoveStatus.PASSED), (m.number, m.reasons)
        assert m.warnings == ()
        if m.status is MoveStatus.VALID:
            assert m.claimed_score == m.true_score
    assert all(m.status is MoveStatus.VALID for m in report.scrabbles)
    assert report.final_score == sol.cumul
    if game in (GameType.SUPERSCRABBLE, GameType.SUPERSCRABBLE_INCOMPLET):
        assert report.valid_scrabbles == sol.scrabble_count == len(sol.feuille.scrabbles)
    elif game is GameType.EXCLUSIF_RESISTANCE:
        assert report.final_score == sum(1 for m in sol.feuille.moves if not m.passed)
    else:
        assert report.total == sum(sol.scores) == sol.cumul
        last = [m.cumul for m in sol.feuille.moves if m.cumul is not None][-1:]
        assert last == [sol.cumul] or not sol.feuille.moves


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("game", SUPPORTED, ids=[g.value for g in SUPPORTED])
def test_formatted_sheet_gives_same_report(game: GameType, seed: int, lexicon: Lexicon) -> None:
    problem, sol = _solved(game, seed, lexicon)
    first = verify(problem, sol.feuille, lexicon)
    text = format_feuille(sol.feuille)
    parsed = parse_feuille(text)
    assert parsed.errors == ()
    again = verify(problem, parsed.feuille, lexicon)
    assert _without_lines(again) == _without_lines(first)
    assert again.to_text() == first.to_text()

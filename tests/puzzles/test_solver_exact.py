"""Exact answers of the solver: a Superscrabble counted by hand, the Série de maximaux top
of tops against the move generator, and reproducibility."""

from __future__ import annotations

from collections import Counter

import pytest

from puzzles.generate import new_problem
from puzzles.problem import GameType, Problem
from puzzles.solver import Progress, SolverError, move_key, solve, superscrabble_moves
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.lexicon import Lexicon, default_lexicon
from scoring.move import Placement
from scoring.tiles import french


@pytest.fixture(scope="module")
def lexicon() -> Lexicon:
    return default_lexicon()


# --- Superscrabble, counted by hand -------------------------------------------------------
#
# Grid: ES across at H8-H9 (E on H8, S on H9). Rack: L E V E R A ?.
# Word list: ES, LES, LEVERAI, LEVERAS, RELEVERA (and nothing else), so every cross-word of
# two letters must be ES and every one of three letters LES.
#
# A scrabble puts 7 tiles in one line. Either its main word is 8 letters through one grid
# letter, or it is 7 new letters touching the grid only through cross-words.
#
# 8 letters through a grid letter — the only 8-letter word is RELEVERA:
#   * the rack gives L E V E R A, the joker is the second R (it can be the first or the last
#     R: two placements, one identity);
#   * across row H its E would be followed by the S on H9: RELEVERA has no "ES" -> none;
#   * down column 8 with one of its E (letters 2, 4, 6) on H8: starts on G8, E8, C8; no tile
#     of column 8 has a neighbour in columns 7 or 9 except on row H -> 3 scrabbles: 8G, 8E,
#     8C.
#   * through the S: no 8-letter word holds an S -> none.
# 7 new letters (LEVERAI with the joker as I, LEVERAS with the joker as S):
#   * row G: a tile on G8 makes "?E" (no such word); a tile on G9 alone must be E ("ES") but
#     a word covering G9 and not G8 starts on G9 with E -> none;
#   * row I: a tile on I9 makes "S?" (none); on I8 it must be S ("ES"), so the word ends on
#     I8 with S: LEVERAs from I2 -> 1 scrabble (LEVERAI there would make "EI");
#   * column 7: a tile on H7 makes "?ES" = LES, so it is L: LEVERAi and LEVERAs from H7
#     down, the joker on N7 touching nothing -> 2 scrabbles at the same place, the joker
#     standing for different letters (RULES §7.5: each counts);
#   * column 10: a tile on H10 makes "ES?" (none); columns 8 and 9 above or below the grid
#     word would include its letter (8-letter case).
# Total: 6 distinct scrabbles from 9 placements.

GRID = "15/15/15/15/15/15/15/7ES6/15/15/15/15/15/15/15"
TINY_WORDS = ["ES", "LES", "LEVERAI", "LEVERAS", "RELEVERA"]


@pytest.fixture(scope="module")
def tiny() -> GameConfig:
    return GameConfig(tileset=french(), lexicon=Lexicon.from_words(TINY_WORDS, "tiny"))


def test_superscrabble_count_by_hand(tiny: GameConfig) -> None:
    board = Board.from_cgp(GRID)
    found = superscrabble_moves(board, "LEVERA?", tiny)
    assert [m.notation for m in found] == [
        "I2 LEVERAs", "8C rELEVERA", "8E rELEVERA", "8G rELEVERA", "7H LEVERAi", "7H LEVERAs",
    ]
    raw = [m for m in movegen.generate(board, "LEVERA?", tiny) if m.tiles == 7]
    assert len(raw) == 9
    # the same joker letter at two positions of RELEVERA at 8G is one scrabble
    g8 = 6 * 15 + 7
    assert sorted(m.word for m in raw if m.start == g8 and not m.horizontal) == [
        "RELEVErA", "rELEVERA"
    ]


def test_superscrabble_scores_by_hand(tiny: GameConfig) -> None:
    """Values L1 E1 V4 R1 A1 S1, joker 0; premiums from RULES §1.3.

    - 7H LEVERAi (H7..N7): H7 plain L1, I7 DL E2, J7 V4, K7 E1, L7 R1, M7 DL A2, N7 i0 = 11;
      cross-word LES on row H: 1 + 1 + 1 = 3 (H8's DW was used by the grid word); +50 = 64.
    - I2 LEVERAs (I2..I8): L1, I3 DL E2, V4, E1, R1, I7 DL A2, s0 = 11; cross-word Es down
      column 8: 1 + 0 = 1; +50 = 62.
    - 8G rELEVERA (G8..N8): r0, E1 (grid), L1, E1, V4, L8 DL E2, R1, A1 = 11; +50 = 61.
      With the joker on the other R (M8) it is also 11 + 50: the tie keeps the joker first.
    - 8E (E8..L8): R1 E1 L1 E1(grid) V4 E1 R1, L8 DL A2, one R a joker: 12 - 1 = 11 -> 61.
    - 8C (C8..J8): R1, D8 DL E2, L1 E1 V4 E1(grid) R1 A1, one R a joker: 12 - 1 -> 61.
    """
    found = superscrabble_moves(Board.from_cgp(GRID), "LEVERA?", tiny)
    assert {m.notation: m.score for m in found} == {
        "7H LEVERAi": 64,
        "7H LEVERAs": 64,
        "I2 LEVERAs": 62,
        "8G rELEVERA": 61,
        "8E rELEVERA": 61,
        "8C rELEVERA": 61,
    }


def test_superscrabble_solution(tiny: GameConfig) -> None:
    problem = Problem(id="ss-main", game=GameType.SUPERSCRABBLE, board=GRID, rack="AEELRV?")
    assert problem.check() == []
    assert isinstance(tiny.lexicon, Lexicon)
    sol = solve(problem, tiny.lexicon, seconds=5)
    assert sol.exact
    assert sol.scrabble_count == 6 == sol.cumul
    assert sol.feuille.scrabbles == sol.scrabbles
    assert [s.number for s in sol.scrabbles] == [1, 2, 3, 4, 5, 6]
    assert all(Counter(s.letters or "") == Counter("AEELRV?") for s in sol.scrabbles)
    assert [(s.ref, s.word) for s in sol.scrabbles][:2] == [("I2", "LEVERAs"), ("8C", "rELEVERA")]


# --- Série de maximaux --------------------------------------------------------------------
def _top(board: Board, letters: str, config: GameConfig) -> int:
    """The top by full enumeration (the solver uses the engine's pruned top search)."""
    return max((m.score for m in movegen.generate(board, letters, config)), default=-1)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_serie_first_move_is_top_of_tops(lexicon: Lexicon, seed: int) -> None:
    problem = new_problem(GameType.SERIE_MAXIMAUX, seed=seed, lexicon=lexicon)
    sol = solve(problem, lexicon, seconds=30)
    config = GameConfig(tileset=french(), lexicon=lexicon)
    tops = {g: _top(Board(), letters, config) for g, letters in enumerate(problem.groups, 1)}
    first = sol.feuille.moves[0]
    assert sol.exact
    assert first.score == sol.scores[0] == max(tops.values())
    assert first.group is not None and tops[first.group] == first.score


@pytest.mark.parametrize("seed", [1, 2])
def test_serie_every_move_is_top_of_remaining(lexicon: Lexicon, seed: int) -> None:
    problem = new_problem(GameType.SERIE_MAXIMAUX, seed=seed, lexicon=lexicon)
    sol = solve(problem, lexicon, seconds=30)
    config = GameConfig(tileset=french(), lexicon=lexicon)
    board = Board()
    left = set(range(1, len(problem.groups) + 1))
    for line in sol.feuille.moves:
        assert line.group in left and line.ref and line.word
        assert line.score == max(_top(board, problem.groups[g - 1], config) for g in left)
        left.discard(line.group)
        Placement.from_notation(board, line.ref, line.word).apply(board)
    assert len(sol.feuille.moves) == 7


def test_serie_follows_ties_to_the_best_vector() -> None:
    """Hand-made: groups BA and S, word list {BA, AS}.

    Move 1: BA must cover H8; across, H7 (B on H7, A on H8) and H8 (B on H8, A on H9) both
    score (3 + 1) × 2 = 8 (the down placements are their mirror images). Move 2 with S:
    only AS can be made, under the A. After H7 the S goes on I8 (plain): AS = 1 + 1 = 2.
    After H8 it goes on I9, a double letter: AS = 1 + 1 × 2 = 3. The greedy tie-break (H7
    first) gives (8, 2); the ranking vector wants (8, 3).
    """
    lex = Lexicon.from_words(["BA", "AS"], "tiny")
    problem = Problem(id="serie-ties", game=GameType.SERIE_MAXIMAUX, groups=("BA", "S"))
    sol = solve(problem, lex, seconds=5)
    assert sol.exact
    assert [(m.group, m.ref, m.word, m.score) for m in sol.feuille.moves] == [
        (1, "H8", "BA", 8),
        (2, "9H", "AS", 3),
    ]
    assert sol.scores == (8, 3) and sol.cumul == 11


def _greedy_vector(problem: Problem, config: GameConfig) -> list[int]:
    """Top of tops move by move with the documented tie-break, by full enumeration."""
    board = Board()
    left = list(range(1, len(problem.groups) + 1))
    out: list[int] = []
    while left:
        cands = [
            (move_key(m), g, m)
            for g in left
            for m in movegen.generate(board, problem.groups[g - 1], config)
        ]
        if not cands:
            break
        _, g, m = min(cands, key=lambda c: (c[0], c[1]))
        m.placement.apply(board)
        out.append(m.score)
        left.remove(g)
    return out


@pytest.mark.parametrize("seed", [0, 3])
def test_serie_vector_at_least_greedy(lexicon: Lexicon, seed: int) -> None:
    problem = new_problem(GameType.SERIE_MAXIMAUX, seed=seed, lexicon=lexicon)
    sol = solve(problem, lexicon, seconds=60)
    greedy = _greedy_vector(problem, GameConfig(tileset=french(), lexicon=lexicon))
    assert sol.exact
    assert sol.scores[0] == greedy[0]
    assert list(sol.scores) >= greedy


# --- reproducibility ----------------------------------------------------------------------
@pytest.mark.parametrize("game", [GameType.RANGEE, GameType.INTEGRAL_PARTIEL])
def test_same_nodes_same_sheet(lexicon: Lexicon, game: GameType) -> None:
    problem = new_problem(game, seed=4, lexicon=lexicon)
    a = solve(problem, lexicon, seconds=120, nodes=60, seed=3)
    b = solve(problem, lexicon, seconds=120, nodes=60, seed=3)
    assert a.complete and b.complete
    assert a.feuille == b.feuille
    assert a.cumul == b.cumul == sum(a.scores)


def test_unsupported_variant_is_refused(lexicon: Lexicon) -> None:
    problem = new_problem(GameType.ANTICIPATION_AVEUGLE, seed=1, lexicon=lexicon)
    with pytest.raises(SolverError, match="Anticipation aveugle.*propres groupes"):
        solve(problem, lexicon, seconds=1)


def test_progress_and_budget(lexicon: Lexicon) -> None:
    problem = new_problem(GameType.RANGEE, seed=4, lexicon=lexicon)
    seen: list[Progress] = []
    sol = solve(problem, lexicon, seconds=120, nodes=80, progress=seen.append)
    assert [p.width for p in seen][:2] == [1, 2]
    assert all(a.nodes < b.nodes for a, b in zip(seen, seen[1:], strict=False))
    assert seen[-1].best == sol.cumul == max(p.best or 0 for p in seen)
    # the greedy pass always finishes; widening stops once the 80 nodes are spent
    assert sol.nodes == 81 and sol.complete
    assert str(seen[0]).startswith("largeur 1 : ")

"""The Superscrabble family's answers: every distinct scrabble of the rack
(:func:`superscrabble_moves`, exact, RULES §7.5) and the Superscrabble incomplet's
construction, grown one short word at a time while the scrabble count rises.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import replace

from puzzles.feuille import FeuilleMove
from puzzles.problem import Problem
from puzzles.solver.search import (
    Budget,
    OutOfBudget,
    State,
    candidates,
    move_key,
    play,
)
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.movegen import GeneratedMove
from scoring.notation import format_ref
from scoring.tiles import JOKER

#: Superscrabble incomplet: construction moves tried per step, and their largest size.
CONSTRUCTION_CANDIDATES = 40
CONSTRUCTION_MAX_TILES = 4


def superscrabble_moves(board: Board, rack: str, config: GameConfig) -> list[GeneratedMove]:
    """The distinct scrabbles of ``rack`` on ``board`` (RULES §7.5): one move per (start
    square, direction, word with the joker's letter resolved). Of the placements sharing an
    identity (the same joker letter at different positions) the first in :func:`move_key`
    order is kept: the highest score, then the joker as early in the word as possible.
    Sorted by direction (across first), start square, then word."""
    chosen: dict[tuple[int, bool, str], GeneratedMove] = {}
    for m in movegen.generate(board, rack, config):
        if m.tiles != config.bingo_tiles:
            continue
        ident = (m.start, m.horizontal, m.word.upper())
        old = chosen.get(ident)
        if old is None or move_key(m) < move_key(old):
            chosen[ident] = m
    return sorted(chosen.values(), key=lambda m: (not m.horizontal, m.start, m.word.upper()))


def superscrabble_lines(moves: Iterable[GeneratedMove]) -> tuple[FeuilleMove, ...]:
    return tuple(
        FeuilleMove(number=i, ref=format_ref(m.ref), word=m.word, letters=m.letters,
                    score=m.score)
        for i, m in enumerate(moves, start=1)
    )


def _through_letters(rack: str, config: GameConfig, budget: Budget) -> dict[str, int]:
    """Letters x for which ``rack`` + x makes 8-letter words, with how many placements of
    them an empty grid allows: the grid letters a Superscrabble rack can scrabble through."""
    wide = replace(config, rack_size=8, bingo_tiles=8)
    out: dict[str, int] = {}
    for x in config.tileset.letters:
        budget.charge()
        n = sum(1 for m in movegen.generate(Board(), rack + x, wide) if m.tiles == 8)
        if n:
            out[x] = n
    return out


def _construction_candidates(
    board: Board, left: Counter[str], useful: dict[str, int], config: GameConfig,
    budget: Budget,
) -> list[GeneratedMove]:
    """Short construction words from the stock that put down letters the rack can scrabble
    through, most useful first, then fewest tiles."""
    letters: list[str] = []
    for x in sorted(useful, key=lambda c: (-useful[c], c)):
        letters.extend([x] * min(2, left[x]))
    for x, _ in sorted(((c, k) for c, k in left.items() if c != JOKER),
                       key=lambda ck: (-ck[1], ck[0])):
        if len(letters) >= 12:
            break
        if x not in useful:
            letters.extend([x] * min(2, left[x]))
    rack = "".join(sorted(letters[:12]))

    def gain(m: GeneratedMove) -> int:
        return sum(useful.get(c, 0) for c in m.letters)

    moves = candidates(board, rack, config, budget,
                        lambda m: m.tiles <= CONSTRUCTION_MAX_TILES and gain(m) > 0)
    moves.sort(key=lambda m: (-gain(m), m.tiles, move_key(m)))
    return moves[:CONSTRUCTION_CANDIDATES]


def incomplet_search(
    problem: Problem, config: GameConfig, budget: Budget
) -> tuple[State, list[GeneratedMove]]:
    """Superscrabble incomplet: add construction words one at a time while one of the
    candidates raises the number of scrabbles (at equal count, fewer tiles)."""
    rack = problem.rack
    state = State(Board(), 0, (), (), ())
    budget.charge()
    best = superscrabble_moves(state.board, rack, config)
    budget.best = len(best)
    budget.report()
    left = problem.construction_stock()
    budget.enforce = True
    try:
        useful = _through_letters(rack, config, budget)
        while useful:
            choice: tuple[int, int, int] | None = None
            found_for: list[list[GeneratedMove]] = []
            cands = _construction_candidates(state.board, left, useful, config, budget)
            for i, m in enumerate(cands):
                board = state.board.copy()
                m.placement.apply(board)
                budget.charge()
                found = superscrabble_moves(board, rack, config)
                found_for.append(found)
                k = (-len(found), m.tiles, i)
                if choice is None or k < choice:
                    choice = k
            if choice is None or -choice[0] <= len(best):
                break
            m = cands[choice[2]]
            state = play(state, m, ()).state()
            left -= Counter(m.letters)
            best = found_for[choice[2]]
            budget.best = len(best)
            budget.report()
    except OutOfBudget:
        pass
    return state, best

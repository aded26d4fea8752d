"""The Série de maximaux's exact search (RULES §7.4): the lexicographically best vector of
per-move scores, each move a top of tops, every tied top followed within a frontier.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from puzzles.solver.groups import GroupsGame
from puzzles.solver.search import (
    Budget,
    State,
    move_key,
    play,
)
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.movegen import GeneratedMove

#: Série de maximaux: tied positions followed at most (beyond it the answer is heuristic).
SERIE_FRONTIER = 1024
#: The same with the consonants announced, where each position costs far more (11-letter
#: racks, full enumeration) and the answer is heuristic anyway.
SERIE_POOL_FRONTIER = 1


def _symmetric(config: GameConfig) -> bool:
    """The premium layout is its own transpose (the standard one is)."""
    lay = config.layout

    def t(cells: Sequence[int]) -> list[int]:
        return [cells[c * 15 + r] for r in range(15) for c in range(15)]

    return t(lay.letter_mult) == list(lay.letter_mult) and t(lay.word_mult) == list(
        lay.word_mult
    )


def _top_moves(
    game: GroupsGame, board: Board, g: int, pool: str, budget: Budget
) -> list[GeneratedMove]:
    """Every placement of group ``g`` reaching its top score."""
    rack, keep = game.rack(g, pool)
    budget.charge()
    if keep is None:
        return sorted(movegen.tops(board, rack, game.config), key=move_key)
    moves = [m for m in movegen.generate(board, rack, game.config) if keep(m)]
    if not moves:
        return []
    top = max(m.score for m in moves)
    return sorted((m for m in moves if m.score == top), key=move_key)


def serie_search(game: GroupsGame, budget: Budget) -> tuple[State, bool]:
    """Série de maximaux: the lexicographically best vector of per-move scores, each move a
    top of tops (RULES §7.4 ranks sheets on that vector).

    Every tied top of tops is followed (a *frontier* of positions, grids equal up to the
    board's diagonal symmetry merged) and only the positions whose next top of tops is the
    highest survive, so the first score is the top of tops of the empty grid, the second the
    best possible after it, and so on. Returns the state and whether the frontier stayed
    within :data:`SERIE_FRONTIER` (then the vector is exact; :data:`SERIE_POOL_FRONTIER`
    with the consonants announced)."""
    symmetric = _symmetric(game.config)
    cap = SERIE_FRONTIER if game.pool is None else SERIE_POOL_FRONTIER
    # Each position carries the sequence of its moves' keys: among equal vectors (and
    # symmetric twins) the one whose moves come first in move order is kept.
    Seq = tuple[tuple[object, ...], ...]
    frontier: list[tuple[Seq, State]] = [((), game.start())]
    exact = True
    n = len(game.groups)
    while True:
        top: int | None = None
        tied: list[tuple[Seq, State, GeneratedMove, int]] = []
        for seq, st in frontier:
            used, pool = st.res
            assert isinstance(used, frozenset) and isinstance(pool, str)
            for g in range(1, n + 1):
                if g in used:
                    continue
                moves = _top_moves(game, st.board, g, pool, budget)
                if not moves:
                    continue
                if top is None or moves[0].score > top:
                    top, tied = moves[0].score, []
                if moves[0].score == top:
                    tied.extend((seq, st, m, g) for m in moves)
        if top is None:
            break
        children: dict[tuple[object, ...], tuple[Seq, State]] = {}
        for seq, st, m, g in tied:
            used, pool = st.res
            assert isinstance(used, frozenset) and isinstance(pool, str)
            child = play(st, m, (used | {g}, game.after(pool, m)), group=g).state()
            child_seq = (*seq, (*move_key(m), g))
            cells = tuple(child.board.cells)
            if symmetric:
                cells = min(cells, tuple(child.board.transpose().cells))
            key = (cells, child.res)
            old = children.get(key)
            if old is None or child_seq < old[0]:
                children[key] = (child_seq, child)
        frontier = sorted(children.values(), key=lambda x: x[0])
        if time.monotonic() > budget.deadline and len(frontier) > 1:
            # Out of time: finish with the first tied position only (still a top of tops
            # per move, no longer the best vector).
            cap = 1
            budget.time_cut = True
        if len(frontier) > cap:
            exact = False
            frontier = frontier[:cap]
        budget.best = top
    return frontier[0][1], exact

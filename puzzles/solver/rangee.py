"""The Rangée family's search game (RULES §7.3): each move plays exactly the first k letters
still in the row.
"""

from __future__ import annotations

from collections import Counter

from puzzles.solver.search import (
    Budget,
    Child,
    State,
    candidates,
    play,
)
from scoring.board import Board
from scoring.config import GameConfig
from scoring.movegen import GeneratedMove


class RangeeGame:
    """Each move plays exactly the first k letters still in the row (RULES §7.3)."""

    def __init__(self, row: str, config: GameConfig, rate: float) -> None:
        self.row = row
        self.config = config
        self.rate = rate

    def start(self) -> State:
        return State(Board(), 0, (), (), (0,), self.rate * len(self.row))

    def children(self, state: State, branch: int, budget: Budget) -> list[Child]:
        pos = int(state.res[0])  # type: ignore[call-overload]
        if pos >= len(self.row):
            return []
        row = self.row

        def prefix(m: GeneratedMove) -> bool:
            return Counter(m.letters) == Counter(row[pos : pos + m.tiles])

        moves = candidates(state.board, row[pos : pos + 7], self.config, budget, prefix,
                            branch)
        out = []
        for m in moves[:branch]:
            new = pos + m.tiles
            out.append(play(state, m, (new,), letters=row[pos:new],
                             heuristic=self.rate * (len(row) - new)))
        return out

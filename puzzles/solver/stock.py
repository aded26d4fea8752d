"""The Intégral family's search game (Intégral, Intégral partiel; RULES §7.1–7.2): each move
takes 1–7 letters from what remains of the stock, tried through a few candidate racks drawn
from it.
"""

from __future__ import annotations

import random
from collections import Counter

from puzzles.solver.search import (
    JOKER_KEEP_VALUE,
    Budget,
    Child,
    State,
    candidates,
    move_key,
    play,
)
from scoring.board import Board
from scoring.config import GameConfig
from scoring.movegen import GeneratedMove
from scoring.tiles import JOKER

#: Intégral family: letters per candidate rack and candidate racks per position.
STOCK_RACK_SIZE = 11
STOCK_RACKS = 3


class StockGame:
    """Intégral and Intégral partiel: each move takes 1–7 letters from what remains of the
    stock (RULES §7.1–7.2). Candidate racks are drawn from the remaining stock."""

    def __init__(self, stock: Counter[str], config: GameConfig, seed: int, rate: float) -> None:
        self.stock = stock
        self.config = config
        self.seed = seed
        self.rate = rate
        self.ts = config.tileset

    def _heuristic(self, left: Counter[str]) -> float:
        return self.rate * sum(left.values()) + JOKER_KEEP_VALUE * left[JOKER]

    def start(self) -> State:
        letters = "".join(sorted(self.stock.elements()))
        return State(Board(), 0, (), (), (letters,), self._heuristic(self.stock))

    def racks(self, left: Counter[str], state: State) -> list[str]:
        total = sum(left.values())
        if total <= STOCK_RACK_SIZE:
            return ["".join(sorted(left.elements()))]
        rng = random.Random(f"{self.seed}/{state.path}")
        plain = sorted(c for c in left.elements() if c != JOKER)
        vowels = [c for c in plain if self.ts.is_vowel(c)]
        consonants = [c for c in plain if not self.ts.is_vowel(c)]
        out: list[str] = []
        for i in range(STOCK_RACKS):
            rng.shuffle(vowels)
            rng.shuffle(consonants)
            # Only the last rack holds a joker (when the stock has one): the others keep the
            # jokers for the scrabbles plain letters cannot make.
            jokers = min(left[JOKER], 1) if i == STOCK_RACKS - 1 else 0
            size = STOCK_RACK_SIZE - jokers
            nv = min(len(vowels), max(size - len(consonants), round(size * 0.45)))
            nc = min(len(consonants), size - nv)
            rack = vowels[:nv] + consonants[:nc] + [JOKER] * jokers
            out.append("".join(sorted(rack)))
        return list(dict.fromkeys(out))

    def children(self, state: State, branch: int, budget: Budget) -> list[Child]:
        left = Counter(str(state.res[0]))
        if not left:
            return []
        pooled: dict[tuple[int, bool, str], GeneratedMove] = {}
        for rack in self.racks(left, state):
            for m in candidates(state.board, rack, self.config, budget, n=branch * 4):
                pooled.setdefault((m.start, m.horizontal, m.word), m)

        def value(m: GeneratedMove) -> float:
            jokers_wasted = m.jokers if m.tiles < self.config.bingo_tiles else 0
            return m.score - JOKER_KEEP_VALUE * jokers_wasted

        ranked = sorted(pooled.values(), key=lambda m: (-value(m), move_key(m)))
        out = []
        for m in ranked[:branch]:
            rest = left - Counter(m.letters)
            out.append(play(state, m, ("".join(sorted(rest.elements())),),
                             heuristic=self._heuristic(rest)))
        return out

"""The search game of the families played one group per move on the player's own grid:
Anticipation (move 1 may first play group 1), Scrabble exclusif (fond and résistance),
N-Scrabble, and the Série de maximaux's groups (searched exactly by
:mod:`puzzles.solver.serie`); with the consonants announced, the completion from the shared
pool.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from puzzles.solver.search import (
    JOKER_KEEP_VALUE,
    Budget,
    Child,
    State,
    candidates,
    pass_turn,
    play,
)
from scoring.board import Board
from scoring.config import GameConfig
from scoring.movegen import GeneratedMove
from scoring.tiles import JOKER

#: Consonant variants: the pool letters in the order the candidate rack takes them, the
#: rack's largest size, and what a pool letter still unused is worth to the evaluation.
POOL_ORDER = ("E", "A", "I", "U", "O", "Y", JOKER)
POOL_RACK = 11
POOL_LETTER_VALUE = 3


class GroupsGame:
    """Games played one group per move on the player's own grid: Anticipation (move 1 may
    first play group 1), Scrabble exclusif, N-Scrabble (imposed or free order), and the
    Série de maximaux through :func:`serie_search`.

    ``order`` is the imposed sequence of group numbers (None: free order). ``bingo_only``
    keeps only moves placing all 7 letters; ``pass_allowed`` lets a move play nothing (0);
    ``survival`` ranks sheets by their number of moves first (Exclusif résistance).

    Consonant variants (``pool`` given): a group holds the announced consonants and is
    completed to ``sizes[g - 1]`` letters from the shared pool (vowels, Y, jokers), so a
    move puts down the group's consonants plus at most that many pool letters, and the pool
    shrinks by the pool letters it used. The candidate rack offers up to two of each pool
    letter (one joker) next to the consonants."""

    def __init__(
        self, groups: Sequence[str], order: Sequence[int] | None, config: GameConfig, *,
        first_group: bool, bingo_only: bool, pass_allowed: bool, survival: bool = False,
        pool: str | None = None, sizes: Sequence[int] = (),
    ) -> None:
        self.groups = groups
        self.order = order
        self.config = config
        self.first_group = first_group
        self.bingo_only = bingo_only
        self.pass_allowed = pass_allowed
        self.survival = survival
        self.pool = pool
        self.sizes = sizes
        self.ts = config.tileset

    def _from_pool(self, c: str) -> bool:
        return c == JOKER or self.ts.is_vowel(c) or c in self.ts.ambiguous

    def _heuristic(self, pool: str) -> float:
        return POOL_LETTER_VALUE * len(pool) + JOKER_KEEP_VALUE * pool.count(JOKER)

    def rack(self, g: int, pool: str) -> tuple[str, Callable[[GeneratedMove], bool] | None]:
        """The movegen rack of group ``g`` and the filter its moves must pass."""
        letters = self.groups[g - 1]
        bingo = self.config.bingo_tiles
        if self.pool is None:
            if not self.bingo_only:
                return letters, None
            return letters, lambda m: m.tiles == bingo
        size = self.sizes[g - 1] if self.sizes else len(letters)
        k = max(0, size - len(letters))
        left = Counter(pool)
        extra: list[str] = []
        for copies in (1, 2):
            for c in POOL_ORDER:
                if c == JOKER and copies > 1:
                    continue
                if left[c] >= copies and copies <= k and len(letters) + len(extra) < POOL_RACK:
                    extra.append(c)
        only_bingo = self.bingo_only

        def keep(m: GeneratedMove) -> bool:
            if m.tiles > size or (only_bingo and m.tiles != bingo):
                return False
            return sum(1 for c in m.letters if self._from_pool(c)) <= k

        return letters + "".join(sorted(extra)), keep

    def after(self, pool: str, m: GeneratedMove) -> str:
        """The pool once ``m`` is played."""
        if self.pool is None:
            return pool
        used = Counter(c for c in m.letters if self._from_pool(c))
        return "".join(sorted((Counter(pool) - used).elements()))

    def start(self) -> State:
        pool = self.pool or ""
        return State(Board(), 0, (), (), (frozenset(), pool), self._heuristic(pool))

    def _available(self, used: frozenset[int], move_index: int) -> list[int]:
        if self.order is not None:
            return [self.order[move_index]] if move_index < len(self.order) else []
        return [g for g in range(1, len(self.groups) + 1) if g not in used]

    def children(self, state: State, branch: int, budget: Budget) -> list[Child]:
        used, pool = state.res
        assert isinstance(used, frozenset) and isinstance(pool, str)
        nexts = self._available(used, len(state.scores))
        out: list[Child] = []
        for g in nexts:
            rack, keep = self.rack(g, pool)
            moves = candidates(state.board, rack, self.config, budget, keep, branch)
            for m in moves:
                rest = self.after(pool, m)
                out.append(play(state, m, (used | {g}, rest), group=g,
                                 rank=int(self.survival), heuristic=self._heuristic(rest)))
            if self.first_group and not state.scores:
                out.extend(self._with_group1(state, g, branch, budget))
            if not moves and self.pass_allowed:
                out.append(pass_turn(state, (used | {g}, pool), g))
        return out

    def _with_group1(
        self, state: State, g: int, branch: int, budget: Budget
    ) -> list[Child]:
        """Move 1 as two words: one from group 1, then one from the drawn group."""
        used, pool = state.res
        assert isinstance(used, frozenset) and isinstance(pool, str)
        res = (used | {g},)
        out: list[Child] = []
        rack1, keep1 = self.rack(1, pool)
        for m1 in candidates(state.board, rack1, self.config, budget, keep1, branch):
            pool1 = self.after(pool, m1)
            mid = play(state, m1, (*res, pool1), group=1).state()
            rack2, keep2 = self.rack(g, pool1)
            for m2 in candidates(mid.board, rack2, self.config, budget, keep2, branch):
                rest = self.after(pool1, m2)
                out.append(play(mid, m2, (*res, rest), group=g, merge_score=True,
                                 heuristic=self._heuristic(rest)))
        return out

"""The search machinery the solver's families share.

Owns the solver's public result types (:class:`SolverError`, :class:`Progress`,
:class:`Solution`), the candidate order :func:`move_key`, the node budget, the search state
(a grid, its cumul, the sheet lines so far and the family's remaining supplies), the
candidate moves of a rack, and the beam search widened 1, 2, 4, … while the budget lasts.
The budget, state and search names are shared by the family modules; :mod:`puzzles.solver`
re-exports the public ones.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Protocol

from puzzles.feuille import Feuille, FeuilleMove
from puzzles.problem import GameType
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.movegen import GeneratedMove
from scoring.notation import format_ref

#: Moves of each position kept as branches, per candidate rack, at beam width ``w``:
#: ``max(MIN_BRANCH, w)``.
MIN_BRANCH = 3
#: Largest beam width tried.
MAX_WIDTH = 256
#: Intégral family: points a joker still in the stock is worth to the beam's evaluation (a
#: joker spent on an ordinary word is a scrabble lost).
JOKER_KEEP_VALUE = 25


class SolverError(ValueError):
    """The solver does not handle this problem (French message)."""


@dataclass(frozen=True)
class Progress:
    """What the search has done so far (passed to the ``progress`` callback)."""

    nodes: int
    elapsed: float
    width: int
    best: int | None

    def __str__(self) -> str:
        best = "—" if self.best is None else str(self.best)
        return (
            f"largeur {self.width} : {self.nodes} nœuds, {self.elapsed:.1f} s, "
            f"meilleur cumul {best}"
        )


@dataclass(frozen=True)
class Solution:
    """A reference solution. ``scores`` are the per-move scores in sheet order (move 1 of an
    Anticipation played with group 1 counts once, as the sum of its two words);
    ``scrabbles`` the Superscrabble answers (also in ``feuille.scrabbles``)."""

    problem_id: str
    game: GameType
    feuille: Feuille
    cumul: int
    scores: tuple[int, ...]
    exact: bool
    scrabbles: tuple[FeuilleMove, ...] = ()
    nodes: int = 0
    width: int = 1
    elapsed: float = field(default=0.0, compare=False)
    complete: bool = True

    @property
    def scrabble_count(self) -> int:
        return len(self.scrabbles)


def move_key(m: GeneratedMove) -> tuple[object, ...]:
    """Deterministic order of candidate moves: the engine's FISF order (higher score, fewer
    jokers, horizontal first, smaller start square, then the word). The end-of-game rule
    never applies here: a composition has no bag to empty."""
    return movegen.fisf_key(m, 0, bag_empty=False)


# --- budget -------------------------------------------------------------------------------
class OutOfBudget(Exception):
    pass


class Budget:
    def __init__(
        self, nodes: int, seconds: float, progress: Callable[[Progress], None] | None
    ) -> None:
        self.max_nodes = nodes
        self.nodes = 0
        self.start = time.monotonic()
        self.deadline = self.start + seconds
        self.progress = progress
        self.enforce = False
        self.width = 1
        self.best: int | None = None
        self.time_cut = False

    def charge(self) -> None:
        self.nodes += 1
        if not self.enforce:
            return
        if self.nodes > self.max_nodes:
            raise OutOfBudget
        if time.monotonic() > self.deadline:
            self.time_cut = True
            raise OutOfBudget

    def report(self) -> None:
        if self.progress is not None:
            self.progress(Progress(self.nodes, self.elapsed, self.width, self.best))

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.start


# --- search state -------------------------------------------------------------------------
@dataclass(frozen=True)
class State:
    board: Board
    cumul: int
    lines: tuple[FeuilleMove, ...]
    scores: tuple[int, ...]
    res: tuple[object, ...]
    heuristic: float = 0.0
    path: str = ""
    #: Compared before the cumul: the number of scrabbles in Exclusif résistance, else 0.
    rank: int = 0

    @property
    def move_number(self) -> int:
        return len(self.scores) + 1

    def key(self) -> tuple[object, ...]:
        return (tuple(self.board.cells), self.res)

    def evaluation(self) -> float:
        return self.cumul + self.heuristic


class Game(Protocol):
    def start(self) -> State: ...

    def children(self, state: State, branch: int, budget: Budget) -> list[Child]: ...


def candidates(
    board: Board, rack: str, config: GameConfig, budget: Budget,
    keep: Callable[[GeneratedMove], bool] | None = None, n: int | None = None,
) -> list[GeneratedMove]:
    """The ``n`` first (all when None) legal moves of ``rack`` that ``keep`` accepts, in
    :func:`move_key` order. Without a filter the engine's pruned top search does the work
    (its FISF order is :func:`move_key` when the bag is not empty)."""
    budget.charge()
    if not rack:
        return []
    if keep is None and n is not None:
        return sorted(movegen.best(board, rack, config, n=n), key=move_key)
    moves: Iterable[GeneratedMove] = movegen.generate(board, rack, config)
    if keep is not None:
        moves = [m for m in moves if keep(m)]
    if n is not None:
        return heapq.nsmallest(n, moves, key=move_key)
    return sorted(moves, key=move_key)


class Child:
    """A proposed child state, built only if the beam keeps it (most are not)."""

    __slots__ = ("cumul", "rank", "value", "path", "_make", "_state")

    def __init__(
        self, cumul: int, rank: int, value: float, path: str, make: Callable[[], State]
    ) -> None:
        self.cumul = cumul
        self.rank = rank
        self.value = value
        self.path = path
        self._make = make
        self._state: State | None = None

    def state(self) -> State:
        if self._state is None:
            self._state = self._make()
        return self._state

    def order(self) -> tuple[int, float, str]:
        return (-self.rank, -self.value, self.path)


def play(
    state: State, m: GeneratedMove, res: tuple[object, ...], *, group: int | None = None,
    letters: str | None = None, heuristic: float = 0.0, merge_score: bool = False,
    rank: int = 0,
) -> Child:
    cumul = state.cumul + m.score
    ref = format_ref(m.ref)
    path = f"{state.path}{ref}{m.word};"

    def make() -> State:
        board = state.board.copy()
        m.placement.apply(board)
        number = len(state.scores) if merge_score else state.move_number
        line = FeuilleMove(number=number, ref=ref, word=m.word,
                           letters=letters if letters is not None else m.letters,
                           score=m.score, cumul=cumul, group=group)
        if merge_score:
            scores = state.scores[:-1] + (state.scores[-1] + m.score,)
        else:
            scores = state.scores + (m.score,)
        return State(board, cumul, state.lines + (line,), scores, res, heuristic, path,
                      state.rank + rank)

    return Child(cumul, state.rank + rank, cumul + heuristic, path, make)


def pass_turn(state: State, res: tuple[object, ...], group: int | None) -> Child:
    path = state.path + "-;"

    def make() -> State:
        line = FeuilleMove(number=state.move_number, passed=True, score=0, cumul=state.cumul,
                           group=group)
        return State(state.board, state.cumul, state.lines + (line,), state.scores + (0,),
                      res, state.heuristic, path, state.rank)

    return Child(state.cumul, state.rank, state.evaluation(), path, make)


# --- beam search --------------------------------------------------------------------------
def beam(game: Game, width: int, budget: Budget) -> State:
    """Best finished state of a beam of ``width`` (a state is finished when it has no
    child)."""
    branch = max(MIN_BRANCH, width) if width > 1 else 1
    layer = [game.start()]
    best: State | None = None
    while layer:
        children: list[Child] = []
        for s in layer:
            kids = game.children(s, branch, budget)
            if not kids and _better(s, best):
                best = s
            children.extend(kids)
        # Only the most promising children are built; duplicates (the same grid and
        # supplies reached by two paths) are then dropped.
        children.sort(key=Child.order)
        seen: dict[tuple[object, ...], State] = {}
        for c in children[: 2 * width]:
            st = c.state()
            k = st.key()
            if _better(st, seen.get(k)):
                seen[k] = st
        layer = sorted(seen.values(), key=lambda s: (-s.rank, -s.evaluation(), s.path))[:width]
    assert best is not None
    return best


def _better(a: State, b: State | None) -> bool:
    """Higher rank, then higher cumul; then the alphabetically smaller path (reproducible)."""
    if b is None:
        return True
    return (a.rank, a.cumul) > (b.rank, b.cumul) or (
        (a.rank, a.cumul) == (b.rank, b.cumul) and a.path < b.path
    )


def widening(game: Game, budget: Budget) -> tuple[State, int]:
    """Greedy first (always finished), then beams of width 2, 4, … while nodes last."""
    best = beam(game, 1, budget)
    best_width = 1
    budget.best = best.cumul
    budget.report()
    budget.enforce = True
    width = 2
    while width <= MAX_WIDTH:
        budget.width = width
        try:
            cand = beam(game, width, budget)
        except OutOfBudget:
            break
        if (cand.rank, cand.cumul) > (best.rank, best.cumul):
            best, best_width = cand, width
            budget.best = best.cumul
        budget.report()
        width *= 2
    return best, best_width


def consumed(state: State) -> int:
    return sum(len(line.letters or "") for line in state.lines)

"""Reference solutions: the answer key of a problem, computed with the move generator
(:mod:`scoring.movegen`) — what the arbiter publishes next to the players' results.

:func:`solve` returns a :class:`Solution`: a legal :class:`~puzzles.feuille.Feuille` (moves
with letters used, reference, word, score and cumul, exactly what :mod:`puzzles.verify` reads)
plus its cumul and, for Superscrabble, the list of distinct scrabbles. What each game's
answer guarantees (docs/PUZZLES.md §9, "Reference solutions"):

- **Superscrabble** — *exact*: every placement of the 7 letters, counted once per RULES §7.5
  identity (start square, direction, word with the joker's letter resolved).
- **Série de maximaux** — *exact*: the lexicographically best vector of per-move scores
  (its ranking, RULES §7.4), every move a top of tops over the remaining groups; all tied
  tops are followed while at most :data:`SERIE_FRONTIER` positions are tied.
- **Intégral, Intégral partiel, rangée, Anticipation (classique, exclusif fond/résistance),
  N-Scrabble** — *heuristic*: a beam search over the move generator, widened 1, 2, 4, …
  while the budget lasts; the best finished sheet is kept. No optimality is claimed.
- **Superscrabble incomplet** — *heuristic*: construction words of at most
  :data:`CONSTRUCTION_MAX_TILES` tiles are added one at a time, each the candidate that most
  raises the exact scrabble count (candidates put down letters the rack can scrabble
  through); the scrabbles of the final grid are exact.

In the consonant variants (Anticipation avocalique, Série de maximaux and N-Scrabble with
the consonants announced) the completion from the pool is searched heuristically, so the
Série answer there is heuristic too. The Anticipation aveugle (each player composes his
own groups) raises :class:`SolverError`.

The budget is counted in *nodes* (one move-generator call each), so a given (problem, seed,
nodes) always gives the same sheet; ``seconds`` is a wall-clock cap that stops widening (the
greedy pass, width 1, always finishes) and ``Solution.complete`` says whether it cut in.
"""

from __future__ import annotations

import heapq
import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol

from puzzles.feuille import Feuille, FeuilleMove
from puzzles.problem import GameType, Problem
from puzzles.settings import Settings
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.lexicon import Lexicon
from scoring.movegen import GeneratedMove
from scoring.notation import format_ref
from scoring.tiles import JOKER

#: Nodes (move-generator calls) granted per second of ``seconds`` when ``nodes`` is not
#: given. Measured on one core with the C generator, search overhead included: about 1 ms
#: per node for the rangée, 3 ms for a 7-letter group or an Intégral candidate rack, 130 ms
#: for a rack of a consonant variant (up to 11 letters with a joker); the rates leave room
#: for a loaded machine so that the node budget, not the clock, ends the search.
NODES_PER_SECOND = 150
STOCK_NODES_PER_SECOND = 150
POOL_NODES_PER_SECOND = 8
#: Moves of each position kept as branches, per candidate rack, at beam width ``w``:
#: ``max(MIN_BRANCH, w)``.
MIN_BRANCH = 3
#: Largest beam width tried.
MAX_WIDTH = 256
#: Intégral family: letters per candidate rack and candidate racks per position.
STOCK_RACK_SIZE = 11
STOCK_RACKS = 3
#: Série de maximaux: tied positions followed at most (beyond it the answer is heuristic).
SERIE_FRONTIER = 1024
#: The same with the consonants announced, where each position costs far more (11-letter
#: racks, full enumeration) and the answer is heuristic anyway.
SERIE_POOL_FRONTIER = 1
#: Superscrabble incomplet: construction moves tried per step, and their largest size.
CONSTRUCTION_CANDIDATES = 40
CONSTRUCTION_MAX_TILES = 4
#: Consonant variants: the pool letters in the order the candidate rack takes them, the
#: rack's largest size, and what a pool letter still unused is worth to the evaluation.
POOL_ORDER = ("E", "A", "I", "U", "O", "Y", JOKER)
POOL_RACK = 11
POOL_LETTER_VALUE = 3
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
class _OutOfBudget(Exception):
    pass


class _Budget:
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
            raise _OutOfBudget
        if time.monotonic() > self.deadline:
            self.time_cut = True
            raise _OutOfBudget

    def report(self) -> None:
        if self.progress is not None:
            self.progress(Progress(self.nodes, self.elapsed, self.width, self.best))

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.start


# --- search state -------------------------------------------------------------------------
@dataclass(frozen=True)
class _State:
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


class _Game(Protocol):
    def start(self) -> _State: ...

    def children(self, state: _State, branch: int, budget: _Budget) -> list[_Child]: ...


def _candidates(
    board: Board, rack: str, config: GameConfig, budget: _Budget,
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
    moves = movegen.generate(board, rack, config)
    if keep is not None:
        moves = [m for m in moves if keep(m)]
    if n is not None:
        return heapq.nsmallest(n, moves, key=move_key)
    moves.sort(key=move_key)
    return moves


def _line(
    number: int, m: GeneratedMove, cumul: int, *, group: int | None = None,
    letters: str | None = None,
) -> FeuilleMove:
    return FeuilleMove(
        number=number,
        ref=format_ref(m.ref),
        word=m.word,
        letters=letters if letters is not None else m.letters,
        score=m.score,
        cumul=cumul,
        group=group,
    )


class _Child:
    """A proposed child state, built only if the beam keeps it (most are not)."""

    __slots__ = ("cumul", "rank", "value", "path", "_make", "_state")

    def __init__(
        self, cumul: int, rank: int, value: float, path: str, make: Callable[[], _State]
    ) -> None:
        self.cumul = cumul
        self.rank = rank
        self.value = value
        self.path = path
        self._make = make
        self._state: _State | None = None

    def state(self) -> _State:
        if self._state is None:
            self._state = self._make()
        return self._state

    def order(self) -> tuple[int, float, str]:
        return (-self.rank, -self.value, self.path)


def _play(
    state: _State, m: GeneratedMove, res: tuple[object, ...], *, group: int | None = None,
    letters: str | None = None, heuristic: float = 0.0, merge_score: bool = False,
    rank: int = 0,
) -> _Child:
    cumul = state.cumul + m.score
    ref = format_ref(m.ref)
    path = f"{state.path}{ref}{m.word};"

    def make() -> _State:
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
        return _State(board, cumul, state.lines + (line,), scores, res, heuristic, path,
                      state.rank + rank)

    return _Child(cumul, state.rank + rank, cumul + heuristic, path, make)


def _pass(state: _State, res: tuple[object, ...], group: int | None) -> _Child:
    path = state.path + "-;"

    def make() -> _State:
        line = FeuilleMove(number=state.move_number, passed=True, score=0, cumul=state.cumul,
                           group=group)
        return _State(state.board, state.cumul, state.lines + (line,), state.scores + (0,),
                      res, state.heuristic, path, state.rank)

    return _Child(state.cumul, state.rank, state.evaluation(), path, make)


# --- beam search --------------------------------------------------------------------------
def _beam(game: _Game, width: int, budget: _Budget) -> _State:
    """Best finished state of a beam of ``width`` (a state is finished when it has no
    child)."""
    branch = max(MIN_BRANCH, width) if width > 1 else 1
    layer = [game.start()]
    best: _State | None = None
    while layer:
        children: list[_Child] = []
        for s in layer:
            kids = game.children(s, branch, budget)
            if not kids and _better(s, best):
                best = s
            children.extend(kids)
        # Only the most promising children are built; duplicates (the same grid and
        # supplies reached by two paths) are then dropped.
        children.sort(key=_Child.order)
        seen: dict[tuple[object, ...], _State] = {}
        for c in children[: 2 * width]:
            st = c.state()
            k = st.key()
            if _better(st, seen.get(k)):
                seen[k] = st
        layer = sorted(seen.values(), key=lambda s: (-s.rank, -s.evaluation(), s.path))[:width]
    assert best is not None
    return best


def _better(a: _State, b: _State | None) -> bool:
    """Higher rank, then higher cumul; then the alphabetically smaller path (reproducible)."""
    if b is None:
        return True
    return (a.rank, a.cumul) > (b.rank, b.cumul) or (
        (a.rank, a.cumul) == (b.rank, b.cumul) and a.path < b.path
    )


def _widening(game: _Game, budget: _Budget) -> tuple[_State, int]:
    """Greedy first (always finished), then beams of width 2, 4, … while nodes last."""
    best = _beam(game, 1, budget)
    best_width = 1
    budget.best = best.cumul
    budget.report()
    budget.enforce = True
    width = 2
    while width <= MAX_WIDTH:
        budget.width = width
        try:
            cand = _beam(game, width, budget)
        except _OutOfBudget:
            break
        if (cand.rank, cand.cumul) > (best.rank, best.cumul):
            best, best_width = cand, width
            budget.best = best.cumul
        budget.report()
        width *= 2
    return best, best_width


# --- games --------------------------------------------------------------------------------
class _Rangee:
    """Each move plays exactly the first k letters still in the row (RULES §7.3)."""

    def __init__(self, row: str, config: GameConfig, rate: float) -> None:
        self.row = row
        self.config = config
        self.rate = rate

    def start(self) -> _State:
        return _State(Board(), 0, (), (), (0,), self.rate * len(self.row))

    def children(self, state: _State, branch: int, budget: _Budget) -> list[_Child]:
        pos = int(state.res[0])  # type: ignore[call-overload]
        if pos >= len(self.row):
            return []
        row = self.row

        def prefix(m: GeneratedMove) -> bool:
            return Counter(m.letters) == Counter(row[pos : pos + m.tiles])

        moves = _candidates(state.board, row[pos : pos + 7], self.config, budget, prefix,
                            branch)
        out = []
        for m in moves[:branch]:
            new = pos + m.tiles
            out.append(_play(state, m, (new,), letters=row[pos:new],
                             heuristic=self.rate * (len(row) - new)))
        return out


class _Stock:
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

    def start(self) -> _State:
        letters = "".join(sorted(self.stock.elements()))
        return _State(Board(), 0, (), (), (letters,), self._heuristic(self.stock))

    def racks(self, left: Counter[str], state: _State) -> list[str]:
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

    def children(self, state: _State, branch: int, budget: _Budget) -> list[_Child]:
        left = Counter(str(state.res[0]))
        if not left:
            return []
        pooled: dict[tuple[int, bool, str], GeneratedMove] = {}
        for rack in self.racks(left, state):
            for m in _candidates(state.board, rack, self.config, budget, n=branch * 4):
                pooled.setdefault((m.start, m.horizontal, m.word), m)

        def value(m: GeneratedMove) -> float:
            jokers_wasted = m.jokers if m.tiles < self.config.bingo_tiles else 0
            return m.score - JOKER_KEEP_VALUE * jokers_wasted

        ranked = sorted(pooled.values(), key=lambda m: (-value(m), move_key(m)))
        out = []
        for m in ranked[:branch]:
            rest = left - Counter(m.letters)
            out.append(_play(state, m, ("".join(sorted(rest.elements())),),
                             heuristic=self._heuristic(rest)))
        return out


class _Groups:
    """Games played one group per move on the player's own grid: Anticipation (move 1 may
    first play group 1), Scrabble exclusif, N-Scrabble (imposed or free order), and the
    Série de maximaux through :func:`_serie`.

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

    def start(self) -> _State:
        pool = self.pool or ""
        return _State(Board(), 0, (), (), (frozenset(), pool), self._heuristic(pool))

    def _available(self, used: frozenset[int], move_index: int) -> list[int]:
        if self.order is not None:
            return [self.order[move_index]] if move_index < len(self.order) else []
        return [g for g in range(1, len(self.groups) + 1) if g not in used]

    def children(self, state: _State, branch: int, budget: _Budget) -> list[_Child]:
        used, pool = state.res
        assert isinstance(used, frozenset) and isinstance(pool, str)
        nexts = self._available(used, len(state.scores))
        out: list[_Child] = []
        for g in nexts:
            rack, keep = self.rack(g, pool)
            moves = _candidates(state.board, rack, self.config, budget, keep, branch)
            for m in moves:
                rest = self.after(pool, m)
                out.append(_play(state, m, (used | {g}, rest), group=g,
                                 rank=int(self.survival), heuristic=self._heuristic(rest)))
            if self.first_group and not state.scores:
                out.extend(self._with_group1(state, g, branch, budget))
            if not moves and self.pass_allowed:
                out.append(_pass(state, (used | {g}, pool), g))
        return out

    def _with_group1(
        self, state: _State, g: int, branch: int, budget: _Budget
    ) -> list[_Child]:
        """Move 1 as two words: one from group 1, then one from the drawn group."""
        used, pool = state.res
        assert isinstance(used, frozenset) and isinstance(pool, str)
        res = (used | {g},)
        out: list[_Child] = []
        rack1, keep1 = self.rack(1, pool)
        for m1 in _candidates(state.board, rack1, self.config, budget, keep1, branch):
            pool1 = self.after(pool, m1)
            mid = _play(state, m1, (*res, pool1), group=1).state()
            rack2, keep2 = self.rack(g, pool1)
            for m2 in _candidates(mid.board, rack2, self.config, budget, keep2, branch):
                rest = self.after(pool1, m2)
                out.append(_play(mid, m2, (*res, rest), group=g, merge_score=True,
                                 heuristic=self._heuristic(rest)))
        return out


# --- exact games --------------------------------------------------------------------------
def _symmetric(config: GameConfig) -> bool:
    """The premium layout is its own transpose (the standard one is)."""
    lay = config.layout

    def t(cells: Sequence[int]) -> list[int]:
        return [cells[c * 15 + r] for r in range(15) for c in range(15)]

    return t(lay.letter_mult) == list(lay.letter_mult) and t(lay.word_mult) == list(
        lay.word_mult
    )


def _top_moves(
    game: _Groups, board: Board, g: int, pool: str, budget: _Budget
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


def _serie(game: _Groups, budget: _Budget) -> tuple[_State, bool]:
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
    frontier: list[tuple[Seq, _State]] = [((), game.start())]
    exact = True
    n = len(game.groups)
    while True:
        top: int | None = None
        tied: list[tuple[Seq, _State, GeneratedMove, int]] = []
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
        children: dict[tuple[object, ...], tuple[Seq, _State]] = {}
        for seq, st, m, g in tied:
            used, pool = st.res
            assert isinstance(used, frozenset) and isinstance(pool, str)
            child = _play(st, m, (used | {g}, game.after(pool, m)), group=g).state()
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


def _superscrabble_lines(moves: Iterable[GeneratedMove]) -> tuple[FeuilleMove, ...]:
    return tuple(
        FeuilleMove(number=i, ref=format_ref(m.ref), word=m.word, letters=m.letters,
                    score=m.score)
        for i, m in enumerate(moves, start=1)
    )


def _through_letters(rack: str, config: GameConfig, budget: _Budget) -> dict[str, int]:
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
    budget: _Budget,
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

    moves = _candidates(board, rack, config, budget,
                        lambda m: m.tiles <= CONSTRUCTION_MAX_TILES and gain(m) > 0)
    moves.sort(key=lambda m: (-gain(m), m.tiles, move_key(m)))
    return moves[:CONSTRUCTION_CANDIDATES]


def _incomplet(
    problem: Problem, config: GameConfig, budget: _Budget
) -> tuple[_State, list[GeneratedMove]]:
    """Superscrabble incomplet: add construction words one at a time while one of the
    candidates raises the number of scrabbles (at equal count, fewer tiles)."""
    rack = problem.rack
    state = _State(Board(), 0, (), (), ())
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
            state = _play(state, m, ()).state()
            left -= Counter(m.letters)
            best = found_for[choice[2]]
            budget.best = len(best)
            budget.report()
    except _OutOfBudget:
        pass
    return state, best


# --- entry point --------------------------------------------------------------------------
def game_config(problem: Problem, lexicon: Lexicon, settings: Settings | None = None) -> GameConfig:
    """The engine configuration a problem is solved with."""
    s = settings or Settings()
    return GameConfig(tileset=problem.tileset, lexicon=lexicon,
                      first_move_horizontal=s.first_move_horizontal)


#: Each player composes his own groups: there is no single problem to solve.
UNSUPPORTED = frozenset({GameType.ANTICIPATION_AVEUGLE})


def solve(
    problem: Problem,
    lexicon: Lexicon,
    *,
    seconds: float = 30.0,
    seed: int = 0,
    progress: Callable[[Progress], None] | None = None,
    nodes: int | None = None,
    settings: Settings | None = None,
) -> Solution:
    """The reference solution of ``problem`` judged with ``lexicon``.

    ``nodes`` (move-generator calls; default ``seconds * NODES_PER_SECOND``) is the budget
    that makes the result reproducible; ``seconds`` caps the wall-clock time. ``seed`` only
    matters to the Intégral family (the candidate racks).
    """
    game = problem.game
    if game in UNSUPPORTED:
        raise SolverError(
            f"Pas de solution de référence pour « {game.label} » : chaque joueur y compose "
            "ses propres groupes."
        )
    settings = settings or Settings()
    config = game_config(problem, lexicon, settings)
    per_second = NODES_PER_SECOND
    if game in (GameType.INTEGRAL, GameType.INTEGRAL_PARTIEL):
        per_second = STOCK_NODES_PER_SECOND
    elif game.is_consonant_variant:
        per_second = POOL_NODES_PER_SECOND
    budget = _Budget(nodes if nodes is not None else int(seconds * per_second),
                     seconds, progress)
    feuille_row: str | None = None

    if game in (GameType.SUPERSCRABBLE, GameType.SUPERSCRABBLE_INCOMPLET):
        if game is GameType.SUPERSCRABBLE:
            built = _State(problem.initial_board(), 0, (), (), ())
            budget.charge()
            found = superscrabble_moves(built.board, problem.rack, config)
        else:
            built, found = _incomplet(problem, config, budget)
        lines = _superscrabble_lines(found)
        return Solution(
            problem_id=problem.id, game=game,
            feuille=Feuille(moves=built.lines, scrabbles=lines, problem_id=problem.id),
            cumul=len(lines), scores=built.scores, exact=game is GameType.SUPERSCRABBLE,
            scrabbles=lines, nodes=budget.nodes, elapsed=budget.elapsed,
            complete=not budget.time_cut,
        )

    width = 1
    exact = False
    pool = problem.pool if game.is_consonant_variant else None
    sizes = problem.group_sizes
    if game in (GameType.SERIE_MAXIMAUX, GameType.SERIE_MAXIMAUX_CONSONNES):
        state, exact = _serie(
            _Groups(problem.groups, None, config, first_group=False, bingo_only=False,
                    pass_allowed=False, pool=pool, sizes=sizes),
            budget,
        )
        exact = exact and game is GameType.SERIE_MAXIMAUX
        budget.best = state.cumul
        budget.report()
    elif game is GameType.RANGEE:
        feuille_row = problem.row
        greedy = _beam(_Rangee(problem.row, config, 0.0), 1, budget)
        rate = greedy.cumul / max(1, _consumed(greedy))
        state, width = _widening(_Rangee(problem.row, config, rate), budget)
        if greedy.cumul > state.cumul:
            state, width = greedy, 1
    elif game in (GameType.INTEGRAL, GameType.INTEGRAL_PARTIEL):
        stock = problem.construction_stock()
        greedy = _beam(_Stock(stock, config, seed, 0.0), 1, budget)
        used = sum(stock.values()) - len(str(greedy.res[0]))
        rate = greedy.cumul / max(1, used)
        state, width = _widening(_Stock(stock, config, seed, rate), budget)
        if greedy.cumul > state.cumul:
            state, width = greedy, 1
    elif game.is_anticipation:
        fond = game is GameType.EXCLUSIF_FOND
        resistance = game is GameType.EXCLUSIF_RESISTANCE
        exclusif = fond or resistance
        state, width = _widening(
            _Groups(problem.groups, problem.order, config, first_group=not exclusif,
                    bingo_only=exclusif, survival=resistance,
                    pass_allowed=fond or (not exclusif and settings.anticipation_pass_allowed),
                    pool=pool, sizes=sizes),
            budget,
        )
    elif game in (GameType.N_SCRABBLE, GameType.N_SCRABBLE_CONSONNES):
        state, width = _widening(
            _Groups(problem.groups, problem.order or None, config, first_group=False,
                    bingo_only=False, pass_allowed=False, pool=pool, sizes=sizes),
            budget,
        )
    else:  # pragma: no cover - every GameType is handled above
        raise SolverError(f"Type de partie non pris en charge : {game}.")

    return Solution(
        problem_id=problem.id,
        game=game,
        feuille=Feuille(moves=state.lines, problem_id=problem.id, row=feuille_row),
        cumul=state.rank if game is GameType.EXCLUSIF_RESISTANCE else state.cumul,
        scores=state.scores,
        exact=exact,
        nodes=budget.nodes,
        width=width,
        elapsed=budget.elapsed,
        complete=not budget.time_cut,
    )


def _consumed(state: _State) -> int:
    return sum(len(line.letters or "") for line in state.lines)

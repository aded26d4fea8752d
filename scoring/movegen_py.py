"""The pure-Python move generator: the reference implementation of the raw engine interface.

Owns the raw interface both engines share (the ``MODE_*`` request codes, the ``JOKER_FLAG``
cell bit, ``ALL_LETTERS``, the :data:`RawMove` tuple; ``scoring/_movegen.pyi`` types the C
side) and :func:`py_generate`, Appel and Jacobson's anchor algorithm over the DAWG, used when
the C extension ``scoring._movegen`` is absent or ``ARBITRE_PURE_PYTHON=1``, and
:func:`py_followups`, the reference of the two-move sequence search (every second move
searched, no cut). Callers use :mod:`scoring.movegen` (``generate``, ``count``, ``best``,
``tops``, ``sequences``), which wraps the output.
"""

from __future__ import annotations

from array import array

from scoring.dawg import ACCEPTS, CHILD_SHIFT, LETTER_MASK, find_edge, node_edges
from scoring.layout import SIZE

MODE_ALL = 0
MODE_COUNT = 1
MODE_TOP = 2
MODE_ANALYSE = 3  # the counts of MODE_COUNT and the moves of MODE_TOP, in one pass
MOVE_OBJECTS = 16
"""Flag added to a mode: the C engine may answer with instances of the class given to its
``set_move_class`` (scoring.movegen.GeneratedMove) instead of :data:`RawMove` tuples; the
reference always answers with tuples."""
MOVE_LIST = 32
"""Flag added to ``MODE_ALL | MOVE_OBJECTS``: the C engine may answer with its compact
``MoveList`` (the moves packed, each item made as a move object when read) instead of a
list; the reference ignores it."""

ALL_LETTERS = (1 << 26) - 1
JOKER_FLAG = 32

RawMove = tuple[int, bool, int, str, int]
"""(score, horizontal, start square of the main word, main word with jokers lowercase, bit i
set when letter i of the word is a tile put down by the move)."""


def py_generate(
    edges: array[int],
    cells: bytes,
    rack_counts: bytes,
    values: bytes,
    letter_mult: bytes,
    word_mult: bytes,
    center: int,
    first_min_tiles: int,
    first_horizontal: bool,
    max_tiles: int,
    bingo_tiles: int,
    bingo_bonus: int,
    mode: int,
    n: int,
) -> list[RawMove] | tuple[int, int, int] | tuple[int, int, int, list[RawMove]]:
    """Reference implementation of the raw engine interface (see ``_movegen.pyi``)."""
    mode &= ~(MOVE_OBJECTS | MOVE_LIST)
    search = _Search(edges, rack_counts, values, first_min_tiles, max_tiles, bingo_tiles,
                     bingo_bonus)
    search.empty_board = not any(cells)
    for horizontal in (True, False):
        if not horizontal and search.empty_board and first_horizontal:
            break
        if horizontal:
            search.run_pass(True, cells, letter_mult, word_mult, center)
        else:
            search.run_pass(
                False,
                _transpose(cells),
                _transpose(letter_mult),
                _transpose(word_mult),
                (center % SIZE) * SIZE + center // SIZE,
            )
    moves = search.moves
    if mode in (MODE_COUNT, MODE_ANALYSE):
        top = max((m[0] for m in moves), default=-1)
        scrabbles = sum(1 for m in moves if m[4].bit_count() == bingo_tiles)
        if mode == MODE_COUNT:
            return (len(moves), scrabbles, top)
        return (len(moves), scrabbles, top, _best_of(moves, n))
    if mode == MODE_TOP:
        return _best_of(moves, n)
    return moves


def _best_of(moves: list[RawMove], n: int) -> list[RawMove]:
    """The moves scoring at least the n-th best score (all the ties of that score)."""
    ranked = sorted((m[0] for m in moves), reverse=True)
    if not ranked:
        return []
    cutoff = ranked[min(n, len(ranked)) - 1]
    return [m for m in moves if m[0] >= cutoff]


FollowupCounts = tuple[int, int, int, int, int]
"""(first moves skipped as dominated, second-move searches ended by bounds alone, searches
that expanded an anchor, of which over the whole grid, anchors expanded); the pure-Python
reference counts one whole-grid search per first move and no anchors."""


def py_followups(
    edges: array[int],
    cells: bytes,
    rack_counts: bytes,
    values: bytes,
    letter_mult: bytes,
    word_mult: bytes,
    center: int,
    first_min_tiles: int,
    first_horizontal: bool,
    max_tiles: int,
    bingo_tiles: int,
    bingo_bonus: int,
    firsts: list[RawMove],
    first_rack: bytes,
    floor: int,
) -> tuple[list[tuple[int, int]], FollowupCounts]:
    """Reference of the C ``followups`` (same inputs, same list): for each first move in
    order, the best score of ``rack_counts`` on the grid it leaves (0: no move), every one
    searched in full; kept when first + second reaches the best sum so far (from
    ``floor``). A first move putting a joker down as a letter ``first_rack`` still holds as
    an unused tile is dominated and skipped."""
    best = floor
    out: list[tuple[int, int]] = []
    dominated = 0
    for index, (score, horizontal, start, word, mask) in enumerate(firsts):
        step = 1 if horizontal else SIZE
        grid = bytearray(cells)
        used = [0] * 27
        jokers: list[int] = []
        for i, ch in enumerate(word):
            if mask >> i & 1:
                code = ord(ch.upper()) - 64
                grid[start + i * step] = code | (JOKER_FLAG if ch.islower() else 0)
                if ch.islower():
                    jokers.append(code)
                else:
                    used[code] += 1
        if any(first_rack[code] > used[code] for code in jokers):
            dominated += 1
            continue
        raw = py_generate(edges, bytes(grid), rack_counts, values, letter_mult, word_mult,
                          center, first_min_tiles, first_horizontal, max_tiles, bingo_tiles,
                          bingo_bonus, MODE_TOP, 1)
        assert isinstance(raw, list)
        second = max((m[0] for m in raw), default=0)
        if score + second >= best:
            out.append((index, second))
            best = max(best, score + second)
    searched = len(firsts) - dominated
    return out, (dominated, 0, searched, searched, 0)


def _transpose(grid: bytes) -> bytes:
    return bytes(grid[c * SIZE + r] for r in range(SIZE) for c in range(SIZE))


class _Search:
    """State of one generation; a pass works on rows (the vertical pass on the transposed
    grid), so only horizontal words are ever built."""

    def __init__(
        self,
        edges: array[int],
        rack: bytes,
        values: bytes,
        first_min_tiles: int,
        max_tiles: int,
        bingo_tiles: int,
        bingo_bonus: int,
    ) -> None:
        self.edges = edges
        self.root = edges[0] >> CHILD_SHIFT
        self.rack = list(rack)
        self.values = values
        self.first_min_tiles = first_min_tiles
        self.max_tiles = max_tiles
        self.bingo_tiles = bingo_tiles
        self.bingo_bonus = bingo_bonus
        self.empty_board = False
        self.moves: list[RawMove] = []
        # per pass
        self.horizontal = True
        self.cl = b""
        self.lm = b""
        self.wm = b""
        self.cross_mask: list[int] = []
        self.cross_score: list[int] = []
        # per anchor
        self.row = 0
        self.anchor = 0
        self.word: list[int] = []
        self.new: list[bool] = []
        self.tiles = 0

    def child_edge(self, node: int, code: int) -> int:
        return find_edge(self.edges, node, code)

    def node_edges(self, node: int) -> list[int]:
        return node_edges(self.edges, node)

    def cross_sets(self) -> None:
        """Letters each empty square admits given its column word, and that word's points
        (-1: no column word)."""
        cl, values, edges = self.cl, self.values, self.edges
        mask_of = [ALL_LETTERS] * (SIZE * SIZE)
        score_of = [-1] * (SIZE * SIZE)
        for sq in range(SIZE * SIZE):
            if cl[sq]:
                continue
            top = sq
            while top >= SIZE and cl[top - SIZE]:
                top -= SIZE
            bottom = sq
            while bottom + SIZE < SIZE * SIZE and cl[bottom + SIZE]:
                bottom += SIZE
            if top == sq and bottom == sq:
                continue
            score_of[sq] = sum(
                values[cl[s]] for s in range(top, bottom + 1, SIZE) if not cl[s] & JOKER_FLAG
            )
            node = self.root
            for s in range(top, sq, SIZE):
                e = self.child_edge(node, cl[s] & LETTER_MASK)
                if e < 0:
                    node = -1
                    break
                node = edges[e] >> CHILD_SHIFT
            mask = 0
            for e in self.node_edges(node) if node >= 0 else []:
                code = e & LETTER_MASK
                last_edge = e
                sub = e >> CHILD_SHIFT
                for s in range(sq + SIZE, bottom + 1, SIZE):
                    i = self.child_edge(sub, cl[s] & LETTER_MASK)
                    if i < 0:
                        last_edge = 0
                        break
                    last_edge = edges[i]
                    sub = last_edge >> CHILD_SHIFT
                if last_edge & ACCEPTS:
                    mask |= 1 << (code - 1)
            mask_of[sq] = mask
        self.cross_mask = mask_of
        self.cross_score = score_of

    def run_pass(
        self, horizontal: bool, cl: bytes, lm: bytes, wm: bytes, center: int
    ) -> None:
        self.horizontal = horizontal
        self.cl, self.lm, self.wm = cl, lm, wm
        self.cross_sets()
        for row in range(SIZE):
            base = row * SIZE
            anchors = [self.is_anchor(base + c, center) for c in range(SIZE)]
            self.row = row
            for a in range(SIZE):
                if not anchors[a]:
                    continue
                self.anchor = a
                self.tiles = 0
                self.word.clear()
                self.new.clear()
                if a > 0 and cl[base + a - 1]:
                    s = a - 1
                    while s > 0 and cl[base + s - 1]:
                        s -= 1
                    node = self.root
                    for c in range(s, a):
                        e = self.child_edge(node, cl[base + c] & LETTER_MASK)
                        if e < 0:
                            node = -1
                            break
                        self.word.append(cl[base + c])
                        self.new.append(False)
                        node = self.edges[e] >> CHILD_SHIFT
                    if node >= 0:
                        self.extend(node, a, False, s)
                else:
                    limit = 0
                    c = a - 1
                    while c >= 0 and not cl[base + c] and not anchors[c]:
                        limit += 1
                        c -= 1
                    self.left(self.root, limit)

    def is_anchor(self, sq: int, center: int) -> bool:
        cl = self.cl
        if cl[sq]:
            return False
        if self.empty_board:
            return sq == center
        r, c = divmod(sq, SIZE)
        return bool(
            (c > 0 and cl[sq - 1])
            or (c < SIZE - 1 and cl[sq + 1])
            or (r > 0 and cl[sq - SIZE])
            or (r < SIZE - 1 and cl[sq + SIZE])
        )

    def place(self, letter: int, slot: int) -> None:
        self.rack[slot] -= 1
        self.tiles += 1
        self.word.append(letter)
        self.new.append(True)

    def unplace(self, slot: int) -> None:
        self.new.pop()
        self.word.pop()
        self.tiles -= 1
        self.rack[slot] += 1

    def left(self, node: int, limit: int) -> None:
        """Left parts on the free squares before the anchor, then extend right from it."""
        self.extend(node, self.anchor, False, self.anchor - len(self.word))
        if limit == 0 or self.tiles >= self.max_tiles:
            return
        rack = self.rack
        for e in self.node_edges(node):
            code = e & LETTER_MASK
            for letter, slot in ((code, code), (code | JOKER_FLAG, 0)):
                if rack[slot]:
                    self.place(letter, slot)
                    self.left(e >> CHILD_SHIFT, limit - 1)
                    self.unplace(slot)

    def extend(self, node: int, col: int, accepted: bool, start: int) -> None:
        if col >= SIZE:
            if accepted and col > self.anchor:
                self.record(start, col)
            return
        sq = self.row * SIZE + col
        t = self.cl[sq]
        if t:
            e = self.child_edge(node, t & LETTER_MASK)
            if e >= 0:
                edge = self.edges[e]
                self.word.append(t)
                self.new.append(False)
                self.extend(edge >> CHILD_SHIFT, col + 1, bool(edge & ACCEPTS), start)
                self.word.pop()
                self.new.pop()
            return
        if accepted and col > self.anchor:
            self.record(start, col)
        if self.tiles >= self.max_tiles:
            return
        allowed = self.cross_mask[sq]
        rack = self.rack
        for e in self.node_edges(node):
            code = e & LETTER_MASK
            if not allowed >> (code - 1) & 1:
                continue
            for letter, slot in ((code, code), (code | JOKER_FLAG, 0)):
                if rack[slot]:
                    self.place(letter, slot)
                    self.extend(e >> CHILD_SHIFT, col + 1, bool(e & ACCEPTS), start)
                    self.unplace(slot)

    def record(self, start: int, end: int) -> None:
        if end - start < 2 or (self.empty_board and self.tiles < self.first_min_tiles):
            return
        base = self.row * SIZE
        values, lm, wm, cross_score = self.values, self.lm, self.wm, self.cross_score
        main = 0
        mult = 1
        cross = 0
        mask = 0
        crosses = False
        for i, t in enumerate(self.word):
            v = 0 if t & JOKER_FLAG else values[t]
            if self.new[i]:
                sq = base + start + i
                mask |= 1 << i
                main += v * lm[sq]
                mult *= wm[sq]
                if cross_score[sq] >= 0:
                    crosses = True
                    cross += (cross_score[sq] + v * lm[sq]) * wm[sq]
            else:
                main += v
        if not self.horizontal and self.tiles == 1 and crosses:
            return  # the horizontal pass has it
        score = main * mult + cross + (self.bingo_bonus if self.tiles == self.bingo_tiles else 0)
        text = "".join(
            chr(96 + (t & LETTER_MASK)) if t & JOKER_FLAG else chr(64 + t) for t in self.word
        )
        start_sq = base + start if self.horizontal else start * SIZE + self.row
        self.moves.append((score, self.horizontal, start_sq, text, mask))

"""Move generation: every legal placement of a rack on a board, their count, and the top.

The generator is Appel and Jacobson's anchor algorithm over the lexicon's DAWG
(:mod:`scoring.dawg`): for each direction it computes, per empty square, the letters the
perpendicular word allows (cross-sets) and that word's fixed points; then from each anchor (an
empty square touching a tile, or the centre on an empty board) it grows a left part over the
free squares before it and extends right through the grid. Each placement is found exactly
once, from the leftmost anchor it covers. A one-tile move that forms words both ways is found
in the horizontal pass only (it takes the horizontal reference, as in the conformance data).
Words already on the board are never re-checked.

Two engines give identical results: ``scoring._movegen`` (C, built by ``setup.py``) and the
pure-Python :func:`py_generate` used when the extension is absent (``ARBITRE_PURE_PYTHON=1``
forces it). Both share the raw interface below; :class:`GeneratedMove` wraps their output.

The top (:func:`best`, :func:`tops`) is chosen by FISF rules (RULES §4.5): highest score, then
fewest jokers, then — when the bag is empty — a move using the whole rack, then (G1,
INFERRED) a horizontal word first, then the smallest reference (row, then column), then the
smallest word (alphabetical on the letters, a joker after the same letter as a tile). The C
engine prunes with an upper bound per anchor (a *shadow* score: the rack's best values on the
best multipliers of each reachable span), so the top does not enumerate every placement; the
Python engine ranks every placement (same result, slower).
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable
from typing import NamedTuple

from scoring.board import Board
from scoring.config import GameConfig
from scoring.dawg import ACCEPTS, CHILD_SHIFT, LETTER_MASK, find_edge, node_edges
from scoring.errors import LexiconError, UnknownLetterError
from scoring.layout import SIZE
from scoring.lexicon import Lexicon
from scoring.move import Placement, Tile
from scoring.notation import Ref, fold_letter, format_ref

MODE_ALL = 0
MODE_COUNT = 1
MODE_TOP = 2

ALL_LETTERS = (1 << 26) - 1
JOKER_FLAG = 32

RawMove = tuple[int, bool, int, str, int]
"""(score, horizontal, start square of the main word, main word with jokers lowercase, bit i
set when letter i of the word is a tile put down by the move)."""

RawGenerate = Callable[
    ["array[int]", bytes, bytes, bytes, bytes, bytes, int, int, bool, int, int, int, int, int],
    "list[RawMove] | tuple[int, int, int]",
]

_c_generate: RawGenerate | None
try:
    from scoring._movegen import generate as _c_generate_impl

    _c_generate = _c_generate_impl
except ImportError:  # pragma: no cover - the extension is optional
    _c_generate = None


def c_available() -> bool:
    """True when the compiled engine is importable."""
    return _c_generate is not None


class MoveCount(NamedTuple):
    placements: int
    scrabbles: int
    top: int | None


class GeneratedMove:
    """One legal placement with its score, French reference and whole main word.

    ``placement``, ``score``, ``ref``, ``word`` as in the conformance data; also ``start``
    (square of the main word's first letter), ``horizontal`` and ``new_mask`` (bit i: letter
    i of ``word`` is put down by this move).

    The :attr:`placement` is built on first use: listing thousands of moves should not pay
    for objects nobody looks at.
    """

    __slots__ = ("score", "horizontal", "start", "word", "new_mask", "_placement")

    def __init__(self, score: int, horizontal: bool, start: int, word: str, new_mask: int):
        self.score = score
        self.horizontal = horizontal
        self.start = start
        self.word = word
        self.new_mask = new_mask
        self._placement: Placement | None = None

    @property
    def ref(self) -> Ref:
        return Ref.at(self.start, self.horizontal)

    @property
    def placement(self) -> Placement:
        if self._placement is None:
            step = 1 if self.horizontal else SIZE
            self._placement = Placement(
                tuple(
                    Tile(self.start + i * step, ch.upper(), ch.islower())
                    for i, ch in enumerate(self.word)
                    if self.new_mask >> i & 1
                )
            )
        return self._placement

    @property
    def tiles(self) -> int:
        """Number of tiles put down."""
        return self.new_mask.bit_count()

    @property
    def jokers(self) -> int:
        """Jokers taken from the rack."""
        return sum(
            1 for i, ch in enumerate(self.word) if self.new_mask >> i & 1 and ch.islower()
        )

    @property
    def letters(self) -> str:
        """Rack letters used, in word order, jokers as ``?``."""
        return "".join(
            ("?" if ch.islower() else ch)
            for i, ch in enumerate(self.word)
            if self.new_mask >> i & 1
        )

    @property
    def notation(self) -> str:
        return f"{format_ref(self.ref)} {self.word}"

    def _key(self) -> tuple[int, bool, int, str, int]:
        return (self.score, self.horizontal, self.start, self.word, self.new_mask)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GeneratedMove) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"<GeneratedMove {self.notation} {self.score}>"


def fisf_key(move: GeneratedMove, rack_len: int, bag_empty: bool) -> tuple[object, ...]:
    """Sort key: the FISF top comes first (see the module docstring)."""
    ends_game = bag_empty and move.tiles == rack_len
    return (
        -move.score,
        move.jokers,
        not ends_game,
        not move.horizontal,
        move.start // SIZE,
        move.start % SIZE,
        move.word.upper(),
        move.word.swapcase(),
    )


# --- inputs of the raw engines ----------------------------------------------------------
def parse_rack(rack: str, config: GameConfig) -> bytes:
    """Counts per letter (index 0: jokers, 1–26: A–Z). French errors on bad letters."""
    counts = bytearray(27)
    text = rack.strip()
    if not text:
        raise UnknownLetterError("Tirage vide.")
    for ch in text:
        if ch == "?":
            counts[0] += 1
            continue
        folded = fold_letter(ch).upper()
        if len(folded) != 1 or not ("A" <= folded <= "Z"):
            raise UnknownLetterError(
                f"Tirage « {rack} » : caractère « {ch} » inattendu "
                "(lettres A à Z, ? pour un joker)."
            )
        if folded not in config.tileset.points:
            raise UnknownLetterError(
                f"Tirage « {rack} » : la lettre {folded} n'existe pas dans le jeu "
                f"{config.tileset.name}."
            )
        counts[ord(folded) - 64] += 1
    if sum(counts) > SIZE:
        raise UnknownLetterError(f"Tirage « {rack} » : {sum(counts)} lettres, c'est trop.")
    return bytes(counts)


def _cells(board: Board) -> bytes:
    out = bytearray(SIZE * SIZE)
    for sq, cell in enumerate(board.cells):
        if cell:
            code = ord(cell.upper()) - 64
            if not 1 <= code <= 26:
                raise UnknownLetterError(f"Lettre inconnue sur la grille : « {cell} ».")
            out[sq] = code | (JOKER_FLAG if cell.islower() else 0)
    return bytes(out)


def _values(config: GameConfig) -> bytes:
    points = config.tileset.points
    return bytes([0] + [points.get(chr(64 + i), 0) for i in range(1, 27)])


def _lexicon(config: GameConfig, lexicon: Lexicon | None) -> Lexicon:
    lex = lexicon if lexicon is not None else config.lexicon
    if not isinstance(lex, Lexicon):
        raise LexiconError(
            "La génération des coups demande une liste de mots compilée (scoring.lexicon)."
        )
    return lex


def _run(
    board: Board,
    rack: str,
    config: GameConfig,
    lexicon: Lexicon | None,
    mode: int,
    n: int,
    engine: RawGenerate | None,
) -> list[RawMove] | tuple[int, int, int]:
    lex = _lexicon(config, lexicon)
    layout = config.layout
    run = engine or _default_engine()
    return run(
        lex.dawg.edges,
        _cells(board),
        parse_rack(rack, config),
        _values(config),
        bytes(layout.letter_mult),
        bytes(layout.word_mult),
        layout.center,
        config.first_move_min_tiles,
        config.first_move_horizontal,
        config.rack_size,
        config.bingo_tiles,
        config.bingo_bonus,
        mode,
        n,
    )


def _default_engine() -> RawGenerate:
    if _c_generate is not None and os.environ.get("ARBITRE_PURE_PYTHON") != "1":
        return _c_generate
    return py_generate


# --- public API -------------------------------------------------------------------------
def generate(
    board: Board,
    rack: str,
    config: GameConfig,
    *,
    lexicon: Lexicon | None = None,
    engine: RawGenerate | None = None,
) -> list[GeneratedMove]:
    """Every legal placement (no exchanges, no passes), in no particular order."""
    raw = _run(board, rack, config, lexicon, MODE_ALL, 0, engine)
    assert isinstance(raw, list)
    return [GeneratedMove(*m) for m in raw]


def count(
    board: Board,
    rack: str,
    config: GameConfig,
    *,
    lexicon: Lexicon | None = None,
    engine: RawGenerate | None = None,
) -> MoveCount:
    """Number of placements, of placements putting down ``config.bingo_tiles`` tiles, and
    the top score (None when nothing can be played)."""
    raw = _run(board, rack, config, lexicon, MODE_COUNT, 0, engine)
    assert isinstance(raw, tuple)
    placements, scrabbles, top = raw
    return MoveCount(placements, scrabbles, top if placements else None)


def best(
    board: Board,
    rack: str,
    config: GameConfig,
    *,
    bag_empty: bool = False,
    n: int = 1,
    lexicon: Lexicon | None = None,
    engine: RawGenerate | None = None,
) -> list[GeneratedMove]:
    """The ``n`` best moves in FISF order (the first is the top); fewer when fewer exist."""
    if n < 1:
        return []
    # the engine keeps n scores in memory; no position has anywhere near 2**20 placements
    raw = _run(board, rack, config, lexicon, MODE_TOP, min(n, 1 << 20), engine)
    assert isinstance(raw, list)
    rack_len = len(rack.strip())
    moves = sorted((GeneratedMove(*m) for m in raw), key=lambda m: fisf_key(m, rack_len, bag_empty))
    return moves[:n]


def tops(
    board: Board,
    rack: str,
    config: GameConfig,
    *,
    lexicon: Lexicon | None = None,
    engine: RawGenerate | None = None,
) -> list[GeneratedMove]:
    """Every placement scoring the top score, sorted by (reference, word) as written."""
    raw = _run(board, rack, config, lexicon, MODE_TOP, 1, engine)
    assert isinstance(raw, list)
    return sorted((GeneratedMove(*m) for m in raw), key=lambda m: (format_ref(m.ref), m.word))


# --- the pure-Python engine -------------------------------------------------------------
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
) -> list[RawMove] | tuple[int, int, int]:
    """Reference implementation of the raw engine interface (see ``_movegen.pyi``)."""
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
    if mode == MODE_COUNT:
        top = max((m[0] for m in moves), default=-1)
        scrabbles = sum(1 for m in moves if m[4].bit_count() == bingo_tiles)
        return (len(moves), scrabbles, top)
    if mode == MODE_TOP:
        ranked = sorted((m[0] for m in moves), reverse=True)
        if not ranked:
            return []
        cutoff = ranked[min(n, len(ranked)) - 1]
        return [m for m in moves if m[0] >= cutoff]
    return moves


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

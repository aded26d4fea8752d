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
pure-Python :func:`py_generate` (in :mod:`scoring.movegen_py`, re-exported here) used when
the extension is absent (``ARBITRE_PURE_PYTHON=1`` forces it). The C core finds the same
placements from the same anchors but grows each one from its anchor outwards over a GADDAG
of the same words (kept in the lexicon cache, :meth:`Lexicon.engine_edges`), so no left part
is built that cannot put a tile on the anchor square (the grid's tiles just before the
anchor, or else just after it, are read first, once per anchor); the reference stays the
plain DAWG algorithm above.
:func:`analyse` is the one search behind ``arbitre engine moves`` (counts, tops and the best
moves together). Both share the raw interface of :mod:`scoring.movegen_py`;
:class:`GeneratedMove` wraps their output. This module owns the public API: the inputs of
the raw engines, the engine choice, and the FISF order.

The top (:func:`best`, :func:`tops`) is chosen by FISF rules (RULES §4.5): highest score, then
fewest jokers, then — when the bag is empty — a move using the whole rack, then (G1,
INFERRED) a horizontal word first, then the smallest reference (row, then column), then the
smallest word (alphabetical on the letters, a joker after the same letter as a tile). The C
engine prunes with an upper bound per anchor (a *shadow* score: the rack's best values on the
best multipliers of each reachable span), so the top does not enumerate every placement; the
Python engine ranks every placement (same result, slower).

:func:`sequences` is the two-move search (the Duplicate Tactique top): every first move of
one rack, then the best score of another rack on the grid it leaves. The C engine
(``followups``) visits the first moves best first and cuts by branch and bound: a second move
that puts no tile just beyond the runs through the first move's tiles is a move of the
original grid with the same score (the proof is in ``_movegen.c``), so only the moves
touching those squares are searched, against the score still needed to reach the best sum.
The pure-Python reference (``py_followups``) searches every second move in full.
"""

from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Sequence
from typing import NamedTuple, TypeAlias, cast

from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import LexiconError, UnknownLetterError
from scoring.layout import SIZE
from scoring.lexicon import Lexicon
from scoring.move import Placement, Tile
from scoring.movegen_py import (
    JOKER_FLAG,
    MODE_ALL,
    MODE_ANALYSE,
    MODE_COUNT,
    MODE_TOP,
    MOVE_LIST,
    MOVE_OBJECTS,
    FollowupCounts,
    RawMove,
    py_followups,
)
from scoring.movegen_py import (
    py_generate as py_generate,  # re-exported: the engine=py_generate of tests and bench
)
from scoring.notation import Ref, fold_letter, format_ref

RawAnswer: TypeAlias = (
    "list[RawMove] | Sequence[_MoveFields] | tuple[int, int, int]"
    " | tuple[int, int, int, list[RawMove]]"
)
"""What a raw engine answers: the moves (tuples, or with ``MOVE_OBJECTS`` the C engine's
move objects — with ``MOVE_LIST`` in its compact sequence), the counts, or both."""

RawGenerate = Callable[
    ["array[int]", bytes, bytes, bytes, bytes, bytes, int, int, bool, int, int, int, int, int],
    RawAnswer,
]

RawFollowups = Callable[
    [
        "array[int]", bytes, bytes, bytes, bytes, bytes, int, int, bool, int, int, int,
        list[RawMove], bytes, int,
    ],
    tuple[list[tuple[int, int]], FollowupCounts],
]

_c_generate: RawGenerate | None
_c_followups: RawFollowups | None
_c_set_move_class: Callable[[type[_MoveFields]], None] | None
_c_generate_cells: Callable[..., RawAnswer] | None  # the C generate with the grid as Board.cells
try:
    from scoring._movegen import MoveBase as _MoveFields
    from scoring._movegen import MoveList as _MoveList
    from scoring._movegen import followups as _c_followups_impl
    from scoring._movegen import generate as _c_generate_impl
    from scoring._movegen import set_move_class as _c_set_move_class_impl

    _c_generate = _c_generate_impl
    _c_generate_cells = _c_generate_impl
    _c_set_move_class = _c_set_move_class_impl
    _c_followups = _c_followups_impl
    Sequence.register(_MoveList)  # generate()'s answer: a read-only sequence (random.sample)
except ImportError:  # pragma: no cover - the extension is optional
    _c_generate = None
    _c_generate_cells = None
    _c_followups = None
    _c_set_move_class = None

    class _MoveFields:  # type: ignore[no-redef]
        """The fields of a move (the compiled core's ``MoveBase`` when it is built)."""

        __slots__ = ("score", "horizontal", "start", "word", "new_mask", "_placement")

        def __init__(self, score: int, horizontal: bool, start: int, word: str,
                     new_mask: int) -> None:
            self.score = score
            self.horizontal = horizontal
            self.start = start
            self.word = word
            self.new_mask = new_mask
            self._placement: Placement | None = None


def c_available() -> bool:
    """True when the compiled engine is importable."""
    return _c_generate is not None


class MoveCount(NamedTuple):
    placements: int
    scrabbles: int
    top: int | None


class Analysis(NamedTuple):
    """What :func:`analyse` finds in one pass: the counts, every top move (as :func:`tops`)
    and, when asked, the ``n`` best in FISF order (as :func:`best`)."""

    counts: MoveCount
    tops: list[GeneratedMove]
    best: list[GeneratedMove] | None


class SequenceStats(NamedTuple):
    """What :func:`sequences` did: legal first moves, first moves skipped as dominated,
    second-move searches ended by the bounds alone (no anchor expanded), searches that
    expanded an anchor, of which over the whole grid, and anchors expanded. Without the cuts
    there is one whole-grid search per first move that is not dominated."""

    firsts: int
    dominated: int
    bounded: int
    searched: int
    full: int
    anchors: int


class GeneratedMove(_MoveFields):
    """One legal placement with its score, French reference and whole main word.

    ``placement``, ``score``, ``ref``, ``word`` as in the conformance data; also ``start``
    (square of the main word's first letter), ``horizontal`` and ``new_mask`` (bit i: letter
    i of ``word`` is put down by this move). ``GeneratedMove(score, horizontal, start, word,
    new_mask)``; read-only fields.

    The fields live in the compiled core's ``MoveBase`` when it is built: the core then makes
    the moves itself (no tuple, no Python call per move, nothing for the garbage collector
    to track; the word's str is made on first read). The :attr:`placement` is built on
    first use: listing thousands of moves should not pay for objects nobody looks at.
    """

    __slots__ = ()

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


if _c_set_move_class is not None:
    _c_set_move_class(GeneratedMove)


def _moves(raw: object) -> list[GeneratedMove]:
    """The moves of a raw answer as a list: the C engine made them already (in a list), the
    reference gave tuples."""
    assert isinstance(raw, list)
    if raw and isinstance(raw[0], tuple):
        return [GeneratedMove(*m) for m in raw]
    return raw


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
    # the common case (ASCII letters and ?, all of the game's tiles) without the folding:
    # one translation to the codes, 255 for anything else
    text = rack.strip()
    if 0 < len(text) <= SIZE and text.isascii():
        codes = text.encode("ascii").translate(config.tileset.engine_rack_table)
        if 255 not in codes:
            counts = bytearray(27)
            for code in codes:
                counts[code] += 1
            return bytes(counts)
    return _parse_rack_folding(rack, config)


def _parse_rack_folding(rack: str, config: GameConfig) -> bytes:
    """:func:`parse_rack` for any text: accents folded, the errors raised."""
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


_CELL_CODES: dict[str, int] = {"": 0}
_CELL_CODES.update({chr(64 + i): i for i in range(1, 27)})
_CELL_CODES.update({chr(96 + i): i | JOKER_FLAG for i in range(1, 27)})


def _cells(board: Board) -> bytes:
    try:
        return bytes(map(_CELL_CODES.__getitem__, board.cells))
    except KeyError as exc:
        raise UnknownLetterError(f"Lettre inconnue sur la grille : « {exc.args[0]} ».") from None


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
) -> RawAnswer:
    run = engine or _default_engine()
    lex = _lexicon(config, lexicon)
    if run is _c_generate and _c_generate_cells is not None:
        # the core reads Board.cells itself (no Python loop over the 225 squares); a square
        # it refuses is reported by _cells, in French
        edges, _, *rest = _position(board, rack, config, lex, grid=False)
        try:
            return _c_generate_cells(edges, board.cells, *rest, mode, n)
        except ValueError:
            _cells(board)
            raise
    return run(*_position(board, rack, config, lex), mode, n)


def _position(
    board: Board, rack: str, config: GameConfig, lex: Lexicon, *, grid: bool = True
) -> tuple[array[int], bytes, bytes, bytes, bytes, bytes, int, int, bool, int, int, int]:
    """The arguments both raw engines take first: the DAWG, the grid (empty without
    ``grid``: the caller passes ``Board.cells`` to the core), the rack, the letter values,
    the multipliers and the rules (centre, first move, rack size, bingo)."""
    layout = config.layout
    letter_mult, word_mult = layout.engine_mults
    return (
        lex.engine_edges(),
        _cells(board) if grid else b"",
        parse_rack(rack, config),
        config.tileset.engine_values,
        letter_mult,
        word_mult,
        layout.center,
        config.first_move_min_tiles,
        config.first_move_horizontal,
        config.rack_size,
        config.bingo_tiles,
        config.bingo_bonus,
    )


_C_WANTED = os.environ.get("ARBITRE_PURE_PYTHON") != "1"  # read once, as scoring.validate


def _c_wanted() -> bool:
    """The compiled engine is used unless ``ARBITRE_PURE_PYTHON=1`` (at import)."""
    return _C_WANTED


def _default_engine() -> RawGenerate:
    return _c_generate if _c_generate is not None and _c_wanted() else py_generate


# --- public API -------------------------------------------------------------------------
def generate(
    board: Board,
    rack: str,
    config: GameConfig,
    *,
    lexicon: Lexicon | None = None,
    engine: RawGenerate | None = None,
) -> Sequence[GeneratedMove]:
    """Every legal placement (no exchanges, no passes), in no particular order.

    With the C engine a compact read-only sequence (``len``, indexing, slices — a list —,
    iteration, ``==`` a list of the same moves in the same order; ``list()`` or ``sorted()``
    it for a list): the moves are packed in C and each
    :class:`GeneratedMove` is made when read (two reads of one index give equal moves, not
    the same object). The reference engine gives a list."""
    raw = _run(board, rack, config, lexicon, MODE_ALL | MOVE_OBJECTS | MOVE_LIST, 0, engine)
    if isinstance(raw, list):
        return _moves(raw)
    assert not isinstance(raw, tuple)  # the C engine's MoveList of GeneratedMove
    return cast("Sequence[GeneratedMove]", raw)


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
    assert isinstance(raw, tuple) and len(raw) == 3
    placements, scrabbles, top = cast("tuple[int, int, int]", raw)
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
    raw = _run(board, rack, config, lexicon, MODE_TOP | MOVE_OBJECTS, min(n, 1 << 20), engine)
    assert isinstance(raw, list)
    rack_len = len(rack.strip())
    moves = sorted(_moves(raw), key=lambda m: fisf_key(m, rack_len, bag_empty))
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
    raw = _run(board, rack, config, lexicon, MODE_TOP | MOVE_OBJECTS, 1, engine)
    assert isinstance(raw, list)
    return sorted(_moves(raw), key=lambda m: (format_ref(m.ref), m.word))


def analyse(
    board: Board,
    rack: str,
    config: GameConfig,
    *,
    n: int | None = None,
    bag_empty: bool = False,
    lexicon: Lexicon | None = None,
    engine: RawGenerate | None = None,
) -> Analysis:
    """:func:`count`, :func:`tops` and (``n`` given) :func:`best` in one search: the counts
    of every placement and the moves reaching the ``n``-th best score (the top at least),
    from which the tops and the ``n`` best are taken."""
    want = max(n or 1, 1)
    raw = _run(board, rack, config, lexicon, MODE_ANALYSE | MOVE_OBJECTS, min(want, 1 << 20),
               engine)
    assert isinstance(raw, tuple) and len(raw) == 4
    placements, scrabbles, top, kept = cast("tuple[int, int, int, list[RawMove]]", raw)
    moves = _moves(kept)
    found = MoveCount(placements, scrabbles, top if placements else None)
    top_moves = sorted((m for m in moves if m.score == top),
                       key=lambda m: (format_ref(m.ref), m.word))
    ranked: list[GeneratedMove] | None = None
    if n is not None:
        rack_len = len(rack.strip())
        ranked = sorted(moves, key=lambda m: fisf_key(m, rack_len, bag_empty))[:n] if n >= 1 \
            else []
    return Analysis(found, top_moves, ranked)


def sequences(
    board: Board,
    first_rack: str,
    second_rack: str,
    config: GameConfig,
    *,
    first_config: GameConfig | None = None,
    floor: int = -1,
    lexicon: Lexicon | None = None,
    engine: RawFollowups | None = None,
) -> tuple[int | None, list[tuple[GeneratedMove, int]], SequenceStats]:
    """The best two-move sequences: every legal first move of ``first_rack`` (rules of
    ``first_config``, default ``config``), then the best score of ``second_rack`` on the grid
    it leaves (0 when it cannot be placed). A first move putting a joker down as a letter
    ``first_rack`` still holds as a tile is left out (the same move with the tile scores
    more, and so does any second move after it).

    Returns the best sum if it is ≥ ``floor`` (else None, and no move), every first move
    giving it with its second score, in FISF order of the first move, and the counters."""
    lex = _lexicon(config, lexicon)
    raw = _run(board, first_rack, first_config or config, lex, MODE_ALL, 0, None)
    assert isinstance(raw, list)
    raw.sort(key=lambda m: -m[0])  # best first: the branch and bound's order
    run = engine or (_c_followups if _c_followups is not None and _c_wanted() else py_followups)
    kept, counts = run(
        *_position(board, second_rack, config, lex), raw, parse_rack(first_rack, config), floor
    )
    stats = SequenceStats(len(raw), *counts)
    if not kept:
        return None, [], stats
    best_sum = max(raw[i][0] + second for i, second in kept)  # ≥ floor: kept sums reach it
    rack_len = len(first_rack.strip())
    found = [(GeneratedMove(*raw[i]), second) for i, second in kept
             if raw[i][0] + second == best_sum]
    found.sort(key=lambda f: fisf_key(f[0], rack_len, False))
    return best_sum, found, stats

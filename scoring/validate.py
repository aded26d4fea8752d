"""Move validation: a verdict, never an exception, built in separate steps — geometry,
then the words formed, then the lexicon, then the score (RULES §3.1).

Reasons are short French sentences a player can read. Malformed *input* (unreadable
reference, unknown letter, overlap with a different letter, off the grid) still raises from
:mod:`scoring.notation` / :mod:`scoring.move` when it comes in as text; :func:`check_move`
turns those into a verdict too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import EngineError
from scoring.layout import SIZE
from scoring.move import Placement, Tile
from scoring.notation import Ref, format_ref, parse_ref, parse_word, square_name
from scoring.score import FormedWord, formed_words, main_word_of
from scoring.tiles import TileSet

#: The raw answer of :func:`quick_check`: score, bonus, the squares (bytes) and cells of the
#: tiles put down, their letters (a joker ``?``), the words formed as (start square,
#: horizontal, text, points, main) — None from a checker made without ``detail`` — the
#: squares of those words already on the grid, the words as a report writes them
#: (``"TEXT points"``) and the letters sorted, jokers last.
QuickResult = tuple[
    int, int, bytes, str, str, tuple[tuple[int, bool, str, int, bool], ...] | None, bytes,
    tuple[str, ...], str,
]

_c_check: Callable[..., QuickResult | None] | None
_c_sheet: Callable[..., tuple[int, int]] | None
try:
    from scoring._movegen import check as _c_check_impl
    from scoring._movegen import sheet as _c_sheet_impl

    _c_check = None if os.environ.get("ARBITRE_PURE_PYTHON") == "1" else _c_check_impl
    _c_sheet = _c_sheet_impl
except ImportError:  # pragma: no cover - the extension is optional
    _c_check = _c_sheet = None


@dataclass(frozen=True)
class Verdict:
    """The judgement of one move.

    ``geometry_ok``: the tiles form a legal placement on the grid. ``invalid_words``: words
    formed that the lexicon does not admit. ``score``: the true score (0 when the geometry is
    illegal; computed even when a word is invalid so a report can show it).
    """

    placement: Placement | None
    geometry_ok: bool
    words: tuple[FormedWord, ...] = ()
    invalid_words: tuple[str, ...] = ()
    score: int = 0
    bonus: int = 0
    reasons: tuple[str, ...] = ()
    ref: Ref | None = None
    word: str = ""

    @property
    def ok(self) -> bool:
        return self.geometry_ok and not self.invalid_words and not self.reasons

    @property
    def main_word(self) -> FormedWord | None:
        return main_word_of(self.words)


def geometry_reasons(board: Board, placement: Placement, config: GameConfig) -> list[str]:
    """Placement legality (RULES §3.1 rules 1–4) as French reasons; empty when legal."""
    tiles = placement.tiles
    if not tiles:
        return ["Aucune lettre n'est posée."]
    squares = [t.square for t in tiles]
    if len(set(squares)) != len(squares):
        return ["Deux lettres sont posées sur la même case."]
    for sq in squares:
        if board[sq]:
            return [f"La case {square_name(sq)} est déjà occupée."]
    rows = {sq // SIZE for sq in squares}
    cols = {sq % SIZE for sq in squares}
    if len(rows) > 1 and len(cols) > 1:
        return ["Les lettres posées ne sont pas sur une même ligne ou colonne."]
    horizontal = len(rows) == 1 and (len(cols) > 1 or len(squares) == 1)
    step = 1 if horizontal else SIZE
    new = set(squares)
    for sq in range(squares[0], squares[-1], step):
        if sq not in new and not board[sq]:
            return [f"Le mot a un trou en {square_name(sq)}."]
    reasons: list[str] = []
    if board.is_empty():
        center = config.layout.center
        if center not in new:
            reasons.append(f"Le premier mot doit couvrir la case centrale {square_name(center)}.")
        if len(tiles) < config.first_move_min_tiles:
            reasons.append(
                f"Le premier coup doit poser au moins {config.first_move_min_tiles} lettres."
            )
        if config.first_move_horizontal and len(tiles) > 1 and not horizontal:
            reasons.append("Le premier mot doit être horizontal.")
        return reasons
    touches = False
    for sq in squares:
        r, c = divmod(sq, SIZE)
        if (
            (c > 0 and board[sq - 1])
            or (c < SIZE - 1 and board[sq + 1])
            or (r > 0 and board[sq - SIZE])
            or (r < SIZE - 1 and board[sq + SIZE])
        ):
            touches = True
            break
    if not touches:
        reasons.append("Le mot ne touche aucune lettre déjà sur la grille.")
    return reasons


def validate_placement(
    board: Board,
    placement: Placement,
    config: GameConfig,
    *,
    horizontal: bool | None = None,
    check_words: bool = True,
) -> Verdict:
    """Judge ``placement`` on ``board`` (the board before the move)."""
    reasons = geometry_reasons(board, placement, config)
    if reasons:
        return Verdict(placement, False, reasons=tuple(reasons))
    breakdown = formed_words(board, placement, config, horizontal)
    if not breakdown.words:
        return Verdict(placement, False, reasons=("Le coup ne forme aucun mot de deux lettres.",))
    invalid: list[str] = []
    word_reasons: list[str] = []
    if check_words and config.lexicon is not None:
        for w in breakdown.words:
            if w.text.upper() not in config.lexicon:
                invalid.append(w.text)
                kind = "Le mot" if w.main else "Le mot secondaire"
                word_reasons.append(f"{kind} {w.text.upper()} n'est pas admis.")
    main = breakdown.main_word
    return Verdict(
        placement,
        True,
        breakdown.words,
        tuple(invalid),
        breakdown.total,
        breakdown.bonus,
        tuple(word_reasons),
        main.ref if main else None,
        main.text if main else "",
    )


def check_move(board: Board, ref: str | Ref, word: str, config: GameConfig) -> Verdict:
    """Judge a move written in French notation (``"H4"``, ``"RESTAIt"``).

    Besides the placement verdict, the written word must be the *whole* main word: a letter
    of the grid just before or after it makes it a different word.
    """
    try:
        r = parse_ref(ref) if isinstance(ref, str) else ref
        w = parse_word(word)
        placement = Placement.from_notation(board, r, w)
    except EngineError as exc:
        return Verdict(None, False, reasons=(str(exc),))
    verdict = validate_placement(board, placement, config, horizontal=r.horizontal)
    extra: list[str] = []
    before = r.square - r.step
    after_pos = (r.col if r.horizontal else r.row) + len(w)
    if (r.col if r.horizontal else r.row) > 0 and board[before]:
        extra.append(
            f"Le mot écrit {w.upper()} en {format_ref(r)} n'est pas complet : "
            f"la case {square_name(before)} porte déjà {board[before].upper()}."
        )
    if after_pos < SIZE:
        after = r.square + len(w) * r.step
        if board[after]:
            extra.append(
                f"Le mot écrit {w.upper()} en {format_ref(r)} n'est pas complet : "
                f"la case {square_name(after)} porte déjà {board[after].upper()}."
            )
    if verdict.geometry_ok and len(placement) == 1 and verdict.main_word is not None:
        main = verdict.main_word
        if main.ref.horizontal != r.horizontal:
            extra.append(
                f"La référence {format_ref(r)} ne correspond pas au mot formé "
                f"{main.text.upper()} ({format_ref(main.ref)})."
            )
    return replace(verdict, reasons=verdict.reasons + tuple(extra), ref=r, word=w)


_TABLES: dict[tuple[int, int], tuple[TileSet, Any, bytes]] = {}


def _quick_tables(config: GameConfig) -> bytes:
    """Letter values by ASCII code (255: not a letter of the set), then the letter and word
    multipliers: the constant part of :func:`quick_check`'s input, built once per set and
    layout."""
    ts, layout = config.tileset, config.layout
    key = (id(ts), id(layout))
    hit = _TABLES.get(key)
    if hit is not None and hit[0] is ts and hit[1] is layout:
        return hit[2]
    values = bytearray([255] * 128)
    for cell, points in ts.value_table.items():
        if len(cell) == 1 and cell.isascii() and cell.isalpha() and 0 <= points < 255:
            values[ord(cell)] = points
    table = bytes(values) + bytes(layout.letter_mult) + bytes(layout.word_mult)
    _TABLES[key] = (ts, layout, table)
    return table


def quick_available() -> bool:
    """True when :func:`quick_check` can answer (the compiled core is built and not turned
    off by ``ARBITRE_PURE_PYTHON=1``)."""
    return _c_check is not None


QuickChecker = Callable[[Board, Ref, str], QuickResult | None]


def _never(board: Board, ref: Ref, word: str) -> QuickResult | None:
    return None


def quick_checker(config: GameConfig, *, detail: bool = True) -> QuickChecker:
    """:func:`quick_check` for ``config``, its tables and lexicon bound once (what the
    verifier calls for each move of a sheet). Without ``detail`` the answers carry no
    word tuples (None; the labels are there). Without the compiled core, a checker that
    always declines."""
    c = _c_check
    if c is None:
        return _never
    tables = _quick_tables(config)
    engine = c
    lexicon = config.lexicon
    edges = getattr(lexicon, "membership_edges", None) if lexicon is not None else None
    center, min_tiles = config.layout.center, config.first_move_min_tiles
    first_h, bingo_tiles, bingo_bonus = (
        config.first_move_horizontal, config.bingo_tiles, config.bingo_bonus
    )

    def check(board: Board, ref: Ref, word: str) -> QuickResult | None:
        try:
            res = c(board.cells, ref.row * SIZE + ref.col, ref.horizontal, word,
                    board.is_empty(), tables, center, min_tiles, first_h, bingo_tiles,
                    bingo_bonus, edges, detail)
        except (ValueError, TypeError, OverflowError):
            return None
        if res is None or edges is not None or lexicon is None:
            return res
        for label in res[7]:  # a word list without a DAWG in C: looked up through ``in``
            if label.partition(" ")[0].upper() not in lexicon:
                return None
        return res

    check.engine = engine  # type: ignore[attr-defined]
    # the verifier's sheet loop (scoring._movegen.sheet) and its constant arguments: only
    # when the answers need no lookup in Python
    check.sheet = (  # type: ignore[attr-defined]
        (_c_sheet, (tables, center, min_tiles, first_h, bingo_tiles, bingo_bonus, edges))
        if edges is not None and lexicon is not None and _c_sheet is not None else None
    )
    return check


def quick_current(checker: QuickChecker) -> bool:
    """True when ``checker`` (from :func:`quick_checker`) still uses the compiled core as
    it is now (on, or off as with ``ARBITRE_PURE_PYTHON=1``): a cached checker is reused
    only then."""
    return getattr(checker, "engine", None) is _c_check


def quick_check(board: Board, ref: Ref, word: str, config: GameConfig) -> QuickResult | None:
    """The compiled fast path of :func:`check_move` for a move that is entirely legal.

    None whenever :func:`check_move` would not find the move legal with no reason at all
    (an error, a word not in canonical capitals-and-jokers form, an unusual letter or cell,
    no compiled core): the caller then asks :func:`check_move`, the pure-Python reference,
    for the verdict and its French reasons. Otherwise what :func:`check_move`'s verdict
    holds, as plain values (:data:`QuickResult`): the same tiles, words (texts, points, main
    flag, order) and score, the words already checked against the lexicon.
    tests/engine/test_quick_check.py compares both on many boards."""
    return quick_checker(config)(board, ref, word)


def verdict_of(res: QuickResult, ref: Ref, word: str) -> Verdict:
    """The :class:`Verdict` of :func:`check_move` rebuilt from a :func:`quick_check` answer
    (the same value: ``==`` holds)."""
    score, bonus, squares, cells, _letters, words, _old, _labels, _rack = res
    if words is None:
        raise ValueError("verdict_of needs an answer with detail")
    placement = Placement(tuple(Tile(sq, ch.upper(), ch.islower()) for sq, ch in zip(
        squares, cells, strict=True)))
    formed = tuple(FormedWord(Ref.at(start, h), text, points, main)
                   for start, h, text, points, main in words)
    return Verdict(placement, True, formed, (), score, bonus, (), ref, word)

"""Scoring (FISF rules, RULES §3.2): the words a placement forms and their points.

Letter and word premiums count only for tiles placed in this move; every cross-word counts;
double/triple word squares multiply (×4, ×9, ×27 follow); a joker is worth 0; a move that
places ``config.bingo_tiles`` tiles earns ``config.bingo_bonus``. Geometry is *not* checked
here (see :mod:`scoring.validate`): the placement is assumed to lie on empty squares of one
line.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.board import Board
from scoring.config import GameConfig
from scoring.layout import SIZE
from scoring.move import Placement
from scoring.notation import Ref, format_ref


@dataclass(frozen=True)
class FormedWord:
    """A word of 2+ letters that a move forms: where, what (jokers lowercase), points."""

    ref: Ref
    text: str
    points: int
    main: bool

    def __str__(self) -> str:
        return f"{format_ref(self.ref)} {self.text} {self.points}"


def main_word_of(words: tuple[FormedWord, ...]) -> FormedWord | None:
    """The main word among the words a move forms (None when it forms none)."""
    return next((w for w in words if w.main), None)


@dataclass(frozen=True)
class ScoreBreakdown:
    """All words formed, the bonus and the total."""

    words: tuple[FormedWord, ...]
    bonus: int

    @property
    def total(self) -> int:
        return sum(w.points for w in self.words) + self.bonus

    @property
    def main_word(self) -> FormedWord | None:
        return main_word_of(self.words)


def _word_through(
    board: Board,
    new: dict[int, str],
    square: int,
    horizontal: bool,
    config: GameConfig,
) -> tuple[Ref, str, int] | None:
    """The maximal word through ``square`` in one direction, or None if under 2 letters."""
    cells = board.cells
    if horizontal:
        step = 1
        lo = square - square % SIZE
        hi = lo + SIZE - 1
    else:
        step = SIZE
        lo = square % SIZE
        hi = lo + SIZE * (SIZE - 1)
    first = square
    while first - step >= lo and (cells[first - step] or (first - step) in new):
        first -= step
    last = square
    while last + step <= hi and (cells[last + step] or (last + step) in new):
        last += step
    if first == last:
        return None
    lm, wm = config.layout.letter_mult, config.layout.word_mult
    values = config.tileset.value_table
    total = 0
    mult = 1
    letters: list[str] = []
    for sq in range(first, last + 1, step):
        placed = new.get(sq)
        cell = cells[sq] if placed is None else placed
        points = values.get(cell)
        if points is None:
            points = config.tileset.value(cell)  # raises UnknownLetterError
        letters.append(cell)
        if placed is not None:
            total += points * lm[sq]
            mult *= wm[sq]
        else:
            total += points
    return Ref.at(first, horizontal), "".join(letters), total * mult


def formed_words(board: Board, placement: Placement, config: GameConfig,
                 horizontal: bool | None = None) -> ScoreBreakdown:
    """Words formed by ``placement`` on ``board`` (before the move) with their points.

    The main word comes first. For a one-tile move both directions are words when both have
    2+ letters; ``horizontal`` picks which one is called main (default: horizontal).
    """
    new = {t.square: t.cell for t in placement.tiles}
    if not new:
        return ScoreBreakdown((), 0)
    if len(placement) > 1:
        h = placement.tiles[0].square // SIZE == placement.tiles[-1].square // SIZE
    else:
        h = placement.direction(board) if horizontal is None else horizontal
    words: list[FormedWord] = []
    main = _word_through(board, new, placement.tiles[0].square, h, config)
    if main is not None:
        words.append(FormedWord(main[0], main[1], main[2], True))
    for t in placement.tiles:
        cross = _word_through(board, new, t.square, not h, config)
        if cross is not None:
            words.append(FormedWord(cross[0], cross[1], cross[2], main is None and not words))
    bonus = config.bingo_bonus if len(placement) == config.bingo_tiles else 0
    return ScoreBreakdown(tuple(words), bonus)


def score_placement(board: Board, placement: Placement, config: GameConfig) -> int:
    """The move's points: every word formed plus the bonus."""
    return formed_words(board, placement, config).total

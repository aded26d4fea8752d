"""The working state of one sheet line while the verifier replays a sheet.

Owns :class:`Entry` (the line's move, group, placement, formed words, status, reasons and
warnings, the tiles it rests on); shared by the replay core (:mod:`puzzles.verify.replay`)
and the letter-supply rules (:mod:`puzzles.verify.supply`).

A legal move judged by the compiled fast path (:func:`scoring.validate.quick_check`) keeps
its tiles as plain values (squares, cells, letters); its :class:`~scoring.move.Placement`
is built only when something asks for it (an annulment, the cascade).
"""

from __future__ import annotations

from puzzles.feuille import FeuilleMove
from puzzles.verify.report import MoveStatus
from scoring.board import Board
from scoring.move import Placement, Tile
from scoring.notation import Ref

#: The statuses of a move that does not count and whose tiles the cascade takes away.
ABSENT = frozenset({
    MoveStatus.ZERO, MoveStatus.CASCADE_ZERO, MoveStatus.ANNULLED, MoveStatus.OUT,
    MoveStatus.DUPLICATE, MoveStatus.NOT_PLAYED,
})


class Entry:
    """Working state of one sheet line during the replay.

    ``squares``/``cells``/``letters``: the tiles the move put down (square order; cells as on
    the grid, letters with a joker as ``?``), None when it has no placement. ``words``: the
    words it forms as the report writes them (``"TEXT points"``); ``rests_on``: the squares
    of those words already on the grid before it. ``played``: it reached the board (its
    letters were taken); ``board_before``/``owner_before``: copies of the grid and of its
    owners before it, kept only once an annulment has taken tiles off (otherwise the
    cascade rebuilds them from the earlier entries)."""

    __slots__ = (
        "idx", "move", "group", "_placement", "squares", "cells", "letters", "rack", "ref",
        "ref_text", "word", "words", "rests_on", "true_score", "status", "reasons", "warnings",
        "deps", "played", "board_before", "owner_before", "penalty", "annul_done",
    )

    def __init__(self, idx: int, move: FeuilleMove) -> None:
        self.idx = idx
        self.move = move
        self.group: int | None = None
        self._placement: Placement | None = None
        self.squares: bytes | tuple[int, ...] | None = None
        self.cells = ""
        self.letters = ""
        self.rack = ""  # the letters sorted, jokers last (set by the fast path)
        self.ref: Ref | None = None
        self.ref_text: str | None = None  # format_ref(ref)
        self.word: str | None = None
        self.words: tuple[str, ...] = ()
        self.rests_on: bytes | tuple[int, ...] = ()
        self.true_score: int | None = None
        self.status = MoveStatus.VALID
        self.reasons: list[str] = []
        self.warnings: list[str] = []
        self.deps: set[int] = set()
        self.played = False
        self.board_before: Board | None = None
        self.owner_before: dict[int, int] | None = None
        self.penalty = 0
        self.annul_done: tuple[int, ...] = ()

    @property
    def placement(self) -> Placement | None:
        p = self._placement
        if p is None and self.squares is not None:
            p = self._placement = Placement(tuple(
                Tile(sq, ch.upper(), ch.islower())
                for sq, ch in zip(self.squares, self.cells, strict=True)
            ))
        return p

    def set_placement(self, p: Placement) -> None:
        """The tiles of a move judged by the pure-Python path."""
        self.rack = ""
        self._placement = p
        self.squares = p.squares
        self.cells = "".join(t.cell for t in p.tiles)
        self.letters = p.letters

    @property
    def absent(self) -> bool:
        return self.status in ABSENT

    def zero(self, reason: str, status: MoveStatus = MoveStatus.ZERO) -> None:
        if self.status not in ABSENT:
            self.status = status
        self.reasons.append(reason)

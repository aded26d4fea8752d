"""The working state of one sheet line while the verifier replays a sheet.

Owns :class:`Entry` (the line's move, group, placement, formed words, status, reasons and
warnings, the tiles it rests on); shared by the replay core (:mod:`puzzles.verify.replay`)
and the letter-supply rules (:mod:`puzzles.verify.supply`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from puzzles.feuille import FeuilleMove
from puzzles.verify.report import MoveStatus
from scoring.board import Board
from scoring.move import Placement
from scoring.notation import Ref
from scoring.score import FormedWord


@dataclass
class Entry:
    """Working state of one sheet line during the replay."""

    idx: int
    move: FeuilleMove
    group: int | None = None
    placement: Placement | None = None
    ref: Ref | None = None
    word: str | None = None
    words: tuple[FormedWord, ...] = ()
    true_score: int | None = None
    status: MoveStatus = MoveStatus.VALID
    reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    deps: set[int] = field(default_factory=set)
    board_before: Board | None = None
    owner_before: dict[int, int] = field(default_factory=dict)
    penalty: int = 0
    annul_done: tuple[int, ...] = ()

    @property
    def absent(self) -> bool:
        return self.status in (
            MoveStatus.ZERO, MoveStatus.CASCADE_ZERO, MoveStatus.ANNULLED, MoveStatus.OUT,
            MoveStatus.DUPLICATE, MoveStatus.NOT_PLAYED,
        )

    def zero(self, reason: str, status: MoveStatus = MoveStatus.ZERO) -> None:
        if not self.absent:
            self.status = status
        self.reasons.append(reason)

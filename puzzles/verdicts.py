"""The one vocabulary of verdicts for every game: :class:`MoveStatus`, how a move was judged —
on a one-sheet problem's sheet (:mod:`puzzles.verify`, stored in its reports as the French
word: « zéro », « pénalité »…) and in a round game (:mod:`puzzles.duplicate`, stored in each
round's results as its code, :data:`VerdictKind`: « nul », « penalite5 »…). Each side keeps the
spelling it has always stored and printed; :attr:`MoveStatus.round_code` and
:meth:`MoveStatus.of_round` go from one to the other, and :func:`scores_nothing` is the one
test of a round verdict that credits nothing. Imports nothing."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal, cast, get_args

#: a round game's verdict as stored (``Verdict.kind``, the results' ``kind``): the code of a
#: :class:`MoveStatus` (:attr:`MoveStatus.round_code`)
VerdictKind = Literal["valide", "avertissement", "penalite5", "nul", "absent"]


class MoveStatus(StrEnum):
    """How a move was judged."""

    VALID = "valide"
    WARNING = "avertissement"
    PENALTY = "pénalité"
    ZERO = "zéro"
    CASCADE_ZERO = "zéro en cascade"
    ANNULLED = "annulé"
    PASSED = "passe"
    DUPLICATE = "doublon"
    OUT = "hors jeu"
    # rangée (RULES §7.3): the move that breaks the row is ANNULLED; the moves after it are
    # not played at all
    NOT_PLAYED = "non joué"

    @property
    def counts(self) -> bool:
        """The move's score counts (possibly with a warning or a penalty)."""
        return self in (MoveStatus.VALID, MoveStatus.WARNING, MoveStatus.PENALTY)

    @property
    def round_code(self) -> VerdictKind | None:
        """The round games' code of this verdict (« nul » for a zero, « absent » for a round
        not played: no bulletin); None for a verdict only a sheet has."""
        return _ROUND_CODES.get(self)

    @classmethod
    def of_round(cls, code: str) -> MoveStatus:
        """The verdict a round game's code stands for (``ValueError`` for another)."""
        for status, known in _ROUND_CODES.items():
            if known == code:
                return status
        raise ValueError(f"verdict inconnu : {code!r}")


_ROUND_CODES: dict[MoveStatus, VerdictKind] = {
    MoveStatus.VALID: "valide",
    MoveStatus.WARNING: "avertissement",
    MoveStatus.PENALTY: "penalite5",
    MoveStatus.ZERO: "nul",
    MoveStatus.NOT_PLAYED: "absent",
}
assert set(_ROUND_CODES.values()) == set(cast(tuple[str, ...], get_args(VerdictKind)))


def scores_nothing(kind: str) -> bool:
    """A round verdict that credits nothing: a zero, or no bulletin (they never compete for
    a solo or a top, and count as zeros in the ranking)."""
    return kind in ("nul", "absent")

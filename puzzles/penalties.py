"""The two conversions of technical warnings, in one place for every game (one-sheet problems,
:mod:`puzzles.settings`; round games, :mod:`puzzles.duplicate.settings` and
:mod:`puzzles.duplicate.ranking`):

* RULES §4.7.7 (G6, points games): each warning from the ``first``-th costs ``points``
  (FISF: from the 4th, 5 points; « sixième en blitz et partie originale »);
* RULES §5.3 (ranking-point games: the Superscrabble family, Duplicate Top, Exclusif
  résistance): « pour 4 avertissements techniques le joueur perd un point de classement (un
  top) ; pour 7 … 2 tops ; pour 10 … 3 tops » — one at ``first``, one more every ``every``.

The settings that feed them keep their stored names (``warning_penalty_from`` /
``warning_conversion_from``, ``ranking_warning_from/every`` / ``warning_first/step``): the
files and rows that hold them do not change. Imports nothing."""

from __future__ import annotations


def points_deduction(warnings: int, *, first: int, points: int) -> int:
    """RULES §4.7.7: the points ``warnings`` warnings cost."""
    return points * max(0, warnings - (first - 1))


def ranking_points_lost(warnings: int, *, first: int, every: int) -> int:
    """RULES §5.3: the ranking points ``warnings`` warnings cost (at 4, 7, 10, …)."""
    if warnings < first:
        return 0
    return 1 + (warnings - first) // every

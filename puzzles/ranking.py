"""Rankings: ordering verified sheets of one problem, per game family, deterministically.

- Points games: corrected total, higher first (RULES §7).
- Série de maximaux: the per-move score vector compared lexicographically, higher first;
  then fewer penalty points (G18, the sanction as a tie-break demotion) (RULES §7.4).
- Superscrabble: valid distinct scrabbles minus the ranking-point penalty (RULES §7.5).
- Superscrabble incomplet: the same, then fewer construction letters (RULES §7.6).
- Scrabble exclusif – résistance: scrabbles, then later elimination (RULES §6.3).

Every remaining tie goes to the earlier submission, then to the stable entry id. Percentages
are of a reference score (the solver's, or any number the arbiter gives).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo

from puzzles.families import RankBy
from puzzles.problem import Problem
from puzzles.verify import Report

_NEVER = datetime.max.replace(tzinfo=UTC)


@dataclass(frozen=True)
class RankEntry:
    """One sheet to rank: a stable id (submission id, file name), its report, and when it
    was submitted (defaults to the sheet's ``Envoyé`` header)."""

    entry_id: str
    report: Report
    submitted_at: datetime | None = None

    @property
    def when(self) -> datetime | None:
        return self.submitted_at or self.report.submitted_at


@dataclass(frozen=True)
class RankRow:
    """A place in the ranking. ``ex_aequo`` is True when only the submission time or the id
    separated this row from the one above."""

    rank: int
    entry_id: str
    player: str | None
    final_score: int
    unit: str
    submitted_at: datetime | None
    percent: float | None
    ex_aequo: bool
    report: Report = field(compare=False, repr=False)

    def to_dict(self) -> dict[str, object]:
        return {
            "rank": self.rank,
            "entry": self.entry_id,
            "player": self.player,
            "final_score": self.final_score,
            "unit": self.unit,
            "submitted_at": self.submitted_at.isoformat() if self.submitted_at else None,
            "percent": self.percent,
            "ex_aequo": self.ex_aequo,
            "warnings": self.report.warnings,
            "penalty": self.report.penalty,
            "score_vector": list(self.report.score_vector),
        }


def _aware(when: datetime | None, zone: tzinfo) -> datetime:
    """Submission times without an offset are read in the problem's deadline zone (UTC when
    the problem has none); a sheet without a time ranks after every timed one."""
    if when is None:
        return _NEVER
    if when.tzinfo is None:
        return when.replace(tzinfo=zone)
    return when


def performance_key(problem: Problem, report: Report) -> tuple[object, ...]:
    """The part of the sort key that measures play (smaller sorts first)."""
    rank_by = problem.game.family.rank_by
    if rank_by is RankBy.SCORE_VECTOR:
        return (tuple(-s for s in report.score_vector), report.penalty)
    if rank_by is RankBy.CONSTRUCTION:
        return (-report.final_score, report.construction_letters or 0)
    if rank_by is RankBy.ELIMINATION:
        out = report.eliminated_at if report.eliminated_at is not None else 10**6
        return (-report.final_score, -out)
    return (-report.final_score,)


def percent_of(score: int, reference: float | None) -> float | None:
    """``score`` as a percentage of ``reference`` (two decimals), None without a reference."""
    if reference is None or reference <= 0:
        return None
    return round(100.0 * score / reference, 2)


def rank(
    problem: Problem,
    entries: Iterable[RankEntry],
    *,
    reference: float | None = None,
) -> list[RankRow]:
    """Rank the verified sheets of ``problem``."""
    zone: tzinfo = problem.deadline.tzinfo if (
        problem.deadline is not None and problem.deadline.tzinfo is not None
    ) else UTC
    items = list(entries)
    keyed = sorted(
        items,
        key=lambda e: (
            performance_key(problem, e.report),
            _aware(e.when, zone),
            e.entry_id,
        ),
    )
    rows: list[RankRow] = []
    previous: tuple[object, ...] | None = None
    for position, e in enumerate(keyed, start=1):
        perf = performance_key(problem, e.report)
        rows.append(
            RankRow(
                rank=position,
                entry_id=e.entry_id,
                player=e.report.player,
                final_score=e.report.final_score,
                unit=e.report.unit,
                submitted_at=e.when,
                percent=percent_of(e.report.final_score, reference),
                ex_aequo=perf == previous,
                report=e.report,
            )
        )
        previous = perf
    return rows

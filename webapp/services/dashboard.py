"""What the console's dashboard shows: competitions, problems not yet final with how many
players sent a sheet, open appeals, the latest submissions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, col, func, select

from webapp.models import (
    Appeal,
    AppealStatus,
    Competition,
    Player,
    Problem,
    ProblemStatus,
    Submission,
)


@dataclass
class Dashboard:
    competitions: list[Competition]
    problems: list[Problem]
    counts: dict[int, int]  # problem id -> players who sent a sheet
    open_appeals: int
    recent: list[Any] = field(default_factory=list)  # (Submission, Player, Problem), newest first


def dashboard(session: Session, *, recent: int = 15) -> Dashboard:
    comps = list(session.exec(
        select(Competition).order_by(col(Competition.created_at).desc())).all())
    probs = list(session.exec(
        select(Problem)
        .where(col(Problem.status) != ProblemStatus.FINAL)
        .order_by(col(Problem.deadline_at))
    ).all())
    counts = {int(pid): int(n) for pid, n in session.exec(
        select(Submission.problem_id, func.count(func.distinct(Submission.player_id)))
        .group_by(col(Submission.problem_id))
    ).all()}
    open_appeals = int(session.exec(
        select(func.count()).select_from(Appeal).where(Appeal.status == AppealStatus.OPEN)
    ).one())
    latest = list(session.exec(
        select(Submission, Player, Problem)
        .join(Player, col(Player.id) == col(Submission.player_id))
        .join(Problem, col(Problem.id) == col(Submission.problem_id))
        .order_by(col(Submission.received_at).desc())
        .limit(recent)
    ).all())
    return Dashboard(comps, probs, counts, open_appeals, latest)

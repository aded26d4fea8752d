"""The console's dashboard: competitions, problems and what needs the arbitre."""

from __future__ import annotations

from flask import (
    Blueprint,
    render_template,
)
from sqlmodel import col, func, select

from webapp.models import (
    Appeal,
    AppealStatus,
    Competition,
    Player,
    Problem,
    ProblemStatus,
    Submission,
)
from webapp.views.console.common import _session


def index() -> str:
    with _session() as s:
        comps = s.exec(select(Competition).order_by(col(Competition.created_at).desc())).all()
        probs = s.exec(
            select(Problem)
            .where(col(Problem.status) != ProblemStatus.FINAL)
            .order_by(col(Problem.deadline_at))
        ).all()
        counts = dict(s.exec(
            select(Submission.problem_id, func.count(func.distinct(Submission.player_id)))
            .group_by(col(Submission.problem_id))
        ).all())
        open_appeals = s.exec(
            select(func.count()).select_from(Appeal).where(Appeal.status == AppealStatus.OPEN)
        ).one()
        recent = s.exec(
            select(Submission, Player, Problem)
            .join(Player, col(Player.id) == col(Submission.player_id))
            .join(Problem, col(Problem.id) == col(Submission.problem_id))
            .order_by(col(Submission.received_at).desc())
            .limit(15)
        ).all()
    return render_template(
        "console/index.html", competitions=comps, problems=probs, counts=counts,
        open_appeals=open_appeals, recent=recent,
    )


def register(bp: Blueprint) -> None:
    """This feature's routes on the console's blueprint (endpoint: the function's name)."""
    bp.add_url_rule("/", view_func=index)

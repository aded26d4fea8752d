"""Submissions: the latest sheet of each player, accepting a late one."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    abort,
    flash,
    redirect,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from sqlmodel import Session, col, select

from webapp.db import session_scope
from webapp.models import (
    Player,
    Problem,
    ProblemStatus,
    Submission,
    Verification,
)
from webapp.services import (
    submissions,
)
from webapp.views.console.common import _actor
from webapp.views.helpers import get_or_404


def _latest_per_player(s: Session, problem: Problem) -> list[dict[str, Any]]:
    subs = s.exec(
        select(Submission, Player)
        .join(Player, col(Player.id) == col(Submission.player_id))
        .where(Submission.problem_id == problem.id)
        .order_by(col(Submission.player_id), col(Submission.version).desc())
    ).all()
    rows: dict[int, dict[str, Any]] = {}
    for sub, player in subs:
        row = rows.setdefault(player.id or 0, {"player": player, "latest": sub, "versions": 0})
        row["versions"] += 1
    ver = {
        v.submission_id: v
        for v in s.exec(
            select(Verification)
            .join(Submission, col(Submission.id) == col(Verification.submission_id))
            .where(Submission.problem_id == problem.id)
            .where(col(Verification.superseded_at).is_(None))
        ).all()
    }
    out = sorted(rows.values(), key=lambda r: r["latest"].received_at, reverse=True)
    for r in out:
        r["verification"] = ver.get(r["latest"].id)
    return out


def accept_late(problem_id: int, submission_id: int) -> ResponseReturnValue:
    try:
        with session_scope() as s:
            sub = get_or_404(s, Submission, submission_id)
            if sub.problem_id != problem_id:
                abort(404)
            submissions.accept_late(session=s, submission=sub, actor=_actor(),
                                    reason=request.form.get("reason", ""))
            prob = s.get(Problem, problem_id)
            ranked = prob is not None and prob.status in (
                ProblemStatus.VERIFIED, ProblemStatus.PROVISIONAL, ProblemStatus.FINAL)
    except ValueError as exc:
        flash(str(exc), "error")
    else:
        if ranked:
            # The batch already ran: nothing verifies this sheet until a re-run.
            flash("Feuille hors délai acceptée. Les feuilles sont déjà vérifiées : elle "
                  "n'entrera au classement qu'après « Relancer la vérification… » (en haut "
                  "de cette page).", "success")
        else:
            flash("Feuille hors délai acceptée : elle sera vérifiée avec les autres à la "
                  "vérification du problème.", "success")
    return redirect(url_for("console.problem", problem_id=problem_id))


def register(bp: Blueprint) -> None:
    """This feature's routes on the console's blueprint (endpoint: the function's name)."""
    bp.add_url_rule("/problemes/<int:problem_id>/hors-delai/<int:submission_id>",
                    view_func=accept_late, methods=["POST"])

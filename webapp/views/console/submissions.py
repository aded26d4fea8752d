"""Submissions: the latest sheet of each player, accepting a late one."""

from __future__ import annotations

from flask import (
    Blueprint,
    abort,
    flash,
    redirect,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue

from webapp.db import session_scope
from webapp.models import (
    ProblemStatus,
)
from webapp.services import (
    rows,
    submissions,
)
from webapp.views.console.common import _actor

bp = Blueprint("submissions", __name__)


@bp.route("/problemes/<int:problem_id>/hors-delai/<int:submission_id>", methods=["POST"])
def accept_late(problem_id: int, submission_id: int) -> ResponseReturnValue:
    try:
        with session_scope() as s:
            sub = rows.submission(s, submission_id)
            if sub.problem_id != problem_id:
                abort(404)
            submissions.accept_late(session=s, submission=sub, actor=_actor(),
                                    reason=request.form.get("reason", ""))
            prob = rows.problem_or_none(s, problem_id)
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
    return redirect(url_for("console.problems.show", problem_id=problem_id))

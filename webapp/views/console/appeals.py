"""Appeals and finalisation."""

from __future__ import annotations

from flask import (
    Blueprint,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import gettext  # type: ignore[import-untyped]

from webapp.auth import current_arbitre
from webapp.db import session_scope
from webapp.models import ProblemStatus
from webapp.services import (
    appeals,
    clock,
    lifecycle,
    rankings,
    rows,
)
from webapp.views.console.common import _actor, _session

bp = Blueprint("appeals", __name__)


@bp.route("/appels")
def index() -> str:
    with _session() as s:
        listing = appeals.listing(s)
    return render_template("console/appeals.html", rows=listing)


@bp.route("/appels/<int:appeal_id>", methods=["POST"])
def answer(appeal_id: int) -> ResponseReturnValue:
    decision = request.form.get("decision")
    try:
        with session_scope() as s:
            appeal = rows.appeal(s, appeal_id)
            arbitre = rows.arbitre(s, current_arbitre().id or 0)  # type: ignore[union-attr]
            appeals.answer_appeal(
                session=s, appeal=appeal, arbitre=arbitre, accepted=decision == "accept",
                answer=request.form.get("answer", ""),
            )
    except ValueError as exc:
        flash(str(exc), "error")
    else:
        flash("Réponse enregistrée." + (
            " Si l'appel change un résultat, enregistrez la décision puis relancez la "
            "vérification." if decision == "accept" else ""), "success")
    back = request.form.get("back", "")
    # only a path of this site: a form field must not become an open redirect
    if not back.startswith("/console/") or "//" in back or "\\" in back:
        back = url_for("console.appeals.index")
    return redirect(back)


@bp.route("/problemes/<int:problem_id>/finaliser", methods=["GET", "POST"])
def finalise(problem_id: int) -> ResponseReturnValue:
    """The final ranking: a preview of what will be published (and what changed since the
    provisional one), a warning while the appeal window is open (publishing then needs an
    explicit confirmation; unanswered appeals still hold it back), then the publication."""
    with _session() as s:
        prob = rows.problem(s, problem_id)
        n_open = lifecycle.open_appeals(s, prob)
        preview = rankings.final_preview(s, prob, now=clock.now(), open_appeals=n_open)
    comment = ""
    if request.method == "POST":
        comment = request.form.get("comment", "").strip()
        try:
            if prob.status != ProblemStatus.PROVISIONAL:
                raise ValueError("Seul un classement provisoire peut être rendu définitif.")
            if n_open:
                raise ValueError(f"{n_open} appel(s) attendent encore une réponse.")
            if not comment:
                raise ValueError("Un commentaire accompagne le classement définitif.")
            if request.form.get("digest") != preview.digest:
                raise ValueError(gettext("Le classement a changé depuis l'aperçu : vérifiez "
                                         "le nouvel aperçu avant de publier."))
            if preview.window_open and request.form.get("early") != "1":
                raise ValueError(gettext("Le délai d'appel n'est pas écoulé : cochez la case "
                                         "pour publier quand même le classement définitif."))
            with session_scope() as s:
                lifecycle.finalise_manually(
                    session=s, problem=rows.problem(s, problem_id), actor=_actor(),
                    comment=comment, now=clock.now())
        except ValueError as exc:
            flash(str(exc), "error")
        else:
            flash("Classement définitif publié.", "success")
            return redirect(url_for("console.problems.show", problem_id=problem_id))
    return render_template("console/finalise.html", problem=prob, open_appeals=n_open,
                           preview=preview, comment=comment)

"""Rulings and re-runs: re-verification with a reason and a preview, word and sheet rulings."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from flask import (
    Blueprint,
    abort,
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
from webapp.services import (
    players,
    rows,
    verification,
)
from webapp.views.console.common import _actor, _session, id_arg
from webapp.views.console.problems import problem_page

bp = Blueprint("rulings", __name__)


def _preview_digest(preview: Any) -> str:
    """A fingerprint of what the arbitre saw: applying checks it has not changed since."""
    rows = [(r["player_id"], r["rank"], r["score"]) for r in preview.new_rows]
    blob = json.dumps([preview.lexicon_sha256, rows], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


@bp.route("/problemes/<int:problem_id>/reverifier", methods=["GET", "POST"])
def rerun(problem_id: int) -> ResponseReturnValue:
    with _session() as s:
        prob = rows.problem(s, problem_id)
    reason = request.form.get("reason", "").strip()
    if request.method == "GET":
        return render_template("console/rerun.html", problem=prob, preview=None, reason="")
    try:
        with session_scope() as s:
            p = rows.problem(s, problem_id)
            # bounded: a partial preview goes on where it stopped when asked again
            preview = verification.preview_rerun(
                session=s, problem=p, reason=reason,
                budget_seconds=verification.preview_seconds(),
            )
            digest = _preview_digest(preview)
            if request.form.get("action") == "apply":
                if not preview.complete:
                    flash("L'aperçu n'est pas encore complet : rien n'a été appliqué. "
                          "Poursuivez l'aperçu, puis appliquez.", "warning")
                elif request.form.get("digest") != digest:
                    flash("Les résultats ont changé depuis l'aperçu (nouvelle décision ?) : "
                          "vérifiez le nouvel aperçu avant d'appliquer.", "warning")
                else:
                    verification.apply_rerun(session=s, problem=p, preview=preview,
                                             actor=_actor())
                    flash(gettext("Nouvelle vérification appliquée : %(ranks)s changement(s) "
                                  "de classement, %(scores)s score(s) modifié(s) sans "
                                  "changement de place.", ranks=len(preview.rank_changes),
                                  scores=len(preview.score_only_changes)), "success")
                    return redirect(url_for("console.problems.show", problem_id=problem_id))
            names = players.names(s)
    except verification.VerificationError as exc:
        flash(str(exc), "error")
        return redirect(url_for("console.problems.show", problem_id=problem_id))
    except ValueError as exc:
        return render_template("console/rerun.html", problem=prob, preview=None, reason=reason,
                               error=str(exc)), 400
    return render_template(
        "console/rerun.html", problem=prob, preview=preview, reason=reason, digest=digest,
        names=names,
    )


@bp.route("/problemes/<int:problem_id>/decisions", methods=["POST"])
def add(problem_id: int) -> ResponseReturnValue:
    arbitre = current_arbitre()
    try:
        with session_scope() as s:
            prob = rows.problem(s, problem_id)
            sub = None
            sub_id = request.form.get("submission_id", type=int)
            if sub_id is not None and id_arg(sub_id) is None:
                abort(404)
            if sub_id:
                sub = rows.submission(s, sub_id)
                if sub.problem_id != prob.id:
                    abort(404)
            verification.add_ruling(
                session=s, problem=prob, kind=request.form.get("kind", ""), actor=_actor(),
                arbitre_id=arbitre.id if arbitre else None,
                word=request.form.get("word", "").strip() or None, submission=sub,
                comment=request.form.get("comment", ""),
            )
    except ValueError as exc:  # the engine's NotationError is a ValueError too
        return problem_page(problem_id, errors=[str(exc)], kept={
            "kind": request.form.get("kind", ""), "word": request.form.get("word", ""),
            "submission_id": request.form.get("submission_id", ""),
            "comment": request.form.get("comment", ""),
        }), 400
    else:
        flash("Décision enregistrée. Relancez la vérification pour l'appliquer aux rapports.",
              "success")
    return redirect(url_for("console.problems.show", problem_id=problem_id) + "#decisions")

"""Problems: drawing or entering one, its page, its scheduled steps, the reference solution."""

from __future__ import annotations

import math

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import gettext  # type: ignore[import-untyped]

from puzzles.families import GameType
from puzzles.problem import ProblemError
from webapp.board_svg import board_svg
from webapp.db import session_scope
from webapp.models import (
    DEFAULT_TIMEZONE,
    ProblemStatus,
    RulingKind,
)
from webapp.services import (
    clock,
    lifecycle,
    problems,
    rounds,
    rows,
    submissions,
)
from webapp.services import rankings as ranking_service
from webapp.services import reference as reference_service
from webapp.services.stored import readable_puzzle
from webapp.views.console.common import (
    LANGS,
    Form,
    _actor,
    _session,
    code_field,
    id_arg,
    int_field,
    parse_local,
    text_field,
)
from webapp.views.helpers import letters_view

bp = Blueprint("problems", __name__)

def _round_interval(form: Form, game: GameType) -> int:
    """Minutes between two Anticipation announcements (the form field is in hours; empty:
    one move a day; 0: the whole draw order at publication)."""
    if not game.is_anticipation:
        return 0
    raw = (form.get("round_interval_hours") or "").strip().replace(",", ".")
    if not raw:
        return rounds.DEFAULT_INTERVAL_MINUTES
    try:
        hours = float(raw)
    except ValueError:
        hours = math.nan
    if not math.isfinite(hours):  # "douze", but also "inf" and "nan"
        raise ValueError(
            f"Intervalle entre deux annonces illisible : « {raw[:40]} » (un nombre d'heures ; "
            "0 pour publier tout l'ordre de tirage d'emblée)."
        )
    if not 0 <= hours <= 24 * 31:
        raise ValueError(f"Intervalle entre deux annonces hors des limites : {raw} h (de 0 à "
                         f"{24 * 31} heures).")
    return round(hours * 60)


@bp.route("/problemes/nouveau", methods=["GET", "POST"])
def new() -> ResponseReturnValue:
    form = request.form
    error = None
    with _session() as s:
        comps = problems.competitions(s)
        stages = problems.all_stages(s)
    if request.method == "POST":
        try:
            comp_id = id_arg(form.get("competition_id", type=int))
            tz = form.get("timezone", DEFAULT_TIMEZONE).strip() or DEFAULT_TIMEZONE
            publish_at = parse_local(form.get("publish_at", ""), tz)
            # « Rythme » (Anticipation): by correspondence (the default), or live with the
            # rules' times, whose deadline the server sets (publication + 164 min)
            live = form.get("rhythm", "correspondance") == "direct"
            deadline_at = (rounds.live_deadline_after(publish_at) if live
                           else parse_local(form.get("deadline_at", ""), tz))
            if deadline_at <= publish_at:
                raise ValueError("La clôture doit suivre la publication.")
            lang = form.get("lang", "fr")
            if lang not in LANGS:
                raise ValueError("Langue inconnue : français (fr) ou roumain (ro).")
            code = code_field(form, "code", "Code public") or ""
            title = text_field(form, "title", "Titre")
            instructions = text_field(form, "instructions", "Consignes")
            max_days = int(current_app.config.get("MAX_APPEAL_DAYS", 30))
            appeal_days = int_field(form, "appeal_days", "Délai d'appel (jours)", lo=1,
                                    hi=max_days) if (form.get("appeal_days") or "").strip() \
                else None  # empty: APPEAL_DAYS
            if form.get("source") == "json":
                puzzle = problems.puzzle_from_json(form.get("problem_json", ""))
            else:
                if not (form.get("seed") or "").strip():
                    raise ValueError("Donnez une graine (un nombre entier) pour le tirage.")
                seed = int_field(form, "seed", "Graine du tirage", lo=0, hi=2**63 - 1)
                n_groups = int_field(form, "n_groups", "Nombre de groupes", lo=2, hi=15,
                                     default=4)
                puzzle = problems.draw_puzzle(form.get("game", "integral"), seed=seed,
                                              lang=lang, n_groups=n_groups)
            status = ProblemStatus.DRAFT if form.get("draft") else ProblemStatus.SCHEDULED
            if live and not puzzle.game.is_anticipation:
                raise ValueError("Le rythme « en direct » ne concerne que les Anticipations.")
            interval = 0 if live else _round_interval(form, puzzle.game)
            with session_scope() as s:
                comp = rows.competition_or_none(s, comp_id)
                if comp is None:
                    raise ValueError("Choisissez la compétition.")
                stage_id = id_arg(form.get("stage_id", type=int))
                prob = problems.create_problem(
                    session=s, competition=comp, puzzle=puzzle, publish_at=publish_at,
                    deadline_at=deadline_at, timezone=tz,
                    title=title or None,
                    code=code or None,
                    stage=rows.stage_or_none(s, stage_id),
                    appeal_days=appeal_days,
                    status=status, actor=_actor(), round_interval_minutes=interval,
                    live=live, instructions=instructions,
                )
                pid = prob.id
        except (ValueError, ProblemError, RuntimeError) as exc:
            error = str(exc)
        else:
            flash("Problème enregistré.", "success")
            return redirect(url_for("console.problems.show", problem_id=pid))
    return render_template(
        "console/problem_new.html", form=form, error=error, competitions=comps, stages=stages,
        games=problems.GAME_CHOICES, default_tz=DEFAULT_TIMEZONE,
    ), (400 if error else 200)


@bp.route("/problemes/<int:problem_id>")
def show(problem_id: int) -> str:
    return problem_page(problem_id)


def problem_page(problem_id: int, *, errors: list[str] | None = None,
                 kept: dict[str, str] | None = None) -> str:
    """The problem's console page; after a refused form, with its errors and what the
    arbitre typed (``kept``), so nothing is lost."""
    with _session() as s:
        prob = rows.problem(s, problem_id)
        comp = rows.competition_or_none(s, prob.competition_id)
        latest = submissions.latest_per_player(s, prob)
        overview = problems.problem_overview(s, prob)
        rulings, rankings, prob_appeals = overview.rulings, overview.rankings, overview.appeals
        steps = lifecycle.steps_done(session=s, problem=prob)
        withheld = ranking_service.withheld_reason(s, prob)
    pz = readable_puzzle(prob)
    svg = board_svg(pz.initial_board(), tileset=pz.tileset) if pz else None
    return render_template(
        "console/problem.html", problem=prob, competition=comp, rows=latest, rulings=rulings,
        rankings=rankings, appeals=prob_appeals, puzzle=pz,
        letters=letters_view(pz) if pz else None, board=svg, auto=request.args.get("auto"),
        ruling_kinds=RulingKind, form_errors=errors or [], kept=kept or {}, now=clock.now(),
        steps=steps, ranking_rule=ranking_service.rule_sentences(prob), withheld=withheld,
    )


@bp.route("/problemes/<int:problem_id>/clore", methods=["GET", "POST"])
def close_now(problem_id: int) -> ResponseReturnValue:
    """« Clore maintenant »: a confirmation page (what closing early means: the announced
    deadline, who has not sent a sheet), then the early close with its reason (audited)."""
    back = url_for("console.problems.show", problem_id=problem_id)
    error = None
    reason = request.form.get("reason", "").strip()
    if request.method == "POST" and request.form.get("confirm") == "1":
        try:
            with session_scope() as s:
                prob = rows.problem(s, problem_id)
                lifecycle.close_now(session=s, problem=prob, actor=_actor(), reason=reason,
                                    now=clock.now())
        except ValueError as exc:
            error = str(exc)
        else:
            flash(gettext("Problème clos maintenant : les feuilles reçues désormais sont hors "
                          "délai."), "success")
            return redirect(back)
    with _session() as s:
        prob = rows.problem(s, problem_id)
        if prob.status != ProblemStatus.OPEN:
            flash(gettext("Seul un problème ouvert peut être clos."), "error")
            return redirect(back)
        facts = lifecycle.close_now_preview(session=s, problem=prob)
    return render_template("console/close_now.html", problem=prob, facts=facts, error=error,
                           reason=reason), 400 if error else 200


@bp.route("/problemes/<int:problem_id>/etape", methods=["POST"])
def step(problem_id: int) -> ResponseReturnValue:
    """Move a problem one step of its life by hand (the scheduler does the same when due)."""
    chosen = request.form.get("step", "")
    if chosen not in lifecycle.MANUAL_STEPS:
        abort(400)
    try:
        with session_scope() as s:
            lifecycle.manual_step(session=s, problem=rows.problem(s, problem_id),
                                  step=chosen, actor=_actor(), now=clock.now())
    except ValueError as exc:
        flash(str(exc), "error")
    else:
        flash("C'est fait.", "success")
    return redirect(url_for("console.problems.show", problem_id=problem_id))




@bp.route("/problemes/<int:problem_id>/reference", methods=["POST"])
def reference(problem_id: int) -> ResponseReturnValue:
    """Store the problem's reference solution: computed by ``puzzles.solver`` or entered by
    the arbitre as a feuille. Either way the verifier scores it with the problem's word list;
    its score becomes the problem's ``reference_score`` (the 100 % of the ranking), and the
    solution is published with the results."""
    back = redirect(url_for("console.problems.show", problem_id=problem_id) + "#reference")
    with _session() as s:
        prob = rows.problem(s, problem_id)
    solving = request.form.get("action") == "solve"
    try:
        ref = reference_service.compute(
            prob, solve_seconds=(request.form.get("seconds", 10, type=int) or 10)
            if solving else None, text=None if solving else request.form.get("feuille", ""))
    except reference_service.ReferenceRefused as exc:
        if exc.errors:
            return problem_page(problem_id, errors=exc.errors,
                                kept={"ref_feuille": request.form.get("feuille", "")}), 400
        flash(str(exc), "error")
        return back
    with session_scope() as s:
        reference_service.store(session=s, problem=rows.problem(s, problem_id),
                                reference=ref, actor=_actor())
    flash(f"Solution de référence enregistrée : {ref.total} {ref.unit}.", "success")
    return back

"""Competitions: creation, calendar, stages, registrations, season standings settings."""

from __future__ import annotations

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

from puzzles.championship import ChampionshipSettings, describe
from webapp.db import session_scope
from webapp.models import (
    Competition,
)
from webapp.services import (
    problems,
    rows,
    standings,
    stored,
)
from webapp.views.console.common import CODE_RE, LANGS, MAX_TEXT, _actor, _session

bp = Blueprint("competitions", __name__)

RANKING_RULES = [
    ("sum_percent", "somme des pourcentages de la référence"),
    ("sum_scores", "somme des scores"),
    ("frsc_points", "points FRSc par place"),
]


@bp.route("/competitions/nouvelle", methods=["GET", "POST"])
def new() -> ResponseReturnValue:
    form = request.form
    error = None
    if request.method == "POST":
        slug = form.get("slug", "").strip().lower()
        name = form.get("name", "").strip()
        if not slug or not name:
            error = "L'identifiant et le nom sont obligatoires."
        elif not CODE_RE.fullmatch(slug):
            error = ("L'identifiant ne contient que des lettres sans accent, chiffres, - et _ "
                     "(32 caractères au plus, commençant par une lettre ou un chiffre).")
        elif len(name) > MAX_TEXT["name"]:
            error = f"Le nom compte {len(name)} caractères, {MAX_TEXT['name']} au plus."
        elif form.get("ranking_rule", "sum_percent") not in dict(RANKING_RULES):
            error = "Règle de classement inconnue."
        elif form.get("lang", "fr") not in LANGS:
            error = "Langue inconnue : français (fr) ou roumain (ro)."
        elif len(form.get("description", "")) > MAX_TEXT["description"]:
            error = f"La description dépasse {MAX_TEXT['description']} caractères."
        else:
            try:
                with session_scope() as s:
                    problems.create_competition(
                        session=s, slug=slug, name=name,
                        ranking_rule=form.get("ranking_rule", "sum_percent"),
                        lang=form.get("lang", "fr"), description=form.get("description", ""),
                        actor=_actor(),
                    )
            except ValueError as exc:
                error = str(exc)
            else:
                flash(f"Compétition « {name} » créée.", "success")
                return redirect(url_for("console.competitions.show", slug=slug))
    return render_template(
        "console/competition_new.html", form=form, error=error, ranking_rules=RANKING_RULES,
    ), (400 if error else 200)


@bp.route("/competitions/<slug>", methods=["GET", "POST"])
def show(slug: str) -> ResponseReturnValue:
    with _session() as s:
        comp = problems.competition_by_slug(s, slug)
        if comp is None:
            abort(404)
    if request.method == "POST" and request.form.get("action") == "stage":
        name = request.form.get("stage_name", "").strip()
        if not name:
            flash("Donnez un nom à l'étape.", "error")
        elif len(name) > MAX_TEXT["name"]:
            flash(f"Le nom de l'étape dépasse {MAX_TEXT['name']} caractères.", "error")
        else:
            try:
                with session_scope() as s:
                    c = rows.competition(s, comp.id or 0)
                    problems.create_stage(session=s, competition=c, name=name, actor=_actor())
            except ValueError as exc:  # a line break, a control character
                flash(str(exc), "error")
            else:
                flash(f"Étape « {name} » ajoutée.", "success")
        return redirect(url_for("console.competitions.show", slug=slug))
    if request.method == "POST" and request.form.get("action") == "registration":
        open_to_all = request.form.get("open_registration") == "1"
        with session_scope() as s:
            c = rows.competition(s, comp.id or 0)
            problems.set_open_registration(session=s, competition=c, open_to_all=open_to_all,
                                           actor=_actor())
        flash("Compétition ouverte à tous les joueurs : chacun peut envoyer ses feuilles et "
              "être classé." if open_to_all else "Compétition réservée aux joueurs inscrits.",
              "success")
        return redirect(url_for("console.competitions.show", slug=slug))
    if request.method == "POST" and request.form.get("action") == "standings":
        try:
            with session_scope() as s:
                c = rows.competition(s, comp.id or 0)
                standings.update_settings(session=s, competition=c, form=request.form,
                                          actor=_actor())
        except ValueError as exc:
            flash(f"Rien n'a été changé : {exc}", "error")
        else:
            flash("Règles du classement général enregistrées.", "success")
        return redirect(url_for("console.competitions.show", slug=slug))
    with _session() as s:
        overview = problems.competition_overview(s, comp)
    return render_template(
        "console/competition.html", competition=comp, stages=overview.stages,
        problems=overview.problems, n_players=overview.n_players, ranking_rules=RANKING_RULES,
        standings_settings=_standings_settings(comp), rule_lines=_rule_lines(comp),
    )


def _rule_lines(comp: Competition) -> list[str]:
    """The season ranking's rule and settings in words (the standings page's sentences)."""
    try:
        return describe(comp.ranking_rule, _standings_settings(comp))  # type: ignore[arg-type]
    except ValueError:
        return []


def _standings_settings(comp: Competition) -> ChampionshipSettings:
    try:
        return stored.standings_settings_of(comp)
    except (TypeError, ValueError):
        return ChampionshipSettings()

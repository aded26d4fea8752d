"""Players as people, calendars, printing and the rules pages.

- ``/joueurs/<id>``: a player's page (licence, club, série, country; every ranked problem
  and Duplicate round with rank, score and percentage; the season chart as inline SVG);
- ``/joueurs/<id>/calendrier.ics`` and ``/competitions/<slug>/calendrier.ics``: RFC 5545
  feeds (:mod:`webapp.services.calendar`);
- ``/problemes/<code>/imprimer``: the printable problem sheet (grid, letters and a blank
  feuille de route) on one A4 page;
- ``/regles`` and ``/regles/<game>``: each game type in plain French (:mod:`webapp.game_rules`);
- ``/console/joueurs/<id>/fiche``: the arbitre edits a player's club, licence, série, country.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
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
from markupsafe import Markup

from puzzles.families import MoveBound, family_or_none
from webapp import game_rules
from webapp.auth import arbitre_required, current_arbitre
from webapp.board_svg import board_svg
from webapp.db import session_scope
from webapp.services import people, public_pages
from webapp.views import helpers
from webapp.views.helpers import content_disposition, letters_view, read_session

bp = Blueprint("people", __name__)
# the rules page of a Duplicate game's variant: {{ url_for('people.rules', game=v|rules_page) }}
bp.add_app_template_filter(game_rules.variant_page, "rules_page")
bp.add_app_template_filter(game_rules.variant_label, "rules_label")
helpers.register_template_helpers(bp)


def _base_url() -> str:
    return str(current_app.config.get("BASE_URL") or request.host_url).rstrip("/")


# --- the player's page ------------------------------------------------------------------------


@bp.route("/joueurs/<int:player_id>")
def player(player_id: int) -> str:
    with read_session() as s:
        page = people.player_page(s, player_id, gettext)
    if page is None:
        abort(404)
    return render_template(
        "people/player.html", player=page.player, events=page.events,
        chart=Markup(page.chart), mean_percent=page.mean_percent, best_rank=page.best_rank,
    )


def _ics(body: bytes, filename: str) -> Response:
    return Response(body, mimetype="text/calendar",
                    headers={"Content-Disposition": content_disposition(filename, inline=True)})


@bp.route("/joueurs/<int:player_id>/calendrier.ics")
def player_calendar(player_id: int) -> Response:
    with read_session() as s:
        body = people.player_calendar(s, player_id, _base_url())
    if body is None:
        abort(404)
    return _ics(body, f"arbitre-joueur-{player_id}.ics")


@bp.route("/competitions/<slug>/calendrier.ics")
def competition_calendar(slug: str) -> Response:
    with read_session() as s:
        body = public_pages.competition_calendar(s, slug, _base_url())
    if body is None:
        abort(404)
    return _ics(body, f"arbitre-{slug}.ics")


# --- the printable problem sheet --------------------------------------------------------------

#: blank lines of the printed feuille de route, per game type (what one A4 page holds
#: under the grid; a longer solution continues on a second sheet of paper)
PRINT_ROWS = {"integral": 24, "integral_partiel": 20, "rangee": 20,
              "superscrabble": 24, "superscrabble_incomplet": 22}


def sheet_rows(game: str, puzzle: Any) -> list[str]:
    """The move numbers printed in the first column (an Anticipation's move 1 has two
    lines: the group-1 word, then the 7-letter word)."""
    fam = family_or_none(game)
    if fam is not None and fam.group1_word_first:
        return ["1", "1"] + [str(k) for k in range(2, 15)]
    if fam is not None and fam.exclusif:
        return [str(k) for k in range(1, 15)]
    groups = list(getattr(puzzle, "groups", None) or [])
    if fam is not None and fam.move_bound is MoveBound.GROUPS and groups:
        return [str(k) for k in range(1, len(groups) + 1)]
    return [str(k) for k in range(1, PRINT_ROWS.get(game, 20) + 1)]


def _group1_word_first(game: str) -> bool:
    fam = family_or_none(game)
    return fam is not None and fam.group1_word_first


@bp.route("/problemes/<code>/imprimer")
def print_sheet(code: str) -> str:
    with read_session() as s:
        page = public_pages.print_page(s, code, arbitre=current_arbitre() is not None)
    if page is None:
        abort(404)
    prob, comp, pz = page.problem, page.competition, page.puzzle
    svg = board_svg(pz.initial_board(), tileset=pz.tileset, title=gettext("Grille de départ"))
    return render_template(
        "people/print.html", problem=prob, competition=comp, puzzle=pz,
        letters=letters_view(pz), board=Markup(svg), columns=game_rules.COLUMNS,
        rows=sheet_rows(prob.game, pz), rules=game_rules.page_for(prob.game),
        anticipation=_group1_word_first(prob.game),
    )


# --- the rules pages --------------------------------------------------------------------------


@bp.route("/regles")
def rules_index() -> str:
    return render_template("people/rules_index.html", pages=list(game_rules.PAGES.values()))


@bp.route("/regles/<game>")
def rules(game: str) -> str:
    page = game_rules.page_for(game)
    if page is None:
        abort(404)
    return render_template("people/rules.html", page=page,
                           pages=list(game_rules.PAGES.values()),
                           anticipation=game_rules.is_anticipation_family(game))


# --- the arbitre edits a player's profile -----------------------------------------------------

@bp.route("/console/joueurs/<int:player_id>/fiche", methods=["GET", "POST"])
@arbitre_required
def edit_player(player_id: int) -> ResponseReturnValue:
    with read_session() as s:
        pl = people.profile(s, player_id)
    if pl is None:
        abort(404)
    values = {k: getattr(pl, k) for k in people.PROFILE_LIMITS}
    errors: list[str] = []
    if request.method == "POST":
        values = people.profile_values(request.form)
        errors = people.profile_errors(values)
        if not errors:
            arbitre = current_arbitre()
            with session_scope() as s:
                found = people.update_profile(
                    session=s, player_id=player_id, values=values,
                    actor=arbitre.username if arbitre else "?")
            if not found:
                abort(404)
            flash("Fiche du joueur enregistrée.", "success")
            return redirect(url_for("people.player", player_id=player_id))
    return render_template("people/edit_player.html", player=pl, values=values,
                           errors=errors), 400 if errors else 200

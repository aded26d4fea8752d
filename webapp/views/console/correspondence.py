"""The two-player correspondence game in the console (``webapp.services.correspondence``):
``/console/correspondance`` — the games and a new one; ``POST /console/correspondance/serie``
— a series' whole round robin in one step (``create_round_robin``). Both forms take the
game's time zone (empty: the site's) and either a typed letter row or a seed to draw it
from (both empty: a fresh secret seed draws it)."""

from __future__ import annotations

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from webapp.db import session_scope
from webapp.models import DEFAULT_TIMEZONE
from webapp.services import clock, correspondence, correspondence_pages, rows
from webapp.views.console.common import (
    Form,
    _actor,
    _session,
    code_field,
    id_arg,
    int_field,
    text_field,
    timezone_field,
)

bp = Blueprint("correspondence", __name__)


#: the longest row of letters (the whole bag: 102 tiles, spaces allowed between them)
MAX_ROW = 300


def _hours(form: Form, prefix: str = "") -> tuple[int, int, int]:
    """The three delays, bounded in French as the service bounds them together (a move in
    1 to 1440 hours, the reminder before that, the grace 0 to 720 hours)."""
    return (int_field(form, f"{prefix}move_hours", "Délai d'un coup (heures)", lo=1,
                      hi=24 * 60, default=72),
            int_field(form, f"{prefix}reminder_hours", "Rappel avant le délai (heures)", lo=0,
                      hi=24 * 60, default=24),
            int_field(form, f"{prefix}grace_hours", "Tolérance (heures)", lo=0, hi=24 * 30,
                      default=24))


def _seed(form: Form, name: str) -> int | None:
    """The seed the row is drawn from (empty: ``None``, a fresh secret one is drawn)."""
    if not (form.get(name) or "").strip():
        return None
    return int_field(form, name, "Graine de la rangée", lo=0,
                     hi=correspondence.MAX_ROW_SEED)


def _id(form: Form, name: str) -> int | None:
    """A row id from the form, ``None`` when it cannot name one (empty, not a number, out of
    the ids' range): the page then asks to choose."""
    raw = (form.get(name) or "").strip()
    return id_arg(int(raw)) if raw.isascii() and raw.isdigit() and len(raw) <= 10 else None


@bp.route("/correspondance", methods=["GET", "POST"])
def index() -> ResponseReturnValue:
    form = request.form
    error = None
    if request.method == "POST":
        try:
            title = text_field(form, "title", "Titre")
            code = code_field(form, "code", "Code de la partie")
            row = text_field(form, "row", "Rangée de lettres", limit=MAX_ROW)
            seed = _seed(form, "seed")
            lexicon = text_field(form, "lexicon", "Liste de mots", limit=100) or "default"
            move_hours, reminder_hours, grace_hours = _hours(form)
            tz = timezone_field(form)
            with session_scope() as s:
                comp = rows.competition_or_none(s, _id(form, "competition_id"))
                red = rows.player_or_none(s, _id(form, "red_id"))
                blue = rows.player_or_none(s, _id(form, "blue_id"))
                if comp is None or red is None or blue is None:
                    raise correspondence.CorrespondenceError(
                        "Choisissez la série, le joueur ROUGE et le joueur BLEU.")
                game = correspondence.create_game(
                    session=s, competition=comp, red=red, blue=blue, row=row,
                    starts_at=clock.now(), title=title, code=code,
                    lexicon_name=lexicon, move_hours=move_hours,
                    reminder_hours=reminder_hours, grace_hours=grace_hours, timezone=tz,
                    seed=seed, actor=_actor())
                code, drawn = game.code, game.row_seed
        except (correspondence.CorrespondenceError, ValueError) as exc:
            error = str(exc)
        else:
            how = f" ; rangée tirée de la graine {drawn}" if drawn else ""
            flash(f"Partie par correspondance {code} créée{how} : ROUGE joue.", "success")
            return redirect(url_for("correspondence.game_page", code=code))
    return _console_page(form, error)


def _console_page(form: Form, error: str | None = None,
                  series_error: str | None = None) -> ResponseReturnValue:
    with _session() as s:
        listing = correspondence_pages.console_list(s)
    return render_template("correspondence/console.html", competitions=listing.competitions,
                           players=listing.players, games=listing.games, form=form,
                           error=error, series_error=series_error,
                           default_timezone=DEFAULT_TIMEZONE), (
        400 if error or series_error else 200)


@bp.route("/correspondance/serie", methods=["POST"])
def round_robin() -> ResponseReturnValue:
    """Every game of a series' round robin created at once (RED/BLUE balanced), all started
    now on the same row; then the series page."""
    form = request.form
    try:
        row = text_field(form, "series_row", "Rangée de lettres", limit=MAX_ROW)
        seed = _seed(form, "series_seed")
        prefix = text_field(form, "code_prefix", "Préfixe des codes", limit=100)
        lexicon = text_field(form, "series_lexicon", "Liste de mots", limit=100) or "default"
        move_hours, reminder_hours, grace_hours = _hours(form, "series_")
        tz = timezone_field(form, "series_timezone")
        chosen = form.getlist("player_ids")
        if len(chosen) > MAX_PLAYERS:
            raise correspondence.CorrespondenceError(
                f"Tournoi toutes rondes : {len(chosen)} joueurs choisis, {MAX_PLAYERS} au plus.")
        with session_scope() as s:
            comp = rows.competition_or_none(s, _id(form, "series_competition_id"))
            if comp is None:
                raise correspondence.CorrespondenceError("Choisissez la série.")
            found = [rows.player_or_none(s, _id({"id": v}, "id")) for v in chosen]
            players = [p for p in found if p is not None]
            games = correspondence.create_round_robin(
                session=s, competition=comp, players=players, row=row,
                starts_at=clock.now(), code_prefix=prefix, lexicon_name=lexicon,
                move_hours=move_hours, reminder_hours=reminder_hours,
                grace_hours=grace_hours, timezone=tz, seed=seed, actor=_actor())
            comp_id, count = comp.id, len(games)
    except (correspondence.CorrespondenceError, ValueError) as exc:
        return _console_page(form, series_error=str(exc))
    flash(f"Série : {count} parties créées (toutes rondes) ; dans chacune, ROUGE joue.",
          "success")
    return redirect(url_for("correspondence.series", competition_id=comp_id))


#: the most players of one round robin (its games are all created in one request)
MAX_PLAYERS = 40

"""The two-player correspondence game in the console (``webapp.services.correspondence``):
``/console/correspondance`` — the games and a new one; ``POST /console/correspondance/serie``
— a series' whole round robin in one step (``create_round_robin``)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from webapp.db import session_scope
from webapp.services import clock, correspondence, correspondence_pages, rows
from webapp.views.console.common import _actor, _session

bp = Blueprint("correspondence", __name__)


@bp.route("/correspondance", methods=["GET", "POST"])
def index() -> ResponseReturnValue:
    form = request.form
    error = None
    if request.method == "POST":
        try:
            with session_scope() as s:
                comp = rows.competition_or_none(s, _int(form, "competition_id"))
                red = rows.player_or_none(s, _int(form, "red_id"))
                blue = rows.player_or_none(s, _int(form, "blue_id"))
                if comp is None or red is None or blue is None:
                    raise correspondence.CorrespondenceError(
                        "Choisissez la série, le joueur ROUGE et le joueur BLEU.")
                game = correspondence.create_game(
                    session=s, competition=comp, red=red, blue=blue, row=form.get("row", ""),
                    starts_at=clock.now(), title=form.get("title", ""),
                    code=form.get("code", "").strip() or None,
                    lexicon_name=form.get("lexicon", "default").strip() or "default",
                    move_hours=_int(form, "move_hours", 72),
                    reminder_hours=_int(form, "reminder_hours", 24),
                    grace_hours=_int(form, "grace_hours", 24),
                    actor=_actor())
                code = game.code
        except correspondence.CorrespondenceError as exc:
            error = str(exc)
        else:
            flash(f"Partie par correspondance {code} créée : ROUGE joue.", "success")
            return redirect(url_for("correspondence.game_page", code=code))
    return _console_page(form, error)


def _console_page(form: Any, error: str | None = None,
                  series_error: str | None = None) -> ResponseReturnValue:
    with _session() as s:
        listing = correspondence_pages.console_list(s)
    return render_template("correspondence/console.html", competitions=listing.competitions,
                           players=listing.players, games=listing.games, form=form,
                           error=error, series_error=series_error), (
        400 if error or series_error else 200)


@bp.route("/correspondance/serie", methods=["POST"])
def round_robin() -> ResponseReturnValue:
    """Every game of a series' round robin created at once (RED/BLUE balanced), all started
    now on the same row; then the series page."""
    form = request.form
    try:
        with session_scope() as s:
            comp = rows.competition_or_none(s, _int(form, "series_competition_id"))
            if comp is None:
                raise correspondence.CorrespondenceError("Choisissez la série.")
            chosen = [rows.player_or_none(s, _int({"id": v}, "id")) for v in
                      form.getlist("player_ids")]
            players = [p for p in chosen if p is not None]
            games = correspondence.create_round_robin(
                session=s, competition=comp, players=players,
                row=form.get("series_row", ""), starts_at=clock.now(),
                code_prefix=form.get("code_prefix", "").strip(),
                lexicon_name=form.get("series_lexicon", "default").strip() or "default",
                move_hours=_int(form, "series_move_hours", 72),
                reminder_hours=_int(form, "series_reminder_hours", 24),
                grace_hours=_int(form, "series_grace_hours", 24), actor=_actor())
            comp_id, count = comp.id, len(games)
    except correspondence.CorrespondenceError as exc:
        return _console_page(form, series_error=str(exc))
    flash(f"Série : {count} parties créées (toutes rondes) ; dans chacune, ROUGE joue.",
          "success")
    return redirect(url_for("correspondence.series", competition_id=comp_id))


def _int(form: Any, name: str, default: int = 0) -> int:
    text = (form.get(name, "") or "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise correspondence.CorrespondenceError(
            f"« {text} » n'est pas un nombre entier ({name}).") from None

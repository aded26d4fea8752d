"""The two-player correspondence game in the console (``webapp.services.correspondence``):
``/console/correspondance`` — the games and a new one."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from webapp.db import session_scope
from webapp.models import Competition, Player
from webapp.services import clock, correspondence, correspondence_pages
from webapp.views.console.common import _actor, _session

bp = Blueprint("correspondence", __name__)


@bp.route("/correspondance", methods=["GET", "POST"])
def index() -> ResponseReturnValue:
    form = request.form
    error = None
    if request.method == "POST":
        try:
            with session_scope() as s:
                comp = s.get(Competition, _int(form, "competition_id"))
                red = s.get(Player, _int(form, "red_id"))
                blue = s.get(Player, _int(form, "blue_id"))
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
    with _session() as s:
        listing = correspondence_pages.console_list(s)
    return render_template("correspondence/console.html", competitions=listing.competitions,
                           players=listing.players, games=listing.games, form=form,
                           error=error), (400 if error else 200)


def _int(form: Any, name: str, default: int = 0) -> int:
    text = (form.get(name, "") or "").strip()
    if not text:
        return default
    try:
        return int(text)
    except ValueError:
        raise correspondence.CorrespondenceError(
            f"« {text} » n'est pas un nombre entier ({name}).") from None

"""Pages of the Duplicate by correspondence (``webapp.services.duplicate``).

Public: ``/duplicate/<code>`` — the master grid (SVG) as it stands, the current draw with its
countdown, the history of draws and tops, each round's scores and the running ranking; a
signed-in registered player gets the bulletin form there (``POST .../bulletin``).
The console's pages (``/console/duplicate…``) are the ``console.duplicate`` feature
(``webapp.views.console.duplicate``), which shares :func:`page_data` with these pages.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext, ngettext  # type: ignore[import-untyped]
from sqlmodel import Session

from scoring.board import Board
from scoring.layout import STANDARD_LAYOUT
from scoring.tiles import tileset
from webapp.auth import current_player, player_required
from webapp.board_svg import board_svg
from webapp.db import read_engine, session_scope
from webapp.models import (
    Channel,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    RoundStatus,
)
from webapp.services import clock, duplicate, duplicate_pages, phrasebook
from webapp.services.stored import Rhythm, rhythm_of, round_draw_of

bp = Blueprint("duplicate", __name__)

ROUND_STATUS_FR = {
    RoundStatus.OPEN: "en cours",
    RoundStatus.CLOSED: "clos",
    RoundStatus.CORRECTED: "corrigé",
    RoundStatus.PUBLISHED: "résultats publiés",
}
GAME_STATUS_FR = {
    DuplicateStatus.SCHEDULED: "programmée",
    DuplicateStatus.RUNNING: "en cours",
    DuplicateStatus.FINISHED: "terminée",
}


def in_language(names: dict[Any, str]) -> dict[Any, str]:
    """The French status names of ``names`` in the page's language (webapp.services.phrasebook
    lists them as catalogue msgids)."""
    return {k: phrasebook.translate(v, gettext) for k, v in names.items()}


def rhythm_text(rhythm: Rhythm) -> str:
    """A game's rhythm in the page's language, the hours in the right plural form (the
    catalogue's; « un tour toutes les heures », « o tură la fiecare 24 de ore »); the other
    rhythms as :func:`duplicate.describe_rhythm` writes them, through the phrasebook."""
    kind = rhythm.get("kind")
    if kind == "hours":
        return str(ngettext("un tour toutes les heures", "un tour toutes les %(num)s heures",
                            int(rhythm["hours"])))
    if kind == "all_answered":
        return str(ngettext(
            "tour suivant dès que tous les joueurs ont répondu, au plus tard %(num)s heure "
            "après le tirage",
            "tour suivant dès que tous les joueurs ont répondu, au plus tard %(num)s heures "
            "après le tirage", int(rhythm["hours"])))
    return phrasebook.translate(duplicate.describe_rhythm(rhythm), gettext)


def _read() -> Session:
    return Session(read_engine(), expire_on_commit=False)


def game_or_404(s: Session, code: str, *, for_update: bool = False) -> DuplicateGame:
    game = duplicate_pages.game_by_code(s, code, for_update=for_update)
    if game is None:
        abort(404)
    return game


def page_data(view: duplicate_pages.GameView) -> dict[str, Any]:
    """What a game's pages (public and console) give their template: the view's values, the
    grid drawn as SVG (each tile with its points; its title in the page's language), the
    letters' values for the draws' tiles (``tile_values``, as on the problem pages), the status
    names in the page's language."""
    game = view.game
    return {
        "game": game, "rounds": view.rounds, "current": view.current,
        "published": view.published,
        "grid_svg": board_svg(Board.from_cgp(view.grid), tileset=tileset(game.lang),
                              title=phrasebook.translate(view.grid_title, gettext))
        if view.grid else None,
        "grid_title": view.grid_title, "standings": view.standings,
        "rhythm": rhythm_text(rhythm_of(game)),
        "variant_label": view.variant_label, "variant_rule": view.variant_rule,
        "bulletin_example": view.bulletin_example, "top_letters": duplicate.top_letters,
        "rules": view.rules,
        "round_status": in_language(ROUND_STATUS_FR),
        "game_status": in_language(GAME_STATUS_FR),
        "tile_values": dict(tileset(game.lang).points),
    }


# --- public page and the bulletin form -------------------------------------------------------


@bp.route("/duplicate")
def games() -> str:
    """Every Duplicate under way or finished, the round in progress and its deadline."""
    with _read() as s:
        rows, current = duplicate_pages.public_games(s)
    return render_template("duplicate/index.html", games=rows, current=current,
                           game_status=in_language(GAME_STATUS_FR))


@bp.route("/duplicate/<code>")
def game_page(code: str) -> str:
    me = current_player()
    with _read() as s:
        page = duplicate_pages.public_game_page(
            s, code, shown=request.args.get("tour", type=int),
            viewer_id=me.id if me is not None else None)
    if page is None:
        abort(404)
    rnd = page.bulletin_round
    return render_template("duplicate/game.html", registered=page.registered, mine=page.mine,
                           my_results=page.my_results, text="", error=None,
                           board_data=_board_data(page.view.game, rnd) if rnd else None,
                           **page_data(page.view))


def _board_data(game: DuplicateGame, rnd: DuplicateRound) -> dict[str, Any]:
    """What static/js/duplicate.js needs to score a bulletin on the master grid."""
    return {
        "cgp": rnd.grid_before,
        "rack": duplicate.game_of(game).rack_letters(round_draw_of(rnd)),
        "layout": {"letter_mult": list(STANDARD_LAYOUT.letter_mult),
                   "word_mult": list(STANDARD_LAYOUT.word_mult),
                   "center": STANDARD_LAYOUT.center},
        "values": dict(tileset(game.lang).points), "bingo_tiles": 7, "bingo_bonus": 50,
        "raccord_min": duplicate_pages.raccord_minimum(game, rnd),
    }


@bp.route("/duplicate/<code>/bulletin", methods=["POST"])
@player_required
def bulletin(code: str) -> ResponseReturnValue:
    received_at = clock.now()  # the receive time, before anything else can delay it
    me = current_player()
    assert me is not None
    text = request.form.get("bulletin", "")
    error = None
    if not text.strip():
        error = "Le bulletin est vide : écrivez par exemple « H4 RESTAIt 70 »."
    else:
        try:
            with session_scope() as s:
                game = game_or_404(s, code)
                player = s.merge(me, load=False)
                outcome = duplicate.submit_bulletin(
                    session=s, player=player, game=game, text=text, channel=Channel.WEB,
                    received_at=received_at)
                late, errors = outcome.late, outcome.errors
        except duplicate.DuplicateError as exc:
            error = str(exc)
        else:
            if outcome.repeated:
                flash("Ce bulletin venait d'être reçu (envoyé deux fois) : il n'est enregistré "
                      "qu'une fois, avec un seul accusé de réception.", "success")
            elif late:
                flash("Bulletin reçu après la clôture du tour : il est conservé et marqué "
                      "hors délai ; il ne compte pas.", "warning")
            elif errors:
                flash("Bulletin reçu mais illisible : " + " ; ".join(errors)
                      + " Renvoyez-le corrigé avant la clôture.", "warning")
            else:
                flash("Bulletin reçu. Un accusé de réception vous est aussi envoyé par "
                      "courriel.", "success")
            return redirect(url_for("duplicate.game_page", code=code))
    with _read() as s:
        view = duplicate_pages.game_view(s, game_or_404(s, code))
    cur = view.current
    board = _board_data(view.game, cur) if cur and cur.status == RoundStatus.OPEN else None
    return render_template("duplicate/game.html", registered=True, mine=[], my_results=[],
                           text=duplicate.form_text(text), error=error, board_data=board,
                           **page_data(view)), 400

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
from sqlmodel import Session, col, select

from scoring.board import Board
from scoring.layout import STANDARD_LAYOUT
from scoring.tiles import tileset
from webapp.auth import current_arbitre, current_player, player_required
from webapp.board_svg import board_svg
from webapp.db import read_engine, session_scope
from webapp.models import (
    Channel,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    Registration,
    RoundStatus,
)
from webapp.services import clock, duplicate

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


def _read() -> Session:
    return Session(read_engine(), expire_on_commit=False)


def game_or_404(s: Session, code: str) -> DuplicateGame:
    game = s.exec(select(DuplicateGame).where(DuplicateGame.code == code)).first()
    if game is None:
        abort(404)
    return game


def _svg(game: DuplicateGame, cgp: str, title: str) -> str:
    return board_svg(Board.from_cgp(cgp), tileset=tileset(game.lang), title=title)


def page_data(s: Session, game: DuplicateGame, shown: int | None = None) -> dict[str, Any]:
    """What the game's pages show; ``shown``: the published round whose grid is drawn (the
    grid after its top), else the grid as it stands."""
    rounds = duplicate.rounds_of(s, game)
    current = rounds[-1] if rounds else None
    published = [r for r in rounds if r.status == RoundStatus.PUBLISHED]
    chosen = next((r for r in published if r.number == shown), None)
    if chosen is not None:
        grid = chosen.grid_after or chosen.grid_before
        grid_title = f"Grille après le tour {chosen.number}"
    elif current is not None and current.status != RoundStatus.PUBLISHED:
        grid, grid_title = current.grid_before, f"Grille avant le tour {current.number}"
    elif published:
        grid = published[-1].grid_after or published[-1].grid_before
        grid_title = f"Grille après le tour {published[-1].number}"
    else:
        grid, grid_title = None, ""
    return {
        "game": game, "rounds": rounds, "current": current, "published": published,
        "grid_svg": _svg(game, grid, grid_title) if grid else None, "grid_title": grid_title,
        "standings": duplicate.standings(s, game) if published else [],
        "rhythm": duplicate.describe_rhythm(game.rhythm),
        "variant_label": duplicate.variant_label(game),
        "variant_rule": duplicate.VARIANT_RULES_FR.get(game.variant),
        "bulletin_example": duplicate.BULLETIN_EXAMPLES.get(game.variant, "H4 RESTAIt 70"),
        "top_letters": duplicate.top_letters,
        "round_status": ROUND_STATUS_FR, "game_status": GAME_STATUS_FR,
    }


# --- public page and the bulletin form -------------------------------------------------------


@bp.route("/duplicate")
def games() -> str:
    """Every Duplicate under way or finished, the round in progress and its deadline."""
    with _read() as s:
        rows = list(s.exec(select(DuplicateGame).where(
            col(DuplicateGame.status).in_((DuplicateStatus.RUNNING, DuplicateStatus.FINISHED)))
            .order_by(col(DuplicateGame.status).desc(), col(DuplicateGame.starts_at).desc())
        ).all())
        current = {g.id: duplicate.current_round(s, g) for g in rows}
    return render_template("duplicate/index.html", games=rows, current=current,
                           game_status=GAME_STATUS_FR)


@bp.route("/duplicate/<code>")
def game_page(code: str) -> str:
    me = current_player()
    with _read() as s:
        game = game_or_404(s, code)
        if game.status == DuplicateStatus.SCHEDULED and current_arbitre() is None:
            abort(404)
        data = page_data(s, game, request.args.get("tour", type=int))
        registered = me is not None and s.exec(select(Registration.id).where(
            Registration.competition_id == game.competition_id,
            Registration.player_id == me.id)).first() is not None
        mine: list[DuplicateEntry] = []
        if me is not None and data["current"] is not None:
            mine = list(s.exec(select(DuplicateEntry).where(
                DuplicateEntry.round_id == data["current"].id,
                DuplicateEntry.player_id == me.id).order_by(col(DuplicateEntry.version))).all())
    my_results = [(r, x) for r in data["published"] for x in r.results
                  if me is not None and x["player_id"] == me.id]
    cur = data["current"]
    board = None
    if registered and cur is not None and cur.status == RoundStatus.OPEN:
        board = _board_data(game, cur)
    return render_template("duplicate/game.html", registered=registered, mine=mine,
                           my_results=my_results, text="", error=None, board_data=board,
                           **data)


def _board_data(game: DuplicateGame, rnd: DuplicateRound) -> dict[str, Any]:
    """What static/js/duplicate.js needs to score a bulletin on the master grid."""
    return {
        "cgp": rnd.grid_before, "rack": rnd.draw["rack"].replace("/", ""),
        "layout": {"letter_mult": list(STANDARD_LAYOUT.letter_mult),
                   "word_mult": list(STANDARD_LAYOUT.word_mult),
                   "center": STANDARD_LAYOUT.center},
        "values": dict(tileset(game.lang).points), "bingo_tiles": 7, "bingo_bonus": 50,
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
            if late:
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
        game = game_or_404(s, code)
        data = page_data(s, game)
    cur = data["current"]
    board = _board_data(game, cur) if cur and cur.status == RoundStatus.OPEN else None
    return render_template("duplicate/game.html", registered=True, mine=[], my_results=[],
                           text=text, error=error, board_data=board, **data), 400

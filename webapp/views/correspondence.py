"""Pages of the two-player correspondence game (``webapp.services.correspondence``).

Public: ``/correspondance/<code>`` — the score sheet (fișa de concurs), the grid, whose turn
and until when; the player to move gets his rack and the move form (``POST …/coup``).
``/correspondance/serie/<competition id>`` — the series table (W/D/L, points, spread, rating
coefficient) and the round-robin pairings of its players. The console's page
(``/console/correspondance``: the games and a new one) is the ``console.correspondence``
feature (``webapp.views.console.correspondence``).
"""

from __future__ import annotations

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from sqlmodel import Session, col, select

from scoring.tiles import tileset
from webapp.auth import current_player, player_required
from webapp.board_svg import board_svg
from webapp.db import read_engine, session_scope
from webapp.models import Channel, Competition, CorrespondenceGame, Player, Registration
from webapp.services import clock, correspondence

bp = Blueprint("correspondence", __name__)


def _game(s: Session, code: str) -> CorrespondenceGame:
    game = s.exec(select(CorrespondenceGame).where(CorrespondenceGame.code == code)).first()
    if game is None:
        abort(404)
    return game


def _page(s: Session, game: CorrespondenceGame, text: str = "",
          error: str | None = None) -> str:
    state = correspondence.state_of(game)
    red = s.get(Player, game.red_id)
    blue = s.get(Player, game.blue_id)
    me = current_player()
    colour = None
    if me is not None and me.id in (game.red_id, game.blue_id):
        colour = 0 if me.id == game.red_id else 1
    return render_template(
        "correspondence/game.html", game=game, state=state, red=red, blue=blue,
        sheet=correspondence.sheet(s, game), colour=colour,
        my_rack=state.racks[colour] if colour is not None else None,
        my_turn=me is not None and game.status == correspondence.PLAYING
        and me.id == correspondence.to_move(game),
        deadline=correspondence.deadline(game),
        lost_at=correspondence.lost_on_time_at(game), text=text, error=error,
        grid_svg=board_svg(state.board, tileset=tileset(game.lang), title="Grille"),
        timezone=correspondence.TIMEZONE)


@bp.route("/correspondance/<code>")
def game_page(code: str) -> str:
    with Session(read_engine(), expire_on_commit=False) as s:
        return _page(s, _game(s, code))


@bp.route("/correspondance/<code>/coup", methods=["POST"])
@player_required
def move(code: str) -> ResponseReturnValue:
    received_at = clock.now()
    me = current_player()
    assert me is not None
    text = request.form.get("coup", "")
    try:
        with session_scope() as s:
            game = _game(s, code)
            out = correspondence.submit_move(session=s, player=s.merge(me, load=False),
                                             game=game, text=text, channel=Channel.WEB,
                                             received_at=received_at)
            score = out.score
    except correspondence.CorrespondenceError as exc:
        with Session(read_engine(), expire_on_commit=False) as s:
            return _page(s, _game(s, code), text=text, error=str(exc)), 400
    flash(f"Coup joué : {score} points.", "success")
    return redirect(url_for("correspondence.game_page", code=code))


@bp.route("/correspondance/serie/<int:competition_id>")
def series(competition_id: int) -> str:
    with Session(read_engine(), expire_on_commit=False) as s:
        comp = s.get(Competition, competition_id)
        if comp is None:
            abort(404)
        rows = correspondence.series(s, competition_id)
        players = list(s.exec(select(Player).join(
            Registration, col(Registration.player_id) == col(Player.id)).where(
            Registration.competition_id == competition_id).order_by(col(Player.name))).all())
        games = list(s.exec(select(CorrespondenceGame).where(
            CorrespondenceGame.competition_id == competition_id).order_by(
            col(CorrespondenceGame.id))).all())
    pairings = correspondence.engine().round_robin([p.name for p in players])
    return render_template("correspondence/series.html", competition=comp, rows=rows,
                           pairings=pairings, games=games,
                           names={p.id: p.name for p in players})

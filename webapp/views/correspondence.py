"""Pages of the two-player correspondence game (``webapp.services.correspondence``).

Public: ``/correspondance`` — every game (in play: whose turn and until when; finished: the
result) and the series; ``/correspondance/<code>`` — whose turn and until when (in the
game's time zone), the score sheet (fișa de concurs) laid out front and back with the grid;
the player to move gets his rack and the move form (``POST …/coup``);
``/correspondance/<code>/fiche.txt`` — the sheet as the raw text record that rebuilds the
game (``puzzles.correspondence.parse_sheet``). ``/correspondance/serie/<competition id>`` —
the series table (W/D/L, points, spread, rating coefficient) and the round-robin pairings
of its players. The console's page (``/console/correspondance``: the games and a new one)
is the ``console.correspondence`` feature (``webapp.views.console.correspondence``).
"""

from __future__ import annotations

from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import gettext  # type: ignore[import-untyped]
from sqlmodel import Session

from scoring.tiles import tileset
from webapp.auth import current_player, player_required
from webapp.board_svg import board_svg
from webapp.db import read_engine, session_scope
from webapp.models import Channel, CorrespondenceGame
from webapp.services import clock, correspondence, correspondence_pages
from webapp.views.helpers import content_disposition

bp = Blueprint("correspondence", __name__)


def _game(s: Session, code: str) -> CorrespondenceGame:
    game = correspondence_pages.game_by_code(s, code)
    if game is None:
        abort(404)
    return game


def _page(s: Session, game: CorrespondenceGame, text: str = "",
          error: str | None = None) -> str:
    me = current_player()
    view = correspondence_pages.game_view(s, game, me.id if me is not None else None)
    return render_template(
        "correspondence/game.html", game=game, state=view.state, red=view.red,
        blue=view.blue, fisa=view.sheet, colour=view.colour, my_rack=view.my_rack,
        my_turn=view.my_turn, deadline=view.deadline, lost_at=view.lost_at, text=text,
        error=error, values=view.values,
        grid_svg=board_svg(view.state.board, tileset=tileset(game.lang), title=gettext("Grille")),
        timezone=game.timezone)


@bp.route("/correspondance")
def games() -> str:
    """Every correspondence game: in play (whose turn, until when), finished, the series."""
    with Session(read_engine(), expire_on_commit=False) as s:
        view = correspondence_pages.index_view(s)
    return render_template("correspondence/index.html", view=view)


@bp.route("/correspondance/<code>")
def game_page(code: str) -> str:
    with Session(read_engine(), expire_on_commit=False) as s:
        return _page(s, _game(s, code))


@bp.route("/correspondance/<code>/fiche.txt")
def sheet_document(code: str) -> Response:
    """The fișa de concurs as a printable text document; ``parse_sheet`` (puzzles) rebuilds
    the game from it."""
    with Session(read_engine(), expire_on_commit=False) as s:
        text = correspondence.sheet(s, _game(s, code))
    return Response(text, content_type="text/plain; charset=utf-8",
                    headers={"Content-Disposition": content_disposition(f"fisa-{code}.txt",
                                                                        inline=True)})


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
        view = correspondence_pages.series_view(s, competition_id)
    if view is None:
        abort(404)
    return render_template("correspondence/series.html", competition=view.competition,
                           rows=view.rows, pairings=view.pairings, games=view.games,
                           names=view.names)

"""What the correspondence game's pages read (``webapp.views.correspondence`` and the console
feature ``webapp.views.console.correspondence``): a game by its code with its two players and
whose turn it is, a series' table and pairings, the console's lists. Reads only; the rules
and the writes are ``webapp.services.correspondence``'s. The views draw the grid
(``webapp.board_svg``) from the state given here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

import puzzles.correspondence as corr
from scoring.tiles import tileset
from webapp.models import Competition, CorrespondenceGame, Player, Registration
from webapp.services import correspondence


def game_by_code(session: Session, code: str) -> CorrespondenceGame | None:
    return session.exec(
        select(CorrespondenceGame).where(CorrespondenceGame.code == code)).first()


@dataclass
class GameView:
    """A game's page: the replayed state, RED and BLUE, the score sheet laid out
    (``correspondence.sheet_view``), the colour of the player looking (0 RED, 1 BLUE,
    ``None`` someone else), his rack, whether he is to move, the move's deadline and the
    instant the game is lost on time, the letters' values (the tiles show them)."""

    game: CorrespondenceGame
    state: Any
    red: Player | None
    blue: Player | None
    sheet: correspondence.SheetView
    colour: int | None
    my_rack: str | None
    my_turn: bool
    deadline: datetime
    lost_at: datetime
    values: dict[str, int]


def game_view(session: Session, game: CorrespondenceGame, player_id: int | None) -> GameView:
    state = correspondence.state_of(game)
    colour = None
    if player_id is not None and player_id in (game.red_id, game.blue_id):
        colour = 0 if player_id == game.red_id else 1
    return GameView(
        game=game, state=state, red=session.get(Player, game.red_id),
        blue=session.get(Player, game.blue_id),
        sheet=correspondence.sheet_view(session, game, state),
        colour=colour, my_rack=state.racks[colour] if colour is not None else None,
        my_turn=player_id is not None and game.status == correspondence.PLAYING
        and player_id == correspondence.to_move(game),
        deadline=correspondence.deadline(game), lost_at=correspondence.lost_on_time_at(game),
        values=dict(tileset(game.lang).points),
    )


@dataclass
class IndexView:
    """The public index of correspondence games (``/correspondance``): those in play (the
    move whose deadline comes first on top) with whose turn it is and until when, the
    finished ones (newest first) with their result, the series that hold games, and the
    players' names by id."""

    playing: list[CorrespondenceGame]
    finished: list[CorrespondenceGame]
    to_move: dict[int | None, int]
    deadlines: dict[int | None, datetime]
    series: list[tuple[Competition, int]]
    names: dict[int | None, str]


def index_view(session: Session) -> IndexView:
    games = list(session.exec(select(CorrespondenceGame)
                              .order_by(col(CorrespondenceGame.id).desc())).all())
    playing = sorted((g for g in games if g.status == correspondence.PLAYING),
                     key=correspondence.deadline)
    finished = [g for g in games if g.status != correspondence.PLAYING]
    counts: dict[int, int] = {}
    for g in games:
        counts[g.competition_id] = counts.get(g.competition_id, 0) + 1
    comps = list(session.exec(select(Competition).where(
        col(Competition.id).in_(list(counts))).order_by(col(Competition.name))).all())
    ids = {g.red_id for g in games} | {g.blue_id for g in games}
    return IndexView(
        playing=playing, finished=finished,
        to_move={g.id: correspondence.to_move(g) for g in playing},
        deadlines={g.id: correspondence.deadline(g) for g in playing},
        series=[(c, counts[c.id or 0]) for c in comps],
        names={p.id: p.name for p in session.exec(
            select(Player).where(col(Player.id).in_(ids))).all()},
    )


@dataclass
class SeriesView:
    """A series (a competition): its table (W/D/L, points, spread, rating coefficient), the
    round-robin pairings of its players, its games, and the players' names by id."""

    competition: Competition
    rows: list[dict[str, Any]]
    pairings: Any
    games: list[CorrespondenceGame]
    names: dict[int | None, str]


def series_view(session: Session, competition_id: int) -> SeriesView | None:
    """``None`` when no competition has this id."""
    comp = session.get(Competition, competition_id)
    if comp is None:
        return None
    players = list(session.exec(select(Player).join(
        Registration, col(Registration.player_id) == col(Player.id)).where(
        Registration.competition_id == competition_id).order_by(col(Player.name))).all())
    games = list(session.exec(select(CorrespondenceGame).where(
        CorrespondenceGame.competition_id == competition_id).order_by(
        col(CorrespondenceGame.id))).all())
    return SeriesView(
        competition=comp, rows=correspondence.series(session, competition_id),
        pairings=corr.round_robin([p.name for p in players]),
        games=games, names={p.id: p.name for p in players})


@dataclass
class ConsoleList:
    """The console's page: the series a game can belong to, the players (by name) and every
    game, newest first."""

    competitions: list[Competition]
    players: list[Player]
    games: list[CorrespondenceGame]


def console_list(session: Session) -> ConsoleList:
    return ConsoleList(
        competitions=list(session.exec(select(Competition).order_by(col(Competition.id)))
                          .all()),
        players=list(session.exec(select(Player).order_by(col(Player.name))).all()),
        games=list(session.exec(select(CorrespondenceGame).order_by(
            col(CorrespondenceGame.id).desc())).all()),
    )

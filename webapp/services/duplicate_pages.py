"""What the Duplicate's pages read (``webapp.views.duplicate`` and the console feature
``webapp.views.console.duplicate``): a game by its code, the grid shown, the player's own
bulletins, the console's lists. Reads only; the rules and the writes are
``webapp.services.duplicate``'s. The views draw the grid (``webapp.board_svg``) from the CGP
text given here."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from sqlmodel import Session, col, select

from puzzles.duplicate import raccord_minimum_on
from puzzles.duplicate.protocol import RoundGame
from scoring.board import Board
from webapp.models import (
    Competition,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    Player,
    Registration,
    RoundStatus,
)
from webapp.services import duplicate
from webapp.services.stored import (
    PlayerResultJSON,
    rhythm_of,
    round_record_of,
    round_results_of,
)


def game_by_code(session: Session, code: str, *, for_update: bool = False) \
        -> DuplicateGame | None:
    """The game with this public code; ``for_update``: its row locked until the end of the
    transaction (the console's other top and re-correction)."""
    if for_update:  # in the queue of the game's lock, as a scheduled step
        game_id = session.exec(select(DuplicateGame.id).where(DuplicateGame.code == code)).first()
        return None if game_id is None else duplicate.lock_game(session, game_id)
    return session.exec(select(DuplicateGame).where(DuplicateGame.code == code)).first()


def round_by_number(session: Session, game: DuplicateGame, number: int) \
        -> DuplicateRound | None:
    return session.exec(select(DuplicateRound).where(
        DuplicateRound.game_id == game.id, DuplicateRound.number == number)).first()


def raccord_minimum(game: DuplicateGame, rnd: DuplicateRound) -> int | None:
    """The raccord letters a bulletin of ``rnd`` needs without a warning, as the correction
    judges it (``puzzles.duplicate.raccord_minimum_on`` the round's stored position, which
    the game gives: 3, or 2 when the game's first word had two letters); None when its
    bulletins take no raccord (the first round, a game of scrabble sheets: the
    Superscrabble). The bulletin form's preview warns by it (static/js/duplicate.js)."""
    rules = duplicate.game_of(game)
    if rules.scrabble_sheet:
        return None
    position = rules.position_of(round_record_of(rnd))
    return raccord_minimum_on(Board.from_cgp(position.grid), position.first_word)


@dataclass
class GameView:
    """A game's rounds, the one in progress, the published ones, the grid to draw (CGP text
    and its title), the running ranking, and the game's rules in words."""

    game: DuplicateGame
    rounds: list[DuplicateRound]
    current: DuplicateRound | None
    published: list[DuplicateRound]
    grid: str | None
    grid_title: str
    standings: list[duplicate.StandingRow]
    rhythm: str
    variant_label: str
    variant_rule: str | None
    bulletin_example: str
    #: the game's facts, for the templates (``shows_stock``, ``has_solos``, ``two_words``…)
    rules: RoundGame


def game_view(session: Session, game: DuplicateGame, shown: int | None = None) -> GameView:
    """``shown``: the published round whose grid is drawn (the grid after its top), else the
    grid as it stands (before the round in progress, or after the last published one)."""
    rounds = duplicate.rounds_of(session, game)
    current = rounds[-1] if rounds else None
    published = [r for r in rounds if r.status == RoundStatus.PUBLISHED]
    chosen = next((r for r in published if r.number == shown), None)
    grid: str | None
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
    rules = duplicate.game_of(game)
    return GameView(
        game=game, rounds=rounds, current=current, published=published, grid=grid or None,
        grid_title=grid_title,
        standings=duplicate.standings(session, game) if published else [],
        rhythm=duplicate.describe_rhythm(rhythm_of(game)),
        variant_label=rules.label, variant_rule=rules.rules_fr,
        bulletin_example=rules.bulletin_example, rules=rules,
    )


def public_games(session: Session) -> tuple[list[DuplicateGame],
                                             dict[int | None, DuplicateRound | None]]:
    """Every game: those under way, then those to come (soonest first), then the finished
    ones (newest first), and the round in progress of each."""
    games = list(session.exec(select(DuplicateGame)
                              .order_by(col(DuplicateGame.starts_at).desc())).all())
    rank = {DuplicateStatus.RUNNING: 0, DuplicateStatus.SCHEDULED: 1, DuplicateStatus.FINISHED: 2}
    games.sort(key=lambda g: (rank[g.status], g.starts_at.timestamp()
                              * (1 if g.status == DuplicateStatus.SCHEDULED else -1)))
    return games, {g.id: duplicate.current_round(session, g) for g in games}


@dataclass
class PlayerView:
    """What a signed-in player sees of his own: whether he plays (registered in the game's
    competition) and his bulletins for the round in progress, in the order received."""

    registered: bool = False
    mine: list[DuplicateEntry] = field(default_factory=list)


def player_view(session: Session, game: DuplicateGame, current: DuplicateRound | None,
                player_id: int | None) -> PlayerView:
    if player_id is None:
        return PlayerView()
    registered = session.exec(select(Registration.id).where(
        Registration.competition_id == game.competition_id,
        Registration.player_id == player_id)).first() is not None
    mine: list[DuplicateEntry] = []
    if current is not None:
        mine = list(session.exec(select(DuplicateEntry).where(
            DuplicateEntry.round_id == current.id,
            DuplicateEntry.player_id == player_id).order_by(col(DuplicateEntry.version))).all())
    return PlayerView(registered=registered, mine=mine)


@dataclass
class PublicGamePage:
    """The public page of one game as its viewer sees it (``/duplicate/<code>``): the game's
    view, and for a signed-in player whether he plays, his bulletins for the round in
    progress, his results in the published rounds (each round with his row of its results),
    and the open round whose bulletin form he gets (registered players only)."""

    view: GameView
    registered: bool
    mine: list[DuplicateEntry]
    my_results: list[tuple[DuplicateRound, MyResult]]
    bulletin_round: DuplicateRound | None


def public_game_page(session: Session, code: str, *, shown: int | None,
                     viewer_id: int | None) -> PublicGamePage | None:
    """The page of the game with this code; ``shown``: the published round whose grid is
    drawn (:func:`game_view`). None (a 404 for the page): no such game. A game still to
    come shows itself and its first draw (its players look for it before it starts)."""
    game = game_by_code(session, code)
    if game is None:
        return None
    view = game_view(session, game, shown)
    own = player_view(session, game, view.current, viewer_id)
    cur = view.current
    return PublicGamePage(
        view=view, registered=own.registered, mine=own.mine,
        my_results=_my_results(session, view, viewer_id),
        bulletin_round=cur if (own.registered and cur is not None
                               and cur.status == RoundStatus.OPEN) else None,
    )


def _my_results(session: Session, view: GameView,
                viewer_id: int | None) -> list[tuple[DuplicateRound, MyResult]]:
    """The viewer's row of each published round's results, with ``sent``: the text of his
    bulletin that counted (« Mon coup » shows what he sent even when it scored 0 and the
    correction kept no move of it); None when he sent none."""
    if viewer_id is None:
        return []
    mine = [(r, x) for r in view.published for x in round_results_of(r)
            if x["player_id"] == viewer_id]
    ids = [x["entry_id"] for _r, x in mine if x.get("entry_id")]
    texts = {e.id: e.raw_text for e in session.exec(
        select(DuplicateEntry).where(col(DuplicateEntry.id).in_(ids))).all()} if ids else {}
    return [(r, cast(MyResult, {**x, "sent": texts.get(x.get("entry_id"))})) for r, x in mine]


class MyResult(PlayerResultJSON):
    """A player's result of a round with ``sent``: the text of his bulletin that counted
    (None: he sent none)."""

    sent: str | None


@dataclass
class ConsoleList:
    """The console's first Duplicate page: the competitions a game can be played in (by id)
    and every game, newest first."""

    competitions: list[Competition]
    games: list[DuplicateGame]


def console_list(session: Session) -> ConsoleList:
    return ConsoleList(
        competitions=list(session.exec(select(Competition).order_by(col(Competition.id)))
                          .all()),
        games=list(session.exec(select(DuplicateGame).order_by(col(DuplicateGame.id).desc()))
                   .all()),
    )


@dataclass
class ConsoleGame:
    """The console's page of a game: its view, every bulletin of each round (by round id),
    the ids of the bulletins that count, and the players who sent them (by id)."""

    view: GameView
    entries: dict[int, list[DuplicateEntry]]
    counting: dict[int, set[int | None]]
    players: dict[int | None, Player]


def console_game(session: Session, game: DuplicateGame) -> ConsoleGame:
    view = game_view(session, game)
    entries = {r.id or 0: duplicate.entries_of(session, r) for r in view.rounds}
    counting = {rid: {e.id for e in duplicate.counting_entries(es).values()}
                for rid, es in entries.items()}
    ids = {e.player_id for es in entries.values() for e in es}
    players = {p.id: p for p in session.exec(
        select(Player).where(col(Player.id).in_(ids))).all()} if ids else {}
    return ConsoleGame(view=view, entries=entries, counting=counting, players=players)

"""« Rejouer ce tour » (the console, issue 21 « From any position »): a stored round replayed
and topped alone from its stored position — the master state before its draw (the game's
first state for round 1, else the previous round's state with its retained top placed) —
by its game (``RoundGame.draw``), then every counting bulletin corrected again
(``RoundGame.correct``) against the top the round retained. Nothing is stored: the arbitre
answering an appeal sees whether the stored draw, top and verdicts are what the rules give,
without replaying the game from the empty grid. Audited (``duplicate.replay_round``) as
every console action."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from puzzles.duplicate.codecs import RoundDrawJSON, RoundTopJSON
from puzzles.duplicate.protocol import DrawnRound, RoundRecord
from webapp.models import DuplicateGame, DuplicateRound
from webapp.services import audit
from webapp.services.duplicate.correction import player_bulletin
from webapp.services.duplicate.game import (
    DuplicateError,
    config_of,
    counting_entries,
    entries_of,
    game_of,
    players_of,
    rounds_of,
)
from webapp.services.stored import (
    PlayerResultJSON,
    game_settings_of,
    player_result,
    round_draw_of,
    round_record_of,
    round_results_of,
    round_top_of,
)


@dataclass(frozen=True)
class ReplayedRound:
    """A round replayed from its stored position, beside what is stored. ``top``: the top
    the game finds; ``retained``: the one the round retained (the arbitre's when he chose
    another, ``overridden_by``), against which ``results`` are corrected."""

    number: int
    draw: RoundDrawJSON
    top: RoundTopJSON
    retained: RoundTopJSON
    overridden_by: str | None
    results: list[PlayerResultJSON]
    stored_draw: RoundDrawJSON
    stored_top: RoundTopJSON
    stored_results: list[PlayerResultJSON]

    @property
    def same_draw(self) -> bool:
        return self.draw == self.stored_draw

    @property
    def same_top(self) -> bool:
        """The game's top is the stored one (when the arbitre retained another: the one
        the engine had proposed is not stored, so the retained one is compared)."""
        return self.overridden_by is not None or self.top == self.stored_top

    @property
    def same_results(self) -> bool:
        """The verdicts are the stored ones (a round not corrected yet has none stored)."""
        return not self.stored_results or self.results == self.stored_results

    @property
    def stored_by_player(self) -> dict[int, PlayerResultJSON]:
        return {r["player_id"]: r for r in self.stored_results}

    @property
    def identical(self) -> bool:
        return self.same_draw and self.same_top and self.same_results


def position_before(session: Session, game: DuplicateGame, rnd: DuplicateRound) -> str:
    """The master state text before ``rnd``'s draw: the game's first state (its bag in its
    stored order), or the previous round's with its retained top placed."""
    rules, settings, config = game_of(game), game_settings_of(game), config_of(game)
    previous = [r for r in rounds_of(session, game) if r.number == rnd.number - 1]
    if not previous:
        return rules.initial(settings, game.bag_order, config)
    return rules.apply(round_record_of(previous[0]), settings, config)[0]


def replay_round(*, session: Session, game: DuplicateGame, rnd: DuplicateRound,
                 actor: str) -> ReplayedRound:
    """Replay and top ``rnd`` alone from its stored position, correct its counting
    bulletins again (nothing stored); audited. French :class:`DuplicateError` for a round
    whose draw cannot be replayed (the game says it ends there)."""
    stored_top = round_top_of(rnd)
    if stored_top is None:
        raise DuplicateError(f"Le tour {rnd.number} n'a pas de top : rien à rejouer.")
    rules, settings, config = game_of(game), game_settings_of(game), config_of(game)
    try:
        drawn = rules.draw(position_before(session, game, rnd), settings, config, rnd.number)
    except ValueError as exc:  # puzzles.duplicate.DuplicateError, in French
        raise DuplicateError(str(exc)) from None
    if not isinstance(drawn, DrawnRound):
        raise DuplicateError(f"Rejoué de sa position, le tour {rnd.number} ne se tire pas : "
                             "la partie s'y termine.")
    retained = stored_top if rnd.top_overridden_by else drawn.top
    record = RoundRecord(rnd.number, drawn.draw, drawn.state_before, drawn.grid_before,
                         retained)
    counting = counting_entries(entries_of(session, rnd))
    players = players_of(session, game)
    entries = [counting.get(p.id or 0) for p in players]
    bulletins = [player_bulletin(p, e) for p, e in zip(players, entries, strict=True)]
    verdicts = rules.correct(record, bulletins, settings, config, len(players))
    replayed = ReplayedRound(
        number=rnd.number, draw=drawn.draw, top=drawn.top, retained=retained,
        overridden_by=rnd.top_overridden_by,
        results=[player_result(p.id or 0, p.name, e.id if e else None, v)
                 for p, e, v in zip(players, entries, verdicts, strict=True)],
        stored_draw=round_draw_of(rnd), stored_top=stored_top,
        stored_results=round_results_of(rnd))
    audit.record(session=session, actor=actor, action="duplicate.replay_round",
                 target=game.code, round=rnd.number, same_draw=replayed.same_draw,
                 same_top=replayed.same_top, same_results=replayed.same_results)
    return replayed

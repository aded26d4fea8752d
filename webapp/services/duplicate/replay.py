"""« Rejouer ce tour » (the console, issue 21 « From any position »): a stored round replayed
and topped alone from its own stored position — the grid, the letters left, the round number
and the cumulative tops it was drawn from (``RoundGame.position_of``) — by the one round loop
(``puzzles.duplicate.loop.replay_round``: its draw taken again as stored and checked against
the letters left, the engine's top searched again, every counting bulletin corrected), with
the verdicts against the top the round retained (the arbitre's, when he chose another).
Nothing is stored: the arbitre answering an appeal sees whether the stored draw, top and
verdicts are what the rules give, without replaying the game from the empty grid. Audited
(``duplicate.replay_round``) as every console action."""

from __future__ import annotations

from dataclasses import dataclass, replace

from sqlmodel import Session

from puzzles.duplicate import loop
from puzzles.duplicate.codecs import RoundDrawJSON, RoundTopJSON
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


def replay_round(*, session: Session, game: DuplicateGame, rnd: DuplicateRound,
                 actor: str) -> ReplayedRound:
    """Replay and top ``rnd`` alone from its stored position, correct its counting
    bulletins again (nothing stored); audited. French :class:`DuplicateError` for a round
    that does not replay from its position (its draw is not in the letters left, the game
    ends there)."""
    stored_top = round_top_of(rnd)
    if stored_top is None:
        raise DuplicateError(f"Le tour {rnd.number} n'a pas de top : rien à rejouer.")
    rules, settings, config = game_of(game), game_settings_of(game), config_of(game)
    counting = counting_entries(entries_of(session, rnd))
    players = players_of(session, game)
    entries = [counting.get(p.id or 0) for p in players]
    bulletins = [player_bulletin(p, e) for p, e in zip(players, entries, strict=True)]
    try:
        again = loop.replay_round(rules, settings, config, round_record_of(rnd), bulletins,
                                  len(players))
        retained = again.top
        if rnd.top_overridden_by:  # the verdicts against the arbitre's top, as stored
            retained = stored_top
            verdicts = rules.correct(replace(again, top=stored_top), bulletins, settings,
                                     config, len(players))
        else:
            verdicts = [again.results[b.player] for b in bulletins]
    except ValueError as exc:  # puzzles.duplicate.DuplicateError, in French
        raise DuplicateError(str(exc)) from None
    replayed = ReplayedRound(
        number=rnd.number, draw=again.draw, top=again.top, retained=retained,
        overridden_by=rnd.top_overridden_by,
        results=[player_result(p.id or 0, p.name, e.id if e else None, v)
                 for p, e, v in zip(players, entries, verdicts, strict=True)],
        stored_draw=round_draw_of(rnd), stored_top=stored_top,
        stored_results=round_results_of(rnd))
    audit.record(session=session, actor=actor, action="duplicate.replay_round",
                 target=game.code, round=rnd.number, same_draw=replayed.same_draw,
                 same_top=replayed.same_top, same_results=replayed.same_results)
    return replayed

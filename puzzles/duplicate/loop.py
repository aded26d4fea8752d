"""The one round loop (issue 21): every round game, on the command line
(``arbitre duplicate replay``, :func:`replay_game`) and for one stored round
(:func:`replay_round`, the console's « rejouer ce tour »), draws, tops, corrects and applies
its rounds through :class:`puzzles.duplicate.protocol.RoundGame` — the same operations the
server's scheduler runs (webapp/services/duplicate). From the start of a game or from any
position (a GAME.json's ``start``, docs/DUPLICATE.md « Partir d'une position »). Pure."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from puzzles.duplicate.bulletins import Bulletin
from puzzles.duplicate.gamefile import DRAWS_USED_UP, game_players
from puzzles.duplicate.protocol import (
    Finished,
    GameSettings,
    Loaded,
    PlayerBulletin,
    ReplayReport,
    RoundGame,
    RoundRecord,
)
from puzzles.duplicate.records import bulletin_dict
from puzzles.duplicate.registry import ROUND_GAMES, round_game
from puzzles.duplicate.settings import DuplicateError, read_object
from scoring.config import GameConfig

#: a round's bulletins as the replay is given them, by player: the line written, or (the
#: plain Duplicate's callers) a parsed :class:`~puzzles.duplicate.Bulletin`
RoundBulletins = Mapping[str, str | Bulletin]


def game_of(data: Mapping[str, object], *, variant_only: bool = False) -> RoundGame:
    """The round game of a GAME.json: its ``variant`` (one of the registry's), the plain
    Duplicate without one (unless ``variant_only``); French :class:`DuplicateError`."""
    if "variant" not in data and not variant_only:
        return ROUND_GAMES[""]
    key = data.get("variant")
    if isinstance(key, str) and key != "":  # "" is the plain Duplicate's: no key at all
        with contextlib.suppress(DuplicateError):
            return round_game(key)
    known = ", ".join(k for k in ROUND_GAMES if k)
    raise DuplicateError(f"Partie : variante « {key} » inconnue (connues : {known}).")


def player_bulletin(game: RoundGame, player: str, raw: str | Bulletin | None) -> PlayerBulletin:
    """A bulletin of the replay as the correction reads it: read by the game's parser (its
    errors kept when it cannot be), or already parsed."""
    if raw is None:
        return PlayerBulletin(player)
    if isinstance(raw, Bulletin):
        return PlayerBulletin(player, bulletin_dict(raw))
    parsed = game.parse(raw, player=player)
    if isinstance(parsed, list):
        return PlayerBulletin(player, None, raw, tuple(parsed))
    return PlayerBulletin(player, parsed, raw)


def play(
    game: RoundGame,
    loaded: Loaded,
    config: GameConfig,
    bulletins: Mapping[int, RoundBulletins],
    players: Sequence[str],
    *,
    max_rounds: int | None = None,
) -> tuple[list[RoundRecord], Finished]:
    """The rounds of a game from ``loaded`` (a GAME.json or a stored round's position):
    each drawn (from the bag, or the next draw listed) and topped, the arbitre's choice
    retained where ``choices`` names one, every player's bulletin corrected (a player
    without one that round is absent), the top applied — until the game ends (or
    ``max_rounds`` rounds are played). Returns the rounds (their ``results`` by player, in
    ``players`` order) and the end."""
    settings = loaded.settings
    state = loaded.state_text
    n_players = loaded.n_players or len(players)
    number = loaded.first_round
    records: list[RoundRecord] = []
    while max_rounds is None or len(records) < max_rounds:
        index = number - loaded.first_round
        listed = loaded.listed
        rounds = settings.duplicate.rounds
        if listed is not None and (index >= len(listed) or (rounds is not None
                                                             and number > rounds)):
            return records, Finished(game.finish(state, DRAWS_USED_UP), DRAWS_USED_UP)
        out = game.draw(state, settings, config, number,
                        listed=None if listed is None else listed[index])
        if isinstance(out, Finished):
            return records, out
        record = RoundRecord(number, out.draw, out.state_before, out.grid_before, out.top)
        choice = loaded.choices[index] if index < len(loaded.choices) else None
        if choice:
            record = replace(record, top=game.choose(record, str(choice), settings, config))
        given = bulletins.get(number, {})
        sheets = [player_bulletin(game, p, given.get(p)) for p in players]
        results = game.correct(record, sheets, settings, config, n_players)
        state, grid = game.apply(record, settings, config)
        records.append(replace(record, grid_after=grid,
                               results=dict(zip(players, results, strict=True))))
        number += 1
    return records, Finished(state)


def replay_game(
    game_json: str | Mapping[str, Any],
    bulletins_by_round: Mapping[int, RoundBulletins] | None = None,
    *,
    config: GameConfig | None = None,
    game: RoundGame | None = None,
) -> ReplayReport:
    """``arbitre duplicate replay`` for every round game (docs/DUPLICATE.md,
    docs/VARIANTS.md): the GAME.json read by its game (``variant``; ``game`` forces one),
    the whole game played by :func:`play`, the game's report."""
    data = read_object(game_json, "Partie", with_line=True)
    chosen = game if game is not None else game_of(data)
    bulletins = bulletins_by_round or {}
    players = game_players(data, bulletins)
    loaded = chosen.load(data, config)
    cfg = config or GameConfig.default(loaded.settings.duplicate.lang)
    records, end = play(chosen, loaded, cfg, bulletins, players)
    return chosen.report(loaded.settings, records, end, players)


def replay_round(
    game: RoundGame,
    settings: GameSettings,
    config: GameConfig,
    record: RoundRecord,
    bulletins: Sequence[PlayerBulletin] = (),
    n_players: int | None = None,
) -> RoundRecord:
    """One stored round replayed from its own position (:meth:`RoundGame.position_of`),
    without the rounds before it: its draw taken again as stored (checked against the
    letters left), the engine's top searched again, ``bulletins`` corrected, the top
    applied — the round as the whole game would replay it (an appeal, a player studying the
    round; the console's « rejouer ce tour »). The results are by player key, in
    ``bulletins`` order."""
    start = game.position_of(record)
    listed = game.listed_draw(record)
    loaded = Loaded(settings, game.position(start, settings),
                    None if listed is None else (listed,), n_players, (), record.number)
    given = {pb.player: pb for pb in bulletins}
    played, end = _play_sheets(game, loaded, config, given)
    if not played:
        raise DuplicateError(f"Coup {record.number} : il ne se rejoue pas depuis sa position "
                             f"({end.end_reason or 'partie finie'}).")
    return played[0]


def _play_sheets(game: RoundGame, loaded: Loaded, config: GameConfig,
                 sheets: Mapping[str, PlayerBulletin]) -> tuple[list[RoundRecord], Finished]:
    """:func:`play` for one round whose bulletins are already read (a stored round's)."""
    settings = loaded.settings
    listed = loaded.listed
    out = game.draw(loaded.state_text, settings, config, loaded.first_round,
                    listed=None if listed is None else listed[0])
    if isinstance(out, Finished):
        return [], out
    record = RoundRecord(loaded.first_round, out.draw, out.state_before, out.grid_before,
                         out.top)
    results = game.correct(record, list(sheets.values()), settings, config,
                           loaded.n_players or len(sheets))
    state, grid = game.apply(record, settings, config)
    return [replace(record, grid_after=grid,
                    results=dict(zip(sheets, results, strict=True)))], Finished(state)

"""A whole Duplicate replayed (``arbitre duplicate replay``, docs/DUPLICATE.md): the GAME.json
read (:func:`load_game`), :func:`replay` (the one round loop of every round game,
:func:`puzzles.duplicate.loop.replay_game`, on the plain Duplicate) and the BULLETINS file
(:func:`parse_bulletins_file`). The GAME.json's common parts (:mod:`~puzzles.duplicate.gamefile`)
and the report (:mod:`~puzzles.duplicate.report`) are re-exported here for their callers."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

from puzzles.duplicate.bulletins import Bulletin
from puzzles.duplicate.gamefile import DRAWS_USED_UP as DRAWS_USED_UP
from puzzles.duplicate.gamefile import game_players as game_players
from puzzles.duplicate.gamefile import initial_state as initial_state
from puzzles.duplicate.gamefile import listed_draws_over as listed_draws_over
from puzzles.duplicate.gamefile import next_draw as next_draw
from puzzles.duplicate.gamefile import no_move_end as no_move_end
from puzzles.duplicate.loop import replay_game
from puzzles.duplicate.registry import round_game
from puzzles.duplicate.report import ReplayResult as ReplayResult
from puzzles.duplicate.report import warnings_note as warnings_note
from puzzles.duplicate.settings import DuplicateError, DuplicateSettings, read_object
from puzzles.duplicate.state import GameState
from scoring.config import GameConfig


def load_game(
    game_json: str | Mapping[str, Any],
) -> tuple[DuplicateSettings, GameState, list[str] | None, dict[str, Any]]:
    """Read a GAME.json (docs/DUPLICATE.md): settings, the initial state, the listed draws
    (None when the bag order is given), the raw mapping."""
    data = read_object(game_json, "Partie", with_line=True)
    known = {"settings", "bag", "seed", "draws", "players", "n_players", "lexicon", "title"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise DuplicateError(f"Partie : clés inconnues {', '.join(unknown)}.")
    settings = DuplicateSettings.from_json(cast(Mapping[str, Any], data.get("settings") or {}))
    state, draws = initial_state(settings, data, draws_example="« RU+ZXTEU »")
    return settings, state, draws, data


def replay(
    game_json: str | Mapping[str, Any],
    bulletins_by_round: Mapping[int, Mapping[str, str | Bulletin]] | None = None,
    *,
    config: GameConfig | None = None,
) -> ReplayResult:
    """Play a whole game from a GAME.json (docs/DUPLICATE.md) and correct the bulletins:
    per round the draw, the top, every player's verdict (a player of ``players`` or of any
    round without a bulletin that round is absent), the solos; then the ranking — the one
    round loop (:func:`puzzles.duplicate.loop.replay_game`) on the plain Duplicate."""
    report = replay_game(game_json, bulletins_by_round, config=config, game=round_game(""))
    return cast(ReplayResult, report)


def parse_bulletins_file(text: str) -> dict[int, dict[str, str]]:
    """The BULLETINS file of ``arbitre duplicate replay`` (docs/DUPLICATE.md): JSON
    ``{"1": {"alice": "H4 RESTAIt 70"}}`` or lines ``1 alice : H4 RESTAIt 70`` (``#``
    comments). French errors raise :class:`DuplicateError`."""
    stripped = text.strip()
    out: dict[int, dict[str, str]] = {}
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise DuplicateError(f"Bulletins : JSON illisible ({exc.msg}).") from None
        if not isinstance(data, dict):
            raise DuplicateError("Bulletins : un objet JSON est attendu.")
        for key, per in data.items():
            if not str(key).isdigit() or not isinstance(per, dict):
                raise DuplicateError(f"Bulletins : coup « {key} » illisible.")
            out[int(key)] = {str(p): str(t) for p, t in per.items()}
        return out
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        head, sep, body = line.partition(":")
        parts = head.split()
        if not sep or len(parts) != 2 or not parts[0].isdigit():
            raise DuplicateError(
                f"Bulletins, ligne {n} : attendu « COUP JOUEUR : bulletin » "
                f"(ex. « 2 alice : H4 RESTAIt 70 »), lu « {raw.strip()[:60]} »."
            )
        rnd, who = int(parts[0]), parts[1]
        if who in out.setdefault(rnd, {}):
            raise DuplicateError(f"Bulletins, ligne {n} : deux bulletins de {who} au coup {rnd}.")
        out[rnd][who] = body.strip()
    return out

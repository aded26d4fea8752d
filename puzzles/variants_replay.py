"""``arbitre duplicate replay`` for the Duplicate variants (docs/VARIANTS.md): a whole game of
Tactique, Duplicate Top, Complétif, Superjoker, Métagramme, Elliptique or Partie de
Superscrabble replayed from a GAME.json with a ``variant`` key — the one round loop of every
round game (:func:`puzzles.duplicate.loop.replay_game`), under its former address; the
report's classes (:mod:`puzzles.duplicate.report`) are re-exported here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from puzzles.duplicate.loop import game_of, replay_game
from puzzles.duplicate.registry import ROUND_GAMES
from puzzles.duplicate.report import VariantReplay, VariantRound
from puzzles.duplicate.settings import read_object
from puzzles.duplicate.state import Draw
from scoring.config import GameConfig

SUPERSCRABBLE = "superscrabble"
#: the variants a GAME.json may name
ALL_VARIANTS = tuple(k for k in ROUND_GAMES if k)


def replay_variant(
    game_json: str | Mapping[str, Any],
    bulletins_by_round: Mapping[int, Mapping[str, str]] | None = None,
    *,
    config: GameConfig | None = None,
) -> VariantReplay:
    """Replay a variant game (docs/VARIANTS.md) and correct its bulletins."""
    data = read_object(game_json, "Partie", with_line=True)
    game = game_of(data, variant_only=True)
    return cast(VariantReplay, replay_game(data, bulletins_by_round, config=config, game=game))


__all__ = ["ALL_VARIANTS", "Draw", "SUPERSCRABBLE", "VariantReplay", "VariantRound",
           "replay_variant"]

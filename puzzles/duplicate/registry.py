"""The round games by key (``DuplicateGame.variant``, a GAME.json's ``variant``):
:data:`ROUND_GAMES` and :func:`round_game`. Gathered from the modules of
:mod:`puzzles.duplicate.games` (each declares its ``GAMES`` and their ``LISTED`` place), so
that a new game is its module alone; a page, the console, the scheduler or the replay ask
here for the game and then ask the game."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping
from types import MappingProxyType, ModuleType
from typing import cast

from puzzles.duplicate import games
from puzzles.duplicate.protocol import RoundGame
from puzzles.duplicate.settings import DuplicateError


def _game_modules() -> list[ModuleType]:
    """Every module of :mod:`puzzles.duplicate.games` that declares its ``GAMES``, by its
    ``LISTED`` place: a new game is its module, with no line to add here."""
    found = [importlib.import_module(f"{games.__name__}.{info.name}")
             for info in pkgutil.iter_modules(games.__path__)]
    return sorted((m for m in found if hasattr(m, "GAMES")),
                  key=lambda m: (int(getattr(m, "LISTED", 1_000)), m.__name__))


_GAMES: tuple[RoundGame, ...] = tuple(
    game for module in _game_modules()
    for game in cast("tuple[RoundGame, ...]", module.GAMES))

#: every round game by its key ("" the plain Duplicate), in the order the replay's French
#: refusal lists them (the console lists ``DuplicateVariant``'s)
ROUND_GAMES: Mapping[str, RoundGame] = MappingProxyType({g.key: g for g in _GAMES})


def round_game(key: str) -> RoundGame:
    """The round game of ``key``; French :class:`DuplicateError` for an unknown one."""
    try:
        return ROUND_GAMES[str(key)]
    except KeyError:
        known = ", ".join(k for k in ROUND_GAMES if k)
        raise DuplicateError(f"Variante « {key} » inconnue (connues : {known}).") from None

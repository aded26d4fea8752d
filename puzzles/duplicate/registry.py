"""The round games by key (``DuplicateGame.variant``, a GAME.json's ``variant``):
:data:`ROUND_GAMES` and :func:`round_game`. The one place that lists them: a page, the
console, the scheduler or the replay ask here for the game and then ask the game."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from puzzles.duplicate.games.classic import ClassicGame
from puzzles.duplicate.games.free import FREE_GAMES
from puzzles.duplicate.games.superscrabble import SuperscrabbleGame
from puzzles.duplicate.games.tactique import TactiqueGame
from puzzles.duplicate.games.top import TopGame
from puzzles.duplicate.protocol import RoundGame
from puzzles.duplicate.settings import DuplicateError

_GAMES: tuple[RoundGame, ...] = (
    ClassicGame(), TactiqueGame(), TopGame(), *FREE_GAMES.values(), SuperscrabbleGame(),
)

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

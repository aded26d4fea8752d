"""A GAME.json's common parts (``arbitre duplicate replay``, docs/DUPLICATE.md): the players
(:func:`game_players`), the initial state from ``bag``, ``seed`` or ``draws``
(:func:`initial_state`), and the end of the draws listed (:data:`DRAWS_USED_UP`,
:func:`listed_draws_over`, :func:`next_draw`, :func:`no_move_end`). Each round game reads its
own GAME.json with them (:meth:`puzzles.duplicate.protocol.RoundGame.load`). Imports the
settings and state modules."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from puzzles.duplicate.settings import RACK_SIZE, DuplicateError, DuplicateSettings
from puzzles.duplicate.state import Draw, GameState, draw_listed, shuffled_bag
from scoring.tiles import tileset


def game_players(
    data: Mapping[str, Any], bulletins: Mapping[int, Mapping[str, object]]
) -> list[str]:
    """The players of a replayed game: ``players`` of the GAME.json, then anyone who sent a
    bulletin, in round order."""
    players = [str(p) for p in data.get("players") or []]
    for rnd in sorted(bulletins):
        for name in bulletins[rnd]:
            if name not in players:
                players.append(name)
    return players


def initial_state(
    settings: DuplicateSettings, data: Mapping[str, Any], *, draws_example: str,
    bag_as_list: bool = True, empty_draws: bool = True,
) -> tuple[GameState, list[str] | None]:
    """The initial state of a GAME.json and its listed draws (None when the bag order is
    given): exactly one of ``bag``, ``seed``, ``draws``. With ``draws`` the bag is the whole
    set (every draw names its tiles). ``draws_example`` ends the error on a bad ``draws``;
    ``bag_as_list``: a ``bag`` may be a list of tiles; ``empty_draws``: ``draws`` may be
    empty (the game ends before its first round)."""
    given = [k for k in ("bag", "seed", "draws") if k in data]
    if len(given) != 1:
        raise DuplicateError("Partie : donnez exactement une des clés bag, seed ou draws.")
    if "bag" in data:
        bag = data["bag"]
        if bag_as_list and isinstance(bag, list):
            bag = "".join(str(x) for x in bag)
        if not isinstance(bag, str):
            raise DuplicateError("Partie : bag est une chaîne de lettres (? pour un joker).")
        return GameState.initial(settings, bag.replace(" ", "")), None
    if "seed" in data:
        if not isinstance(data["seed"], int):
            raise DuplicateError("Partie : seed est un entier.")
        return GameState.initial(settings, shuffled_bag(settings.lang, data["seed"])), None
    raw = data["draws"]
    if not isinstance(raw, list) or not all(isinstance(d, str) for d in raw) or not (
        raw or empty_draws
    ):
        raise DuplicateError(f"Partie : draws est une liste de tirages ({draws_example}).")
    full = sorted(tileset(settings.lang).bag().elements())
    return GameState.initial(settings, full), list(raw)


DRAWS_USED_UP = "Fin des tirages donnés."


def listed_draws_over(state: GameState, settings: DuplicateSettings, draws: Sequence[str]) -> bool:
    """With listed draws: the list is used up, or ``settings.rounds`` rounds are played."""
    return state.round_no > len(draws) or (
        settings.rounds is not None and state.round_no > settings.rounds
    )


def next_draw(
    state: GameState,
    settings: DuplicateSettings,
    draws: Sequence[str] | None,
    draw_from_bag: Callable[[GameState], tuple[Draw | None, GameState]],
    *,
    rack_size: int = RACK_SIZE,
) -> tuple[Draw | None, GameState]:
    """A replayed round's draw: ``draw_from_bag`` when no draws are listed, else the next
    listed one (:func:`draw_listed`); None and the finished state at the end."""
    if draws is None:
        return draw_from_bag(state)
    if listed_draws_over(state, settings, draws):
        return None, replace(state, finished=True, end_reason=DRAWS_USED_UP)
    return draw_listed(state, settings, draws[state.round_no - 1], rack_size=rack_size)


def no_move_end(state: GameState, rack: str) -> GameState:
    """The finished state when no word can be played with ``rack``."""
    return replace(
        state, finished=True, end_reason=f"Aucun mot ne peut être joué avec le tirage {rack}."
    )

"""The JSON columns read into typed values: one reader per column, used by every service and
page instead of reading the stored dictionaries by hand.

Each reader takes a row of :mod:`webapp.models` and returns the value of the pure packages
(``puzzles``) the column holds; a column that cannot be read raises what the pure package
raises (``ValueError``, ``KeyError``, ``TypeError``: a damaged row fails loudly). This module
imports no other service, so every service can use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypedDict, cast
from zoneinfo import ZoneInfo

from puzzles.championship import ChampionshipSettings
from puzzles.duplicate import DuplicateSettings
from puzzles.duplicate.codecs import AnyBulletinJSON, ResultJSON, RoundDrawJSON, RoundTopJSON
from puzzles.duplicate.protocol import GameSettings, RoundRecord
from puzzles.feuille import Feuille
from puzzles.problem import Problem as Puzzle
from puzzles.settings import Settings
from puzzles.variants import VariantSettings
from puzzles.verify import Report
from webapp.models import (
    Competition,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    Problem,
    Submission,
    Verification,
)

# --- problem.params ------------------------------------------------------------------------


def puzzle_of(problem: Problem) -> Puzzle:
    """The :class:`puzzles.problem.Problem` a stored problem holds (``ValueError``,
    ``KeyError`` or ``TypeError`` when its JSON cannot be read)."""
    return Puzzle.from_dict(dict(problem.params))


def readable_puzzle(problem: Problem) -> Puzzle | None:
    """:func:`puzzle_of`, or None when the row's JSON cannot be read (so that a damaged row
    still shows its page with a notice instead of failing)."""
    try:
        return puzzle_of(problem)
    except (ValueError, KeyError, TypeError):
        return None


def store_deadline(problem: Problem, deadline_at: datetime) -> None:
    """Move a problem's deadline in the row and in the statement players read (the puzzle's
    deadline, in the problem's zone); the other keys of ``params`` are kept."""
    problem.deadline_at = deadline_at
    puzzle = puzzle_of(problem).with_deadline(deadline_at.astimezone(ZoneInfo(problem.timezone)))
    problem.params = {**problem.params, **puzzle.to_dict()}


def rule_settings_of(problem: Problem) -> Settings:
    """The problem's named rule settings (``params["settings"]``; the defaults when none)."""
    data = problem.params.get("settings") if isinstance(problem.params, dict) else None
    return Settings.from_dict(data) if data else Settings()


def reference_data_of(problem: Problem) -> dict[str, Any] | None:
    """The verified reference solution stored in ``params["reference"]``
    (``webapp.services.reference``), or None."""
    ref = problem.params.get("reference") if isinstance(problem.params, dict) else None
    return ref if isinstance(ref, dict) else None


# --- submission.feuille, verification.report -----------------------------------------------


def feuille_of(submission: Submission) -> Feuille | None:
    """The parsed sheet stored with a submission (None: the text could not be read)."""
    if submission.feuille is None:
        return None
    return Feuille.from_dict(dict(submission.feuille))


def feuille_from(data: Mapping[str, Any]) -> Feuille:
    """A ``Submission.feuille`` value selected alone (``select(Submission.feuille)``)."""
    return Feuille.from_dict(dict(data))


def report_of(verification: Verification) -> Report:
    """The verifier's report a verification stores (its ``text`` key is the French text)."""
    return report_from(verification.report)


def report_from(data: Mapping[str, Any]) -> Report:
    """A ``Verification.report`` value selected alone."""
    return Report.from_dict(dict(data))


# --- competition.standings_settings ---------------------------------------------------------


def standings_settings_of(competition: Competition) -> ChampionshipSettings:
    """The season ranking's settings (None stored: the documented defaults)."""
    return ChampionshipSettings.from_dict(competition.standings_settings)


# --- duplicate_game.settings, the round and entry columns ---------------------------------


def game_settings_of(game: DuplicateGame) -> GameSettings:
    """Every setting of a round game (``puzzles.duplicate.protocol.GameSettings``: the
    Duplicate's rules, a variant's own, the Superscrabble's start and racks), as its game
    reads them."""
    return GameSettings.from_stored(game.variant, game.settings)


def variant_settings_of(game: DuplicateGame) -> VariantSettings:
    """The :class:`puzzles.variants.VariantSettings` of a variant game (the Partie de
    Superscrabble is played on the Duplicate Top's settings)."""
    return game_settings_of(game).rules


def duplicate_settings_of(game: DuplicateGame) -> DuplicateSettings:
    """The Duplicate rules of a game: its own settings, or a variant's Duplicate part."""
    return game_settings_of(game).duplicate


def round_draw_of(rnd: DuplicateRound) -> RoundDrawJSON:
    """``DuplicateRound.draw``: the form its game stored (``puzzles.duplicate.codecs``)."""
    return cast(RoundDrawJSON, rnd.draw)


def round_top_of(rnd: DuplicateRound) -> RoundTopJSON | None:
    """``DuplicateRound.top``: the retained top as its game stored it (None: none yet)."""
    return cast(RoundTopJSON | None, rnd.top)


def round_results_of(rnd: DuplicateRound) -> list[PlayerResultJSON]:
    """``DuplicateRound.results``: one result per player, as :func:`player_result` wrote."""
    return cast(list[PlayerResultJSON], rnd.results)


def round_record_of(rnd: DuplicateRound) -> RoundRecord:
    """The stored round as its game reads it (``puzzles.duplicate.protocol.RoundRecord``),
    with its results by player key (the player's id as text). A round without a top (it
    has none before its draw is stored) cannot be read: ``ValueError``."""
    top = round_top_of(rnd)
    if top is None:
        raise ValueError(f"round {rnd.number} has no top")
    return RoundRecord(rnd.number, round_draw_of(rnd), rnd.state_before, rnd.grid_before, top,
                       rnd.grid_after or "",
                       {str(r["player_id"]): r for r in round_results_of(rnd)})


def bulletin_json_of(entry: DuplicateEntry) -> AnyBulletinJSON | None:
    """``DuplicateEntry.bulletin``: the parsed bulletin as its game stored it (None: the
    text could not be read)."""
    return cast(AnyBulletinJSON | None, entry.bulletin)


class PlayerResultJSON(ResultJSON):
    """A player's result of a round as stored: who (``player_id``, ``name``) and which
    bulletin (``entry_id``; None: none counted), then the game's result."""

    player_id: int
    name: str
    entry_id: int | None


def player_result(player_id: int, name: str, entry_id: int | None,
                  result: ResultJSON) -> PlayerResultJSON:
    """The stored result: the player's keys first, then the game's, in its order."""
    return cast(PlayerResultJSON, {"player_id": player_id, "name": name, "entry_id": entry_id,
                                   **result})


class Rhythm(TypedDict, total=False):
    """``DuplicateGame.rhythm`` (``duplicate.check_rhythm``): ``kind`` and its parameters —
    ``hours`` (« hours », « all_answered »), ``days`` and ``time`` (« weekdays »),
    ``minutes`` and ``mails`` (« live »)."""

    kind: str
    hours: int
    days: list[int]
    time: str
    minutes: int
    mails: bool


def rhythm_of(game: DuplicateGame) -> Rhythm:
    """``DuplicateGame.rhythm``, normalised when it was stored."""
    return cast(Rhythm, game.rhythm)

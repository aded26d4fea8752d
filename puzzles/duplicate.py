"""The FISF Duplicate (2016) played by correspondence: draws, the top, bulletin correction,
solos and the final ranking (docs/RULES.md §4, §10, §11; docs/DUPLICATE.md).

Pure and deterministic: the bag order is given (draws take from the front), every rule the
sources leave open is a named field of :class:`DuplicateSettings`. The server side (tables,
scheduler, pages, mail) drives a game round by round through :func:`draw_round`,
:func:`find_top`, :func:`correct`, :func:`apply_solos`, :func:`apply_top` and
:func:`rank_game`; :func:`replay` runs a whole game for ``arbitre duplicate replay``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any, Literal

from scoring.board import Board
from scoring.config import GameConfig
from scoring.movegen import GeneratedMove

Lang = Literal["fr", "ro"]
SoloRule = Literal["auto", "n_minus_6", "none"]
RejectionReturns = Literal["all", "new_only"]
Openness = Literal["adjacent_empty", "none"]
VerdictKind = Literal["valide", "avertissement", "penalite5", "nul", "absent"]


class DuplicateError(ValueError):
    """A game file, draw list or state that cannot be used (French message)."""


# --- settings -----------------------------------------------------------------------------
@dataclass(frozen=True)
class DuplicateSettings:
    """Every Duplicate rule the sources leave open, with the docs/RULES.md default."""

    #: tile set: ``fr`` (102 tiles) or ``ro`` (100 tiles) (RULES §2, §10)
    lang: Lang = "fr"
    #: number of rounds; None plays to the end of the bag (RULES §4.9)
    rounds: int | None = None
    #: solo bonus for fields under ``solo_min_players`` (G2): ``auto`` = the RULES default
    #: (n − 6), ``n_minus_6`` (RECALLED FFSc), ``none`` (Eliot: no solo below 16)
    solo_rule: SoloRule = "auto"
    #: solo bonus for a field of ``solo_min_players`` or more (RULES §4.8)
    solo_points: int = 10
    solo_min_players: int = 16
    #: warnings cost ``warning_penalty_points`` each from this one on: 4 (FISF), 6 (blitz and
    #: original games) (RULES §4.7.7)
    warning_conversion_from: int = 4
    warning_penalty_points: int = 5
    #: points taken by a 5-point penalty (RULES §4.7.3)
    penalty_points: int = 5
    #: on a rejection, ``all`` the tiles go back (FISF) or only the ``new_only`` ones (an FRSc
    #: online rule set, RULES §10)
    rejection_returns: RejectionReturns = "all"
    #: ≥2 vowels and ≥2 consonants up to this round inclusive, then ≥1 + ≥1 (RULES §4.3, E13)
    min_split_rounds: int = 15
    #: the first top must be horizontal (RULES §4.5, S1 3.4)
    first_move_horizontal: bool = True
    #: the arbiter's free choice among equal tops (G1): more empty squares next to the move
    #: first (``adjacent_empty``), or skip that step (``none``)
    top_openness: Openness = "adjacent_empty"
    #: seconds per move (RULES §4.4): 180, 150, 120 or 60
    time_per_move: int = 180
    #: an interrupted game stands when at least this many rounds were played (G4)
    interruption_min_rounds: int = 15

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, text: str | Mapping[str, Any]) -> DuplicateSettings:
        """Read settings from JSON text or a mapping; unknown keys or bad values raise
        :class:`DuplicateError` with a French message."""
        raise NotImplementedError


# --- draws and state ---------------------------------------------------------------------
@dataclass(frozen=True)
class Draw:
    """One round's draw: the ``reliquat`` kept, the ``new`` tiles, the whole ``rack``, and the
    racks ``rejected`` before it (RULES §4.2–4.3). Jokers are ``?``."""

    reliquat: str
    new: str
    rack: str
    rejected: tuple[str, ...] = ()
    #: the vowel/consonant minimum this draw had to meet (0: none, the last tiles)
    minimum: int = 0

    @property
    def notation(self) -> str:
        """``RU+ZXTEU``; ``-BNISRAA`` after a rejection (E17)."""
        raise NotImplementedError


@dataclass(frozen=True)
class GameState:
    """Where a game stands between rounds.

    ``board_cgp``: the master grid. ``bag``: the tiles not yet drawn, in drawing order (the
    front is drawn first; ``?`` for a joker). ``reliquat``: the tiles kept from the last draw.
    ``round_no``: the round about to be drawn (1 at the start). ``end_reason``: French text
    once ``finished``.
    """

    board_cgp: str
    bag: tuple[str, ...]
    reliquat: str = ""
    round_no: int = 1
    tops_total: int = 0
    finished: bool = False
    end_reason: str = ""

    @property
    def board(self) -> Board:
        return Board.from_cgp(self.board_cgp)

    @classmethod
    def initial(cls, settings: DuplicateSettings, bag_order: Sequence[str] | str) -> GameState:
        """An empty grid and ``bag_order`` (checked against the tile set of ``settings``)."""
        raise NotImplementedError

    def to_text(self) -> str:
        """A few ``key: value`` lines; :meth:`from_text` reads them back exactly."""
        raise NotImplementedError

    @classmethod
    def from_text(cls, text: str) -> GameState:
        raise NotImplementedError


def shuffled_bag(lang: Lang, seed: int) -> tuple[str, ...]:
    """The full tile set of ``lang`` in a reproducible random order."""
    raise NotImplementedError


def draw_round(
    state: GameState, settings: DuplicateSettings, *, config: GameConfig | None = None
) -> tuple[Draw | None, GameState]:
    """Draw the next round: the reliquat completed to 7 from the front of the bag, with the
    vowel/consonant minimum of the round (rejected tiles go back to the end of the bag).

    Returns ``(None, finished_state)`` when the game is over (RULES §4.9: bag and rack empty;
    no vowel or no consonant left; round limit reached). With ``config``, a draw on which no
    word can be played is rejected while more than 7 tiles remain, and ends the game
    otherwise (§4.9 (c)).
    """
    raise NotImplementedError


def draw_listed(
    state: GameState, settings: DuplicateSettings, notation: str
) -> tuple[Draw, GameState]:
    """Take a draw written as in a game record (``RU+ZXTEU``, ``-BNISRAA``, ``EAIRSTU``):
    the tiles must be the reliquat plus tiles still in the bag."""
    raise NotImplementedError


# --- the top -------------------------------------------------------------------------------
@dataclass(frozen=True)
class TopChoice:
    """The retained top and the other equal-best moves it was chosen among."""

    move: GeneratedMove
    ref: str
    word: str
    score: int
    ties: tuple[GeneratedMove, ...] = ()
    reason_fr: str = ""


def find_top(
    state: GameState,
    rack: str,
    config: GameConfig,
    *,
    round_no: int,
    settings: DuplicateSettings | None = None,
) -> TopChoice | None:
    """The top (RULES §4.5): best score; among equals the fewest jokers, then a move that
    ends the game, then more openness, then horizontal, then the smallest reference (row,
    column), then the smallest word. Round 1's top is horizontal. None: nothing playable."""
    raise NotImplementedError


def apply_top(state: GameState, draw: Draw, top: TopChoice) -> GameState:
    """The top put on the master grid; the reliquat is the rack minus the tiles played."""
    raise NotImplementedError


# --- bulletins and correction ---------------------------------------------------------------
@dataclass(frozen=True)
class Bulletin:
    """One player's answer for a round: the word (joker lowercase), an alphanumeric ``ref``
    and/or ``raccord`` letters, the claimed score."""

    player: str
    word: str
    ref: str | None = None
    raccord: str | None = None
    claimed: int | None = None
    received_at: datetime | None = None


def parse_bulletin(
    text: str, *, player: str = "", received_at: datetime | None = None
) -> Bulletin | list[str]:
    """Read one line (``H4 RESTAIt 70``, ``4H RESTAIt 70``, ``MEN PROMENERAI 72``); a list of
    French errors when it cannot be read."""
    raise NotImplementedError


@dataclass(frozen=True)
class Verdict:
    """The correction of one bulletin (RULES §4.7).

    ``score``: points credited for the move (after a 5-point penalty); ``solo``: the solo
    bonus (set by :func:`apply_solos`); ``warnings``: 0 or 1 (one per bulletin at most).
    """

    player: str
    score: int
    kind: VerdictKind
    warnings: int = 0
    reason_fr: str = ""
    ref: str | None = None
    word: str | None = None
    solo: int = 0


@dataclass
class RoundContext:
    """Everything :func:`correct` needs per round, computed once for all bulletins."""

    board: Board
    rack: str
    config: GameConfig
    round_no: int
    top_score: int
    moves_by_word: dict[str, list[GeneratedMove]] = field(default_factory=dict)


def prepare_round(
    state: GameState, rack: str, config: GameConfig, *, round_no: int, top_score: int
) -> RoundContext:
    """Generate the round's legal moves once (indexed by word) for :func:`correct`."""
    raise NotImplementedError


def correct(
    state: GameState,
    rack: str,
    bulletin: Bulletin | None,
    config: GameConfig,
    *,
    round_no: int,
    top_score: int,
    context: RoundContext | None = None,
    player: str = "",
) -> Verdict:
    """Correct one bulletin (RULES §4.7): validity, then zero causes, then 5-point penalty
    causes (from round 2), then warnings; one sanction, the most severe. None: absent."""
    raise NotImplementedError


def solo_bonus(n_players: int, settings: DuplicateSettings) -> int:
    """The solo bonus for a field of ``n_players`` (RULES §4.8, G2)."""
    raise NotImplementedError


def apply_solos(
    verdicts: Sequence[Verdict], n_players: int, settings: DuplicateSettings
) -> list[Verdict]:
    """Give the solo bonus to the one player whose credited score beats every other (zeros
    and absents never compete) (RULES §4.8)."""
    raise NotImplementedError


# --- results --------------------------------------------------------------------------------
@dataclass(frozen=True)
class RoundResult:
    round_no: int
    draw: Draw
    top: TopChoice
    board_cgp: str
    """The master grid after the top."""
    verdicts: tuple[Verdict, ...] = ()


@dataclass(frozen=True)
class StandingRow:
    player: str
    total: int
    percent_of_tops: float
    rank: int
    warnings: int
    penalties: int
    """Number of bulletins with a 5-point penalty."""
    warning_deduction: int = 0
    solos: int = 0
    zeros: int = 0


def rank_game(rounds: Sequence[RoundResult], settings: DuplicateSettings) -> list[StandingRow]:
    """Final ranking (RULES §4.10): move scores + solos − warning conversion (§4.7.7); equal
    totals share a rank (1, 1, 3)."""
    raise NotImplementedError


@dataclass(frozen=True)
class ReplayResult:
    settings: DuplicateSettings
    rounds: tuple[RoundResult, ...]
    standings: tuple[StandingRow, ...]
    final_state: GameState

    def to_json(self) -> str:
        raise NotImplementedError

    def to_text(self) -> str:
        raise NotImplementedError


def replay(
    game_json: str | Mapping[str, Any],
    bulletins_by_round: Mapping[int, Mapping[str, str | Bulletin]] | None = None,
    *,
    config: GameConfig | None = None,
) -> ReplayResult:
    """Play a whole game from a GAME.json (docs/DUPLICATE.md) and correct the bulletins."""
    raise NotImplementedError

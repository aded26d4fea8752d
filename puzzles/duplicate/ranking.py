"""The Duplicate's solos and ranking (RULES §4.8, §4.7.7, §4.10): :func:`solo_bonus` and
:func:`apply_solos`, :func:`correct_all` (a whole round: every bulletin corrected, then the
solos), :class:`RoundResult` and :class:`StandingRow`, :func:`warning_deduction` (the
warnings' conversion), :func:`interrupted_game_stands`, :func:`rank_game`. Imports the
settings, state, top, bulletins and correction modules."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TypeVar

from puzzles.duplicate.bulletins import Bulletin, parse_bulletin
from puzzles.duplicate.correction import Verdict, correct, prepare_round
from puzzles.duplicate.settings import DuplicateSettings
from puzzles.duplicate.state import Draw, GameState
from puzzles.duplicate.top import TopChoice
from puzzles.penalties import points_deduction
from puzzles.ties import shared_ranks
from puzzles.verdicts import scores_nothing
from scoring.config import GameConfig

#: a one-word bulletin of some game (the Duplicate's, a letter-choice game's)
B = TypeVar("B")


def solo_bonus(n_players: int, settings: DuplicateSettings) -> int:
    """The solo bonus for a field of ``n_players`` (RULES §4.8, G2): ``solo_points`` from
    ``solo_min_players``; below, n − 6 (``auto``, ``n_minus_6``; none for 6 or fewer) or
    nothing (``none``)."""
    if n_players >= settings.solo_min_players:
        return settings.solo_points
    if settings.solo_rule == "none":
        return 0
    return min(settings.solo_points, max(0, n_players - 6))


def apply_solos(
    verdicts: Sequence[Verdict], n_players: int, settings: DuplicateSettings
) -> list[Verdict]:
    """Give the solo bonus to the one player whose credited score beats every other (zeros
    and absents never compete; INFERRED) (RULES §4.8)."""
    bonus = solo_bonus(n_players, settings)
    out = [replace(v, solo=0) for v in verdicts]
    competing = [i for i, v in enumerate(out) if not scores_nothing(v.kind) and v.score > 0]
    if bonus <= 0 or not competing:
        return out
    high = max(out[i].score for i in competing)
    best = [i for i in competing if out[i].score == high]
    if len(best) == 1:
        i = best[0]
        out[i] = replace(out[i], solo=bonus)
    return out


def correct_all(
    state: GameState,
    rack: str,
    bulletins: Mapping[str, Bulletin | str | None],
    config: GameConfig,
    *,
    round_no: int,
    top_score: int,
    settings: DuplicateSettings,
    n_players: int | None = None,
) -> list[Verdict]:
    """Correct one round for every player (text bulletins parsed; an unreadable one is
    zero with its errors), then the solos. Players in ``bulletins`` order."""
    ctx = prepare_round(
        state, rack, config, round_no=round_no, top_score=top_score, settings=settings
    )
    return correct_each(
        bulletins, parse_bulletin,
        lambda who, b: correct(state, rack, b, config, round_no=round_no, top_score=top_score,
                               context=ctx, player=who),
        n_players, settings)


def correct_each(
    bulletins: Mapping[str, B | str | None],
    parse: Callable[..., B | list[str]],
    correct_one: Callable[[str, B | None], Verdict],
    n_players: int | None,
    settings: DuplicateSettings,
) -> list[Verdict]:
    """A whole round of one-word bulletins: each text read by ``parse`` (``player=`` its
    player; an unreadable one is zero with its errors), each bulletin (None: absent)
    corrected by ``correct_one``, then the solos over a field of ``n_players`` (default:
    the bulletins'). Players in ``bulletins`` order."""
    out: list[Verdict] = []
    for who, raw in bulletins.items():
        b = parse(raw, player=who) if isinstance(raw, str) else raw
        if isinstance(b, list):
            out.append(
                Verdict(who, 0, "nul", reason_fr="Nul : bulletin illisible — " + " ".join(b))
            )
            continue
        out.append(correct_one(who, b))
    return apply_solos(out, n_players if n_players is not None else len(out), settings)


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


def warning_deduction(warnings: int, settings: DuplicateSettings) -> int:
    """RULES §4.7.7: each warning from the ``warning_conversion_from``-th costs
    ``warning_penalty_points``."""
    return points_deduction(warnings, first=settings.warning_conversion_from,
                            points=settings.warning_penalty_points)


def interrupted_game_stands(rounds_played: int, settings: DuplicateSettings) -> bool:
    """An interrupted game keeps its results when at least ``interruption_min_rounds``
    rounds were collected (RULES §4.9, G4: 15; 10 for original games); otherwise it is
    void."""
    return rounds_played >= settings.interruption_min_rounds


def rank_game(rounds: Sequence[RoundResult], settings: DuplicateSettings) -> list[StandingRow]:
    """Final ranking (RULES §4.10): move scores + solos − warning conversion (§4.7.7); equal
    totals share a rank (1, 1, 3); ties listed by player name."""
    tops = sum(r.top.score for r in rounds)
    players: dict[str, list[Verdict]] = {}
    for r in rounds:
        for v in r.verdicts:
            players.setdefault(v.player, []).append(v)
    rows: list[StandingRow] = []
    for name, vs in players.items():
        w = sum(v.warnings for v in vs)
        ded = warning_deduction(w, settings)
        total = sum(v.score + v.solo for v in vs) - ded
        pct = round(100.0 * total / tops, 2) if tops else 0.0
        rows.append(
            StandingRow(
                name,
                total,
                pct,
                0,
                w,
                sum(1 for v in vs if v.kind == "penalite5"),
                ded,
                sum(1 for v in vs if v.solo),
                sum(1 for v in vs if scores_nothing(v.kind)),
            )
        )
    rows.sort(key=lambda r: (-r.total, r.player))
    ranks = shared_ranks([r.total for r in rows])
    return [replace(r, rank=k) for r, k in zip(rows, ranks, strict=True)]



"""Players as people: a player's season (every ranked problem and every Duplicate game he
played, with rank, score and percentage of the reference or of the tops) and its chart,
drawn as inline SVG on the server (no JavaScript library).

``player_page(session, player_id)`` is the player's page (his season, its chart and two
figures); ``season(session, player)`` reads the published rankings (the one in force per problem:
final before provisional, as the ranking page shows) and the Duplicate games: one line per
game, as federations publish them (issue 22 §2) — his rank in the game's ranking after its
published rounds (« ex æquo » when shared), his total, his percentage of the tops and the
field; a game not finished yet is provisional;
``season_svg(events)`` draws two panels: the percentage per event (bars) and the rank over
time (a line, first place at the top). ``categories_of`` / ``category_rows``: a problem
ranking by série. ``player_calendar`` is his RFC 5545 feed. All of these are pure reads;
the one write is ``update_profile`` (the arbitre edits a player's club, licence, série,
country; audited).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from html import escape
from typing import Any

from sqlmodel import Session, col, select

from puzzles import numfmt
from puzzles.families import GameType
from webapp.models import (
    Competition,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    Player,
    Problem,
    ProblemStatus,
    Ranking,
    RankingKind,
    RoundStatus,
    Submission,
)
from webapp.services import audit, calendar, duplicate, inputs
from webapp.services.phrasebook import N_, translate

RESULTS_STATUSES = (ProblemStatus.PROVISIONAL, ProblemStatus.FINAL)


@dataclass(frozen=True)
class Event:
    """One line of a player's season: a ranked problem or a Duplicate game."""

    kind: str  # "problem" or "duplicate"
    at: datetime  # the problem's deadline, or the game's end (its last published round's
    # close while it runs)
    code: str  # problem code, or the Duplicate game's code
    title: str  # problem title, or the game's title
    competition: str
    game: GameType | None  # the problem's game type; None for a Duplicate game
    rank: int
    entrants: int  # how many were ranked (the game's field)
    score: int  # the score, or the game's total (solos in, warnings' deduction out)
    unit: str
    percent: float | None  # of the problem's reference, or of the game's tops
    provisional: bool  # a provisional ranking, or a game still running
    verification_id: int | None = None
    round_number: int | None = None  # a Duplicate game: the rounds published
    tied: bool = False  # the rank is shared (« ex æquo »)


def season(session: Session, player: Player) -> list[Event]:
    """Every ranked problem and Duplicate game (with a published round) of ``player``,
    oldest first."""
    events = _problem_events(session, player) + _game_events(session, player)
    return sorted(events, key=lambda e: (e.at, e.code, e.round_number or 0))


def _problem_events(session: Session, player: Player) -> list[Event]:
    played = set(session.exec(
        select(Submission.problem_id).where(Submission.player_id == player.id)).all())
    if not played:
        return []
    problems = session.exec(
        select(Problem).where(col(Problem.id).in_(played))
        .where(col(Problem.status).in_(RESULTS_STATUSES))).all()
    comps = {c.id: c.name for c in session.exec(select(Competition)).all()}
    out: list[Event] = []
    for prob in problems:
        ranking = session.exec(
            select(Ranking).where(Ranking.problem_id == prob.id)
            .where(col(Ranking.superseded_at).is_(None))
            .order_by(col(Ranking.created_at).desc(), col(Ranking.id).desc())).first()
        if ranking is None:
            continue
        mine = next((r for r in ranking.rows if r.get("player_id") == player.id), None)
        if mine is None:  # late, excluded or not registered: not ranked
            continue
        pct = mine.get("percent")
        out.append(Event(
            kind="problem", at=prob.deadline_at, code=prob.code, title=prob.title,
            competition=comps.get(prob.competition_id, ""), game=prob.game,
            rank=int(mine["rank"]), entrants=len(ranking.rows), score=int(mine["score"]),
            unit=str(mine.get("unit") or "points"),
            percent=float(pct) if isinstance(pct, int | float) else None,
            provisional=ranking.kind != RankingKind.FINAL,
            verification_id=mine.get("verification_id"),
        ))
    return out


def _game_events(session: Session, player: Player) -> list[Event]:
    """One event per Duplicate game the player sent a bulletin to and which has a published
    round: his row of the game's ranking (``duplicate.standings``, the rules of the game's
    variant: ex æquo shared, the warnings' conversion deducted)."""
    game_ids = set(session.exec(
        select(DuplicateRound.game_id)
        .join(DuplicateEntry, col(DuplicateEntry.round_id) == col(DuplicateRound.id))
        .where(DuplicateEntry.player_id == player.id)).all())
    if not game_ids:
        return []
    games = session.exec(select(DuplicateGame).where(col(DuplicateGame.id).in_(game_ids))
                         .order_by(col(DuplicateGame.id))).all()
    comps = {c.id: c.name for c in session.exec(select(Competition)).all()}
    out: list[Event] = []
    for game in games:
        published = [r for r in duplicate.rounds_of(session, game)
                     if r.status == RoundStatus.PUBLISHED]
        if not published:
            continue
        rows = duplicate.standings(session, game)
        mine = next((r for r in rows if r.get("player_id") == player.id), None)
        if mine is None:  # no longer registered: not in the game's ranking
            continue
        finished = game.status == DuplicateStatus.FINISHED
        pct = mine.get("percent")
        out.append(Event(
            kind="duplicate",
            at=game.finished_at if finished and game.finished_at else published[-1].closes_at,
            code=game.code, title=game.title, competition=comps.get(game.competition_id, ""),
            game=None, rank=int(mine["rank"]), entrants=len(rows), score=int(mine["total"]),
            unit=duplicate.game_of(game).result_unit,
            percent=float(pct) if isinstance(pct, int | float) else None,
            provisional=not finished, round_number=len(published),
            tied=bool(mine.get("tied")),  # duplicate.standings says whether the rank is shared
        ))
    return out


@dataclass
class PlayerPage:
    """A player's page: his season (oldest first), its chart as SVG, his mean percentage
    (None without one) and best rank (None without an event): the best rank of his lines, one
    per problem or Duplicate game (a game's rank is its ranking's, never a round's)."""

    player: Player
    events: list[Event]
    chart: str
    mean_percent: float | None
    best_rank: int | None


def player_page(session: Session, player_id: int,
                gettext: Callable[[str], str] = str) -> PlayerPage | None:
    """``gettext``: the page's catalogue, for the chart's words (French by default)."""
    player = session.get(Player, player_id)
    if player is None:
        return None
    events = season(session, player)
    percents = [e.percent for e in events if e.percent is not None]
    return PlayerPage(
        player, events, season_svg(events, gettext),
        mean_percent=round(sum(percents) / len(percents), 2) if percents else None,
        best_rank=min((e.rank for e in events), default=None),
    )


def player_calendar(session: Session, player_id: int, base_url: str) -> bytes | None:
    """The player's calendar feed (:func:`webapp.services.calendar.player_ics`); None: no
    such player."""
    player = session.get(Player, player_id)
    return calendar.player_ics(session, player, base_url) if player is not None else None


# --- the profile the arbitre edits ----------------------------------------------------------

#: the profile's fields: what each is called in a message, and its longest length
PROFILE_LIMITS = {"club": ("le club", 120), "licence": ("le numéro de licence", 40),
                  "category": ("la série", 20), "country": ("le pays", 60)}


def profile(session: Session, player_id: int) -> Player | None:
    return session.get(Player, player_id)


def profile_values(form: Mapping[str, str]) -> dict[str, str]:
    """The profile's fields from a form, spaces collapsed; a line break or a control
    character stays (:func:`profile_errors` refuses it)."""
    return {k: re.sub(r"[ \t]+", " ", form.get(k, "")).strip() for k in PROFILE_LIMITS}


def profile_errors(values: Mapping[str, str]) -> list[str]:
    """A French message per field too long or not one line (``inputs.line_problem``)."""
    errors = []
    for k, (what, most) in PROFILE_LIMITS.items():
        if len(values[k]) > most:
            errors.append(f"{what.capitalize()} est trop long : {most} caractères au "
                          f"plus ({len(values[k])} saisis).")
        problem = inputs.line_problem(values[k])
        if problem is not None:
            errors.append(f"{what.capitalize()} : {problem}.")
    return errors


def update_profile(*, session: Session, player_id: int, values: Mapping[str, str],
                   actor: str) -> bool:
    """Store checked ``values`` (:func:`profile_errors`) and audit the change (before and
    after); False when there is no such player."""
    row = session.get(Player, player_id)
    if row is None:
        return False
    before = {k: getattr(row, k) for k in PROFILE_LIMITS}
    for k in PROFILE_LIMITS:
        setattr(row, k, values[k])
    session.add(row)
    audit.record(session=session, actor=actor, action="player.profile", target=str(player_id),
                 before=before, after=dict(values))
    return True


# --- rankings by série ----------------------------------------------------------------------


def categories_of(session: Session, ranking: Ranking) -> list[str]:
    """The séries of the players who sent a sheet to the ranking's problem (the filter's
    choices), sorted; players without one are left out."""
    senders = select(Submission.player_id).where(Submission.problem_id == ranking.problem_id)
    return sorted(c for c in session.exec(
        select(Player.category).where(col(Player.id).in_(senders)).distinct()).all() if c)


def category_rows(session: Session, ranking: Ranking, category: str
                  ) -> tuple[list[dict[str, Any]], list[int]]:
    """The rows of ``ranking`` whose player is in ``category`` (série), in rank order, and
    their rank within it: one more than the number of them ranked strictly ahead, so players
    *ex æquo* share a rank."""
    pids = {int(r.get("player_id") or 0) for r in ranking.rows}
    members = set(session.exec(select(Player.id).where(col(Player.id).in_(pids))
                               .where(Player.category == category)).all())
    rows = sorted((dict(r) for r in ranking.rows if r.get("player_id") in members),
                  key=lambda r: int(r["rank"]))
    ranks: list[int] = []
    for i, r in enumerate(rows):  # in rank order: a tie keeps the rank of the first of it
        tied = i > 0 and int(r["rank"]) == int(rows[i - 1]["rank"])
        ranks.append(ranks[-1] if tied else i + 1)
    return rows, ranks


# --- the chart ------------------------------------------------------------------------------

WIDTH = 720
PANEL = 150  # height of each panel's plot area
LEFT, RIGHT, TOP, GAP, BOTTOM = 52, 16, 28, 48, 40


def _fr(value: float) -> str:
    return numfmt.percent(value)


#: the chart's words, catalogue msgids (the page passes its ``gettext``)
CHART_TITLE = N_("Saison : pourcentage de la référence par épreuve et rang au fil du temps "
                 "(%(count)s épreuve(s))")
CHART_PERCENT = N_("Pourcentage de la référence")
CHART_RANK = N_("Rang (1 en haut)")
CHART_RANK_OF = N_("%(event)s : %(rank)se sur %(entrants)s")
CHART_EMPTY = N_("Aucune épreuve classée pour l'instant.")


def season_svg(events: list[Event], gettext: Callable[[str], str] = str) -> str:
    """The season as an SVG: the percentage of the reference per event (bars, the 100 %
    line dashed) above the rank over time (a line; first place at the top). Every value is
    escaped; each bar and point carries a ``<title>`` naming its event. ``gettext``
    translates the chart's words (French by default)."""
    height = TOP + PANEL + GAP + PANEL + BOTTOM
    n = len(events)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" class="season-chart" '
        f'aria-labelledby="saison-titre"><title id="saison-titre">'
        f'{escape(gettext(CHART_TITLE) % {"count": n})}</title>',
        '<style>text{font:12px sans-serif;fill:#333}.axis{stroke:#888;stroke-width:1}'
        '.grid{stroke:#ddd;stroke-width:1}.bar{fill:#3b6ea5}.ref{stroke:#c0392b;'
        'stroke-dasharray:4 3}.rank{fill:none;stroke:#2e7d32;stroke-width:2}'
        '.pt{fill:#2e7d32}</style>',
    ]
    plot_w = WIDTH - LEFT - RIGHT
    slot = plot_w / max(n, 1)
    # panel 1: percentages, axis 0 .. max(100, best) rounded up to 20
    top_pct = max([100.0] + [e.percent for e in events if e.percent is not None])
    top_pct = float(int((top_pct + 19.999) // 20) * 20)
    y0 = TOP + PANEL
    parts.append(f'<text x="{LEFT}" y="{TOP - 10}">{escape(gettext(CHART_PERCENT))}</text>')
    for tick in range(0, int(top_pct) + 1, 20):
        y = y0 - PANEL * tick / top_pct
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" '
                     f'y2="{y:.1f}"/><text x="{LEFT - 6}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{tick}</text>')
    y100 = y0 - PANEL * 100 / top_pct
    parts.append(f'<line class="ref" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y100:.1f}" '
                 f'y2="{y100:.1f}"/>')
    for i, e in enumerate(events):
        if e.percent is None:
            continue
        h = PANEL * e.percent / top_pct
        x = LEFT + i * slot + slot * 0.2
        name = escape(translate(e.title, gettext))
        parts.append(
            f'<rect class="bar" data-event="{i + 1}" x="{x:.1f}" y="{y0 - h:.1f}" '
            f'width="{slot * 0.6:.1f}" height="{h:.1f}"><title>{name} : '
            f'{_fr(e.percent)} %</title></rect>')
    parts.append(f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y0}" y2="{y0}"/>')
    # panel 2: ranks, 1 at the top, the worst rank (at least 2) at the bottom
    r_top = TOP + PANEL + GAP
    r_bottom = r_top + PANEL
    worst = max([2] + [e.rank for e in events])
    parts.append(f'<text x="{LEFT}" y="{r_top - 10}">{escape(gettext(CHART_RANK))}</text>')

    def ry(rank: int) -> float:
        return r_top + PANEL * (rank - 1) / (worst - 1)

    step = max(1, (worst - 1) // 5)
    ticks = sorted(set(list(range(1, worst + 1, step)) + [worst]))
    for tick in ticks:
        y = ry(tick)
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y:.1f}" '
                     f'y2="{y:.1f}"/><text x="{LEFT - 6}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{tick}</text>')
    points = [(LEFT + i * slot + slot / 2, ry(e.rank), e) for i, e in enumerate(events)]
    rank_of = gettext(CHART_RANK_OF)
    if len(points) > 1:
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y, _ in points)
        parts.append(f'<polyline class="rank" points="{path}"/>')
    for i, (x, y, e) in enumerate(points):
        label = rank_of % {"event": translate(e.title, gettext), "rank": e.rank,
                           "entrants": e.entrants}
        parts.append(f'<circle class="pt" data-event="{i + 1}" cx="{x:.1f}" cy="{y:.1f}" '
                     f'r="4"><title>{escape(label)}</title>'
                     f'</circle>')
    parts.append(f'<line class="axis" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{r_bottom}" '
                 f'y2="{r_bottom}"/>')
    # event numbers and dates under the rank panel
    for i, (x, _y, e) in enumerate(points):
        parts.append(f'<text x="{x:.1f}" y="{r_bottom + 16}" text-anchor="middle">{i + 1}'
                     f'</text><text x="{x:.1f}" y="{r_bottom + 31}" text-anchor="middle" '
                     f'style="font-size:10px">{e.at:%d/%m}</text>')
    if not events:
        parts.append(f'<text x="{WIDTH / 2}" y="{TOP + PANEL / 2}" text-anchor="middle">'
                     f'{escape(gettext(CHART_EMPTY))}</text>')
    parts.append("</svg>")
    return "".join(parts)

"""What the public pages show, one function per page: a competition's calendar (its problems,
Duplicate and correspondence games), a problem
page, a problem's ranking (whole or by série), the championship standings, the archive,
the printable sheet and a competition's calendar feed. Each reads the rows through the
services that own them and returns one typed value; the pages (``webapp/views/public.py``,
``people.py``) only draw it.

Who sees what is decided here: a published problem is everyone's, a draft or scheduled one
the arbitre's only (``arbitre=True``); results follow :data:`rankings.RESULTS_STATUSES`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlmodel import Session, col, select

from puzzles.problem import Problem as PuzzleProblem
from webapp.models import (
    Competition,
    CorrespondenceGame,
    CorrespondenceStatus,
    DuplicateGame,
    DuplicateStatus,
    Player,
    Problem,
    ProblemStatus,
    Ranking,
    Stage,
    Submission,
)
from webapp.services import (
    calendar,
    clock,
    correspondence,
    people,
    rankings,
    reports,
    rounds,
    stored,
)
from webapp.services import problems as problems_service
from webapp.services.standings import Standings, championship_standings

#: Statuses in which a problem is visible to the public.
PUBLIC_STATUSES = (
    ProblemStatus.OPEN,
    ProblemStatus.CLOSED,
    ProblemStatus.VERIFIED,
    ProblemStatus.PROVISIONAL,
    ProblemStatus.FINAL,
)


def visible(problem: Problem, *, arbitre: bool) -> bool:
    """Published problems are public; drafts and scheduled ones only for the arbitre."""
    return problem.status in PUBLIC_STATUSES or arbitre


def problem_by_code(session: Session, code: str, *, arbitre: bool = False) -> Problem | None:
    """The problem of that public code, when the viewer may see it."""
    problem = session.exec(select(Problem).where(Problem.code == code)).first()
    if problem is None or not visible(problem, arbitre=arbitre):
        return None
    return problem


# --- a competition ---------------------------------------------------------------------------


@dataclass
class CompetitionPage:
    competition: Competition
    stages: dict[int | None, Stage]
    problems: list[Problem]  # but the drafts, by publication
    ranked: set[int]  # those with a ranking in force (none is published when it is empty)
    #: its Duplicate games (by start) and correspondence games (by creation), issue 22 §1
    duplicates: list[DuplicateGame] = field(default_factory=list)
    correspondences: list[CorrespondenceGame] = field(default_factory=list)
    players: dict[int | None, str] = field(default_factory=dict)  # the latter's, by id
    #: a correspondence game in play: the deadline of the move awaited, by game id
    deadlines: dict[int | None, datetime] = field(default_factory=dict)


def competition_page(session: Session, slug: str) -> CompetitionPage | None:
    comp = problems_service.competition_by_slug(session, slug)
    if comp is None:
        return None
    probs = problems_service.public_problems(session, comp)
    dups = list(session.exec(select(DuplicateGame).where(
        DuplicateGame.competition_id == comp.id)
        .order_by(col(DuplicateGame.starts_at), col(DuplicateGame.id))).all())
    corr = list(session.exec(select(CorrespondenceGame).where(
        CorrespondenceGame.competition_id == comp.id)
        .order_by(col(CorrespondenceGame.created_at), col(CorrespondenceGame.id))).all())
    ids = {c.red_id for c in corr} | {c.blue_id for c in corr}
    names = {p.id: p.name for p in session.exec(
        select(Player).where(col(Player.id).in_(ids))).all()} if ids else {}
    return CompetitionPage(comp, {st.id: st for st in problems_service.stages_of(session, comp)},
                           probs, rankings.ranked_problem_ids(
                               session, [p.id for p in probs if p.id is not None]),
                           dups, corr, names,
                           {c.id: correspondence.deadline(c) for c in corr
                            if c.status != CorrespondenceStatus.FINISHED})


def competition_calendar(session: Session, slug: str, base_url: str) -> bytes | None:
    """The competition's RFC 5545 feed (:func:`webapp.services.calendar.competition_ics`);
    None: no such competition."""
    comp = problems_service.competition_by_slug(session, slug)
    return calendar.competition_ics(session, comp, base_url) if comp is not None else None


# --- a problem -------------------------------------------------------------------------------


@dataclass
class ProblemPage:
    """A problem's page: its competition, its puzzle (None when its JSON cannot be read),
    the viewer's latest sheet, the ranking in force once public, the reference solution
    and its final grid once results are public, and the Anticipation announcements."""

    problem: Problem
    competition: Competition | None
    puzzle: PuzzleProblem | None
    shown: bool  # the letters and the grid may be shown
    mine: Submission | None
    ranking: Ranking | None
    reference: dict[str, Any] | None
    reference_board: reports.Grid | None
    now: datetime
    announced: list[Any] = field(default_factory=list)
    next_announcement: Any = None
    progressive: bool = False


def problem_page(session: Session, code: str, *, viewer_id: int | None,
                 arbitre: bool) -> ProblemPage | None:
    prob = problem_by_code(session, code, arbitre=arbitre)
    if prob is None:
        return None
    comp = session.get(Competition, prob.competition_id)
    pz = stored.readable_puzzle(prob)
    shown = visible(prob, arbitre=arbitre)
    mine = None
    if viewer_id is not None:
        mine = session.exec(
            select(Submission)
            .where(Submission.problem_id == prob.id, Submission.player_id == viewer_id)
            .order_by(col(Submission.version).desc())
        ).first()
    ranking = rankings.published_ranking(session, prob)
    reference = reports.reference_solution(prob, arbitre=arbitre)
    now = clock.now()
    return ProblemPage(
        problem=prob, competition=comp, puzzle=pz, shown=shown, mine=mine, ranking=ranking,
        reference=reference, reference_board=reports.reference_grid(pz, reference), now=now,
        announced=rounds.announcements(prob, pz, now) if shown else [],
        next_announcement=rounds.next_announcement(prob, now),
        progressive=rounds.progressive(prob),
    )


@dataclass
class PrintPage:
    """The printable sheet: the problem, its competition and its puzzle."""

    problem: Problem
    competition: Competition | None
    puzzle: PuzzleProblem


def print_page(session: Session, code: str, *, arbitre: bool) -> PrintPage | None:
    """None when the problem is not the viewer's to see or its puzzle cannot be read."""
    prob = problem_by_code(session, code, arbitre=arbitre)
    if prob is None:
        return None
    pz = stored.readable_puzzle(prob)
    if pz is None:
        return None
    return PrintPage(prob, session.get(Competition, prob.competition_id), pz)


# --- the archive -----------------------------------------------------------------------------


@dataclass
class ArchivePage:
    problems: list[Problem]  # with public results, latest deadline first
    competitions: dict[int | None, Competition]
    page: int
    pages: int
    ranked: set[int]  # those with a ranking in force (none is published when it is empty)
    #: the finished round games, latest first (issue 22 §1): Duplicate, then correspondence
    duplicates: list[DuplicateGame] = field(default_factory=list)
    correspondences: list[CorrespondenceGame] = field(default_factory=list)
    players: dict[int | None, str] = field(default_factory=dict)  # the latter's, by id


def archive_page(session: Session, page: int, *, per_page: int = 30) -> ArchivePage:
    """One page of the problems whose results are public, and the ``per_page`` latest
    finished Duplicate and correspondence games; ``page`` is bounded (a huge page
    number would overflow the SQL OFFSET: a 500 on PostgreSQL)."""
    page = min(1_000_000, max(1, page))
    probs, total = problems_service.archive_page(
        session, rankings.RESULTS_STATUSES, page=page, per_page=per_page)
    comps = {c.id: c for c in problems_service.competitions(session)}
    dups = list(session.exec(select(DuplicateGame).where(
        DuplicateGame.status == DuplicateStatus.FINISHED)
        .order_by(col(DuplicateGame.finished_at).desc(), col(DuplicateGame.id).desc())
        .limit(per_page)).all())
    corr = list(session.exec(select(CorrespondenceGame).where(
        CorrespondenceGame.status == CorrespondenceStatus.FINISHED)
        .order_by(col(CorrespondenceGame.finished_at).desc(),
                  col(CorrespondenceGame.id).desc()).limit(per_page)).all())
    ids = {c.red_id for c in corr} | {c.blue_id for c in corr}
    names = {p.id: p.name for p in session.exec(
        select(Player).where(col(Player.id).in_(ids))).all()} if ids else {}
    return ArchivePage(probs, comps, page, max(1, (total + per_page - 1) // per_page),
                       rankings.ranked_problem_ids(
                           session, [p.id for p in probs if p.id is not None]),
                       dups, corr, names)


# --- rankings --------------------------------------------------------------------------------


@dataclass
class RankingPage:
    """A problem's published ranking. With a ``category`` (série): that série's rows and
    their ranks among themselves; ``categories``: the séries to choose from."""

    problem: Problem
    ranking: Ranking
    categories: list[str]
    category: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)


def ranking_page(session: Session, code: str, *, arbitre: bool,
                 category: str = "") -> RankingPage | None:
    """None when the problem is not visible or has no public ranking. The (large) rows are
    loaded only for a série; the whole table is read once per process by
    :func:`ranking_rows`."""
    prob = problem_by_code(session, code, arbitre=arbitre)
    if prob is None:
        return None
    rk = rankings.published_ranking(session, prob, with_rows=bool(category))
    if rk is None or rk.id is None:
        return None
    page = RankingPage(prob, rk, people.categories_of(session, rk), category)
    if category:
        page.rows, page.ranks = people.category_rows(session, rk, category)
    return page


@dataclass
class RankingExport:
    """A published ranking with its rows, for the CSV."""

    problem: Problem
    ranking: Ranking
    rows: list[dict[str, Any]]


def ranking_export(session: Session, code: str, *, arbitre: bool) -> RankingExport | None:
    prob = problem_by_code(session, code, arbitre=arbitre)
    if prob is None:
        return None
    rk = rankings.published_ranking(session, prob)
    if rk is None:
        return None
    return RankingExport(prob, rk, [dict(r) for r in rk.rows])


def ranking_rows(session: Session, ranking_id: int) -> list[dict[str, Any]]:
    """The stored rows of a ranking (empty when there is none)."""
    rk = session.get(Ranking, ranking_id)
    return [dict(r) for r in rk.rows] if rk is not None else []


def standings_page(session: Session, slug: str, *, final_only: bool) -> Standings | None:
    """The championship standings of a competition (None: no such competition)."""
    comp = problems_service.competition_by_slug(session, slug)
    if comp is None:
        return None
    return championship_standings(session, comp, final_only=final_only)


@dataclass(frozen=True)
class CategoryStandings:
    """The championship standings seen through a série (category): ``standings`` keeps the
    lines of that série's players only, in the same order, each with its ``places`` rank
    within the série (one more than the number of them placed strictly ahead, so players
    *ex æquo* share one); ``categories`` are the séries of every ranked player (the filter's
    choices). Without a série, everything is as computed and ``places`` is empty."""

    standings: Standings
    categories: list[str]
    category: str
    places: dict[int, int] = field(default_factory=dict)


def category_standings(session: Session, table: Standings, category: str) -> CategoryStandings:
    """The standings of one série: the championship values are those of the whole field
    (each problem's points or percentage as ranked among everyone), the ranks are counted
    among the série's players."""
    ids = [line.row.player_id for line in table.lines]
    series = dict(session.exec(select(Player.id, Player.category)
                               .where(col(Player.id).in_(ids))).all()) if ids else {}
    categories = sorted({c for c in series.values() if c})
    if not category:
        return CategoryStandings(table, categories, "")
    lines = [line for line in table.lines if series.get(line.row.player_id) == category]
    places: dict[int, int] = {}
    for i, line in enumerate(lines):  # in place order: a tie keeps the first one's rank
        tied = i > 0 and line.row.place == lines[i - 1].row.place
        places[line.row.player_id] = (places[lines[i - 1].row.player_id] if tied else i + 1)
    return CategoryStandings(replace(table, lines=tuple(lines)), categories, category, places)

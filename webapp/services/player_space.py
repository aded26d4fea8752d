"""What the player's own pages show and do (``/joueur``, ``webapp/views/player.py``), one
function per page: his space (competitions, open problems, sheets, reports, appeals), the
sending form of a problem, a sheet's receipt, the versions of his sheets, and an appeal.

Storing a sheet is :func:`webapp.services.submissions.submit_sheet` and filing an appeal
:func:`webapp.services.appeals.file_appeal`; the functions here find the rows by the
request's code or id first. A player reaches only his own sheets and reports: another's, or
a problem not published, is :class:`NotFound` (a 404 for the pages).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlmodel import Session, col, select

from puzzles.problem import Problem as Puzzle
from webapp.models import (
    Appeal,
    Channel,
    Competition,
    CorrespondenceGame,
    CorrespondenceStatus,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    Player,
    Problem,
    ProblemStatus,
    Registration,
    RoundStatus,
    Submission,
    Verification,
)
from webapp.services import (
    appeals,
    clock,
    correspondence,
    duplicate,
    links,
    rounds,
    sheets,
    submissions,
    versions,
)
from webapp.services.problems import readable_puzzle
from webapp.services.public_pages import PUBLIC_STATUSES
from webapp.services.timefmt import format_local


class NotFound(LookupError):
    """No such row for this player (or not published): the pages answer 404."""


def _public_problem(session: Session, code: str) -> Problem:
    prob = session.exec(select(Problem).where(Problem.code == code)).first()
    if prob is None or prob.status not in PUBLIC_STATUSES:
        raise NotFound(code)
    return prob


# --- the player's space ----------------------------------------------------------------------


@dataclass(frozen=True)
class MyReport:
    """A current verification of one of the player's sheets."""

    verification: Verification
    submission: Submission
    problem: Problem


@dataclass(frozen=True)
class RoundGameLine:
    """One round game the player takes part in, and what it waits for from him (the
    « à vous de jouer » list, as ICCF or lichess show it).

    ``kind``: ``duplicate`` or ``correspondence``; ``action``: ``bulletin`` (a round is open
    and he has sent nothing on time), ``bulletin_sent`` (open, his bulletin is in; he may
    still replace it), ``move`` (his turn), ``opponent`` (the other player's turn),
    ``scheduled`` (the first draw is to come), ``between`` (no round open now), ``finished``;
    ``deadline``: the round's close, the move's deadline or the start, in ``timezone``."""

    kind: str
    code: str
    title: str
    action: str
    deadline: datetime | None
    timezone: str
    round_no: int | None = None
    opponent: str | None = None

    @property
    def waiting(self) -> bool:
        """Something to do now: a bulletin to send or a move to play."""
        return self.action in ("bulletin", "move")


def round_games(session: Session, player_id: int, comp_ids: list[int]) -> list[RoundGameLine]:
    """Every Duplicate of the player's competitions and every correspondence game he plays:
    what waits for him first (soonest deadline first), then the rest (running, to come,
    finished)."""
    lines: list[RoundGameLine] = []
    games = list(session.exec(
        select(DuplicateGame).where(col(DuplicateGame.competition_id).in_(comp_ids))
        .order_by(col(DuplicateGame.starts_at))).all())
    open_rounds = {r.game_id: r for r in session.exec(
        select(DuplicateRound).where(col(DuplicateRound.game_id).in_([g.id for g in games]))
        .where(DuplicateRound.status == RoundStatus.OPEN)).all()}
    # his version that counts (the last on time); one that could not be read is no answer:
    # he must send it again
    last: dict[int, DuplicateEntry] = {}
    for e in session.exec(
        select(DuplicateEntry).where(DuplicateEntry.player_id == player_id)
        .where(col(DuplicateEntry.round_id).in_([r.id for r in open_rounds.values()]))
        .where(col(DuplicateEntry.late).is_(False)).order_by(col(DuplicateEntry.version))
    ).all():
        last[e.round_id] = e
    answered = {rid for rid, e in last.items() if duplicate.is_answer(e)}
    for g in games:
        rnd = open_rounds.get(g.id or 0)
        when: datetime | None
        if g.status == DuplicateStatus.SCHEDULED:
            action, when, number = "scheduled", g.starts_at, None
        elif g.status == DuplicateStatus.FINISHED:
            action, when, number = "finished", g.finished_at, None
        elif rnd is not None:
            action = "bulletin_sent" if rnd.id in answered else "bulletin"
            when, number = rnd.closes_at, rnd.number
        else:
            action, when, number = "between", None, None
        lines.append(RoundGameLine("duplicate", g.code, g.title, action, when, g.timezone,
                                   number))
    corr = list(session.exec(
        select(CorrespondenceGame).where(
            (CorrespondenceGame.red_id == player_id) | (CorrespondenceGame.blue_id == player_id))
        .order_by(col(CorrespondenceGame.created_at))).all())
    names = {p.id: p.name for p in session.exec(select(Player).where(col(Player.id).in_(
        {c.red_id for c in corr} | {c.blue_id for c in corr}))).all()}
    for c in corr:
        other = names.get(c.blue_id if c.red_id == player_id else c.red_id)
        if c.status == CorrespondenceStatus.FINISHED:
            action, when = "finished", c.finished_at
        else:
            action = "move" if correspondence.to_move(c) == player_id else "opponent"
            when = correspondence.deadline(c)
        lines.append(RoundGameLine("correspondence", c.code, c.title, action, when,
                                   c.timezone, len(c.moves) + 1, other))
    order = {"bulletin": 0, "move": 0, "bulletin_sent": 1, "opponent": 1, "between": 1,
             "scheduled": 2, "finished": 3}
    far = datetime.max.replace(tzinfo=UTC)
    return sorted(lines, key=lambda x: (
        order[x.action], (x.deadline or far) if x.action != "finished" else far))


def waiting_games(s: Session, player_id: int) -> list[dict[str, Any]]:
    """The round games waiting for the player (a Duplicate bulletin to send, a
    correspondence move to play: :func:`round_games`, soonest first), as the
    reminder mails list them under its problem (issue 22 §1)."""
    comp_ids = [c for c in s.exec(select(Registration.competition_id).where(
        Registration.player_id == player_id)).all() if c is not None]
    path = {"duplicate": "duplicate", "correspondence": "correspondance"}
    return [{"kind": line.kind, "title": line.title, "code": line.code,
             "round_no": line.round_no, "opponent": line.opponent,
             "deadline": format_local(line.deadline, line.timezone) if line.deadline else None,
             "url": links.absolute(path[line.kind], line.code)}
            for line in round_games(s, player_id, comp_ids) if line.waiting]


@dataclass
class Home:
    open_problems: list[Problem]  # open in his competitions, by deadline
    competitions: dict[int | None, Competition]  # those he is registered in
    submissions: list[Submission]  # his 50 latest sheets, newest first
    problems: dict[int | None, Problem]  # the problems of those sheets
    reports: list[MyReport]  # his 50 latest current verifications
    appeals: list[Appeal]  # newest first
    round_games: list[RoundGameLine] = field(default_factory=list)  # waiting for him first


def home(session: Session, player_id: int) -> Home:
    comp_ids = [r.competition_id for r in session.exec(
        select(Registration).where(Registration.player_id == player_id)).all()]
    comps = {c.id: c for c in session.exec(
        select(Competition).where(col(Competition.id).in_(comp_ids))).all()}
    open_problems = list(session.exec(
        select(Problem)
        .where(col(Problem.competition_id).in_(comp_ids))
        .where(Problem.status == ProblemStatus.OPEN)
        .order_by(col(Problem.deadline_at))
    ).all())
    subs = list(session.exec(
        select(Submission)
        .where(Submission.player_id == player_id)
        .order_by(col(Submission.received_at).desc())
        .limit(50)
    ).all())
    probs = {p.id: p for p in session.exec(
        select(Problem).where(col(Problem.id).in_({x.problem_id for x in subs}))).all()}
    reports = [MyReport(v, sub, p) for v, sub, p in session.exec(
        select(Verification, Submission, Problem)
        .join(Submission, col(Submission.id) == col(Verification.submission_id))
        .join(Problem, col(Problem.id) == col(Submission.problem_id))
        .where(Submission.player_id == player_id)
        .where(col(Verification.superseded_at).is_(None))
        .order_by(col(Verification.created_at).desc())
        .limit(50)
    ).all()]
    my_appeals = list(session.exec(
        select(Appeal).where(Appeal.player_id == player_id)
        .order_by(col(Appeal.created_at).desc())
    ).all())
    return Home(open_problems, comps, subs, probs, reports, my_appeals,
                round_games(session, player_id, [c for c in comp_ids if c is not None]))


# --- sending a sheet -------------------------------------------------------------------------


@dataclass
class SubmitForm:
    """The sending form of a published problem: its puzzle (None when its JSON cannot be
    read), the player's version that counts, and the Anticipation announcements so far."""

    problem: Problem
    puzzle: Puzzle | None
    last: Submission | None
    announced: list[rounds.Announcement] = field(default_factory=list)
    next_announcement: tuple[int, datetime] | None = None
    progressive: bool = False


def submit_form(session: Session, player_id: int, code: str) -> SubmitForm:
    prob = _public_problem(session, code)
    pz = readable_puzzle(prob)
    now = clock.now()
    return SubmitForm(
        prob, pz, versions.latest_submission(session=session, player_id=player_id,
                                             problem_id=prob.id or 0),
        announced=rounds.announcements(prob, pz, now),
        next_announcement=rounds.next_announcement(prob, now),
        progressive=rounds.progressive(prob),
    )


def open_puzzle(session: Session, code: str) -> Puzzle:
    """The puzzle of a published problem by its code (the board's « Relire la feuille »);
    :class:`NotFound` when its JSON cannot be read either."""
    pz = readable_puzzle(_public_problem(session, code))
    if pz is None:
        raise NotFound(code)
    return pz


def unreadable_replacement(session: Session, player_id: int, code: str,
                           text: str) -> sheets.UnreadableReplacement | None:
    """The unreadable lines of ``text`` when it would replace a version read whole
    (:func:`webapp.services.sheets.unreadable_replacement`)."""
    prob = _public_problem(session, code)
    return sheets.unreadable_replacement(session=session, player_id=player_id, problem=prob,
                                         text=text)


def submit(*, session: Session, player: Player, code: str, text: str,
           received_at: datetime) -> submissions.SubmissionOutcome:
    """A sheet sent from the web form (:func:`submissions.submit_sheet`).

    ``player``: the row the sign-in check loaded a moment ago, attached without a second
    SELECT; ``submit_sheet`` locks it (UPDATE) before reading versions."""
    prob = _public_problem(session, code)
    attached = session.merge(player, load=False)
    return submissions.submit_sheet(
        session=session, player=attached, problem=prob, text=text, channel=Channel.WEB,
        received_at=received_at,
    )


# --- receipts and versions -------------------------------------------------------------------


def _own_submission(session: Session, player_id: int,
                    submission_id: int) -> tuple[Submission, Problem]:
    sub = session.get(Submission, submission_id)
    if sub is None or sub.player_id != player_id:
        raise NotFound(submission_id)
    prob = session.get(Problem, sub.problem_id)
    if prob is None:
        raise NotFound(submission_id)
    return sub, prob


@dataclass
class Receipt:
    """A sheet's receipt: the moves read, whether it is the version that counts, and the
    version read whole it replaced when it has unreadable lines."""

    submission: Submission
    problem: Problem
    moves: list[dict[str, Any]]
    is_latest: bool
    replaced_readable: Submission | None


def receipt(session: Session, player_id: int, submission_id: int) -> Receipt:
    sub, prob = _own_submission(session, player_id, submission_id)
    latest = versions.latest_submission(session=session, player_id=sub.player_id,
                                        problem_id=prob.id or 0)
    previous = (session.get(Submission, sub.previous_id)
                if sub.parse_errors and sub.previous_id else None)
    return Receipt(
        sub, prob, submissions.receipt_moves(sub.feuille),
        is_latest=latest is not None and latest.id == sub.id,
        replaced_readable=previous if previous is not None and not previous.parse_errors
        else None,
    )


@dataclass
class History:
    """Every version of the player's sheet for a problem (newest first) and the current
    verification of each."""

    problem: Problem
    submissions: list[Submission]
    verifications: dict[int, Verification]


def history(session: Session, player_id: int, code: str) -> History:
    prob = session.exec(select(Problem).where(Problem.code == code)).first()
    if prob is None:
        raise NotFound(code)
    subs = list(session.exec(
        select(Submission)
        .where(Submission.problem_id == prob.id, Submission.player_id == player_id)
        .order_by(col(Submission.version).desc())
    ).all())
    vers = {v.submission_id: v for v in session.exec(
        select(Verification)
        .where(col(Verification.submission_id).in_([x.id for x in subs]))
        .where(col(Verification.superseded_at).is_(None))
    ).all()}
    return History(prob, subs, vers)


# --- appeals ---------------------------------------------------------------------------------


@dataclass
class AppealPage:
    """A verification of the player's sheet, his appeals on it (newest first) and whether
    the appeal window is open."""

    problem: Problem
    submission: Submission
    verification: Verification
    appeals: list[Appeal]
    window_open: bool


def appeal_page(session: Session, player_id: int, verification_id: int) -> AppealPage:
    ver = session.get(Verification, verification_id)
    if ver is None:
        raise NotFound(verification_id)
    sub, prob = _own_submission(session, player_id, ver.submission_id)
    existing = list(session.exec(
        select(Appeal).where(Appeal.verification_id == ver.id, Appeal.player_id == player_id)
        .order_by(col(Appeal.created_at).desc())
    ).all())
    window_open = (
        prob.status == ProblemStatus.PROVISIONAL
        and prob.appeals_until is not None
        and clock.now() < prob.appeals_until
    )
    return AppealPage(prob, sub, ver, existing, window_open)


def file_appeal(*, session: Session, player_id: int, verification_id: int,
                text: str) -> Appeal:
    """:func:`webapp.services.appeals.file_appeal` (``AppealRefused``, French)."""
    player = session.get(Player, player_id)
    ver = session.get(Verification, verification_id)
    if player is None or ver is None:
        raise NotFound(verification_id)
    return appeals.file_appeal(session=session, player=player, verification=ver, text=text)

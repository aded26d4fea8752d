"""Anticipation by correspondence on the server: a stored problem's announcement schedule,
what is announced at a given instant (problem page, mails), the announcement notices the
scheduler sends, and the round times each sheet is verified with (:mod:`puzzles.rounds`).

The group of move k is announced at ``publish_at + (k-1) × round_interval_minutes`` (from
the actual publication when the arbitre published earlier by hand); round
k closes at the announcement of move k+1, round 14 at the problem's deadline, which must
come after the 14th announcement. ``round_interval_minutes = 0`` is the old behaviour: the
whole draw order is public from the publication and no move is timed.

The announcements are stored rounds (``AnticipationRound``, one row per move), written by
the lifecycle when the problem is published (:func:`store_rounds`) and marked when their
notice goes out; from then on the rows, not the interval, are the schedule. Before the
publication (and for a problem published before the table existed) the schedule is
computed from the interval.

Played live (the named setting ``anticipation_live`` of the problem's settings, « Rythme :
en direct » on the console; RULES §6.1): the groups are displayed at the publication, the
60 min of reflection follow, then move k is announced when move k-1's time is over (10 min
for moves 1–4, 8 for 5–8, 6 for 9–12, 4 for 13–14, :func:`puzzles.rounds.
live_announcement_times`); the deadline is the end of move 14, publication + 164 min. The
same rows, notices, round closes and scheduler instants serve both rhythms; live, move 1 is
announced (and mailed) at the end of the reflection, and :func:`live_window` gives the
problem page the window in progress.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from flask import has_app_context
from sqlalchemy.orm import object_session
from sqlmodel import Session, col, delete, select

from puzzles.families import GameType
from puzzles.feuille import Feuille
from puzzles.rounds import (
    MOVES,
    RoundTimes,
    announcement_times,
    annul_commit_times,
    live_announcement_times,
    live_deadline,
    move_commit_times,
)
from puzzles.timefmt import format_instant
from webapp.db import session_scope
from webapp.models import (
    AnticipationRound,
    OutboxKind,
    Player,
    Problem,
    ProblemStatus,
    Submission,
)
from webapp.services import notify
from webapp.services.stored import feuille_from, rule_settings_of, store_deadline
from webapp.services.timefmt import format_local

#: the interval the console proposes for a new Anticipation (one move a day)
DEFAULT_INTERVAL_MINUTES = 24 * 60


def is_live(problem: Problem) -> bool:
    """An Anticipation played live: the rules' times (RULES §6.1) instead of an interval —
    the named setting ``anticipation_live`` (:class:`puzzles.settings.Settings`) stored in
    the problem's settings."""
    return problem.game.is_anticipation and rule_settings_of(problem).anticipation_live


def progressive(problem: Problem) -> bool:
    """The groups are announced move by move (and moves are timed)."""
    return problem.game.is_anticipation and (
        (problem.round_interval_minutes or 0) > 0 or is_live(problem))


def check_schedule(
    *, game: GameType, publish_at: datetime, deadline_at: datetime, interval_minutes: int,
    timezone: str | None = None, live: bool = False,
) -> None:
    """French ``ValueError`` when the interval does not fit the problem's dates (shown in
    ``timezone``). ``live``: the deadline must be the end of move 14, publication + 164 min
    (:func:`puzzles.rounds.live_deadline`)."""
    if live:
        if not game.is_anticipation:
            raise ValueError("Le rythme « en direct » ne concerne que les Anticipations.")
        end = live_deadline(publish_at)
        if deadline_at != end:
            raise ValueError(
                "En direct, la clôture est la fin du 14e coup : le "
                f"{format_local(end, timezone)} (publication + 60 min de réflexion + 104 min "
                "de jeu)."
            )
        return
    if interval_minutes < 0:
        raise ValueError("L'intervalle entre deux annonces ne peut pas être négatif.")
    if interval_minutes == 0:
        return
    if not game.is_anticipation:
        raise ValueError(
            "L'annonce coup par coup ne concerne que les Anticipations (intervalle 0 sinon)."
        )
    last = publish_at + (MOVES - 1) * timedelta(minutes=interval_minutes)
    if deadline_at <= last:
        raise ValueError(
            f"La clôture doit suivre la 14e annonce, le {format_local(last, timezone)} : avec "
            f"un intervalle de {interval_minutes} min, choisissez une clôture au plus tôt le "
            f"{format_local(last + timedelta(minutes=interval_minutes), timezone)} (fin du "
            "14e coup), ou un intervalle plus court."
        )


def live_deadline_after(publish_at: datetime) -> datetime:
    """The deadline of an Anticipation played live published at ``publish_at``: the end of
    move 14, ``publish_at`` + 60 + 104 = 164 min (the console fills it in)."""
    return live_deadline(publish_at)


def schedule(problem: Problem) -> tuple[datetime, ...]:
    """When each move's group is announced (all at publication when not progressive): the
    stored rounds once published, else planned from the interval."""
    if progressive(problem):
        stored = stored_rounds(problem)
        if len(stored) == MOVES:
            return tuple(r.announced_at for r in stored)
    return planned_times(problem)


def planned_times(problem: Problem) -> tuple[datetime, ...]:
    """The announcements as planned from the start (:func:`start`): live, the rules' times;
    by correspondence, one every interval (all at the start when not progressive)."""
    if is_live(problem):
        return live_announcement_times(start(problem))
    interval = timedelta(minutes=problem.round_interval_minutes if progressive(problem) else 0)
    return announcement_times(start(problem), interval)


def stored_rounds(problem: Problem) -> list[AnticipationRound]:
    """The problem's stored announcement rounds, by move (empty when there are none)."""
    if problem.id is None:
        return []
    query = (
        select(AnticipationRound).where(AnticipationRound.problem_id == problem.id)
        .order_by(col(AnticipationRound.number))
    )
    session = object_session(problem)
    if session is not None:
        return list(session.scalars(query).all())
    if not has_app_context():
        return []
    # a problem read in a page's session that is over (public and player pages)
    with session_scope() as own:
        return list(own.scalars(query).all())


def store_rounds(session: Session, problem: Problem, now: datetime) -> int:
    """At publication: the 14 announcement rounds of a progressive Anticipation, from the
    actual start (:func:`start`) and the interval, or live the rules' times; by
    correspondence move 1 is notified with the publication, live at the end of the
    reflection. Live, the deadline becomes the end of move 14 from the actual start (it
    moves only when the arbitre published earlier by hand). Replaces any earlier rows of
    the problem; returns the rows written."""
    if not progressive(problem):
        return 0
    assert problem.id is not None
    session.exec(delete(AnticipationRound).where(
        col(AnticipationRound.problem_id) == problem.id))
    live = is_live(problem)
    times = planned_times(problem)
    for k, at in enumerate(times, start=1):
        session.add(AnticipationRound(problem_id=problem.id, number=k, announced_at=at,
                                      notified_at=now if k == 1 and not live else None))
    if live and problem.deadline_at != live_deadline(start(problem)):
        _move_deadline(problem, live_deadline(start(problem)))
        session.add(problem)
    session.flush()
    return len(times)


def _move_deadline(problem: Problem, deadline_at: datetime) -> None:
    """The deadline, in the row and in the statement players read."""
    store_deadline(problem, deadline_at)


def _mark_notified(problem: Problem, upto: int, now: datetime) -> None:
    """Rounds 1..``upto`` have had their notice (the latest notice lists every move)."""
    session = object_session(problem)
    for r in stored_rounds(problem):
        if r.number <= upto and r.notified_at is None and session is not None:
            r.notified_at = now
            session.add(r)


def _round_times(
    problem: Problem, versions: list[tuple[datetime, Feuille]], end: datetime | None
) -> RoundTimes:
    return RoundTimes(
        announced=schedule(problem), end=end, moves=move_commit_times(versions),
        annulments=annul_commit_times(versions), zone=problem.timezone,
    )


def start(problem: Problem) -> datetime:
    """The first announcement: the planned publication, or the actual one when the arbitre
    published earlier by hand (a late automatic publication keeps the planned rounds, so
    the deadline still follows the 14th announcement)."""
    if problem.published_at is not None and problem.published_at < problem.publish_at:
        return problem.published_at
    return problem.publish_at


@dataclass
class Announcement:
    """Move ``move``'s group(s), announced at ``at``; ``groups``: (number, letters)."""

    move: int
    at: datetime
    groups: list[tuple[int, str]] = field(default_factory=list)

    def to_context(self) -> dict[str, Any]:
        return {
            "move": self.move, "at": self.at,
            "groups": [{"number": n, "letters": s} for n, s in self.groups],
        }


def _groups_of_move(puzzle: Any, move: int) -> list[tuple[int, str]]:
    order = list(puzzle.order)
    if len(order) < move:
        return []
    numbers = [1, order[0]] if move == 1 else [order[move - 1]]
    groups = list(puzzle.groups)
    # Anticipation aveugle: each player uses his own group with that number (no letters)
    return [(n, groups[n - 1] if 0 < n <= len(groups) else "") for n in numbers]


def announcements(problem: Problem, puzzle: Any, now: datetime) -> list[Announcement]:
    """Every move whose group is public at ``now`` (none before publication)."""
    if puzzle is None or not problem.game.is_anticipation:
        return []
    if problem.status in (ProblemStatus.DRAFT, ProblemStatus.SCHEDULED):
        return []
    return [
        Announcement(k, at, _groups_of_move(puzzle, k))
        for k, at in enumerate(schedule(problem), start=1)
        if at <= now
    ]


def next_announcement(problem: Problem, now: datetime) -> tuple[int, datetime] | None:
    """The next move to be announced and when (None: all announced, or not progressive)."""
    if not progressive(problem):
        return None
    for k, at in enumerate(schedule(problem), start=1):
        if at > now:
            return k, at
    return None


@dataclass(frozen=True)
class LiveWindow:
    """The window in progress of a live Anticipation: ``move`` 0 is the reflection (the
    groups are displayed, no move announced yet), 1 to 14 a move whose group(s) are
    ``groups`` (number, letters). ``end``: when it is over (the next announcement, or the
    deadline after move 14); ``one_minute``: when « Une minute ! » is called (RULES §6.1)."""

    move: int
    start: datetime
    end: datetime
    groups: tuple[tuple[int, str], ...] = ()

    @property
    def minutes(self) -> int:
        return int((self.end - self.start).total_seconds() // 60)

    @property
    def one_minute(self) -> datetime:
        return self.end - timedelta(minutes=1)


def live_window(problem: Problem, puzzle: Any, now: datetime) -> LiveWindow | None:
    """The reflection or the move whose time runs at ``now`` (None: not live, not open, or
    over). From the stored rounds, so a window the arbitre moved is the one shown."""
    if not is_live(problem) or problem.status != ProblemStatus.OPEN:
        return None
    bounds = [start(problem), *schedule(problem), problem.deadline_at]
    for k in range(len(bounds) - 1):
        if bounds[k] <= now < bounds[k + 1]:
            groups = tuple(_groups_of_move(puzzle, k)) if k and puzzle is not None else ()
            return LiveWindow(k, bounds[k], bounds[k + 1], groups)
    return None


def round_close(problem: Problem, move: int) -> tuple[datetime, str]:
    """When round ``move`` closes, and what closes it (French)."""
    times = schedule(problem)
    if move < len(times):
        return times[move], f"l'annonce du coup {move + 1}"
    return problem.deadline_at, "la clôture"


def send_announcements(
    *, session: Session, problem: Problem, puzzle: Any, players: list[Player], now: datetime,
    mails: bool = True,
) -> int:
    """The notice of the latest announced move (2 to 14; live 1 to 14) to every registered
    player, idempotent by ``announcement:<problem>:<move>:<player>``. By correspondence move
    1 goes out with the publication notice; live, at the end of the reflection. After a
    downtime only the latest move is sent: it lists them all. Live, the notices go out only
    with the ``LIVE_ANNOUNCEMENT_MAILS`` setting (``mails``; on by default)."""
    if not progressive(problem) or problem.status != ProblemStatus.OPEN:
        return 0
    live = is_live(problem)
    if live and not mails:
        return 0
    shown = announcements(problem, puzzle, now)
    if len(shown) < (1 if live else 2) or now >= problem.deadline_at:
        return 0
    current = shown[-1]
    closes, what = round_close(problem, current.move)
    _mark_notified(problem, current.move, now)
    return notify.fan_out(
        session=session, players=players,
        key=lambda p: f"announcement:{problem.code}:{current.move}:{p.id}",
        kind=OutboxKind.ANNOUNCEMENT, template="announcement",
        context=lambda p: {
            "player_name": p.name,
            "problem_title": f"{problem.title} ({problem.code})",
            "move": current.move,
            "current": current.to_context(),
            "announced": [a.to_context() for a in shown],
            "round_closes": format_local(closes, problem.timezone),
            "closes_what": what,
            "deadline": format_local(problem.deadline_at, problem.timezone),
            "submission_address": notify.submission_address(p),
            "subject_hint": problem.code,
            "problem_url": notify.problem_url(problem),
        },
    )


def round_times_for(
    session: Session, problem: Problem, subs: list[Submission]
) -> dict[int, RoundTimes]:
    """For each sheet in ``subs`` (one per player), the round times of its version chain:
    every version of that player up to it, with its server receive time. Empty when the
    problem is not progressive. One query for the whole batch."""
    if not progressive(problem) or not subs:
        return {}
    wanted = {s.player_id: s for s in subs}
    rows = session.exec(
        select(Submission.player_id, Submission.version, Submission.received_at,
               Submission.feuille)
        .where(Submission.problem_id == problem.id)
        .where(col(Submission.player_id).in_(list(wanted)))
    ).all()
    chains: dict[int, list[tuple[datetime, Feuille]]] = {}
    for player_id, version, received_at, feuille in rows:
        if feuille is None or version > wanted[player_id].version:
            continue
        chains.setdefault(player_id, []).append((received_at, feuille_from(feuille)))
    out: dict[int, RoundTimes] = {}
    for player_id, sub in wanted.items():
        assert sub.id is not None
        out[sub.id] = _round_times(
            problem, chains.get(player_id, []),
            # a late sheet the arbitre accepted: its last round is not timed
            end=None if sub.accepted_late else problem.deadline_at,
        )
    return out


def receipt_notes(
    *, session: Session, problem: Problem, player_id: int, received_at: datetime
) -> list[str]:
    """For the receipt of a sheet just stored: where each of its moves stands against the
    announcements (in time and still modifiable, in time, or too late to count)."""
    if not progressive(problem):
        return []
    rows = session.exec(
        select(Submission.received_at, Submission.feuille)
        .where(Submission.problem_id == problem.id, Submission.player_id == player_id)
        .where(col(Submission.received_at) <= received_at)
    ).all()
    chain = [(t, feuille_from(f)) for t, f in rows if f is not None]
    times = _round_times(problem, chain, end=problem.deadline_at)
    zone = problem.timezone
    notes: list[str] = []
    for number, sent in sorted(times.moves.items()):
        close = times.closes(number)
        if close is None:
            continue
        at, what = close
        if sent >= at:
            notes.append(
                f"Coup {number} : tel qu'il est écrit, envoyé le {format_instant(sent, zone)}, "
                f"après {what} ({format_instant(at, zone)}) : il ne comptera pas."
            )
        elif received_at < at:
            notes.append(
                f"Coup {number} : reçu à temps ; modifiable jusqu'à {what} "
                f"({format_instant(at, zone)})."
            )
        else:
            notes.append(
                f"Coup {number} : dans les temps (tel qu'envoyé le {format_instant(sent, zone)})."
            )
    for number, sent in sorted(times.annulments.items()):
        close = times.closes(number)
        if close is not None and sent >= close[0]:
            notes.append(
                f"« Annuler coup(s) » du coup {number} : envoyé le {format_instant(sent, zone)}, "
                f"après {close[1]} ({format_instant(close[0], zone)}) : l'annulation sera "
                "ignorée."
            )
    return notes

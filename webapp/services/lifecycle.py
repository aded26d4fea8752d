"""A problem's life, step by step: publish, remind (J-3, J-1), close, verify the batch,
publish the provisional ranking (opening the appeal window), finalise.

:func:`run_due` does every step that has fallen due, each in its own transaction. Each step
moves the problem's ``status`` forward with a conditional check, and every mail goes through
the outbox's ``dedupe_key``: running it twice, or after a long downtime, is safe.
"""

from __future__ import annotations

import contextvars
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
from flask import current_app
from flask_babel import lazy_gettext as _l  # type: ignore[import-untyped]
from sqlmodel import Session, col, select

from webapp.db import get_engine, session_scope
from webapp.models import (
    Appeal,
    AppealStatus,
    AuditLog,
    OutboxKind,
    OutboxMessage,
    OutboxStatus,
    Problem,
    ProblemStatus,
    Ranking,
    Submission,
    Verification,
)
from webapp.services import (
    audit,
    backlog,
    clock,
    correspondence,
    duplicate,
    notify,
    player_space,
    problems,
    rankings,
    rounds,
    stored,
    verification,
)

log = logging.getLogger(__name__)

ACTIVE = (
    ProblemStatus.SCHEDULED,
    ProblemStatus.OPEN,
    ProblemStatus.CLOSED,
    ProblemStatus.VERIFIED,
    ProblemStatus.PROVISIONAL,
)


def _cfg(name: str) -> object:
    return current_app.config[name]


#: results mails composed per transaction by :func:`announce_pending`
RESULTS_CHUNK = 200

#: set while :func:`run_due` advances the problems: the rankings it publishes are stored
#: without their results mails, which :func:`announce_pending` composes after the commit
_defer_mails: contextvars.ContextVar[bool] = contextvars.ContextVar("defer_mails",
                                                                    default=False)


def run_due(*, now: datetime) -> list[str]:
    """Do everything due at ``now``; returns ``"<action>:<problem code>"`` for each step."""
    with session_scope() as s:
        ids = list(
            s.exec(
                select(Problem.id).where(col(Problem.status).in_(ACTIVE)).order_by(
                    col(Problem.id)
                )
            ).all()
        )
    done: list[str] = []
    token = _defer_mails.set(True)
    try:
        for pid in ids:
            assert pid is not None
            try:
                done += advance(pid, now=now)
            except Exception:
                # one broken problem must not stop the others; the next tick retries it
                log.exception("problem %s: scheduled step failed", pid)
    finally:
        _defer_mails.reset(token)
    # the results mails of the rankings just published (or left unfinished by a run that
    # stopped): after the rankings' commit, a chunk per transaction
    announce_pending()
    # the round-based Duplicate games (their own steps)
    done += duplicate.run_due(now=now, waiting=player_space.waiting_games)
    # two-player games: reminders, loss on time
    done += correspondence.run_due(now=now, waiting=player_space.waiting_games)
    return done


def announce_pending(*, chunk: int | None = None) -> int:
    """Compose the results mails of every ranking in force still without ``mailed_at``
    (:func:`run_due` publishes its rankings so): :data:`RESULTS_CHUNK` players per
    transaction, each chunk idempotent by the mails' dedupe keys, then ``mailed_at``. A run
    that stops half-way (crash, error) leaves the rest to the next one; what it committed
    is neither lost nor sent twice. Returns how many mails are new."""
    with session_scope() as s:
        pending = [rid for rid in s.exec(select(Ranking.id).where(
            col(Ranking.mailed_at).is_(None), col(Ranking.superseded_at).is_(None))
            .order_by(col(Ranking.id))).all() if rid is not None]
    new = 0
    for rid in pending:
        try:
            new += _announce_ranking(rid, chunk or RESULTS_CHUNK)
        except Exception:
            log.exception("ranking %s: results mails failed; the next run goes on", rid)
    return new


def _announce_ranking(ranking_id: int, chunk: int) -> int:
    with session_scope() as s:
        ranking = s.get(Ranking, ranking_id)
        if ranking is None or ranking.mailed_at is not None or ranking.superseded_at:
            return 0
        problem = s.get(Problem, ranking.problem_id)
        assert problem is not None
        personal = rankings.results_personal(s, problem, ranking)
        revision = rankings.revises(s, ranking)
    ids = list(personal)
    new = 0
    table = Ranking.__table__  # type: ignore[attr-defined]
    for i in range(0, len(ids), chunk):
        with session_scope() as s:
            superseded = s.execute(sa.select(table.c.superseded_at).where(
                table.c.id == ranking_id)).scalar()
            if superseded is not None:
                return new  # replaced meanwhile: the new ranking has mails of its own
            new += rankings.announce(s, problem, ranking,
                                     {pid: personal[pid] for pid in ids[i:i + chunk]},
                                     revision=revision)
    with session_scope() as s:
        s.execute(sa.update(table).where(table.c.id == ranking_id,
                                         table.c.mailed_at.is_(None))
                  .values(mailed_at=clock.now()))
    log.info("ranking %s: %d results mail(s) composed", ranking_id, new)
    return new


def advance(problem_id: int, *, now: datetime) -> list[str]:
    done: list[str] = []
    for _ in range(len(ProblemStatus) + 1):
        with session_scope() as s:
            # the row lock (PostgreSQL) makes a console action and a scheduled step on the
            # same problem wait for each other instead of both acting on the same status.
            # FOR NO KEY UPDATE, not FOR UPDATE: every sheet being stored holds a KEY SHARE
            # lock on its problem's row (the foreign key), which FOR UPDATE waits for — and
            # under a stream of sheets there always is one: the deadline went by for minutes
            # with the problem still open (bench/burst.py). The sheets received in time are
            # waited for by the verification itself (:func:`wait_for_sheets`).
            p = s.get(Problem, problem_id, with_for_update={"key_share": True})
            if p is None:
                return done
            step = _next_step(s, p, now)
            if step is None:
                if p.status == ProblemStatus.OPEN:
                    n = send_reminders(s, p, now)
                    if n:
                        audit.record(session=s, actor=audit.SYSTEM, action="problem.remind",
                                     target=p.code, at=now.isoformat(), process=audit.PROCESS,
                                     days=reminder_due(p, now), mails=n)
                        done.append(f"remind:{p.code}")
                    n = rounds.send_announcements(
                        session=s, problem=p, puzzle=stored.puzzle_of(p),
                        players=problems.registered_players(session=s, problem=p), now=now,
                        mails=bool(_cfg("LIVE_ANNOUNCEMENT_MAILS")),
                    ) if rounds.progressive(p) else 0
                    if n:
                        audit.record(session=s, actor=audit.SYSTEM, action="problem.announce",
                                     target=p.code, at=now.isoformat(), process=audit.PROCESS,
                                     mails=n)
                        done.append(f"announce:{p.code}")
                return done
            name = step(s, p, now)
            audit.record(session=s, actor=audit.SYSTEM, action=f"problem.{name}",
                         target=p.code, at=now.isoformat(), process=audit.PROCESS)
            done.append(f"{name}:{p.code}")
    return done


Step = Callable[[Session, Problem, datetime], str]


def _next_step(s: Session, p: Problem, now: datetime) -> Step | None:
    if p.status == ProblemStatus.SCHEDULED and now >= p.publish_at:
        return publish
    if p.status == ProblemStatus.OPEN and now >= p.deadline_at:
        return close
    if p.status == ProblemStatus.CLOSED and _cfg("AUTO_VERIFY"):
        return verify
    if p.status == ProblemStatus.VERIFIED and _cfg("AUTO_PUBLISH_PROVISIONAL"):
        return publish_provisional
    if (
        p.status == ProblemStatus.PROVISIONAL
        and _cfg("AUTO_FINALISE")
        and p.appeals_until is not None
        and now >= p.appeals_until
        and not open_appeals(s, p)
    ):
        return finalise
    return None


def publish(s: Session, p: Problem, now: datetime) -> str:
    p.status = ProblemStatus.OPEN
    p.published_at = now
    s.add(p)
    rounds.store_rounds(s, p, now)  # a progressive Anticipation's 14 announcements
    notify.publication_notices(
        session=s, problem=p, players=problems.registered_players(session=s, problem=p),
        progressive=rounds.progressive(p),
        live_first=rounds.schedule(p)[0] if rounds.is_live(p) else None,
    )
    return "publish"


def close(s: Session, p: Problem, now: datetime) -> str:
    p.status = ProblemStatus.CLOSED
    p.closed_at = now
    s.add(p)
    return "close"


@dataclass(frozen=True)
class CloseNow:
    """What closing a problem now means, for the arbitre's confirmation page."""

    deadline: datetime  # the announced deadline, still ahead
    registered: int  # players who may send a sheet
    senders: int  # players who sent one
    without: int  # registered players without a sheet: they can no longer send one


def close_now_preview(*, session: Session, problem: Problem) -> CloseNow:
    """The facts the arbitre confirms before :func:`close_now`."""
    senders = set(session.exec(
        select(Submission.player_id).where(Submission.problem_id == problem.id)).all())
    registered = {pl.id for pl in problems.registered_players(session=session, problem=problem)}
    return CloseNow(deadline=problem.deadline_at, registered=len(registered),
                    senders=len(senders), without=len(registered - senders))


def close_now(*, session: Session, problem: Problem, actor: str, reason: str,
              now: datetime) -> None:
    """Close an open problem before its deadline (the console's « Clore maintenant »): the
    deadline becomes ``now`` (a sheet received afterwards is late, the reminders and the
    announcements stop), the problem is closed, and the audit log keeps who, why and the
    deadline first announced (``problem.close_early``). French ``ValueError`` otherwise."""
    if problem.status != ProblemStatus.OPEN:
        raise ValueError("Seul un problème ouvert peut être clos.")
    if not reason.strip():
        raise ValueError("Indiquez le motif de la clôture anticipée (il figure au journal).")
    announced = problem.deadline_at
    if now < _aware(announced):
        problem.deadline_at = now
    close(session, problem, now)
    audit.record(session=session, actor=actor, action="problem.close_early",
                 target=problem.code, reason=reason.strip(),
                 deadline_announced=_aware(announced).isoformat(), at=now.isoformat())


def wait_for_sheets(session: Session, problem: Problem) -> bool:
    """Before a problem is verified: every sheet received before its deadline is stored.

    Two kinds may still be on their way when the deadline passes: messages the SMTP intake
    accepted (``250``) but has not processed yet — a backlog at a deadline rush — and sheets
    being written by a transaction still open. The first are waited for until none received
    by the deadline is left ``stored`` (at most ``SHEETS_WAIT_SECONDS``; False if some still
    are: logged, and the verification goes on without them, as before); the second, on
    PostgreSQL, by taking ``LOCK TABLE submission IN SHARE MODE`` and letting it go at once:
    granted once every other transaction writing sheets has ended. It is taken in the
    caller's own transaction, in a savepoint rolled back at once (which releases it): a
    transaction of its own would wait forever for a caller that has itself stored sheets
    and not committed them yet (the console, a test — it hung the PostgreSQL suite), while
    the caller's own writes never conflict with its own lock."""
    settled = backlog.wait_for_mail(problem.deadline_at, f"problem {problem.code}")
    if get_engine().dialect.name == "postgresql":
        savepoint = session.begin_nested()
        session.execute(sa.text("LOCK TABLE submission IN SHARE MODE"))
        savepoint.rollback()
    return settled


def verify(s: Session, p: Problem, now: datetime) -> str:
    wait_for_sheets(s, p)
    verification.verify_problem(session=s, problem=p, actor=audit.SYSTEM)
    p.status = ProblemStatus.VERIFIED
    p.verified_at = now
    s.add(p)
    return "verify"


def publish_provisional(s: Session, p: Problem, now: datetime) -> str:
    rankings.publish_ranking(session=s, problem=p, kind=rankings.PROVISIONAL,
                             actor=audit.SYSTEM, defer_mails=_defer_mails.get())
    p.status = ProblemStatus.PROVISIONAL
    p.provisional_at = now
    p.appeals_until = now + timedelta(days=p.appeal_days)
    s.add(p)
    return "provisional"


def finalise(s: Session, p: Problem, now: datetime) -> str:
    rankings.publish_ranking(session=s, problem=p, kind=rankings.FINAL, actor=audit.SYSTEM,
                             defer_mails=_defer_mails.get())
    p.status = ProblemStatus.FINAL
    p.finalised_at = now
    s.add(p)
    return "finalise"


#: the steps the console runs by hand (the scheduler runs the same when due), with the
#: statuses each may start from
MANUAL_STEPS: dict[str, tuple[Callable[[Session, Problem, datetime], str],
                              tuple[ProblemStatus, ...]]] = {
    "publish": (publish, (ProblemStatus.SCHEDULED, ProblemStatus.DRAFT)),
    "close": (close, (ProblemStatus.OPEN,)),
    "verify": (verify, (ProblemStatus.CLOSED,)),
    "provisional": (publish_provisional, (ProblemStatus.VERIFIED,)),
}


def manual_step(*, session: Session, problem: Problem, step: str, actor: str,
                now: datetime) -> str:
    """One of :data:`MANUAL_STEPS` run by the arbitre, audited as ``problem.<step>`` with
    ``manual=True``; a French ``ValueError`` when the problem's status does not allow it, or
    when closing before the deadline (« Clore maintenant » is :func:`close_now`)."""
    fn, allowed = MANUAL_STEPS[step]
    if problem.status not in allowed:
        raise ValueError("Cette étape n'est pas possible dans l'état actuel du problème.")
    if step == "close" and now < problem.deadline_at:
        raise ValueError("Le délai n'est pas écoulé : le problème ne peut pas être clos.")
    name = fn(session, problem, now)
    audit.record(session=session, actor=actor, action=f"problem.{name}", target=problem.code,
                 manual=True)
    return name


def finalise_manually(*, session: Session, problem: Problem, actor: str, comment: str,
                      now: datetime) -> None:
    """The arbitre publishes the final ranking with his comment: the ranking is stored first
    (so :func:`finalise` finds it already there, same rows, and only moves the status), then
    the step, audited as ``problem.finalise`` with ``manual=True``."""
    rankings.publish_ranking(session=session, problem=problem, kind=rankings.FINAL,
                             actor=actor, comment=comment)
    finalise(session, problem, now)
    audit.record(session=session, actor=actor, action="problem.finalise", target=problem.code,
                 comment=comment, manual=True)


def open_appeals(s: Session, p: Problem) -> int:
    return len(
        s.exec(
            select(Appeal.id)
            .join(Verification, col(Verification.id) == col(Appeal.verification_id))
            .join(Submission, col(Submission.id) == col(Verification.submission_id))
            .where(Submission.problem_id == p.id, Appeal.status == AppealStatus.OPEN)
        ).all()
    )


def reminder_due(p: Problem, now: datetime) -> int | None:
    """The reminder (days before the deadline) in force at ``now``: only the latest one, so
    a server that was down over J-3 and J-1 sends one reminder, not two.

    A reminder whose time (deadline − d days) is not after the publication is never due:
    the publication notice, sent in the same minute, already gives the deadline. So a
    problem published 40 minutes before it closes gets no reminder at all, and one
    published 2 days before gets J-1 but not J-3."""
    if p.status != ProblemStatus.OPEN or now >= p.deadline_at:
        return None
    published = p.published_at or p.publish_at
    days = sorted(int(d) for d in _cfg("REMINDER_DAYS"))  # type: ignore[attr-defined]
    for d in days:
        at = p.deadline_at - timedelta(days=d)
        if now >= at:
            return d if at > _aware(published) else None
    return None


def _aware(at: datetime) -> datetime:
    """A stored instant as aware UTC (SQLite gives naive datetimes back)."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


def send_reminders(s: Session, p: Problem, now: datetime) -> int:
    d = reminder_due(p, now)
    if d is None:
        return 0
    senders = set(
        s.exec(select(Submission.player_id).where(Submission.problem_id == p.id)).all()
    )
    without = [
        pl for pl in problems.registered_players(session=s, problem=p) if pl.id not in senders
    ]
    return notify.reminders(session=s, problem=p, players=without, days_left=d,
                            waiting={pl.id: player_space.waiting_games(s, pl.id) for pl in without
                                     if pl.id is not None})



def upcoming_instants(*, now: datetime) -> list[datetime]:
    """Every future instant at which :func:`run_due` has something to do."""
    out: set[datetime] = set()
    days = [int(d) for d in _cfg("REMINDER_DAYS")]  # type: ignore[attr-defined]
    with session_scope() as s:
        for p in s.exec(select(Problem).where(col(Problem.status).in_(ACTIVE))).all():
            candidates = [p.publish_at, p.deadline_at]
            candidates += [p.deadline_at - timedelta(days=d) for d in days]
            if rounds.progressive(p):
                candidates += list(rounds.schedule(p))
            if p.appeals_until is not None:
                candidates.append(p.appeals_until)
            out.update(t for t in candidates if t > now)
    out.update(duplicate.upcoming_instants(now=now))
    out.update(correspondence.upcoming_instants(now=now))
    return sorted(out)


# --- what was done: the console's account of a problem's scheduled steps -----------------

#: audit actions of a problem's steps, with their French label on the console
STEP_LABELS: dict[str, Any] = {
    "problem.publish": _l("Publié"),
    "problem.remind": _l("Rappel envoyé"),
    "problem.announce": _l("Tirage annoncé"),
    "problem.close": _l("Clos"),
    "problem.close_early": _l("Clos avant l'échéance"),
    "problem.verify": _l("Feuilles vérifiées"),
    "problem.provisional": _l("Classement provisoire publié"),
    "problem.finalise": _l("Classement définitif publié"),
    "ranking.withheld": _l("Classement vide non publié"),
}


@dataclass(frozen=True)
class StepDone:
    """One step of a problem's life as the audit log (or the outbox) records it."""

    label: str
    at: datetime
    by: str  # "automatique (hôte:pid)" or "arbitre <name>"
    detail: str = ""


def steps_done(*, session: Session, problem: Problem) -> list[StepDone]:
    """Which scheduled steps ran for ``problem``, when and by whom, in order: read from the
    audit log, plus the results mails of each ranking as the outbox delivered them (so after
    a crash the arbitre sees what a killed process had finished)."""
    entries = session.exec(
        select(AuditLog)
        .where(AuditLog.target == problem.code, col(AuditLog.action).in_(list(STEP_LABELS)))
        .order_by(col(AuditLog.at), col(AuditLog.id))
    ).all()
    out: list[StepDone] = []
    for e in entries:
        d = e.details or {}
        if e.actor == audit.SYSTEM:
            by = (str(_l("automatique (%(process)s)", process=d["process"]))
                  if d.get("process") else str(_l("automatique")))
        else:
            by = str(_l("arbitre %(name)s", name=e.actor))
        detail = ""
        if e.action == "problem.remind":
            detail = f"J-{d.get('days')} : {_mails(int(d.get('mails', 0)))}"
        elif e.action == "problem.announce":
            detail = _mails(int(d.get("mails", 0)))
        elif e.action == "problem.close_early":
            detail = str(_l("motif : %(reason)s", reason=d.get("reason", "")))
        elif e.action == "ranking.withheld":
            detail = rankings.empty_reason(int(d.get("sheets", 0)))
        out.append(StepDone(label=str(STEP_LABELS[e.action]), at=e.at, by=by, detail=detail))
    for kind, label in (("provisional", _l("Résultats envoyés (classement provisoire)")),
                        ("final", _l("Résultats envoyés (classement définitif)"))):
        mails = session.exec(
            select(OutboxMessage).where(
                OutboxMessage.kind == OutboxKind.RESULTS,
                col(OutboxMessage.dedupe_key).startswith(f"results:{kind}:{problem.code}:"),
            )
        ).all()
        sent = [m.sent_at for m in mails if m.status == OutboxStatus.SENT and m.sent_at]
        if not mails:
            continue
        at = max(sent) if sent else min(m.created_at for m in mails)
        state = _l("tous envoyés") if len(sent) == len(mails) else _l("envoi en cours")
        out.append(StepDone(
            label=str(label), at=at, by=str(_l("courrier sortant")),
            detail=str(_l("%(sent)s sur %(mails)s (%(state)s)", sent=len(sent),
                          mails=_mails(len(mails)), state=state)),
        ))
    out.sort(key=lambda st: st.at)
    return out


def _mails(n: int) -> str:
    return str(_l("%(n)s courriel", n=n) if n <= 1 else _l("%(n)s courriels", n=n))

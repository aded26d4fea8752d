"""A player's sheet versions: the latest one, the ones that count, the ones excluded.

Below the submission, verification and ranking services, which all read it.
"""

from __future__ import annotations

from sqlmodel import Session, col, select

from webapp.models import Problem, Ruling, RulingKind, Submission


def latest_submission(*, session: Session, player_id: int, problem_id: int) -> Submission | None:
    return session.exec(
        select(Submission)
        .where(Submission.player_id == player_id, Submission.problem_id == problem_id)
        .order_by(col(Submission.version).desc())
        .limit(1)  # without it every version (JSON columns decoded) is fetched to keep one
    ).first()


def excluded_submissions(session: Session, problem: Problem) -> set[int]:
    """The sheets the arbitre excluded by a ruling (not revoked)."""
    return {
        r.submission_id
        for r in session.exec(
            select(Ruling).where(
                Ruling.problem_id == problem.id, Ruling.kind == RulingKind.EXCLUDE_SHEET,
                col(Ruling.revoked_at).is_(None),
            )
        ).all()
        if r.submission_id is not None
    }


def eligible_submissions(session: Session, problem: Problem) -> list[Submission]:
    """Per player, the latest version received on time or accepted late (a late
    correction does not erase an on-time sheet)."""
    subs = session.exec(
        select(Submission)
        .where(Submission.problem_id == problem.id)
        .where((col(Submission.late).is_(False)) | (col(Submission.accepted_late).is_(True)))
        .order_by(col(Submission.player_id), col(Submission.version).desc())
    ).all()
    latest: dict[int, Submission] = {}
    for s in subs:
        latest.setdefault(s.player_id, s)
    return sorted(latest.values(), key=lambda s: (s.received_at, s.id or 0))

"""A player's sheet versions: the latest one, the ones that count, the ones excluded.

Below the submission, verification and ranking services, which all read it.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, select

from webapp.models import Problem, Ruling, RulingKind, Submission

#: the latest version of one player's sheet for one problem, built once with its values as
#: parameters (SQLAlchemy reuses its compiled form: it runs for every sheet received)
_LATEST = (
    select(Submission)
    .where(Submission.player_id == sa.bindparam("player_id"),
           Submission.problem_id == sa.bindparam("problem_id"))
    .order_by(col(Submission.version).desc())
    .limit(1)  # without it every version (JSON columns decoded) is fetched to keep one
)


def latest_submission(*, session: Session, player_id: int, problem_id: int) -> Submission | None:
    return session.exec(
        _LATEST, params={"player_id": player_id, "problem_id": problem_id}
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


def counting_versions(session: Session, problem: Problem) -> list[Submission]:
    """Every version received on time or accepted late, per player newest first (one
    query: :func:`latest_versions` and :func:`standing_since` read the same list)."""
    return list(session.exec(
        select(Submission)
        .where(Submission.problem_id == problem.id)
        .where((col(Submission.late).is_(False)) | (col(Submission.accepted_late).is_(True)))
        .order_by(col(Submission.player_id), col(Submission.version).desc())
    ).all())


def latest_versions(versions: list[Submission]) -> list[Submission]:
    """Per player, the first of ``versions`` (:func:`counting_versions`: his latest), in
    receive order."""
    latest: dict[int, Submission] = {}
    for s in versions:
        latest.setdefault(s.player_id, s)
    return sorted(latest.values(), key=lambda s: (s.received_at, s.id or 0))


def eligible_submissions(session: Session, problem: Problem) -> list[Submission]:
    """Per player, the latest version received on time or accepted late (a late
    correction does not erase an on-time sheet)."""
    return latest_versions(counting_versions(session, problem))


def standing_since(versions: list[Submission]) -> dict[int, datetime]:
    """Per counting sheet (by submission id; ``versions``: :func:`counting_versions`), the
    instant its text has stood unchanged since: the receive time of the first of the
    identical versions (same SHA-256) that end with it.
    The tie-break « la feuille reçue la première passe devant » reads this time, so that a
    player who sends the same sheet again (a second mail, a double click) does not lose his
    place to someone who sent after his first copy (issue 22 §4). A version with another
    text in between starts a new run: the sheet did not stand meanwhile."""
    out: dict[int, datetime] = {}
    current: dict[int, Submission] = {}  # per player: his counting sheet
    broken: set[int] = set()
    for s in versions:  # newest first, per player
        first = current.setdefault(s.player_id, s)
        if s.player_id in broken:
            continue
        if s.sha256 == first.sha256:
            assert first.id is not None
            out[first.id] = s.received_at
        else:
            broken.add(s.player_id)
    return out

"""Appeals: a player contests his verification during the appeal window; the arbitre
answers (and, if he agrees, issues a ruling and re-runs the verification).

Every open appeal holds the final ranking back, so a player may file at most
``APPEALS_PER_SHEET`` appeals on one problem (2 by default) and one at a time; the text is
bounded (``MAX_APPEAL_CHARS``)."""

from __future__ import annotations

import sqlalchemy as sa
from flask import current_app, has_app_context
from sqlmodel import Session, col, select

from webapp.models import (
    Appeal,
    AppealStatus,
    Arbitre,
    Player,
    Problem,
    ProblemStatus,
    Submission,
    Verification,
)
from webapp.services import audit, clock, notify


class AppealRefused(Exception):
    """French message for the player."""


MAX_APPEAL_CHARS = 5000


def _appeals_allowed() -> int:
    return int(current_app.config.get("APPEALS_PER_SHEET", 2)) if has_app_context() else 2


def file_appeal(
    *, session: Session, player: Player, verification: Verification, text: str
) -> Appeal:
    sub = session.get(Submission, verification.submission_id)
    if sub is None or sub.player_id != player.id:
        raise AppealRefused("Cette vérification ne concerne pas votre feuille.")
    problem = session.get(Problem, sub.problem_id)
    assert problem is not None
    now = clock.now()
    if (
        problem.status != ProblemStatus.PROVISIONAL
        or problem.appeals_until is None
        or now >= problem.appeals_until
    ):
        raise AppealRefused("Le délai d'appel de ce problème n'est pas ouvert.")
    if not text.strip():
        raise AppealRefused("Expliquez en quelques mots ce que vous contestez.")
    if len(text.strip()) > MAX_APPEAL_CHARS:
        raise AppealRefused(f"Votre appel compte {len(text.strip())} caractères : "
                            f"{MAX_APPEAL_CHARS} au plus. Résumez ce que vous contestez.")
    # this player's appeals on this problem (any version, any run of the verification)
    statuses = [st for (st,) in session.execute(
        sa.select(col(Appeal.status))
        .join(Verification, col(Verification.id) == col(Appeal.verification_id))
        .join(Submission, col(Submission.id) == col(Verification.submission_id))
        .where(col(Appeal.player_id) == player.id, col(Submission.problem_id) == problem.id)
    ).all()]
    if AppealStatus.OPEN in statuses:
        raise AppealRefused("Votre appel précédent attend encore la réponse de l'arbitre : "
                            "attendez-la avant d'en déposer un autre.")
    allowed = _appeals_allowed()
    if len(statuses) >= allowed:
        raise AppealRefused(f"Vous avez déjà fait appel {len(statuses)} fois pour ce problème : "
                            f"{allowed} appels au plus par problème.")
    assert player.id is not None and verification.id is not None
    appeal = Appeal(
        player_id=player.id, verification_id=verification.id, text=text.strip(), created_at=now
    )
    session.add(appeal)
    session.flush()
    audit.record(session=session, actor=f"player:{player.id}", action="appeal.file",
                 target=f"appeal:{appeal.id}", problem=problem.code)
    return appeal


def answer_appeal(
    *, session: Session, appeal: Appeal, arbitre: Arbitre, accepted: bool, answer: str
) -> Appeal:
    if appeal.status != AppealStatus.OPEN:
        raise ValueError("Cet appel a déjà reçu une réponse.")
    if not answer.strip():
        raise ValueError("La réponse à un appel ne peut pas être vide.")
    appeal.status = AppealStatus.ACCEPTED if accepted else AppealStatus.REJECTED
    appeal.answer = answer.strip()
    appeal.answered_at = clock.now()
    appeal.answered_by = arbitre.id
    session.add(appeal)
    audit.record(session=session, actor=arbitre.username, action="appeal.answer",
                 target=f"appeal:{appeal.id}", status=appeal.status, answer=appeal.answer)
    player = session.get(Player, appeal.player_id)
    problem = _problem_of(session, appeal)
    if player is not None and problem is not None:
        notify.appeal_answer(session=session, appeal=appeal, player=player, problem=problem)
    return appeal


def _problem_of(session: Session, appeal: Appeal) -> Problem | None:
    verification = session.get(Verification, appeal.verification_id)
    sub = session.get(Submission, verification.submission_id) if verification else None
    return session.get(Problem, sub.problem_id) if sub else None


def listing(session: Session) -> list[tuple[Appeal, Player, Verification, Problem]]:
    """Every appeal with its player, the verification appealed and the problem; open ones
    first, oldest first (the console's list)."""
    return [tuple(row) for row in session.exec(  # type: ignore[misc]
        select(Appeal, Player, Verification, Problem)
        .join(Player, col(Player.id) == col(Appeal.player_id))
        .join(Verification, col(Verification.id) == col(Appeal.verification_id))
        .join(Submission, col(Submission.id) == col(Verification.submission_id))
        .join(Problem, col(Problem.id) == col(Submission.problem_id))
        .order_by(col(Appeal.status) != AppealStatus.OPEN, col(Appeal.created_at))
    ).all()]

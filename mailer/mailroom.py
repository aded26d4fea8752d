"""The arbitre's view of the mail: inbound messages (every one, quarantine first), the
outbox and the local mailbox, with the audited actions the console offers on them (the
console reads mail storage only through here; the mail package sits above the services).

Reading: :func:`inbound_page`, :func:`inbound_detail`, :func:`quarantine_count`,
:func:`outbox_page`. Acting: :func:`replay` and :func:`discard` call
``mailer.pipeline.replay`` / ``mailer.pipeline.discard`` (the pipeline owns the processing and
its own transactions) and then write the audit entry with the arbitre's reason;
:func:`retry_outbox` makes a ``failed`` outbox row due again now (one more attempt by the
sender worker). Nothing here parses, submits or sends by itself.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from flask import Flask
from flask_babel import lazy_gettext as _l  # type: ignore[import-untyped]
from sqlmodel import Session, col, func, select

from mailer import parse, pipeline
from mailer.outbox import read_local_mailbox
from webapp.db import session_scope
from webapp.models import (
    AuditLog,
    InboundChannel,
    InboundMessage,
    InboundStatus,
    OutboxMessage,
    OutboxStatus,
    Player,
    Problem,
    Submission,
)
from webapp.services import audit, clock

#: every outbox kind (``OutboxMessage.kind``, the mail's ``X-Arbitre-Kind``) -> what the
#: console's outbox and local mailbox show (French msgid, translated)
OUTBOX_KIND_FR: dict[str, Any] = {
    "receipt": _l("accusé de réception"),
    "reminder": _l("rappel d'échéance"),
    "publication": _l("problème publié"),
    "results": _l("résultats"),
    "instructions": _l("mode d'emploi"),
    "ambiguity": _l("feuille ambiguë"),
    "parse_errors": _l("feuille illisible"),
    "refused": _l("feuille refusée"),
    "refused_too_large": _l("message trop volumineux"),
    "login": _l("lien de connexion"),
    "appeal_answer": _l("réponse à un appel"),
    "announcement": _l("annonce de manche"),
    "duplicate_draw": _l("tirage duplicate"),
    "duplicate_results": _l("résultats du tour duplicate"),
    "duplicate_corrected": _l("résultat duplicate corrigé"),
    "duplicate_final": _l("classement final duplicate"),
    "corr_turn": _l("à vous de jouer (correspondance)"),
    "corr_reminder": _l("rappel (correspondance)"),
    "corr_final": _l("fin de partie (correspondance)"),
}


def sheet_source_label(source: str) -> str:
    """Where the sheet was found in a message (``parse.ExtractedSheet.source``), in words."""
    if source == "text/plain":
        return str(_l("le texte du message"))
    if source == "text/html":
        return str(_l("le message mis en forme (HTML)"))
    if source.startswith("attachment:"):
        return str(_l("la pièce jointe « %(name)s »", name=source.partition(":")[2]))
    return source


def outbox_kind(kind: str) -> str:
    """The French name of an outbox kind (the code itself for one the table lacks)."""
    label = OUTBOX_KIND_FR.get(kind)
    return str(label) if label is not None else kind


INBOUND_STATUS_FR = {
    InboundStatus.STORED: "reçu, pas encore traité",
    InboundStatus.PROCESSED: "traité",
    InboundStatus.DUPLICATE: "doublon",
    InboundStatus.QUARANTINED: "en quarantaine",
    InboundStatus.DISCARDED: "écarté",
    InboundStatus.IGNORED: "ignoré",
}

#: The filter values of the list page: "à traiter" (the default) is what needs the arbitre,
#: i.e. quarantined messages and those stuck ``stored``.
TO_HANDLE = "a_traiter"
ALL = "tous"
FILTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    TO_HANDLE: ("à traiter", (InboundStatus.QUARANTINED, InboundStatus.STORED)),
    InboundStatus.QUARANTINED: ("en quarantaine", (InboundStatus.QUARANTINED,)),
    InboundStatus.IGNORED: ("ignorés", (InboundStatus.IGNORED,)),
    InboundStatus.PROCESSED: ("traités", (InboundStatus.PROCESSED,)),
    InboundStatus.DUPLICATE: ("doublons", (InboundStatus.DUPLICATE,)),
    InboundStatus.DISCARDED: ("écartés", (InboundStatus.DISCARDED,)),
    ALL: ("tous", ()),
}

#: Statuses ``mailer.pipeline.replay`` accepts.
REPLAYABLE = (InboundStatus.QUARANTINED, InboundStatus.IGNORED)
#: Statuses ``mailer.pipeline.discard`` accepts.
DISCARDABLE = (InboundStatus.QUARANTINED,)

#: Outbox list filters.
OUTBOX_FILTERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "a_suivre": ("en attente ou en échec",
                 (OutboxStatus.PENDING, OutboxStatus.SENDING, OutboxStatus.FAILED)),
    OutboxStatus.FAILED: ("en échec", (OutboxStatus.FAILED,)),
    OutboxStatus.SENT: ("envoyés", (OutboxStatus.SENT,)),
    ALL: ("tous", ()),
}


@dataclass
class InboundRow:
    """One line of the list: the message (without its bytes) and what it is linked to."""

    id: int
    received_at: datetime
    channel: InboundChannel
    envelope_from: str
    from_header: str
    subject: str
    size: int
    status: InboundStatus
    error: str | None
    player: Player | None
    problem: Problem | None
    submission_id: int | None


@dataclass
class Page:
    rows: list[Any]
    page: int
    pages: int
    total: int


def quarantine_count(session: Session) -> int:
    """Messages waiting for the arbitre (the console's badge)."""
    return int(session.exec(
        select(func.count()).select_from(InboundMessage)
        .where(InboundMessage.status == InboundStatus.QUARANTINED)
    ).one())


def _headers_of(raw: bytes) -> tuple[str, str]:
    try:
        msg = parse.parse_message(raw)
        return parse.header(msg, "From"), parse.header(msg, "Subject")
    except Exception:  # a broken message still gets its line in the list
        return "", ""


def inbound_page(
    session: Session, *, status: str = TO_HANDLE, page: int = 1, per_page: int = 50
) -> Page:
    """Inbound messages of one filter, newest first. Only the rows of the page are read
    with their bytes (From and Subject come from the stored message itself)."""
    statuses = FILTERS.get(status, FILTERS[TO_HANDLE])[1]
    where = [col(InboundMessage.status).in_(statuses)] if statuses else []
    total = int(session.exec(
        select(func.count()).select_from(InboundMessage).where(*where)
    ).one())
    pages = max(1, (total + per_page - 1) // per_page)
    page = min(max(1, page), pages)
    found = session.exec(
        select(InboundMessage, Player, Problem)
        .outerjoin(Player, col(Player.id) == col(InboundMessage.player_id))
        .outerjoin(Problem, col(Problem.id) == col(InboundMessage.problem_id))
        .where(*where)
        .order_by(col(InboundMessage.received_at).desc(), col(InboundMessage.id).desc())
        .offset((page - 1) * per_page).limit(per_page)
    ).all()
    rows = []
    for msg, player, problem in found:
        assert msg.id is not None
        frm, subject = _headers_of(msg.raw)
        rows.append(InboundRow(
            id=msg.id, received_at=msg.received_at, channel=msg.channel,
            envelope_from=msg.envelope_from, from_header=frm, subject=subject, size=msg.size,
            status=msg.status, error=msg.error, player=player, problem=problem,
            submission_id=msg.submission_id,
        ))
    return Page(rows, page, pages, total)


#: Headers shown on the detail page, in this order.
SUMMARY_HEADERS = ("From", "Sender", "Reply-To", "To", "Cc", "Delivered-To", "Subject",
                   "Date", "Message-ID", "In-Reply-To", "Return-Path", "Auto-Submitted",
                   "List-Id", "X-Original-From", "Content-Type")


@dataclass
class InboundDetail:
    message: InboundMessage
    headers: list[tuple[str, str]]
    sheet_text: str
    sheet_source: str
    sheet_notes: tuple[str, ...]
    parse_error: str | None
    player: Player | None
    problem: Problem | None
    submission: Submission | None
    outbox: list[OutboxMessage] = field(default_factory=list)
    audit: list[Any] = field(default_factory=list)


def inbound_detail(session: Session, inbound_id: int) -> InboundDetail | None:
    """The message, its headers, the sheet text ``mailer.parse`` extracts from it, and
    what the pipeline made of it: submission, receipt and replies in the outbox."""
    msg = session.get(InboundMessage, inbound_id)
    if msg is None:
        return None
    headers: list[tuple[str, str]] = []
    sheet_text, source, parse_error = "", "", None
    notes: tuple[str, ...] = ()
    try:
        parsed = parse.parse_message(msg.raw)
        for name in SUMMARY_HEADERS:
            value = parse.header(parsed, name)
            if value:
                headers.append((name, value))
        extracted = parse.extract_sheet(parsed)
        sheet_text, source, notes = extracted.text, extracted.source, extracted.notes
    except Exception as exc:  # the page must show a message the parser chokes on
        parse_error = f"{type(exc).__name__}: {exc}"
    player = session.get(Player, msg.player_id) if msg.player_id else None
    problem = session.get(Problem, msg.problem_id) if msg.problem_id else None
    submission = session.get(Submission, msg.submission_id) if msg.submission_id else None
    # What this message caused: the receipt of its submission and the pipeline's replies
    # (their dedupe keys are fixed by submit_sheet and mailer.pipeline._reply).
    keys = [f"{kind}:inbound:{msg.id}" for kind in pipeline.REPLY_KINDS]
    if msg.submission_id:
        keys.append(f"receipt:{msg.submission_id}")
    outbox = list(session.exec(
        select(OutboxMessage).where(col(OutboxMessage.dedupe_key).in_(keys))
        .order_by(col(OutboxMessage.id))
    ).all())
    entries = list(session.exec(
        select(AuditLog).where(AuditLog.target == f"inbound:{msg.id}")
        .order_by(col(AuditLog.at), col(AuditLog.id))
    ).all())
    return InboundDetail(msg, headers, sheet_text, source, notes, parse_error, player,
                         problem, submission, outbox, entries)


def _require_reason(reason: str, what: str) -> str:
    reason = " ".join(reason.split())
    if not reason:
        raise ValueError(f"Indiquez le motif pour {what}.")
    return reason


def replay(app: Flask, inbound_id: int, *, actor: str, reason: str) -> InboundStatus:
    """Run a quarantined or ignored message through the pipeline again; returns its new
    status. Raises ``ValueError`` (French) when the reason is missing or the status does
    not allow it, ``LookupError`` when the message does not exist."""
    reason = _require_reason(reason, "rejouer le message")
    with session_scope(app) as s:
        before = s.get(InboundMessage, inbound_id)
        previous = (before.status, before.error) if before is not None else (None, None)
    status = pipeline.replay(app, inbound_id)
    with session_scope(app) as s:
        row = s.get(InboundMessage, inbound_id)
        audit.record(session=s, actor=actor, action="mail.replay", target=f"inbound:{inbound_id}",
                     reason=reason, previous_status=previous[0], previous_error=previous[1],
                     status=status, error=row.error if row else None,
                     submission_id=row.submission_id if row else None)
    return status


def discard(app: Flask, inbound_id: int, *, actor: str, reason: str) -> None:
    """Mark a quarantined message discarded (kept, never processed), with a required
    reason, and audit it."""
    reason = _require_reason(reason, "écarter le message")
    with session_scope(app) as s:
        before = s.get(InboundMessage, inbound_id)
        previous_error = before.error if before is not None else None
    pipeline.discard(app, inbound_id, reason)
    with session_scope(app) as s:
        audit.record(session=s, actor=actor, action="mail.discard",
                     target=f"inbound:{inbound_id}", reason=reason,
                     previous_error=previous_error)


def outbox_page(
    session: Session, *, status: str = "a_suivre", page: int = 1, per_page: int = 50
) -> Page:
    """Outbox rows of one filter: failed first, then by next attempt (or newest first for
    sent mail)."""
    statuses = OUTBOX_FILTERS.get(status, OUTBOX_FILTERS["a_suivre"])[1]
    where = [col(OutboxMessage.status).in_(statuses)] if statuses else []
    total = int(session.exec(
        select(func.count()).select_from(OutboxMessage).where(*where)
    ).one())
    pages = max(1, (total + per_page - 1) // per_page)
    page = min(max(1, page), pages)
    failed_first = sa.case((col(OutboxMessage.status) == OutboxStatus.FAILED, 0), else_=1)
    rows = list(session.exec(
        select(OutboxMessage).where(*where)
        .order_by(failed_first, col(OutboxMessage.created_at).desc(), col(OutboxMessage.id).desc())
        .offset((page - 1) * per_page).limit(per_page)
    ).all())
    return Page(rows, page, pages, total)


def retry_outbox(session: Session, outbox_id: int, *, actor: str, reason: str = "") -> None:
    """Make a ``failed`` outbox row due now: the sender worker makes one more attempt (the
    attempt counter is kept, so a further failure is final again). Guarded: only a row still
    ``failed`` changes."""
    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    row = session.get(OutboxMessage, outbox_id)
    if row is None:
        raise LookupError(f"message sortant n° {outbox_id} introuvable")
    result = session.execute(
        sa.update(table)
        .where(table.c.id == outbox_id, table.c.status == OutboxStatus.FAILED)
        .values(status=OutboxStatus.PENDING, next_attempt_at=clock.now())
    )
    if result.rowcount != 1:  # type: ignore[attr-defined]
        raise ValueError(
            f"Message sortant n° {outbox_id} : seul un message en échec peut être renvoyé."
        )
    audit.record(session=session, actor=actor, action="mail.outbox_retry",
                 target=f"outbox:{outbox_id}", reason=" ".join(reason.split()),
                 to_addr=row.to_addr, kind=row.kind, attempts=row.attempts,
                 last_error=row.last_error)


def local_mailbox(
    app: Flask, session: Session, *, limit: int = 100
) -> tuple[list[Any], list[OutboxMessage]]:
    """The local mbox (newest first) and the latest outbox rows, ``limit`` of each: what the
    console's « Courrier » page shows when no relay is configured."""
    messages = list(reversed(read_local_mailbox(app)))[:limit]
    outbox = list(session.exec(
        select(OutboxMessage).order_by(col(OutboxMessage.created_at).desc()).limit(limit)
    ).all())
    return messages, outbox

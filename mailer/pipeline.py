"""The mail pipeline: receive -> parse -> rules -> submit -> reply.

Owns the stages after the bytes arrive, whatever the channel (SMTP, LMTP, IMAP):

1. :func:`store_raw` writes the whole message (bytes, SHA-256, envelope, receive time) in its
   own transaction. Only after that commit may a listener answer ``250``; if it raises, the
   listener answers ``451`` and the sender retries.
2. :func:`process` (idempotent, one transaction) recognises duplicates, applies the loop
   rules, identifies the player and the problem, extracts the sheet and hands it to
   ``webapp.services.submissions.submit_sheet`` (which stores it and enqueues the receipt in
   the same transaction). Replies (instructions, ambiguity, unreadable message) are put in the
   outbox in that transaction too. Any exception: the work is rolled back and the message is
   **quarantined** (status + error), never dropped; :func:`replay` and :func:`discard` are the
   arbitre's tools.
3. :func:`process_pending` picks up messages left ``stored`` by a crash between 1 and 2.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.policy import default as default_policy
from typing import Any

import sqlalchemy as sa
from flask import Flask
from sqlmodel import Session, select

from mailer import identify, parse, rules
from mailer.settings import MailSettings
from mailer.txn import write_scope
from webapp.db import session_scope
from webapp.models import (
    Channel,
    InboundMessage,
    InboundStatus,
    OutboxMessage,
    Player,
    Problem,
    ProblemStatus,
)
from webapp.services import (
    addresses,
    clock,
    correspondence,
    duplicate,
    notify,
    submissions,
)

log = logging.getLogger(__name__)

#: Problem statuses that still take sheets: after the deadline (closed, verified,
#: provisional ranking) a sheet is stored as a late version for the arbitre to accept or
#: not, as on the web; only a final ranking closes the door.
ACCEPTING = (ProblemStatus.OPEN, ProblemStatus.CLOSED, ProblemStatus.VERIFIED,
             ProblemStatus.PROVISIONAL)
#: The problems a sheet naming no problem may be meant for (the « only open problem » rule).
CURRENT = (ProblemStatus.OPEN, ProblemStatus.CLOSED)
#: Outbox kinds written by this pipeline, counted by the per-address rate limit.
REPLY_KINDS = ("instructions", "ambiguity", "parse_errors", "refused_too_large", "refused")


@dataclass(frozen=True)
class Stored:
    id: int
    duplicate_of: int | None


def _message_id(raw: bytes) -> str | None:
    try:
        headers = BytesHeaderParser(policy=default_policy).parsebytes(raw)
        value = headers.get("Message-ID")
    except Exception:
        return None
    if value is None:
        return None
    text = "".join(str(value).split())
    return text[:998] or None


def store_raw(
    app: Flask,
    raw: bytes,
    *,
    channel: str,
    envelope_from: str,
    envelope_to: list[str],
    received_at: datetime | None = None,
) -> Stored:
    """Store the message whole and commit. Raises if the database is unavailable."""
    (inbound_id,) = store_many(
        app, [Incoming(raw, channel, envelope_from, envelope_to, received_at or clock.now())]
    )
    return Stored(inbound_id, None)


@dataclass(frozen=True)
class Incoming:
    raw: bytes
    channel: str
    envelope_from: str
    envelope_to: list[str]
    received_at: datetime


def _inbound_row(item: Incoming) -> InboundMessage:
    try:
        # Headers only, legacy policy: cheap, and never fails on odd header syntax.
        auth = identify.auth_results(BytesHeaderParser(policy=compat32).parsebytes(item.raw))
    except Exception:
        auth = {}
    return InboundMessage(
        received_at=item.received_at,
        channel=item.channel,
        envelope_from=item.envelope_from or "",
        envelope_to=list(item.envelope_to),
        message_id=_message_id(item.raw),
        raw=item.raw,
        sha256=hashlib.sha256(item.raw).hexdigest(),
        size=len(item.raw),
        status=InboundStatus.STORED,
        auth_results=auth,
    )


def store_many(app: Flask, items: list[Incoming]) -> list[int]:
    """Store several messages in one transaction (group commit: one disk sync for all the
    SMTP sessions waiting on it). All or nothing; raises if the database is unavailable."""
    with write_scope(app) as session:
        rows = [_inbound_row(item) for item in items]
        session.add_all(rows)
        session.flush()
        ids = [r.id for r in rows]
    assert all(i is not None for i in ids)
    return [int(i) for i in ids if i is not None]


def _earlier_copy(session: Session, row: InboundMessage) -> InboundMessage | None:
    """An earlier message with the same Message-ID and content (or, without a Message-ID,
    the same bytes) that was not itself a duplicate or discarded."""
    q = select(InboundMessage).where(
        InboundMessage.id < row.id,  # type: ignore[operator]
        InboundMessage.sha256 == row.sha256,
        InboundMessage.status.notin_(  # type: ignore[attr-defined]
            [InboundStatus.DUPLICATE, InboundStatus.DISCARDED]
        ),
    )
    if row.message_id is None:
        q = q.where(InboundMessage.message_id.is_(None))  # type: ignore[union-attr]
    else:
        q = q.where(InboundMessage.message_id == row.message_id)
    return session.exec(q.order_by(InboundMessage.id).limit(1)).first()  # type: ignore[arg-type]


def _recent_replies(session: Session, to_addr: str, now: datetime) -> list[datetime]:
    rows = session.exec(
        select(OutboxMessage.created_at).where(
            sa.func.lower(OutboxMessage.to_addr) == to_addr.lower(),
            OutboxMessage.kind.in_(REPLY_KINDS),  # type: ignore[attr-defined]
            OutboxMessage.created_at > now - timedelta(hours=1),
        )
    ).all()
    return list(rows)


def _recent_instructions(session: Session, now: datetime) -> list[datetime]:
    """When the instructions to non-players (``player_id`` empty) went, in the last hour."""
    rows = session.exec(
        select(OutboxMessage.created_at).where(
            OutboxMessage.kind == "instructions",
            OutboxMessage.player_id.is_(None),  # type: ignore[union-attr]
            OutboxMessage.created_at > now - timedelta(hours=1),
        )
    ).all()
    return list(rows)


def _reply(
    session: Session,
    settings: MailSettings,
    *,
    kind: str,
    to_addr: str,
    context: dict[str, Any],
    inbound: InboundMessage,
    msg: Any,
    player_id: int | None = None,
) -> bool:
    """Queue an automatic answer unless the address had too many in the last hour."""
    now = clock.now()
    if addresses.address_problem(to_addr) is not None:
        # Nothing can be sent there (and a bad To must never reach the outbox).
        log.info("reply to %r suppressed: unusable address", to_addr)
        return False
    if rules.rate_limit_exceeded(
        _recent_replies(session, to_addr, now), now, per_hour=settings.reply_rate_per_hour
    ):
        log.info("reply to %s suppressed: rate limit", to_addr)
        return False
    if kind == "instructions" and player_id is None and rules.rate_limit_exceeded(
        _recent_instructions(session, now), now, per_hour=settings.instructions_per_hour
    ):
        # A stranger cycling through forged From addresses must not turn the intake into
        # a mail cannon: the instructions to non-players, all addresses together, are
        # bounded. Those to a registered address (player_id set) are not counted, so a
        # flood cannot starve a player of his own instructions.
        log.info("instructions to %s suppressed: global limit", to_addr)
        return False
    headers = {"Auto-Submitted": "auto-replied"}
    if inbound.message_id:
        headers["In-Reply-To"] = inbound.message_id
        headers["References"] = inbound.message_id
    if kind == "instructions":
        # Never echo what a stranger wrote (the subject would make us relay his text).
        context["original_subject"] = None
    else:
        original_subject = parse.header(msg, "Subject") if msg is not None else ""
        context.setdefault("original_subject", original_subject or None)
    notify.enqueue(
        session=session,
        kind=kind,
        to_addr=to_addr,
        template=kind,
        context=context,
        dedupe_key=f"{kind}:inbound:{inbound.id}",
        player_id=player_id,
        headers=headers,
    )
    return True


def _open_problems(session: Session) -> list[Problem]:
    return list(
        session.exec(
            select(Problem)
            .where(Problem.status.in_(ACCEPTING))  # type: ignore[attr-defined]
            .order_by(Problem.deadline_at)  # type: ignore[arg-type]
        ).all()
    )


def _problem_list(problems: list[Problem]) -> list[dict[str, Any]]:
    return [{"code": p.code, "title": p.title, "deadline": p.deadline_at} for p in problems]


def _not_accepting_note(session: Session, hints: identify.ProblemHints) -> str | None:
    """When the player named a problem that exists but takes no sheet, say so."""
    every = list(session.exec(select(Problem)).all())
    refs = [identify.ProblemRef(p.id or 0, p.code, p.title) for p in every]
    named = identify.match_problem(identify.ProblemHints(hints.explicit, hints.soft[:-1]), refs)
    if named is None:
        return None
    problem = next(p for p in every if p.id == named.id)
    if problem.status in (ProblemStatus.DRAFT, ProblemStatus.SCHEDULED):
        state = "n'est pas encore publié"
    else:
        state = "a déjà son classement définitif"
    return (f"Le problème « {problem.title} » ({problem.code}) {state} : il n'accepte pas de "
            "feuille de route.")


def _record_bounces(session: Session, msg: Any, now: datetime) -> list[str]:
    bounced = rules.bounced_recipients(msg)
    for addr in bounced:
        player = session.exec(
            select(Player).where(sa.func.lower(Player.email) == addr.lower())
        ).first()
        if player is not None:
            player.bounce_count += 1
            player.last_bounce_at = now
            session.add(player)
    return bounced


def _find_player_by_token(session: Session, token: str) -> Player | None:
    player = session.exec(select(Player).where(Player.token == token)).first()
    if player is None:
        # Some mailers lower-case the whole address; tokens are compared case-insensitively.
        player = session.exec(
            select(Player).where(sa.func.lower(Player.token) == token.lower())
        ).first()
    return player


def _bad_sender_note(address: str, problem: str | None) -> str:
    if problem is None:
        return ""
    return f" ; adresse d'expéditeur « {address} » inutilisable ({problem}) : pas de réponse"


def _finish(row: InboundMessage, status: str, error: str | None = None) -> None:
    row.status = status
    row.error = error
    row.processed_at = clock.now()


def _process_in(session: Session, settings: MailSettings, row: InboundMessage) -> None:
    earlier = _earlier_copy(session, row)
    if earlier is not None:
        _finish(row, InboundStatus.DUPLICATE, f"doublon du message n° {earlier.id}")
        row.player_id, row.problem_id = earlier.player_id, earlier.problem_id
        return
    msg = parse.parse_message(row.raw)
    verdict = rules.classify(msg, row.envelope_from)
    now = clock.now()
    if verdict.kind == "bounce":
        bounced = _record_bounces(session, msg, now)
        _finish(row, InboundStatus.PROCESSED,
                "avis de non-remise pour " + (", ".join(bounced) or "adresse inconnue"))
        return
    if not verdict.may_submit:
        _finish(row, InboundStatus.IGNORED, f"message automatique ignoré : {verdict.reason}")
        return

    sender = identify.sender_of(msg)
    token = identify.find_token(row.envelope_to, msg, settings.submit_localpart)
    bad_sender = addresses.address_problem(sender.address) if sender.address else None
    reply_to_unknown = (sender.address if verdict.may_reply and sender.address
                        and bad_sender is None else None)
    problems = _open_problems(session)
    listed = [p for p in problems if p.status in CURRENT]  # shown as « problèmes ouverts »

    player = _find_player_by_token(session, token) if token else None
    if player is None:
        known = None
        if sender.address and bad_sender is None:
            known = session.exec(
                select(Player).where(sa.func.lower(Player.email) == sender.address)
            ).first()
        if known is not None and verdict.may_reply:
            # A registered address without its token: the answer goes to the registered
            # address (never to a Reply-To), so a forger learns nothing.
            _reply(session, settings, kind="instructions", to_addr=known.email,
                   context={"sender": known.email, "reason": "no_token",
                            "personal_address": notify.submission_address(known),
                            "open_problems": _problem_list(listed)},
                   inbound=row, msg=msg, player_id=known.id)
        elif reply_to_unknown:
            # One answer for an unknown address, an unknown token and a token used from the
            # wrong address: a stranger must not learn whether a token exists.
            _reply(session, settings, kind="instructions", to_addr=reply_to_unknown,
                   context={"sender": reply_to_unknown, "reason": "unknown",
                            "open_problems": _problem_list(listed)},
                   inbound=row, msg=msg)
        _finish(row, InboundStatus.IGNORED,
                ("jeton inconnu" if token else "expéditeur non identifié (pas de jeton)")
                + _bad_sender_note(sender.address, bad_sender))
        return
    if sender.address != player.email.lower():
        if reply_to_unknown:
            _reply(session, settings, kind="instructions", to_addr=reply_to_unknown,
                   context={"sender": reply_to_unknown, "reason": "unknown",
                            "open_problems": _problem_list(listed)},
                   inbound=row, msg=msg)
        _finish(row, InboundStatus.IGNORED,
                f"l'expéditeur {sender.address or '(vide)'} ne correspond pas au joueur "
                f"n° {player.id}" + _bad_sender_note(sender.address, bad_sender))
        return
    row.player_id = player.id

    extracted = parse.extract_sheet(msg)
    if _correspondence_move(session, row, player, msg, extracted.text):
        return
    if _duplicate_bulletin(session, row, player, msg, extracted.text):
        return
    hints, sheet_text = identify.problem_refs(parse.header(msg, "Subject"), extracted.text)
    refs = [identify.ProblemRef(p.id or 0, p.code, p.title) for p in problems]
    current = [r for r, p in zip(refs, problems, strict=True) if p.status in CURRENT]
    chosen = identify.match_problem(hints, refs, fallback=current)
    if chosen is None:
        note = _not_accepting_note(session, hints)
        _reply(session, settings, kind="ambiguity", to_addr=player.email,
               context={"player_name": player.name, "open_problems": _problem_list(listed),
                        "submission_address": None, "note": note},
               inbound=row, msg=msg, player_id=player.id)
        _finish(row, InboundStatus.IGNORED, note or "problème non précisé ou inconnu")
        return
    problem = session.get(Problem, chosen.id)
    assert problem is not None
    row.problem_id = problem.id
    if not sheet_text.strip():
        _reply(session, settings, kind="parse_errors", to_addr=player.email,
               context={"player_name": player.name, "problem_title": problem.title,
                        "deadline": problem.deadline_at,
                        "errors": [{"line": 1, "message": "aucun texte de feuille de route "
                                    "trouvé dans le message (ni corps texte ni pièce jointe "
                                    ".txt/.csv)"}]},
               inbound=row, msg=msg, player_id=player.id)
        _finish(row, InboundStatus.PROCESSED, "message sans feuille de route")
        return

    try:
        outcome = submissions.submit_sheet(
            session=session,
            player=player,
            problem=problem,
            text=sheet_text,
            channel=Channel.EMAIL,
            received_at=row.received_at,
            inbound_message_id=row.id,
            in_reply_to=row.message_id,
            ignored_lines=list(extracted.ignored),
        )
    except submissions.SubmissionRefused as exc:
        # not registered, too many sheets: nothing stored; the player is told why
        _reply(session, settings, kind="refused", to_addr=player.email,
               context={"player_name": player.name, "problem_title": problem.title,
                        "reason": str(exc)},
               inbound=row, msg=msg, player_id=player.id)
        _finish(row, InboundStatus.IGNORED, f"feuille refusée : {exc}")
        return
    submission = getattr(outcome, "submission", None)
    row.submission_id = getattr(submission, "id", None) or getattr(outcome, "submission_id", None)
    _finish(row, InboundStatus.PROCESSED, None)


def _duplicate_bulletin(
    session: Session, row: InboundMessage, player: Player, msg: Any, text: str
) -> bool:
    """A bulletin for a running Duplicate (webapp.services.duplicate.claim_mail decides):
    stored with its receipt, and the message is done."""
    outcome = duplicate.claim_mail(
        session=session, player=player, subject=parse.header(msg, "Subject"), text=text,
        received_at=row.received_at, inbound_message_id=row.id, in_reply_to=row.message_id)
    if outcome is None:
        return False
    _finish(row, InboundStatus.PROCESSED, f"bulletin Duplicate n° {outcome.entry.id}")
    return True


def _correspondence_move(
    session: Session, row: InboundMessage, player: Player, msg: Any, text: str
) -> bool:
    """A move of a two-player correspondence game whose code is in the subject
    (webapp.services.correspondence.claim_mail): played, or refused with a French answer."""
    claimed = correspondence.claim_mail(session=session, player=player,
                                        subject=parse.header(msg, "Subject"), text=text,
                                        received_at=row.received_at)
    if claimed is None:
        return False
    _finish(row, InboundStatus.PROCESSED, f"partie par correspondance {claimed[0].code} : "
            f"{claimed[1]}")
    return True


def _take_write_lock(session: Session, ids: list[int]) -> None:
    """Open the transaction with a write on the rows to process.

    On PostgreSQL this locks them (two processors never work on one message). On SQLite in
    WAL mode it takes the write lock *before* any read: a transaction that reads first and
    writes later fails at once with "database is locked" if another writer committed in
    between, whereas a first write waits for the lock (busy timeout).
    """
    table = InboundMessage.__table__  # type: ignore[attr-defined]
    session.execute(
        sa.update(table)
        .where(table.c.id.in_(ids), table.c.status == InboundStatus.STORED)
        .values(status=InboundStatus.STORED)
    )


def process(app: Flask, inbound_id: int) -> str:
    """Run the pipeline on one stored message; returns its final status.

    Safe to call twice: only a ``stored`` message is worked on, and the status change
    commits with the submission and the replies.
    """
    settings = MailSettings.from_config(app.config)
    try:
        with app.app_context(), write_scope(app) as session:
            _take_write_lock(session, [inbound_id])
            row = session.exec(
                select(InboundMessage).where(InboundMessage.id == inbound_id)
            ).one()
            if row.status != InboundStatus.STORED:
                return row.status
            _process_in(session, settings, row)
            session.add(row)
            return row.status
    except Exception as exc:  # the message must stay visible and replayable
        log.exception("inbound message %s quarantined", inbound_id)
        with write_scope(app) as session:
            failed = session.get(InboundMessage, inbound_id)
            if failed is None:
                raise
            if failed.status == InboundStatus.STORED:
                failed.status = InboundStatus.QUARANTINED
                failed.error = f"erreur de traitement : {type(exc).__name__}: {exc}"[:2000]
                failed.processed_at = clock.now()
                session.add(failed)
            return failed.status


def process_batch(app: Flask, ids: list[int]) -> dict[int, str]:
    """Process several stored messages in one transaction, each in its own savepoint.

    A message whose processing raises is rolled back to its savepoint and quarantined; the
    others commit together (one disk sync). If the transaction itself fails, each message is
    retried alone with :func:`process`.
    """
    settings = MailSettings.from_config(app.config)
    result: dict[int, str] = {}
    try:
        with app.app_context(), write_scope(app) as session:
            _take_write_lock(session, ids)
            for inbound_id in ids:
                row = session.get(InboundMessage, inbound_id)
                if row is None:
                    continue
                if row.status != InboundStatus.STORED:
                    result[inbound_id] = row.status
                    continue
                try:
                    with session.begin_nested():
                        _process_in(session, settings, row)
                        session.add(row)
                        session.flush()
                except Exception as exc:
                    log.exception("inbound message %s quarantined", inbound_id)
                    session.refresh(row)
                    row.status = InboundStatus.QUARANTINED
                    row.error = f"erreur de traitement : {type(exc).__name__}: {exc}"[:2000]
                    row.processed_at = clock.now()
                    session.add(row)
                result[inbound_id] = row.status
        return result
    except Exception:
        log.exception("batch of %d messages failed; processing them one by one", len(ids))
        return {i: process(app, i) for i in ids}


def process_pending(app: Flask, limit: int = 500) -> int:
    """Process messages left ``stored`` (a crash between storing and processing)."""
    with write_scope(app) as session:
        ids = list(
            session.exec(
                select(InboundMessage.id)
                .where(InboundMessage.status == InboundStatus.STORED)
                .order_by(InboundMessage.id)  # type: ignore[arg-type]
                .limit(limit)
            ).all()
        )
    for inbound_id in ids:
        assert inbound_id is not None
        process(app, inbound_id)
    return len(ids)


def replay(app: Flask, inbound_id: int) -> str:
    """Run a quarantined (or ignored) message through the pipeline again."""
    with write_scope(app) as session:
        row = session.get(InboundMessage, inbound_id)
        if row is None:
            raise LookupError(f"message n° {inbound_id} introuvable")
        if row.status not in (InboundStatus.QUARANTINED, InboundStatus.IGNORED):
            raise ValueError(
                f"message n° {inbound_id} : statut « {row.status} », seul un message en "
                "quarantaine ou ignoré peut être rejoué"
            )
        row.status = InboundStatus.STORED
        row.error = None
        session.add(row)
    return process(app, inbound_id)


def discard(app: Flask, inbound_id: int, reason: str = "") -> None:
    """Mark a quarantined message as discarded (kept in the database, never processed)."""
    with session_scope(app) as session:
        row = session.get(InboundMessage, inbound_id)
        if row is None:
            raise LookupError(f"message n° {inbound_id} introuvable")
        if row.status != InboundStatus.QUARANTINED:
            raise ValueError(
                f"message n° {inbound_id} : statut « {row.status} », seul un message en "
                "quarantaine peut être écarté"
            )
        row.status = InboundStatus.DISCARDED
        row.error = f"écarté par l'arbitre{' : ' + reason if reason else ''}"
        row.processed_at = clock.now()
        session.add(row)


def quarantined(app: Flask) -> list[InboundMessage]:
    with session_scope(app) as session:
        return list(
            session.exec(
                select(InboundMessage)
                .where(InboundMessage.status == InboundStatus.QUARANTINED)
                .order_by(InboundMessage.id)  # type: ignore[arg-type]
            ).all()
        )


def receive(
    app: Flask, raw: bytes, *, channel: str, envelope_from: str, envelope_to: list[str]
) -> tuple[int, str]:
    """Store then process; returns (inbound id, status). Raises only if storing fails."""
    stored = store_raw(app, raw, channel=channel, envelope_from=envelope_from,
                       envelope_to=envelope_to)
    return stored.id, process(app, stored.id)

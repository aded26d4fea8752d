"""The outbox sender: delivers ``OutboxMessage`` rows, exactly once in effect.

Owns delivery only (composition is :mod:`mailer.compose`, enqueueing is
``webapp.services.notify.enqueue``). A worker:

1. **claims** due rows with a guarded status transition (``pending`` -> ``sending``, or a
   ``sending`` row whose lease ran out -> ``sending`` again): ``UPDATE ... WHERE id = ? AND
   status = ? AND attempts = ?`` succeeds for one worker only, and the claim commits before
   any network traffic;
2. sends with **aiosmtplib** through ``SMTP_RELAY`` (optional STARTTLS/TLS and login) — or,
   with no relay configured, appends to ``instance/outbox.mbox``;
3. marks the row ``sent``, or puts it back to ``pending`` with an exponential backoff
   (``failed`` after ``OUTBOX_MAX_ATTEMPTS`` or on a permanent 5xx refusal).

The Message-ID is fixed when the row is enqueued, so a message retried after a crash between
the send and the ``sent`` mark carries the same Message-ID (recipients' mail programs show
it once; the local mbox skips a Message-ID it already holds).
"""

from __future__ import annotations

import asyncio
import logging
import mailbox
import threading
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses, parseaddr
from pathlib import Path
from typing import Any

import aiosmtplib
import sqlalchemy as sa
from flask import Flask
from sqlmodel import select

from mailer.settings import MailSettings, host_port
from mailer.txn import write_scope
from webapp.db import session_scope
from webapp.models import OutboxMessage, OutboxStatus
from webapp.services import clock

log = logging.getLogger(__name__)

MBOX_NAME = "outbox.mbox"


@dataclass(frozen=True)
class Claimed:
    id: int
    attempts: int


def build_message(row: OutboxMessage, mail_from: str) -> EmailMessage:
    """The ``EmailMessage`` for a row: text part, HTML alternative, stored headers."""
    msg = EmailMessage()
    msg["From"] = mail_from
    msg["To"] = row.to_addr
    msg["Subject"] = row.subject
    msg["Date"] = format_datetime(row.created_at)
    msg["Message-ID"] = row.message_id
    headers = dict(row.headers or {})
    headers.setdefault("Auto-Submitted", "auto-generated")
    # Ask Exchange & co. not to answer our notices with their own automatic replies.
    headers.setdefault("X-Auto-Response-Suppress", "All")
    headers.setdefault("X-Arbitre-Kind", row.kind)
    for name, value in headers.items():
        if name.lower() in ("from", "to", "subject", "date", "message-id"):
            continue
        msg[name] = value
    msg.set_content(row.body_text)
    if row.body_html:
        msg.add_alternative(row.body_html, subtype="html")
    return msg


def backoff(attempts: int, settings: MailSettings) -> timedelta:
    """Delay before attempt ``attempts + 1``: base × 2^(attempts-1), capped."""
    seconds = settings.backoff_seconds * (2 ** max(0, attempts - 1))
    return timedelta(seconds=min(seconds, settings.backoff_max_seconds))


def claim(app: Flask, settings: MailSettings, now: datetime | None = None) -> list[Claimed]:
    """Claim up to ``batch`` due rows for this worker (each claim is its own commit)."""
    now = now or clock.now()
    lease_until = now + timedelta(seconds=settings.lease_seconds)
    with session_scope(app) as session:
        due = session.exec(
            select(OutboxMessage.id, OutboxMessage.status, OutboxMessage.attempts)
            .where(
                OutboxMessage.status.in_(  # type: ignore[attr-defined]
                    [OutboxStatus.PENDING, OutboxStatus.SENDING]
                ),
                OutboxMessage.next_attempt_at <= now,
            )
            .order_by(OutboxMessage.next_attempt_at, OutboxMessage.id)  # type: ignore[arg-type]
            .limit(settings.batch)
        ).all()
    claimed: list[Claimed] = []
    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    # One transaction for the batch; each UPDATE is guarded by the values just read, so a
    # row another worker claimed in between simply matches nothing here.
    with write_scope(app) as session:
        for row_id, status, attempts in due:
            assert row_id is not None
            result = session.execute(
                sa.update(table)
                .where(table.c.id == row_id, table.c.status == status,
                       table.c.attempts == attempts)
                .values(status=OutboxStatus.SENDING, attempts=attempts + 1,
                        next_attempt_at=lease_until)
            )
            if result.rowcount == 1:  # type: ignore[attr-defined]
                claimed.append(Claimed(row_id, attempts + 1))
    return claimed


def _mark(app: Flask, c: Claimed, **values: Any) -> None:
    _mark_many(app, [(c, values)])


def _mark_many(app: Flask, marks: list[tuple[Claimed, dict[str, Any]]]) -> None:
    """Record outcomes in one transaction; only rows still held by this claim change."""
    if not marks:
        return
    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    with write_scope(app) as session:
        for c, values in marks:
            session.execute(
                sa.update(table)
                .where(table.c.id == c.id, table.c.status == OutboxStatus.SENDING,
                       table.c.attempts == c.attempts)
                .values(**values)
            )


def mbox_path(app: Flask) -> Path:
    return Path(app.instance_path) / MBOX_NAME


_mbox_lock = threading.Lock()


def _deliver_local(app: Flask, msg: EmailMessage) -> None:
    path = mbox_path(app)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _mbox_lock:
        box = mailbox.mbox(str(path), create=True)
        box.lock()
        try:
            message_id = str(msg["Message-ID"])
            if any(str(m.get("Message-ID", "")) == message_id for m in box):
                return  # already appended before a crash: same Message-ID, nothing twice
            box.add(msg)
            box.flush()
        finally:
            box.unlock()
            box.close()


async def _deliver_relay(msg: EmailMessage, settings: MailSettings, sender: str) -> None:
    host, port = host_port(settings.relay, 25)
    await aiosmtplib.send(
        msg,
        sender=sender,
        recipients=[a for _, a in getaddresses([str(msg["To"])]) if a],
        hostname=host,
        port=port,
        username=settings.smtp_username or None,
        password=settings.smtp_password or None,
        start_tls=settings.smtp_starttls,
        use_tls=settings.smtp_tls,
        timeout=settings.smtp_timeout,
    )


def _permanent(exc: BaseException) -> bool:
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused):
        return all(500 <= r.code < 600 for r in exc.recipients)
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return 500 <= exc.code < 600
    return False


def _load(app: Flask, claims: list[Claimed], mail_from: str) -> dict[int, EmailMessage]:
    with session_scope(app) as session:
        found = session.exec(
            select(OutboxMessage).where(
                OutboxMessage.id.in_([c.id for c in claims])  # type: ignore[union-attr]
            )
        ).all()
        return {r.id: build_message(r, mail_from) for r in found if r.id is not None}


async def _attempt(app: Flask, settings: MailSettings, c: Claimed,
                   msg: EmailMessage | None) -> dict[str, Any]:
    """Deliver one claimed message; returns the column values recording the outcome."""
    if msg is None:
        return {"status": OutboxStatus.FAILED, "last_error": "message introuvable"}
    sender = parseaddr(settings.mail_from)[1] or "arbitre@localhost"
    try:
        if settings.relay:
            await _deliver_relay(msg, settings, sender)
        else:
            await asyncio.to_thread(_deliver_local, app, msg)
    except Exception as exc:
        now = clock.now()
        error = f"{type(exc).__name__}: {exc}"[:2000]
        if _permanent(exc) or c.attempts >= settings.max_attempts:
            log.warning("outbox %s failed for good: %s", c.id, error)
            return {"status": OutboxStatus.FAILED, "last_error": error}
        log.info("outbox %s attempt %s failed: %s", c.id, c.attempts, error)
        return {"status": OutboxStatus.PENDING, "last_error": error,
                "next_attempt_at": now + backoff(c.attempts, settings)}
    return {"status": OutboxStatus.SENT, "sent_at": clock.now(), "last_error": None}


async def send_one(app: Flask, settings: MailSettings, c: Claimed) -> bool:
    """Deliver one claimed row and record the outcome; True when it is now ``sent``."""
    msgs = await asyncio.to_thread(_load, app, [c], settings.mail_from)
    outcome = await _attempt(app, settings, c, msgs.get(c.id))
    await asyncio.to_thread(_mark, app, c, **outcome)
    return bool(outcome["status"] == OutboxStatus.SENT)


async def send_due(app: Flask, settings: MailSettings | None = None) -> int:
    """Claim and send everything due now; returns how many were sent."""
    settings = settings or MailSettings.from_config(app.config)
    sent = 0
    while True:
        batch = await asyncio.to_thread(claim, app, settings)
        if not batch:
            return sent
        msgs = await asyncio.to_thread(_load, app, batch, settings.mail_from)
        outcomes = await asyncio.gather(*(_attempt(app, settings, c, msgs.get(c.id))
                                          for c in batch))
        await asyncio.to_thread(_mark_many, app, list(zip(batch, outcomes, strict=True)))
        sent += sum(1 for o in outcomes if o["status"] == OutboxStatus.SENT)
        if len(batch) < settings.batch:
            return sent


def send_pending(app: Flask) -> int:
    """Synchronous one-shot (``arbitre mail send-outbox``)."""
    return asyncio.run(send_due(app))


class OutboxWorker:
    """A thread that sends the outbox every ``OUTBOX_POLL_SECONDS`` until stopped."""

    def __init__(self, app: Flask) -> None:
        self.app = app
        self.settings = MailSettings.from_config(app.config)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread = threading.Thread(target=self._run, name="arbitre-outbox", daemon=True)

    def start(self) -> OutboxWorker:
        self._thread.start()
        return self

    def wake(self) -> None:
        """Send now rather than at the next tick (called after an enqueue)."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                asyncio.run(send_due(self.app, self.settings))
            except Exception:
                log.exception("outbox worker pass failed; retrying at the next tick")
            self._wake.wait(self.settings.poll_seconds)
            self._wake.clear()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout)


def read_local_mailbox(app: Flask) -> list[dict[str, Any]]:
    """Messages delivered to the local mbox (no relay configured), oldest first.

    Each dict: ``message_id``, ``from``, ``to``, ``subject``, ``date``, ``kind``,
    ``auto_submitted``, ``in_reply_to``, ``text``, ``html`` (or None).
    """
    path = mbox_path(app)
    if not path.exists():
        return []
    import email.policy

    out: list[dict[str, Any]] = []
    box = mailbox.mbox(str(path), create=False)
    try:
        for key in box.iterkeys():
            raw = box.get_bytes(key)
            msg = email.message_from_bytes(raw, policy=email.policy.default)
            assert isinstance(msg, EmailMessage)
            text_part = msg.get_body(preferencelist=("plain",))
            html_part = msg.get_body(preferencelist=("html",))
            out.append({
                "message_id": str(msg.get("Message-ID", "")),
                "from": str(msg.get("From", "")),
                "to": str(msg.get("To", "")),
                "subject": str(msg.get("Subject", "")),
                "date": str(msg.get("Date", "")),
                "kind": str(msg.get("X-Arbitre-Kind", "")),
                "auto_submitted": str(msg.get("Auto-Submitted", "")),
                "in_reply_to": str(msg.get("In-Reply-To", "")),
                "text": text_part.get_content() if text_part is not None else "",
                "html": html_part.get_content() if html_part is not None else None,
            })
    finally:
        box.close()
    return out

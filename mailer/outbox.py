"""The outbox sender: delivers ``OutboxMessage`` rows, exactly once in effect.

Owns delivery only (composition is :mod:`mailer.compose`, enqueueing is
``webapp.services.notify.enqueue``). A worker:

1. **claims** due rows with a guarded status transition (``pending`` -> ``sending``, or a
   ``sending`` row whose lease ran out -> ``sending`` again): ``UPDATE ... WHERE id = ? AND
   status = ? AND attempts = ?`` succeeds for one worker only, and the claim commits before
   any network traffic. The claim records the holder (host, pid, start stamp:
   :mod:`mailer.holder`); a ``sending`` row whose holder ran on this host and is surely gone
   (killed, crashed) is taken back at once, without waiting for the lease;
2. sends with **aiosmtplib** through ``SMTP_RELAY`` (optional STARTTLS/TLS and login) over at
   most ``OUTBOX_CONNECTIONS`` connections kept open for the whole pass, one envelope after
   the other (:class:`RelayConnections`) — or, with no relay configured, appends to
   ``instance/outbox.mbox``;
3. marks the row ``sent``, or puts it back to ``pending`` with an exponential backoff
   (``failed`` after ``OUTBOX_MAX_ATTEMPTS`` or on a permanent 5xx refusal).

The Message-ID is fixed when the row is enqueued, so a message retried after a crash between
the send and the ``sent`` mark carries the same Message-ID (recipients' mail programs show
it once; the local mbox skips a Message-ID it already holds).
"""

from __future__ import annotations

import asyncio
import contextlib
import email.policy
import fcntl
import functools
import io
import logging
import mailbox
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.contentmanager import ContentManager
from email.generator import BytesGenerator
from email.message import EmailMessage
from email.utils import format_datetime, getaddresses, parseaddr
from pathlib import Path
from typing import Any, BinaryIO

import aiosmtplib
import sqlalchemy as sa
from flask import Flask
from sqlmodel import Session, select

from mailer import holder, wire
from mailer.settings import MBOX_NAME, MailSettings, host_port, mbox_path
from mailer.txn import write_scope
from mailer.wire import POLICY, subject_header
from webapp.db import session_scope
from webapp.models import OutboxMessage, OutboxStatus
from webapp.services import addresses, clock, notify

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Claimed:
    id: int
    attempts: int


#: the headers :func:`build_message` sets from the row's own columns, never from its headers
_OWN_HEADERS = frozenset({"from", "to", "subject", "date", "message-id"})
#: the body's own headers, which a row's headers cannot set
_BODY_HEADERS = frozenset({"content-type", "content-transfer-encoding"})


def row_headers(row: OutboxMessage) -> list[tuple[str, str]]:
    """The row's stored headers with the defaults (``Auto-Submitted``,
    ``X-Auto-Response-Suppress``, ``X-Arbitre-Kind``), in order, without those the row's
    columns set (From, To, Subject, Date, Message-ID) or the body's MIME type and encoding."""
    headers = dict(row.headers or {})
    headers.setdefault("Auto-Submitted", "auto-generated")
    # Ask Exchange & co. not to answer our notices with their own automatic replies.
    headers.setdefault("X-Auto-Response-Suppress", "All")
    headers.setdefault("X-Arbitre-Kind", row.kind)
    return [(name, value) for name, value in headers.items()
            if name.lower() not in _OWN_HEADERS | _BODY_HEADERS]


def build_message(row: OutboxMessage, mail_from: str) -> EmailMessage:
    """The ``EmailMessage`` for a row: text part, HTML alternative, stored headers (the
    ``Content-*`` ones, ``Content-Language``, set on the whole message once its body is:
    setting the body clears them)."""
    msg = EmailMessage(policy=POLICY)
    msg["From"] = mail_from
    msg["To"] = row.to_addr
    msg["Subject"] = subject_header(row.subject)
    msg["Date"] = format_datetime(row.created_at)
    msg["Message-ID"] = row.message_id
    headers = row_headers(row)
    for name, value in headers:
        if not name.lower().startswith("content-"):
            msg[name] = value
    msg.set_content(row.body_text, content_manager=FAST_TEXT)
    if row.body_html:
        msg.add_alternative(row.body_html, subtype="html", content_manager=FAST_TEXT)
    for name, value in headers:
        if name.lower().startswith("content-"):
            msg[name] = value
    return msg


def _set_text(msg: EmailMessage, text: str, subtype: str = "plain") -> None:
    """A text part in UTF-8, as ``email``'s own ``raw_data_manager`` writes it (lines ended
    by the policy's ``linesep``; ``7bit`` when every line is ASCII and short enough) but
    encoded quoted-printable by ``binascii.b2a_qp`` (C, :func:`mailer.wire.encode_text`)
    instead of the pure-Python ``quoprimime`` it otherwise runs on the whole body, after
    trying quoted-printable and base64 on its first lines: 5 ms of the 6 a results mail
    cost to build. The decoded text is the same."""
    cte, body = wire.encode_text(text)
    linesep = msg.policy.linesep.encode("ascii")
    msg["Content-Type"] = f"text/{subtype}"
    msg.set_payload(body.replace(b"\n", linesep).decode("ascii"))
    msg.set_param("charset", "utf-8", replace=True)
    msg["Content-Transfer-Encoding"] = cte


#: the content manager of :func:`build_message`: text parts by :func:`_set_text`
FAST_TEXT = ContentManager()
FAST_TEXT.add_set_handler(str, _set_text)


def backoff(attempts: int, settings: MailSettings) -> timedelta:
    """Delay before attempt ``attempts + 1``: base × 2^(attempts-1), capped."""
    seconds = settings.backoff_seconds * (2 ** max(0, attempts - 1))
    return timedelta(seconds=min(seconds, settings.backoff_max_seconds))


def _orphans(session: Session, me: holder.Holder,
             now: datetime) -> list[tuple[int, OutboxStatus, int]]:
    """``sending`` rows still under lease whose holder ran on this host and is surely gone
    (killed, crashed, host restarted into this same boot's pid namespace): (id, status,
    attempts) of each, oldest first. Each holder is judged once."""
    t = OutboxMessage.__table__  # type: ignore[attr-defined]
    held = session.execute(
        sa.select(t.c.id, t.c.status, t.c.attempts, t.c.holder_pid, t.c.holder_start)
        .where(t.c.status == OutboxStatus.SENDING, t.c.next_attempt_at > now,
               t.c.holder_host == me.host)
        .order_by(t.c.id)
    ).all()
    verdicts: dict[tuple[int | None, str | None], bool] = {}
    found: list[tuple[int, OutboxStatus, int]] = []
    for row_id, status, attempts, pid, start in held:
        key = (pid, start)
        if key not in verdicts:
            verdicts[key] = holder.is_gone(me.host, pid, start, me=me)
            if verdicts[key]:
                log.warning("outbox: process %s (pid %s) is gone; its rows are taken back "
                            "without waiting for the lease", me.host, pid)
        if verdicts[key]:
            found.append((row_id, status, attempts))
    return found


def claimable(now: Any) -> sa.ColumnElement[bool]:
    """The rows a sender claims at ``now`` (a time, or a bound parameter): ``pending`` and
    due, or ``sending`` past its lease (a sender that stopped). Read on the partial index of
    the unsent rows (``ix_outbox_message_due``); the in-flow backlog counts them too
    (:mod:`mailer.flow`)."""
    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    return sa.and_(table.c.status.in_([OutboxStatus.PENDING, OutboxStatus.SENDING]),
                   table.c.next_attempt_at <= now)


def claim(app: Flask, settings: MailSettings, now: datetime | None = None) -> list[Claimed]:
    """Claim up to ``batch`` due rows for this worker: first the ``sending`` rows of a process
    of this host that is gone (:mod:`mailer.holder`), then the rows due now (``pending``,
    or ``sending`` past the lease). Each claim records this process as the holder."""
    now = now or clock.now()
    lease_until = now + timedelta(seconds=settings.lease_seconds)
    me = holder.this_process()
    claimed: list[Claimed] = []
    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    holder_values = {"next_attempt_at": lease_until, "holder_host": me.host,
                     "holder_pid": me.pid, "holder_start": me.start}
    due_now = (
        sa.select(table.c.id, table.c.status, table.c.attempts)
        .where(claimable(now))
        .order_by(table.c.next_attempt_at, table.c.id)
        .limit(settings.batch)
    )
    # One transaction for the batch: the rows read, then claimed. On PostgreSQL the due rows
    # are read FOR UPDATE SKIP LOCKED, so senders claiming at the same time (the sender
    # processes, ``OUTBOX_SENDER_PROCESSES``) each get rows of their own, none waiting for
    # another (SQLite has one writer: the write scope serialises the claims). Each UPDATE
    # is guarded by the values just read all the same, so a row another worker claimed in
    # between simply matches nothing here.
    with write_scope(app) as session:
        if session.get_bind().dialect.name == "postgresql":
            due_now = due_now.with_for_update(skip_locked=True)
        orphans = _orphans(session, me, now) if me.start is not None else []
        due = session.execute(due_now).all()
        seen = {row_id for row_id, _, _ in orphans}
        candidates = [*orphans, *((i, st, a) for i, st, a in due if i not in seen)]
        del candidates[settings.batch:]
        # The pending rows due now, the bulk of every pass, in one guarded UPDATE: a row
        # another worker claimed in between is ``sending`` (or, put back after a failure,
        # due later) and matches nothing here; RETURNING says which rows are ours, with
        # their new count.
        fresh = {i for i, st, _ in candidates if st == OutboxStatus.PENDING and i not in seen}
        got: dict[int, int] = {}
        if fresh:
            got = dict(session.execute(
                sa.update(table)
                .where(table.c.id.in_(fresh), table.c.status == OutboxStatus.PENDING,
                       table.c.next_attempt_at <= now)
                .values(status=OutboxStatus.SENDING, attempts=table.c.attempts + 1,
                        **holder_values)
                .returning(table.c.id, table.c.attempts)
            ).all())
        for row_id, status, attempts in candidates:
            if row_id in fresh:
                if row_id in got:
                    claimed.append(Claimed(row_id, got[row_id]))
                continue
            assert row_id is not None
            if status == OutboxStatus.SENDING and attempts >= settings.max_attempts:
                # Every attempt was interrupted (the process died mid-send each time): the
                # limit applies to these too, or the row would be retried for ever.
                session.execute(
                    sa.update(table)
                    .where(table.c.id == row_id, table.c.status == status,
                           table.c.attempts == attempts)
                    .values(status=OutboxStatus.FAILED,
                            last_error=f"abandonné après {attempts} tentatives interrompues "
                                       "(processus arrêté pendant l'envoi)")
                )
                continue
            result = session.execute(
                sa.update(table)
                .where(table.c.id == row_id, table.c.status == status,
                       table.c.attempts == attempts)
                .values(status=OutboxStatus.SENDING, attempts=attempts + 1, **holder_values)
            )
            if result.rowcount == 1:  # type: ignore[attr-defined]
                claimed.append(Claimed(row_id, attempts + 1))
    return claimed


def _mark(app: Flask, c: Claimed, **values: Any) -> None:
    _mark_many(app, [(c, values)])


def _mark_many(app: Flask, marks: list[tuple[Claimed, dict[str, Any]]]) -> None:
    """Record outcomes in one transaction; only rows still held by this claim change.

    The outcomes setting the same columns (every ``sent`` row: status, time, no error) go
    in one ``executemany`` of the guarded UPDATE (psycopg sends them in one pipeline), not
    one round trip per row."""
    if not marks:
        return
    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for c, values in marks:
        params = {f"v_{k}": v for k, v in values.items()}
        params.update(b_id=c.id, b_attempts=c.attempts)
        groups.setdefault(tuple(sorted(values)), []).append(params)
    with write_scope(app) as session:
        for columns, rows in groups.items():
            session.execute(
                sa.update(table)
                .where(table.c.id == sa.bindparam("b_id"),
                       table.c.status == OutboxStatus.SENDING,
                       table.c.attempts == sa.bindparam("b_attempts"))
                .values({k: sa.bindparam(f"v_{k}") for k in columns}),
                rows,
            )


INDEX_SUFFIX = ".ids"

_mbox_lock = threading.Lock()


@dataclass
class _MboxIndex:
    """What this process knows of ``outbox.mbox.ids``: the Message-IDs written, how far the
    index file was read, and where the mbox ended after the last complete write."""

    ids: set[str]
    read_to: int
    end: int


_indexes: dict[str, _MboxIndex] = {}


def index_path(app: Flask) -> Path:
    return mbox_path(app).with_name(MBOX_NAME + INDEX_SUFFIX)


def _open_private(path: Path) -> BinaryIO:
    """``open(path, "ab")``, but a file created here is readable by the server's user only
    (0600): the local mailbox holds every player's mail and sign-in links."""
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), "ab")


@contextlib.contextmanager
def mbox_locked(path: Path, shared: bool = False) -> Iterator[BinaryIO]:
    """The mbox open for appending under an ``fcntl.flock`` lock.

    The kernel releases the lock when the holder dies (SIGKILL included), so a process
    killed mid-write never blocks the others — unlike the dot-lock file
    (``outbox.mbox.lock``) of :mod:`mailbox`, which is not used at all.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with _open_private(path) as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        try:
            yield handle
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _scan_ids(path: Path) -> set[str]:
    """Every Message-ID in an mbox (once, for an mbox written before the index existed)."""
    box = mailbox.mbox(str(path), create=False)
    try:
        return {"".join(str(m.get("Message-ID", "")).split()) for m in box}
    finally:
        box.close()


def _rebuild_index(path: Path, index: Path, size: int) -> _MboxIndex:
    ids = _scan_ids(path) if size else set()
    ids.discard("")
    with _open_private(index) as f:  # created 0600, like the mbox
        f.truncate(0)
        f.write("".join(f"{size}\t{i}\n" for i in sorted(ids)).encode("utf-8"))
    return _MboxIndex(ids, index.stat().st_size, size)


def _current_index(path: Path, index: Path, size: int) -> _MboxIndex:
    """The index, brought up to date by reading only what other writers appended to it.

    Called with the lock held. Each line is ``END<TAB>MESSAGE-ID``: the mbox size after that
    message was completely written, so a tail beyond the last ``END`` is a write cut short
    (the process died before indexing it; its outbox row is still ``sending`` and will be
    retried after the lease): it is cut off rather than left as half a message.
    """
    key = str(index)
    cached = _indexes.get(key)
    if not index.exists():
        cached = _rebuild_index(path, index, size)
    else:
        index_size = index.stat().st_size
        if cached is None or index_size < cached.read_to:
            cached = _MboxIndex(set(), 0, 0)
        if index_size > cached.read_to:
            with open(index, "rb") as f:
                f.seek(cached.read_to)
                chunk = f.read()
            complete = chunk[: chunk.rfind(b"\n") + 1]
            for line in complete.decode("utf-8", "replace").splitlines():
                end, _, message_id = line.partition("\t")
                if end.isdigit():
                    cached.end = int(end)
                    if message_id:
                        cached.ids.add(message_id)
            cached.read_to += len(complete)
            if len(complete) < len(chunk):  # an index line cut short by a crash
                with open(index, "r+b") as f:
                    f.truncate(cached.read_to)
    if size < cached.end:
        # The mbox was emptied or replaced by hand: the index no longer describes it.
        cached = _rebuild_index(path, index, size)
    _indexes[key] = cached
    return cached


def _mbox_bytes(msg: EmailMessage) -> bytes:
    """One mbox entry: ``From `` line, the message with ``>From`` quoting, a blank line."""
    buffer = io.BytesIO()
    generator = BytesGenerator(buffer, mangle_from_=True, policy=msg.policy.clone(linesep="\n"))
    generator.flatten(msg)
    body = buffer.getvalue()
    if not body.endswith(b"\n"):
        body += b"\n"
    stamp = time.strftime("%a %b %d %H:%M:%S %Y", time.gmtime())
    return f"From MAILER-DAEMON {stamp}\n".encode() + body + b"\n"


def _deliver_local(app: Flask, msg: EmailMessage) -> None:
    """Append ``msg`` to the local mbox unless its Message-ID is already there.

    The cost does not grow with the mailbox: the Message-IDs already written are kept in
    ``outbox.mbox.ids`` beside it and read incrementally (each writer reads only the lines
    added since its last look), never by re-reading the mbox.
    """
    path = mbox_path(app)
    index = index_path(app)
    message_id = "".join(str(msg.get("Message-ID") or "").split())
    data = _mbox_bytes(msg)
    with _mbox_lock, mbox_locked(path) as handle:
        size = os.fstat(handle.fileno()).st_size
        known = _current_index(path, index, size)
        if size > known.end:
            handle.truncate(known.end)  # half a message from a writer killed mid-append
            size = known.end
        if message_id and message_id in known.ids:
            return  # already appended before a crash: same Message-ID, nothing twice
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
        end = size + len(data)
        with _open_private(index) as f:
            f.write(f"{end}\t{message_id}\n".encode())
            f.flush()
            os.fsync(f.fileno())
            known.read_to = f.tell()
        if message_id:
            known.ids.add(message_id)
        known.end = end


@functools.cache
def _local_hostname() -> str:
    """The name given in EHLO, looked up once (``socket.getfqdn`` may ask the DNS)."""
    return socket.getfqdn()


#: a connection idle longer than this is checked with ``NOOP`` before it carries a message
#: (the relay may have closed it without our seeing it yet); a recent one is used as it is
CHECK_AFTER_SECONDS = 2.0


class RelayConnections:
    """The connections to ``SMTP_RELAY`` of a sender: of one pass, or of a sender thread or
    process for its whole life (:class:`OutboxWorker`, ``mailer.intake._sender_main``),
    each closed once idle ``OUTBOX_KEEP_SECONDS`` (:meth:`close_idle`).

    At most ``OUTBOX_CONNECTIONS`` are open at once; each carries message after message (one
    envelope at a time: ``MAIL``/``RCPT``/``DATA``), pass after pass, instead of a new
    connection, greeting (and TLS handshake and login, with a relay that asks for them)
    and ``QUIT`` per message or per pass. One idle more than :data:`CHECK_AFTER_SECONDS`
    is checked with a ``NOOP`` first; a connection that fails it is dropped and another
    taken, at no message's cost. A refusal the relay answered (a 4xx or 5xx
    to ``MAIL``, ``RCPT`` or ``DATA``) costs only its message: aiosmtplib resets the envelope
    (``RSET``) and the connection goes on with the next one. A connection that broke, timed
    out or was closed by the relay is dropped and the next message opens a new one; the
    message that was on it is retried like any failed attempt (backoff, same Message-ID),
    never re-sent at once.
    """

    def __init__(self, settings: MailSettings) -> None:
        self.settings = settings
        self.host, self.port = host_port(settings.relay, 25)
        self._slots = asyncio.Semaphore(settings.connections)
        #: the open connections not carrying a message, with when each was last used
        #: (monotonic), the most recent last
        self._idle: list[tuple[aiosmtplib.SMTP, float]] = []
        self.opened = 0  # connections opened so far (tests, bench)

    async def _open(self) -> aiosmtplib.SMTP:
        s = self.settings
        smtp = aiosmtplib.SMTP(
            hostname=self.host, port=self.port, local_hostname=_local_hostname(),
            username=s.smtp_username or None, password=s.smtp_password or None,
            start_tls=s.smtp_starttls, use_tls=s.smtp_tls, timeout=s.smtp_timeout,
        )
        await smtp.connect()
        self.opened += 1
        return smtp

    async def send(self, built: Built, sender: str) -> None:
        msg, recipients = built.msg, list(built.recipients)
        async with self._slots:
            smtp = await self._take()
            try:
                if msg is None:  # written directly (ASCII through and through): any relay
                    assert built.wire is not None
                    await smtp.sendmail(sender, recipients, built.wire)
                elif (built.wire is not None and smtp.supports_extension("8BITMIME")
                        and sender.isascii() and all(r.isascii() for r in recipients)):
                    # what send_message would flatten for this relay (8BITMIME, no
                    # SMTPUTF8), flattened once already by _build
                    await smtp.sendmail(sender, recipients, built.wire,
                                        mail_options=["BODY=8BITMIME"])
                else:  # the connection's first message (no EHLO yet), or another relay
                    await smtp.send_message(msg, sender=sender, recipients=recipients)
            except (aiosmtplib.SMTPResponseException, aiosmtplib.SMTPRecipientsRefused) as exc:
                # an answer from the relay (the envelope was reset): the connection goes on,
                # unless the answer was 421, the relay closing it
                if getattr(exc, "code", None) == 421:
                    smtp.close()
                else:
                    self._keep(smtp)
                raise
            except BaseException:
                smtp.close()  # broken, timed out or cancelled: its state is unknown
                raise
            self._keep(smtp)

    async def _take(self) -> aiosmtplib.SMTP:
        """An idle connection still open (the most recently used), else a new one."""
        while self._idle:
            smtp, used = self._idle.pop()
            if not smtp.is_connected:  # closed by the relay since its last message
                smtp.close()
                continue
            if time.monotonic() - used > CHECK_AFTER_SECONDS:
                try:
                    await smtp.noop()
                except Exception:
                    smtp.close()  # gone meanwhile (an idle timeout at the relay): next
                    continue
            return smtp
        return await self._open()

    def _keep(self, smtp: aiosmtplib.SMTP) -> None:
        if smtp.is_connected:
            self._idle.append((smtp, time.monotonic()))
        else:
            smtp.close()

    @property
    def open_connections(self) -> int:
        """The idle connections kept open (tests, operations)."""
        return len(self._idle)

    async def close_idle(self, older_than: float) -> None:
        """``QUIT`` the idle connections unused for ``older_than`` seconds."""
        now = time.monotonic()
        stale = [(smtp, used) for smtp, used in self._idle if now - used >= older_than]
        if stale:
            self._idle = [pair for pair in self._idle if pair not in stale]
            await self._quit([smtp for smtp, _ in stale])

    async def close(self) -> None:
        """``QUIT`` every open connection (the end of a pass, or of the sender)."""
        idle, self._idle = self._idle, []
        await self._quit([smtp for smtp, _ in idle])

    @staticmethod
    async def _quit(connections: list[aiosmtplib.SMTP]) -> None:
        for smtp in connections:
            try:
                await smtp.quit()
            except Exception:
                smtp.close()


def _permanent(exc: BaseException) -> bool:
    if isinstance(exc, aiosmtplib.SMTPRecipientsRefused):
        return all(500 <= r.code < 600 for r in exc.recipients)
    if isinstance(exc, aiosmtplib.SMTPResponseException):
        return 500 <= exc.code < 600
    return False


@dataclass(frozen=True)
class Built:
    """A claimed row's message for the relay: its bytes written directly
    (:func:`mailer.wire.message_bytes`: ``msg`` is None, every byte ASCII, fit for any
    relay), or the ``EmailMessage`` and its bytes as ``aiosmtplib``'s ``send_message`` puts
    them on the wire to a relay offering ``8BITMIME`` (flattened once, here)."""

    msg: EmailMessage | None
    wire: bytes | None
    recipients: tuple[str, ...]


def _build(row: OutboxMessage, mail_from: str, *, relay: bool = True) -> Built | str:
    """The message, or why it cannot be built (French). One row's bad address or header
    must cost that row alone, never the batch it was claimed with. For a relay and an ASCII
    envelope, the bytes are written directly when :mod:`mailer.wire` can (the same bytes
    as ``email`` writes), else built with ``email``."""
    problem = addresses.address_problem(row.to_addr)
    if problem is not None:
        return f"message impossible à construire : adresse « {row.to_addr} » invalide ({problem})"
    try:
        if relay and _envelope_sender(mail_from).isascii():
            data = wire.message_bytes(
                mail_from=mail_from, to_addr=row.to_addr, subject=row.subject,
                date=row.created_at, message_id=row.message_id, headers=row_headers(row),
                text=row.body_text, html=row.body_html)
            if data is not None and data.isascii():
                return Built(None, data, (row.to_addr,))
        msg = build_message(row, mail_from)
        # header folding/encoding errors surface here, not in the relay
        data = (aiosmtplib.email.flatten_message(msg, utf8=False, cte_type="8bit")
                if relay else None)
        if data is None:
            msg.as_bytes()
    except Exception as exc:
        return f"message impossible à construire : {type(exc).__name__}: {exc}"[:2000]
    return Built(msg, data, tuple(a for _, a in getaddresses([str(msg["To"])]) if a))


@functools.lru_cache(maxsize=16)
def _envelope_sender(mail_from: str) -> str:
    """The envelope sender (``MAIL FROM``) for a ``MAIL_FROM`` setting."""
    return parseaddr(mail_from)[1] or "arbitre@localhost"


def _load(app: Flask, claims: list[Claimed], mail_from: str,
          relay: bool = True) -> dict[int, Built | str]:
    with session_scope(app) as session:
        found = session.exec(
            select(OutboxMessage).where(
                OutboxMessage.id.in_([c.id for c in claims])  # type: ignore[union-attr]
            )
        ).all()
        return {r.id: _build(r, mail_from, relay=relay) for r in found if r.id is not None}


async def _attempt(app: Flask, settings: MailSettings, c: Claimed,
                   msg: Built | str | None,
                   relay: RelayConnections | None) -> dict[str, Any]:
    """Deliver one claimed message; returns the column values recording the outcome."""
    if msg is None:
        return {"status": OutboxStatus.FAILED, "last_error": "message introuvable"}
    if isinstance(msg, str):
        log.warning("outbox %s failed for good: %s", c.id, msg)
        return {"status": OutboxStatus.FAILED, "last_error": msg}
    sender = _envelope_sender(settings.mail_from)
    try:
        if relay is not None:
            await relay.send(msg, sender)
        else:
            assert msg.msg is not None  # built with email when there is no relay
            await asyncio.to_thread(_deliver_local, app, msg.msg)
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


def _claim_and_load(app: Flask, settings: MailSettings
                    ) -> tuple[list[Claimed], dict[int, Built | str]]:
    """One batch claimed (:func:`claim`) and its messages built (:func:`_load`)."""
    batch = claim(app, settings)
    return batch, (_load(app, batch, settings.mail_from, bool(settings.relay))
                   if batch else {})


async def send_due(app: Flask, settings: MailSettings | None = None,
                   relay: RelayConnections | None = None) -> int:
    """Claim and send everything due now, batch after batch, over connections to the relay
    kept open for the whole pass (:class:`RelayConnections`: ``relay``, the sender's own,
    left open for its next pass; by default the pass's, closed at its end); returns how
    many were sent.

    The batches overlap: while one is on the wire, the next is claimed and built, and the
    previous one's outcomes are written (each in a thread of its own: the database round
    trips and the building of the messages no longer wait for the relay, nor the relay for
    them). A batch's outcomes are thus written while the next one is on the wire, and all
    of them before the pass ends; each claim is committed before any of its traffic."""
    settings = settings or MailSettings.from_config(app.config)
    own = relay is None
    if relay is None and settings.relay:
        relay = RelayConnections(settings)
    sent = 0
    ahead: asyncio.Future[tuple[list[Claimed], dict[int, Built | str]]] | None = None
    marks: asyncio.Future[None] | None = None
    try:
        ahead = asyncio.ensure_future(asyncio.to_thread(_claim_and_load, app, settings))
        while True:
            assert ahead is not None
            current, ahead = ahead, None
            batch, msgs = await current
            if not batch:
                return sent
            full = len(batch) >= settings.batch
            if full:  # more may be due: claim and build the next batch meanwhile
                ahead = asyncio.ensure_future(
                    asyncio.to_thread(_claim_and_load, app, settings))
            outcomes = await asyncio.gather(*(_attempt(app, settings, c, msgs.get(c.id), relay)
                                              for c in batch))
            if marks is not None:
                await marks
            marks = asyncio.ensure_future(asyncio.to_thread(
                _mark_many, app, list(zip(batch, outcomes, strict=True))))
            sent += sum(1 for o in outcomes if o["status"] == OutboxStatus.SENT)
            if not full:
                return sent
    finally:
        if marks is not None:
            await marks  # every outcome of the pass recorded before it ends
        if ahead is not None:
            # a batch claimed for a pass that stopped (an error): due again at once, its
            # interrupted attempt counted like any other
            with contextlib.suppress(Exception):
                batch, _ = await ahead
                now = clock.now()
                _mark_many(app, [(c, {"status": OutboxStatus.PENDING, "next_attempt_at": now,
                                      "last_error": "envoi interrompu"}) for c in batch])
        if relay is not None and own:
            await relay.close()


def send_pending(app: Flask) -> int:
    """Synchronous one-shot (``arbitre mail send-outbox``)."""
    return asyncio.run(send_due(app))


class Sender:
    """A sender's passes on one event loop (``runner``), over connections to the relay of
    its own kept from pass to pass (:class:`RelayConnections`), each closed once idle
    ``OUTBOX_KEEP_SECONDS`` (0: the connections of each pass closed at its end). What the
    sender thread (:class:`OutboxWorker`) and the sender processes run."""

    def __init__(self, app: Flask, settings: MailSettings, runner: asyncio.Runner) -> None:
        self.app = app
        self.settings = settings
        self.runner = runner
        self.relay = (RelayConnections(settings)
                      if settings.relay and settings.keep_seconds > 0 else None)

    def send_pass(self) -> int:
        return self.runner.run(send_due(self.app, self.settings, self.relay))

    def close_idle(self) -> None:
        if self.relay is not None:
            self.runner.run(self.relay.close_idle(self.settings.keep_seconds))

    def close(self) -> None:
        if self.relay is not None:
            self.runner.run(self.relay.close())


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
        # mail queued by this process (the scheduler's fan-outs) wakes the worker at its
        # commit (notify.QUEUED_HOOKS)
        self.app.extensions.setdefault(notify.QUEUED_HOOKS, []).append(self.wake)
        return self

    def wake(self) -> None:
        """Send now rather than at the next tick (called after an enqueue)."""
        self._wake.set()

    def _run(self) -> None:
        # one event loop (and its thread pool) for the worker's life, not one per pass
        with asyncio.Runner() as runner:
            sender = Sender(self.app, self.settings, runner)
            try:
                while not self._stop.is_set():
                    self._wake.clear()
                    try:
                        sender.send_pass()
                    except Exception:
                        log.exception("outbox worker pass failed; retrying at the next tick")
                    self._wake.wait(self.settings.poll_seconds)
                    with contextlib.suppress(Exception):
                        sender.close_idle()
            finally:
                with contextlib.suppress(Exception):
                    sender.close()

    def stop(self, timeout: float = 10.0) -> None:
        hooks = self.app.extensions.get(notify.QUEUED_HOOKS, [])
        if self.wake in hooks:
            hooks.remove(self.wake)
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
    out: list[dict[str, Any]] = []
    with mbox_locked(path, shared=True):  # no half-written message mid-read
        box = mailbox.mbox(str(path), create=False)
        return _read_box(box, out)


def _read_box(box: mailbox.mbox, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
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

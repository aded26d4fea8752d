"""IMAP poller: takes submissions from a federation's existing mailbox.

Owns fetching: for each message in ``IMAP_FOLDER`` (by UID), the raw bytes are stored through
:func:`mailer.pipeline.store_raw` (committed), then processed, then the message is **moved**
to ``IMAP_DONE_FOLDER`` (``UID MOVE`` when offered, else ``COPY`` + ``\\Deleted`` +
``EXPUNGE``). If storing fails the message stays in the folder and is fetched again at the
next pass — never lost; a crash after the commit but before the move is caught by the
duplicate check (same Message-ID and bytes).

Waiting: ``IDLE`` (RFC 2177) when the server offers it, re-issued every
``IMAP_IDLE_SECONDS``; otherwise a poll every ``IMAP_POLL_SECONDS``. stdlib ``imaplib`` only.
"""

from __future__ import annotations

import contextlib
import imaplib
import logging
import re
import select
import threading
from email.parser import BytesHeaderParser
from email.policy import default as default_policy
from email.utils import getaddresses, parseaddr

from flask import Flask

from mailer import pipeline
from mailer.settings import MailSettings
from webapp.models import InboundChannel

log = logging.getLogger(__name__)


def connect(settings: MailSettings) -> imaplib.IMAP4:
    cls = imaplib.IMAP4_SSL if settings.imap_ssl else imaplib.IMAP4
    conn = cls(settings.imap_host, settings.imap_port, timeout=30)
    conn.login(settings.imap_username, settings.imap_password)
    # Servers announce more after login (MOVE, IDLE...); imaplib keeps the pre-login list.
    typ, data = conn.capability()
    if typ == "OK" and data and isinstance(data[0], bytes):
        conn.capabilities = tuple(data[0].decode().upper().split())
    return conn


def _envelope(raw: bytes) -> tuple[str, list[str]]:
    """Envelope as the delivering server recorded it (Return-Path, Delivered-To/To)."""
    try:
        h = BytesHeaderParser(policy=default_policy).parsebytes(raw)
        return_path = h.get("Return-Path")
        # No Return-Path: sender unknown, which is not the null sender "<>".
        sender = "" if return_path is None else parseaddr(str(return_path))[1] or "<>"
        rcpts = [a for _, a in getaddresses([str(v) for v in h.get_all("Delivered-To") or []])]
        if not rcpts:
            rcpts = [a for _, a in getaddresses([str(h.get("To", "")), str(h.get("Cc", ""))])
                     if a]
        return sender, rcpts
    except Exception:
        return "", []


def _ensure_folder(conn: imaplib.IMAP4, folder: str) -> None:
    typ, _ = conn.create(_quote(folder))
    if typ != "OK":
        log.debug("IMAP CREATE %s: %s (probably exists)", folder, typ)


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _move(conn: imaplib.IMAP4, uid: bytes, folder: str) -> None:
    if "MOVE" in conn.capabilities:
        typ, data = conn.uid("MOVE", uid.decode(), _quote(folder))
        if typ == "OK":
            return
        log.warning("IMAP MOVE failed (%s %s); falling back to COPY", typ, data)
    typ, data = conn.uid("COPY", uid.decode(), _quote(folder))
    if typ != "OK":
        raise imaplib.IMAP4.error(f"COPY {uid!r} -> {folder}: {typ} {data}")
    conn.uid("STORE", uid.decode(), "+FLAGS.SILENT", r"(\Deleted)")
    conn.expunge()


def poll_connection(app: Flask, conn: imaplib.IMAP4, settings: MailSettings) -> int:
    """One pass over the folder on an open connection; returns messages handled."""
    typ, _ = conn.select(_quote(settings.imap_folder))
    if typ != "OK":
        raise imaplib.IMAP4.error(f"SELECT {settings.imap_folder}: {typ}")
    typ, data = conn.uid("SEARCH", "UNDELETED")
    uids = data[0].split() if typ == "OK" and data and data[0] else []
    handled = 0
    for uid in uids:
        typ, parts = conn.uid("FETCH", uid.decode(), "(BODY.PEEK[])")
        raw = next((p[1] for p in parts if isinstance(p, tuple) and len(p) == 2), None)
        if typ != "OK" or not isinstance(raw, bytes):
            continue
        env_from, env_to = _envelope(raw)
        try:
            stored = pipeline.store_raw(app, raw, channel=InboundChannel.IMAP,
                                        envelope_from=env_from, envelope_to=env_to)
        except Exception:
            log.exception("IMAP: could not store UID %s; left in place for the next pass", uid)
            continue
        pipeline.process(app, stored.id)
        _move(conn, uid, settings.imap_done_folder)
        handled += 1
    return handled


def poll_once(app: Flask) -> int:
    settings = MailSettings.from_config(app.config)
    conn = connect(settings)
    try:
        _ensure_folder(conn, settings.imap_done_folder)
        return poll_connection(app, conn, settings)
    finally:
        with contextlib.suppress(Exception):
            conn.logout()


def idle_wait(conn: imaplib.IMAP4, seconds: float, stop: threading.Event | None = None) -> bool:
    """Send IDLE and wait until the server reports new mail or ``seconds`` pass.

    Returns True when something arrived. imaplib has no IDLE: the command is written by hand
    and the untagged answers read from the socket with a timeout.
    """
    tag = conn._new_tag().decode()
    conn.send(f"{tag} IDLE\r\n".encode())
    line = conn.readline()
    if not line.startswith(b"+"):
        raise imaplib.IMAP4.error(f"IDLE refused: {line!r}")
    sock = conn.socket()
    arrived = False
    remaining = seconds
    step = 1.0
    while remaining > 0 and not (stop is not None and stop.is_set()):
        # select() rather than a socket timeout: a timed-out buffered reader is unusable.
        ready, _, _ = select.select([sock], [], [], min(step, remaining))
        if not ready:
            remaining -= step
            continue
        line = conn.readline()
        if re.match(rb"^\* \d+ (EXISTS|RECENT)", line):
            arrived = True
            break
        if not line:
            raise imaplib.IMAP4.abort("connection closed during IDLE")
    conn.send(b"DONE\r\n")
    while True:
        line = conn.readline()
        if line.startswith(tag.encode()):
            break
        if not line:
            raise imaplib.IMAP4.abort("connection closed after IDLE")
    return arrived


def poll_forever(app: Flask, stop: threading.Event | None = None) -> None:
    """Poll until ``stop`` is set: IDLE when offered, otherwise every IMAP_POLL_SECONDS."""
    settings = MailSettings.from_config(app.config)
    stop = stop or threading.Event()
    while not stop.is_set():
        try:
            conn = connect(settings)
            _ensure_folder(conn, settings.imap_done_folder)
            while not stop.is_set():
                poll_connection(app, conn, settings)
                if "IDLE" in conn.capabilities:
                    idle_wait(conn, settings.imap_idle_seconds, stop)
                else:
                    stop.wait(settings.imap_poll_seconds)
            conn.logout()
        except Exception:
            log.exception("IMAP poller: error; reconnecting shortly")
            stop.wait(min(settings.imap_poll_seconds, 30.0))


def start_poller(app: Flask) -> tuple[threading.Thread, threading.Event]:
    stop = threading.Event()
    thread = threading.Thread(target=poll_forever, args=(app, stop), name="arbitre-imap",
                              daemon=True)
    thread.start()
    return thread, stop

"""Mail settings, read from the Flask app config (``ARBITRE_*`` environment variables).

Owns the names and defaults of every mail setting; docs/MAIL.md lists them. Values given as
strings in the environment (``ARBITRE_SMTP_RELAY=relay.example.org:587``) are accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask

#: the local mailbox, in the instance folder: outgoing mail when no relay is configured
MBOX_NAME = "outbox.mbox"


def mbox_path(app: Flask) -> Path:
    """The local mailbox's file (here, below ``mailer.outbox``, so that ``webapp.paths``
    can name it without importing the outbox, which imports ``webapp``)."""
    return Path(app.instance_path) / MBOX_NAME


DEFAULTS: dict[str, Any] = {
    "MAIL_SMTP_LISTEN": "127.0.0.1:8025",  # embedded SMTP listener ("" to disable)
    "MAIL_LMTP_LISTEN": "",  # LMTP listener for Postfix, e.g. "127.0.0.1:8024"
    "MAIL_MAX_SIZE": 10 * 1024 * 1024,  # bytes; larger messages are refused with 552
    "MAIL_REPLY_RATE_PER_HOUR": 10,  # automatic replies per address per hour
    "MAIL_INSTRUCTIONS_PER_HOUR": 60,  # "instructions" to non-players per hour, all together
    "MAIL_WORKERS": 4,  # threads doing database work for the listener
    # threads processing stored messages (PostgreSQL; SQLite, one writer, always uses one)
    "MAIL_PROCESS_THREADS": 4,
    # worker processes of their own processing stored messages (PostgreSQL only; 0: the
    # threads above, in the serving process). Each claims the messages of its share of the
    # senders (FOR UPDATE SKIP LOCKED) and is woken by a NOTIFY when messages are stored:
    # the processing no longer shares the serving process's interpreter lock.
    "MAIL_PROCESS_WORKERS": 0,
    # in-flow control (mailer/flow.py, Postfix's in_flow_delay): while more than
    # MAIL_IN_FLOW_BACKLOG messages are accepted and not yet answered (stored and not
    # processed, or their mail due and not sent), the 250 of a new one waits for its turn,
    # MAIL_IN_FLOW_DELAY seconds at most (0: off). The message is committed before.
    "MAIL_IN_FLOW_DELAY": 1.0,
    "MAIL_IN_FLOW_BACKLOG": 100,
    "SMTP_RELAY": "",  # host:port; empty -> local mbox in the instance folder
    "SMTP_USERNAME": "",
    "SMTP_PASSWORD": "",
    "SMTP_STARTTLS": False,
    "SMTP_TLS": False,  # implicit TLS (port 465)
    "SMTP_TIMEOUT": 30.0,
    "OUTBOX_POLL_SECONDS": 2.0,
    "OUTBOX_LEASE_SECONDS": 300.0,  # a "sending" row older than this is retried
    "OUTBOX_MAX_ATTEMPTS": 8,
    "OUTBOX_BACKOFF_SECONDS": 30.0,  # first retry delay; doubled each attempt
    "OUTBOX_BACKOFF_MAX_SECONDS": 6 * 3600.0,
    "OUTBOX_BATCH": 50,
    # SMTP connections to the relay a sender pass keeps open at once; each one carries
    # message after message for the whole pass (no connection per message)
    "OUTBOX_CONNECTIONS": 4,
    # a sender keeps its connections to the relay from pass to pass, each closed once idle
    # this long (seconds; 0: closed at the end of each pass). Below a relay's own idle
    # timeout (Postfix: 300 s, 10 s under stress); one idle over 2 s is checked with NOOP
    "OUTBOX_KEEP_SECONDS": 10.0,
    # sender processes of their own delivering the outbox (PostgreSQL only; 0: one sender
    # thread in the serving process). Each claims its batches FOR UPDATE SKIP LOCKED, keeps
    # its own OUTBOX_CONNECTIONS to the relay, and is woken by a NOTIFY when mail is queued
    "OUTBOX_SENDER_PROCESSES": 0,
    "IMAP_HOST": "",
    "IMAP_PORT": 143,
    "IMAP_SSL": False,
    "IMAP_USERNAME": "",
    "IMAP_PASSWORD": "",
    "IMAP_FOLDER": "INBOX",
    "IMAP_DONE_FOLDER": "Arbitre-traites",
    "IMAP_IDLE_SECONDS": 600.0,  # re-issue IDLE at least this often (RFC 2177: < 29 min)
    "IMAP_POLL_SECONDS": 60.0,  # when the server has no IDLE
    "SUBMIT_LOCALPART": "feuilles",
    "SUBMIT_DOMAIN": "localhost",
    "MAIL_FROM": "Arbitre <arbitre@localhost>",
}


def _bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "oui", "on")
    return bool(value)


@dataclass(frozen=True)
class MailSettings:
    smtp_listen: str
    lmtp_listen: str
    max_size: int
    reply_rate_per_hour: int
    instructions_per_hour: int
    workers: int
    process_threads: int
    process_workers: int
    in_flow_delay: float
    in_flow_backlog: int
    relay: str
    smtp_username: str
    smtp_password: str
    smtp_starttls: bool
    smtp_tls: bool
    smtp_timeout: float
    poll_seconds: float
    lease_seconds: float
    max_attempts: int
    backoff_seconds: float
    backoff_max_seconds: float
    batch: int
    connections: int
    keep_seconds: float
    sender_processes: int
    imap_host: str
    imap_port: int
    imap_ssl: bool
    imap_username: str
    imap_password: str
    imap_folder: str
    imap_done_folder: str
    imap_idle_seconds: float
    imap_poll_seconds: float
    submit_localpart: str
    submit_domain: str
    mail_from: str

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> MailSettings:
        def get(name: str) -> Any:
            value = config.get(name)
            return DEFAULTS[name] if value is None else value

        return cls(
            smtp_listen=str(get("MAIL_SMTP_LISTEN")),
            lmtp_listen=str(get("MAIL_LMTP_LISTEN")),
            max_size=int(get("MAIL_MAX_SIZE")),
            reply_rate_per_hour=int(get("MAIL_REPLY_RATE_PER_HOUR")),
            instructions_per_hour=int(get("MAIL_INSTRUCTIONS_PER_HOUR")),
            workers=int(get("MAIL_WORKERS")),
            process_threads=max(1, int(get("MAIL_PROCESS_THREADS"))),
            process_workers=max(0, int(get("MAIL_PROCESS_WORKERS"))),
            in_flow_delay=max(0.0, float(get("MAIL_IN_FLOW_DELAY"))),
            in_flow_backlog=max(0, int(get("MAIL_IN_FLOW_BACKLOG"))),
            relay=str(get("SMTP_RELAY")),
            smtp_username=str(get("SMTP_USERNAME")),
            smtp_password=str(get("SMTP_PASSWORD")),
            smtp_starttls=_bool(get("SMTP_STARTTLS")),
            smtp_tls=_bool(get("SMTP_TLS")),
            smtp_timeout=float(get("SMTP_TIMEOUT")),
            poll_seconds=float(get("OUTBOX_POLL_SECONDS")),
            lease_seconds=float(get("OUTBOX_LEASE_SECONDS")),
            max_attempts=int(get("OUTBOX_MAX_ATTEMPTS")),
            backoff_seconds=float(get("OUTBOX_BACKOFF_SECONDS")),
            backoff_max_seconds=float(get("OUTBOX_BACKOFF_MAX_SECONDS")),
            batch=int(get("OUTBOX_BATCH")),
            connections=max(1, int(get("OUTBOX_CONNECTIONS"))),
            keep_seconds=max(0.0, float(get("OUTBOX_KEEP_SECONDS"))),
            sender_processes=max(0, int(get("OUTBOX_SENDER_PROCESSES"))),
            imap_host=str(get("IMAP_HOST")),
            imap_port=int(get("IMAP_PORT")),
            imap_ssl=_bool(get("IMAP_SSL")),
            imap_username=str(get("IMAP_USERNAME")),
            imap_password=str(get("IMAP_PASSWORD")),
            imap_folder=str(get("IMAP_FOLDER")),
            imap_done_folder=str(get("IMAP_DONE_FOLDER")),
            imap_idle_seconds=float(get("IMAP_IDLE_SECONDS")),
            imap_poll_seconds=float(get("IMAP_POLL_SECONDS")),
            submit_localpart=str(get("SUBMIT_LOCALPART")),
            submit_domain=str(get("SUBMIT_DOMAIN")),
            mail_from=str(get("MAIL_FROM")),
        )


def host_port(value: str, default_port: int) -> tuple[str, int]:
    """``"host:port"`` -> (host, port); ``"[::1]:25"`` works too."""
    value = value.strip()
    if value.startswith("["):
        host, _, rest = value[1:].partition("]")
        return host, int(rest.lstrip(":") or default_port)
    host, sep, port = value.rpartition(":")
    if not sep:
        return value, default_port
    return host, int(port)

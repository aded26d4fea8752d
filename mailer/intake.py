"""The SMTP/LMTP listener (aiosmtpd): the embedded default and the Postfix back end.

Owns the protocol answers:

* ``RCPT``: only the submission local part (``feuilles`` or ``feuilles+TOKEN``) is accepted,
  at any domain (Postfix decides which domains reach us); others get ``550``.
* ``MAIL ... SIZE=n`` above ``MAIL_MAX_SIZE``, or a message body above it: ``552``, and a
  polite notice to the envelope sender when it is a registered player (never to ``<>``).
* ``DATA``: the raw message is committed (:func:`mailer.pipeline.store_raw`) before the
  ``250``; if the database does not answer, ``451`` so the sending server retries. The
  pipeline then runs; its failures quarantine the message but do not change the ``250``.

Database work runs in a small thread pool so a slow commit never stalls the event loop.
``start_embedded(app)`` is what ``arbitre serve`` calls.
"""

from __future__ import annotations

import asyncio
import logging
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP, Envelope, Session
from flask import Flask
from sqlmodel import select

from mailer import parse, pipeline
from mailer.outbox import OutboxWorker
from mailer.settings import MailSettings, host_port
from webapp.db import session_scope
from webapp.models import Player

log = logging.getLogger(__name__)

#: The protocol's own hard cap (aiosmtpd stops buffering beyond it); between MAIL_MAX_SIZE
#: and this, we read the message to answer 552 with a notice to the player.
HARD_CAP_FACTOR = 4


class IntakeHandler:
    """aiosmtpd handler: RCPT filter, size limit, store-then-250, then the pipeline."""

    def __init__(self, app: Flask, channel: str, executor: ThreadPoolExecutor,
                 on_processed: Any = None) -> None:
        self.app = app
        self.channel = channel
        self.settings = MailSettings.from_config(app.config)
        self.executor = executor
        self.on_processed = on_processed
        local = re.escape(self.settings.submit_localpart)
        self._rcpt = re.compile(rf"^{local}(\+[A-Za-z0-9_-]{{1,64}})?@[^@\s]+$", re.I)

    async def handle_MAIL(self, server: SMTP, session: Session, envelope: Envelope,
                          address: str, mail_options: list[str]) -> str:
        for option in mail_options:
            if option.upper().startswith("SIZE="):
                size = option.split("=", 1)[1]
                if size.isdigit() and int(size) > self.settings.max_size:
                    await self._notify_too_large(address, int(size), "")
                    return self._too_large(int(size))
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(self, server: SMTP, session: Session, envelope: Envelope,
                          address: str, rcpt_options: list[str]) -> str:
        if not self._rcpt.match(address):
            return "550 5.1.1 Adresse inconnue : écrivez à l'adresse de dépôt des feuilles"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    def _too_large(self, size: int) -> str:
        limit_mb = self.settings.max_size / (1024 * 1024)
        return (f"552 5.3.4 Message trop volumineux ({size} octets) : limite "
                f"{limit_mb:.0f} Mo. Une feuille de route tient en quelques lignes de texte.")

    async def _notify_too_large(self, envelope_from: str, size: int, subject: str) -> None:
        if not envelope_from or envelope_from == "<>":
            return
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self.executor, _notice_too_large, self.app,
                                       self.settings, envelope_from, size, subject)
        except Exception:
            log.exception("could not queue the size notice for %s", envelope_from)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        if isinstance(raw, str):
            raw = raw.encode("utf-8", "surrogateescape")
        if len(raw) > self.settings.max_size:
            subject = parse.header(parse.parse_message(raw[:65536]), "Subject")
            await self._notify_too_large(envelope.mail_from or "", len(raw), subject)
            return self._too_large(len(raw))
        loop = asyncio.get_running_loop()
        try:
            stored = await loop.run_in_executor(
                self.executor,
                lambda: pipeline.store_raw(
                    self.app, raw, channel=self.channel,
                    # MAIL FROM:<> arrives as "": store the null sender explicitly.
                    envelope_from=envelope.mail_from or "<>",
                    envelope_to=list(envelope.rcpt_tos),
                ),
            )
        except Exception as exc:
            log.warning("intake: database unavailable, answering 451: %s", exc)
            return self._per_rcpt(envelope, "451 4.3.0 Erreur temporaire du serveur : "
                                            "réessayez plus tard")
        try:
            status = await loop.run_in_executor(self.executor, pipeline.process, self.app,
                                                stored.id)
        except Exception:
            # Stored, so accepted: process_pending() will pick it up again.
            log.exception("intake: processing of %s failed after storing", stored.id)
            status = "stored"
        if self.on_processed is not None:
            self.on_processed()
        return self._per_rcpt(envelope, f"250 2.0.0 Message reçu (n° {stored.id}, {status})")

    def _per_rcpt(self, envelope: Envelope, status: str) -> str:
        # LMTP answers once per recipient after DATA; one stored copy serves them all.
        if self.channel == "lmtp":
            return "\r\n".join([status] * max(1, len(envelope.rcpt_tos)))
        return status


def _notice_too_large(app: Flask, settings: MailSettings, envelope_from: str, size: int,
                      subject: str) -> None:
    from webapp.services import clock
    from webapp.services.notify import enqueue

    with app.app_context(), session_scope(app) as session:
        player = session.exec(
            select(Player).where(sa.func.lower(Player.email) == envelope_from.lower())
        ).first()
        if player is None:
            return  # strangers get the 552 from their own server, not a notice from us
        from mailer import rules

        now = clock.now()
        if rules.rate_limit_exceeded(pipeline._recent_replies(session, player.email, now),
                                     now, per_hour=settings.reply_rate_per_hour):
            return
        enqueue(session=session, kind="refused_too_large", to_addr=player.email,
                template="refused_too_large",
                context={"player_name": player.name, "size": size,
                         "limit": settings.max_size, "original_subject": subject or None},
                player_id=player.id, headers={"Auto-Submitted": "auto-replied"})


class _Controller(Controller):
    def __init__(self, handler: IntakeHandler, *, lmtp: bool, hostname: str, port: int,
                 data_size_limit: int) -> None:
        self._lmtp = lmtp
        self._limit = data_size_limit
        super().__init__(handler, hostname=hostname, port=port)

    def factory(self) -> SMTP:
        cls = LMTP if self._lmtp else SMTP
        return cls(self.handler, data_size_limit=self._limit, enable_SMTPUTF8=True,
                   decode_data=False, ident="Arbitre feuilles de route")


@dataclass
class IntakeHandle:
    """What :func:`start_embedded` returns: listeners and the outbox worker."""

    controllers: list[Controller] = field(default_factory=list)
    worker: OutboxWorker | None = None
    executor: ThreadPoolExecutor | None = None

    @property
    def ports(self) -> list[int]:
        return [int(c.port) for c in self.controllers]

    def stop(self) -> None:
        for c in self.controllers:
            c.stop()
        if self.worker is not None:
            self.worker.stop()
        if self.executor is not None:
            self.executor.shutdown(wait=True)


def start_listener(app: Flask, listen: str, *, lmtp: bool, executor: ThreadPoolExecutor,
                   on_processed: Any = None) -> Controller:
    settings = MailSettings.from_config(app.config)
    host, port = host_port(listen, 24 if lmtp else 25)
    handler = IntakeHandler(app, "lmtp" if lmtp else "smtp", executor, on_processed)
    controller = _Controller(handler, lmtp=lmtp, hostname=host, port=port,
                             data_size_limit=settings.max_size * HARD_CAP_FACTOR)
    controller.start()
    return controller


def start_embedded(app: Flask, *, sender: bool = True) -> IntakeHandle:
    """Start the configured listeners (SMTP and/or LMTP) and the outbox sender.

    Messages left ``stored`` by an earlier crash are processed first.
    """
    settings = MailSettings.from_config(app.config)
    executor = ThreadPoolExecutor(max_workers=settings.workers,
                                  thread_name_prefix="arbitre-intake")
    handle = IntakeHandle(executor=executor)
    try:
        pipeline.process_pending(app)
    except Exception:
        log.exception("could not process pending messages at start-up")
    if sender:
        handle.worker = OutboxWorker(app).start()
    wake = handle.worker.wake if handle.worker is not None else None
    if settings.smtp_listen:
        handle.controllers.append(start_listener(app, settings.smtp_listen, lmtp=False,
                                                 executor=executor, on_processed=wake))
    if settings.lmtp_listen:
        handle.controllers.append(start_listener(app, settings.lmtp_listen, lmtp=True,
                                                 executor=executor, on_processed=wake))
    return handle

"""Helpers shared by the mail tests (database queries, message building)."""

from __future__ import annotations

import contextlib
import email.policy
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

from flask import Flask


def make_mail(*, frm: str, to: str, subject: str, body: str, message_id: str | None = None,
              charset: str = "utf-8", extra: dict[str, str] | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"] = frm
    msg["To"] = to
    msg["Subject"] = subject
    if message_id:
        msg["Message-ID"] = message_id
    for k, v in (extra or {}).items():
        msg[k] = v
    msg.set_content(body, charset=charset)
    return msg.as_bytes(policy=email.policy.SMTP)


def rows(app: Flask, model: Any, **where: Any) -> list[Any]:
    from sqlmodel import select

    from webapp.db import session_scope

    with app.app_context(), session_scope(app) as s:
        q = select(model)
        for k, v in where.items():
            q = q.where(getattr(model, k) == v)
        return list(s.exec(q.order_by(model.id)).all())


@contextlib.contextmanager
def relay_for(app: Flask, handler: Any) -> Iterator[int]:
    """An aiosmtpd relay on a free loopback port serving ``handler``, set as the app's
    ``SMTP_RELAY`` while the block runs; yields the port."""
    from aiosmtpd.controller import Controller

    from tests.ports import free_port

    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    app.config["SMTP_RELAY"] = f"127.0.0.1:{port}"
    try:
        yield port
    finally:
        controller.stop()

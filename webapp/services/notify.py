"""Notifications: every e-mail the server sends is composed here and written to the outbox.

:func:`enqueue` is idempotent by ``dedupe_key`` (``reminder:J-3:<problem>:<player>``...): a
job that runs twice, or two processes racing, produce one message. ``mailer.outbox`` sends
the rows; nothing here touches the network.
"""

from __future__ import annotations

from collections.abc import Mapping
from email.utils import make_msgid
from typing import Any

import sqlalchemy as sa
from flask import current_app, has_app_context
from sqlmodel import Session, select

from webapp.models import OutboxKind, OutboxMessage, OutboxStatus, Player
from webapp.services import clock


def _setting(name: str, default: Any) -> Any:
    if has_app_context():
        return current_app.config.get(name, default)
    return default


def common_context() -> dict[str, Any]:
    """Template variables every message gets (footer, sender)."""
    return {
        "competition_name": _setting("COMPETITION_NAME", "Arbitre"),
        "site_url": _setting("BASE_URL", None),
        "contact": _setting("CONTACT_ADDRESS", None),
    }


def submission_address(player: Player) -> str:
    local = _setting("SUBMIT_LOCALPART", "feuilles")
    domain = _setting("SUBMIT_DOMAIN", "localhost")
    return f"{local}+{player.token}@{domain}"


def enqueue(
    *,
    session: Session,
    kind: str,
    to_addr: str,
    template: str,
    context: Mapping[str, Any],
    dedupe_key: str | None = None,
    player_id: int | None = None,
    headers: Mapping[str, str] | None = None,
) -> OutboxMessage:
    """Compose ``template`` and add it to the outbox, unless ``dedupe_key`` is already there
    (then the existing row is returned unchanged)."""
    if dedupe_key is not None:
        existing = session.exec(
            select(OutboxMessage).where(OutboxMessage.dedupe_key == dedupe_key)
        ).first()
        if existing is not None:
            return existing
    from mailer.compose import render

    ctx = common_context()
    ctx.update(context)
    mail = render(template, **ctx)
    hdrs = {"Auto-Submitted": "auto-generated"}
    if kind == OutboxKind.RECEIPT and headers and "In-Reply-To" in headers:
        hdrs["Auto-Submitted"] = "auto-replied"
    hdrs.update(headers or {})
    now = clock.now()
    msg = OutboxMessage(
        created_at=now,
        kind=kind,
        to_addr=to_addr,
        subject=mail.subject,
        body_text=mail.text,
        body_html=mail.html,
        headers=hdrs,
        message_id=make_msgid(domain=_setting("SUBMIT_DOMAIN", "localhost")),
        dedupe_key=dedupe_key,
        status=OutboxStatus.PENDING,
        attempts=0,
        next_attempt_at=now,
        player_id=player_id,
    )
    if dedupe_key is None:
        session.add(msg)
        session.flush()
        return msg
    # Another process may have inserted the same key since the check above: the savepoint
    # keeps the caller's transaction alive when the unique index refuses ours.
    try:
        with session.begin_nested():
            session.add(msg)
    except sa.exc.IntegrityError:
        return session.exec(
            select(OutboxMessage).where(OutboxMessage.dedupe_key == dedupe_key)
        ).one()
    return msg

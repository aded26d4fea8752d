"""The audit log: who did what, when, with the details needed to understand it later."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from webapp.models import AuditLog
from webapp.services import clock

SYSTEM = "system"


def record(
    *, session: Session, actor: str, action: str, target: str = "", **details: Any
) -> AuditLog:
    entry = AuditLog(at=clock.now(), actor=actor, action=action, target=target, details=details)
    session.add(entry)
    return entry

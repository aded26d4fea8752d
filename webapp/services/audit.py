"""The audit log: who did what, when, with the details needed to understand it later."""

from __future__ import annotations

import os
import socket
from typing import Any

from sqlmodel import Session, col, func, select

from webapp.models import AuditLog
from webapp.services import clock

SYSTEM = "system"

#: which process did a scheduled step (several may share the database; one leads)
PROCESS = f"{socket.gethostname()}:{os.getpid()}"


def record(
    *, session: Session, actor: str, action: str, target: str = "", **details: Any
) -> AuditLog:
    entry = AuditLog(at=clock.now(), actor=actor, action=action, target=target, details=details)
    session.add(entry)
    return entry


def page(session: Session, *, action: str = "", target: str = "", page: int = 1,
         per_page: int = 50) -> tuple[list[AuditLog], int]:
    """One page of the log, newest first, filtered by an action prefix and a target
    substring; and how many entries match."""
    q = select(AuditLog)
    if action:
        q = q.where(col(AuditLog.action).startswith(action))
    if target:
        q = q.where(col(AuditLog.target).contains(target))
    total = int(session.exec(select(func.count()).select_from(q.subquery())).one())
    entries = list(session.exec(
        q.order_by(col(AuditLog.at).desc(), col(AuditLog.id).desc())
        .offset((page - 1) * per_page).limit(per_page)
    ).all())
    return entries, total

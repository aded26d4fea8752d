"""The audit log: who did what, when, with the details needed to understand it later."""

from __future__ import annotations

import os
import socket
from typing import Any

from sqlmodel import Session

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

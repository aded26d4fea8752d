"""The audit log."""

from __future__ import annotations

from flask import (
    Blueprint,
    render_template,
    request,
)
from sqlmodel import col, func, select

from webapp.models import (
    AuditLog,
)
from webapp.views.console.common import PER_PAGE, _session, page_arg


def audit_log() -> str:
    page = page_arg()
    action = request.args.get("action", "").strip()
    target = request.args.get("cible", "").strip()
    with _session() as s:
        q = select(AuditLog)
        if action:
            q = q.where(col(AuditLog.action).startswith(action))
        if target:
            q = q.where(col(AuditLog.target).contains(target))
        total = s.exec(select(func.count()).select_from(q.subquery())).one()
        entries = s.exec(
            q.order_by(col(AuditLog.at).desc(), col(AuditLog.id).desc())
            .offset((page - 1) * PER_PAGE).limit(PER_PAGE)
        ).all()
    return render_template(
        "console/audit.html", entries=entries, page=page, action=action, target=target,
        pages=max(1, (total + PER_PAGE - 1) // PER_PAGE), total=total,
    )


def register(bp: Blueprint) -> None:
    """This feature's routes on the console's blueprint (endpoint: the function's name)."""
    bp.add_url_rule("/journal", view_func=audit_log)

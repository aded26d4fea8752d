"""The audit log."""

from __future__ import annotations

from flask import (
    Blueprint,
    render_template,
    request,
)

from webapp.services import audit
from webapp.views.console.common import PER_PAGE, _session, page_arg

bp = Blueprint("audit", __name__)


@bp.route("/journal")
def index() -> str:
    page = page_arg()
    action = request.args.get("action", "").strip()
    target = request.args.get("cible", "").strip()
    with _session() as s:
        entries, total = audit.page(s, action=action, target=target, page=page,
                                    per_page=PER_PAGE)
        names = audit.people(s, entries)
        rows = [(e, audit.action_label(e.action), names.get(e.actor, e.actor),
                 audit.target_label(e, names), audit.details_text(e.details or {}))
                for e in entries]
    return render_template(
        "console/audit.html", rows=rows, page=page, action=action, target=target,
        pages=max(1, (total + PER_PAGE - 1) // PER_PAGE), total=total,
    )

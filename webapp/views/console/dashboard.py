"""The console's dashboard: competitions, problems and what needs the arbitre."""

from __future__ import annotations

from flask import (
    Blueprint,
    render_template,
)

from webapp.services.dashboard import dashboard
from webapp.views.console.common import _session

bp = Blueprint("dashboard", __name__)


@bp.route("/")
def index() -> str:
    with _session() as s:
        board = dashboard(s)
    return render_template(
        "console/index.html", competitions=board.competitions, problems=board.problems,
        counts=board.counts, open_appeals=board.open_appeals, recent=board.recent,
    )

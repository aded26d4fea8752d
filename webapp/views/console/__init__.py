"""The arbitre's console: competitions and their calendars, problems (drawn by
``puzzles.generate.new_problem`` or entered as JSON), player import, the submissions as they
arrive, verification and re-verification (with a reason and a preview of the ranking
changes), rulings, appeals, finalisation, the audit log, the mail, and the round-based
games (Duplicate, the two-player correspondence game).

A package, one module per feature; each feature is its own blueprint, nested in the one
``console`` blueprint built here (url prefix ``/console``), so its endpoints are
``console.<feature>.<view>`` (``console.problems.show``). The parent holds what every
feature shares: the arbitre-only guard (:func:`common._only_arbitres`, run before every
feature's views) and the navigation's quarantine badge. Each action calls one service
function in one transaction; nothing here computes a score, a rank or a status by itself.
"""

from __future__ import annotations

from flask import Blueprint

from webapp.views.console import (
    appeals,
    audit,
    common,
    competitions,
    correspondence,
    dashboard,
    duplicate,
    mail,
    players,
    problems,
    rulings,
    submissions,
)

FEATURES = (dashboard, competitions, problems, players, submissions, rulings, appeals, mail,
            audit, duplicate, correspondence)

bp = Blueprint("console", __name__, url_prefix="/console")
bp.before_request(common._only_arbitres)
bp.context_processor(mail.quarantine_badge)
for _feature in FEATURES:
    bp.register_blueprint(_feature.bp)

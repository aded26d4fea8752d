"""The arbitre's console: competitions and their calendars, problems (drawn by
``puzzles.generate.new_problem`` or entered as JSON), player import, the submissions as they
arrive, verification and re-verification (with a reason and a preview of the ranking
changes), rulings, appeals, finalisation, the audit log and the local mailbox.

A package, one module per feature, each with a ``register(bp)`` that adds its routes to
the one ``console`` blueprint built here (endpoint names ``console.<function>``).
Every route is arbitre-only (:func:`common._only_arbitres`). Each action calls one service
function in one transaction; nothing here computes a score, a rank or a status by itself.
"""

from __future__ import annotations

from flask import Blueprint

from webapp.views.console import (
    appeals,
    audit,
    common,
    competitions,
    dashboard,
    mail,
    players,
    problems,
    rulings,
    submissions,
)

FEATURES = (dashboard, competitions, problems, players, submissions, rulings, appeals, mail,
            audit)


def blueprint() -> Blueprint:
    """The console's blueprint with every feature's routes."""
    bp = Blueprint("console", __name__, url_prefix="/console")
    bp.before_request(common._only_arbitres)
    for feature in FEATURES:
        feature.register(bp)
    return bp

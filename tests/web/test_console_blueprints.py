"""The console is one blueprint per feature, nested in ``console`` (docs/ARCHITECTURE.md
« Pages »): every ``/console`` URL belongs to a feature (endpoint
``console.<feature>.<view>``), and the parent's arbitre-only guard runs before every one
of them — a visitor asking for any console URL, by GET or POST, is sent to the arbitre's
sign-in, whatever the feature."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from webapp.views import console

#: the one console URL served by another blueprint: the player's form (people, issue 13),
#: guarded by its own ``arbitre_required``
OUTSIDE = {"people.edit_player"}


def _console_rules(app: Flask) -> list[tuple[str, str, list[str]]]:
    return sorted(
        (r.rule, r.endpoint, sorted((r.methods or set()) - {"HEAD", "OPTIONS"}))
        for r in app.url_map.iter_rules() if r.rule.startswith("/console"))


def test_every_console_url_belongs_to_a_feature_blueprint(app: Flask) -> None:
    features = {f.bp.name for f in console.FEATURES}
    assert features == {"dashboard", "competitions", "problems", "players", "submissions",
                        "rulings", "appeals", "mail", "audit", "duplicate", "correspondence"}
    rules = _console_rules(app)
    seen = set()
    for rule, endpoint, _ in rules:
        if endpoint in OUTSIDE:
            continue
        parent, feature, view = endpoint.split(".")
        assert parent == "console" and feature in features, (rule, endpoint)
        seen.add(feature)
    assert seen == features  # no feature without a page
    # a few URLs, unchanged by the move to blueprints, with their endpoints
    got = {rule: endpoint for rule, endpoint, _ in rules}
    assert got["/console/"] == "console.dashboard.index"
    assert got["/console/problemes/<int:problem_id>"] == "console.problems.show"
    assert got["/console/duplicate/<code>"] == "console.duplicate.game"
    assert got["/console/correspondance"] == "console.correspondence.index"
    assert got["/console/journal"] == "console.audit.index"


def test_a_visitor_is_sent_to_the_sign_in_from_every_console_url(
    app: Flask, client: FlaskClient
) -> None:
    rules = _console_rules(app)
    assert len(rules) >= 30  # 32 on 1 December 2026: every feature's pages and actions
    for rule, endpoint, methods in rules:
        url = re.sub(r"<int:\w+>", "1", rule)
        url = re.sub(r"<\w+>", "x", url)
        for method in methods:
            resp = client.open(url, method=method)
            assert resp.status_code == 302, (method, url, endpoint)
            assert resp.headers["Location"].startswith("/arbitre/connexion"), (method, url)

"""The pages, one blueprint per audience: public, player, console (the arbitre's), and the
round-based games' and people's pages."""

from __future__ import annotations

from flask import Flask

from webapp.views import console, correspondence, duplicate, people, player, public


def register_blueprints(app: Flask) -> None:
    app.register_blueprint(public.bp)
    app.register_blueprint(player.bp)
    app.register_blueprint(console.bp)  # each console feature a nested blueprint
    app.register_blueprint(duplicate.bp)  # Duplicate by correspondence (public pages)
    app.register_blueprint(correspondence.bp)  # the two-player correspondence game (public)
    app.register_blueprint(people.bp)  # player pages, calendars, printing, rules (issue 13)

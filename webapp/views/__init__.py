"""The pages, one blueprint per audience: public, player, console (the arbitre's)."""

from __future__ import annotations

from flask import Flask


def register_blueprints(app: Flask) -> None:
    from webapp.views import console, console_mail, player, public  # noqa: F401

    app.register_blueprint(public.bp)
    app.register_blueprint(player.bp)
    app.register_blueprint(console.bp)
    from webapp.views import duplicate  # Duplicate by correspondence (public and console)

    app.register_blueprint(duplicate.bp)
    from webapp.views import correspondence  # the two-player correspondence game

    app.register_blueprint(correspondence.bp)
    from webapp.views import people  # player pages, calendars, printing, rules (issue 13)

    app.register_blueprint(people.bp)

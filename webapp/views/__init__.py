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

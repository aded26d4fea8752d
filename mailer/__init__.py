"""Feuilles de route by e-mail: intake, receipts, results and reminders (docs/MAIL.md)."""

from __future__ import annotations

from typing import Any

from mailer.settings import DEFAULTS


def init_app(app: Any) -> None:
    """Make every mail setting visible in ``app.config`` with its default (nothing starts
    here: ``mailer.intake.start_embedded(app)`` does)."""
    for name, value in DEFAULTS.items():
        app.config.setdefault(name, value)

"""Showing UTC instants to people in the pages, the mails and the services' messages: the one
French time format, :mod:`puzzles.timefmt`, with the server's default zone and an empty text
for a missing instant (the pages use it as the Jinja filters ``heure_locale`` and
``heure_utc``)."""

from __future__ import annotations

from datetime import datetime

from puzzles import timefmt as _fmt
from puzzles.timefmt import FORMAT, FORMAT_SECONDS
from webapp.models import DEFAULT_TIMEZONE

__all__ = ["FORMAT", "FORMAT_SECONDS", "format_local", "format_short", "format_utc", "local"]


def local(dt: datetime, tz: str | None = None) -> datetime:
    return _fmt.local(dt, tz or DEFAULT_TIMEZONE)


def format_short(dt: datetime, tz: str | None = None, *, seconds: bool = False) -> str:
    """``12/05/2026 à 19:00`` in the zone, without naming it (a ranking's cells)."""
    return _fmt.format_short(dt, tz or DEFAULT_TIMEZONE, seconds=seconds)


def format_local(dt: datetime | None, tz: str | None = None, *, seconds: bool = False) -> str:
    """``12/05/2026 à 19:00:00 (Europe/Bucharest, UTC+03:00)``."""
    if dt is None:
        return ""
    return _fmt.format_local(dt, tz or DEFAULT_TIMEZONE, seconds=seconds)


def format_utc(dt: datetime | None) -> str:
    """``12/05/2026 à 16:00:00 UTC``."""
    if dt is None:
        return ""
    return _fmt.format_utc(dt)

"""Showing UTC instants to people: in the problem's IANA zone, French style (the one French
time format of the pages, the mails and the services' messages; the pages use it as the
Jinja filters ``heure_locale`` and ``heure_utc``)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from webapp.models import DEFAULT_TIMEZONE


def local(dt: datetime, tz: str | None = None) -> datetime:
    return dt.astimezone(ZoneInfo(tz or DEFAULT_TIMEZONE))


#: the French date and time, to the minute and to the second
FORMAT = "%d/%m/%Y à %H:%M"
FORMAT_SECONDS = "%d/%m/%Y à %H:%M:%S"


def format_short(dt: datetime, tz: str | None = None) -> str:
    """``12/05/2026 à 19:00`` in the zone, without naming it (a ranking's cells)."""
    return local(dt, tz).strftime(FORMAT)


def format_local(dt: datetime | None, tz: str | None = None, *, seconds: bool = False) -> str:
    """``12/05/2026 à 19:00:00 (Europe/Bucharest, UTC+03:00)``."""
    if dt is None:
        return ""
    zone = tz or DEFAULT_TIMEZONE
    loc = local(dt, zone)
    offset = loc.strftime("%z")
    offset = f"UTC{offset[:3]}:{offset[3:]}"
    return f"{loc.strftime(FORMAT_SECONDS if seconds else FORMAT)} ({zone}, {offset})"


def format_utc(dt: datetime | None) -> str:
    if dt is None:
        return ""
    return dt.astimezone(UTC).strftime(FORMAT_SECONDS + " UTC")

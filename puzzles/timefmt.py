"""The one French time format (pure, standard library only): the pages, the mails, the
services' messages and the verifier's reasons all write instants with these functions.

- :func:`format_local` — ``12/05/2026 à 19:00 (Europe/Bucharest, UTC+03:00)`` (to the second
  with ``seconds=True``): an instant in a competition's zone, the zone named;
- :func:`format_short` — ``12/05/2026 à 19:00``: the same without the zone (a table's cells);
- :func:`format_utc` — ``12/05/2026 à 16:00:00 UTC`` (to the minute with ``seconds=False``;
  ``at``: the word before the hour, « ora » in Romanian mails);
- :func:`format_instant` — ``14/05/2026 à 18:00:05 (Europe/Bucharest ; 15:00:05 UTC)``: a
  billet's commit time in an Anticipation reason, both clocks to the second.

A naive ``datetime`` given to :func:`format_utc` is read as UTC (the database convention).
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

#: the French date and time, to the minute and to the second
FORMAT = "%d/%m/%Y à %H:%M"
FORMAT_SECONDS = "%d/%m/%Y à %H:%M:%S"


def local(dt: datetime, zone: str) -> datetime:
    """``dt`` in the IANA ``zone``."""
    return dt.astimezone(ZoneInfo(zone))


def format_short(dt: datetime, zone: str, *, seconds: bool = False) -> str:
    """``12/05/2026 à 19:00`` (``seconds``: ``à 19:00:07``) in the zone, without naming it."""
    return local(dt, zone).strftime(FORMAT_SECONDS if seconds else FORMAT)


def format_local(dt: datetime, zone: str, *, seconds: bool = False) -> str:
    """``12/05/2026 à 19:00 (Europe/Bucharest, UTC+03:00)``."""
    loc = local(dt, zone)
    offset = loc.strftime("%z")
    return (f"{loc.strftime(FORMAT_SECONDS if seconds else FORMAT)} "
            f"({zone}, UTC{offset[:3]}:{offset[3:]})")


def format_utc(dt: datetime, *, seconds: bool = True, at: str = "à") -> str:
    """``12/05/2026 à 16:00:00 UTC``."""
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    fmt = FORMAT_SECONDS if seconds else FORMAT
    return dt.astimezone(UTC).strftime(fmt.replace("à", at) + " UTC")


def format_instant(dt: datetime, zone: str) -> str:
    """``14/05/2026 à 18:00:05 (Europe/Bucharest ; 15:00:05 UTC)``."""
    return (f"{local(dt, zone).strftime(FORMAT_SECONDS)} "
            f"({zone} ; {dt.astimezone(UTC):%H:%M:%S} UTC)")

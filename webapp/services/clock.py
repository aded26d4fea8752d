"""The server clock: every "now" of the server comes from here (UTC, timezone-aware)."""

from __future__ import annotations

from datetime import UTC, datetime


def now() -> datetime:
    return datetime.now(UTC)

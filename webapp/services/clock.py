"""The server clock: every "now" of the server comes from here (UTC, timezone-aware).

``ARBITRE_TEST_CLOCK_OFFSET_SECONDS`` (tests only) shifts this process's clock, to play a
host whose clock is wrong; the leader lease does not depend on it (it reads the database's
clock, :func:`webapp.leader.database_now`).
"""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta

#: a test may shift this process's clock (see the module docstring); zero in production
OFFSET = timedelta(seconds=float(os.environ.get("ARBITRE_TEST_CLOCK_OFFSET_SECONDS") or 0))


def now() -> datetime:
    return datetime.now(UTC) + OFFSET

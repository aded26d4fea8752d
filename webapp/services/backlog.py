"""The mail received before a deadline and not processed yet: waited for before a deadline's
results are computed.

At a deadline rush the SMTP intake may have accepted messages (``250``, stored raw) faster
than they are processed. Each is judged by its receive time: a sheet or a bulletin received
before the deadline counts, so the step that ranks (a problem's verification, a Duplicate
round's correction) first waits until none received by the deadline is left ``stored`` —
at most ``SHEETS_WAIT_SECONDS`` (120), then it goes on without them, logged (a processing
lane that is down must not hold a deadline for ever; what comes later is still stored, and
a bulletin stored after its round was corrected re-corrects it).

The caller must hold no lock the processing needs (a Duplicate bulletin takes the game row
FOR SHARE: the correction waits here before it locks the row).
"""

from __future__ import annotations

import logging
import time
from datetime import datetime

import sqlalchemy as sa
from flask import current_app, has_app_context

from webapp.db import get_engine
from webapp.models import InboundMessage, InboundStatus

log = logging.getLogger(__name__)

#: how long a deadline's step waits for the mail received before it and not yet processed
SHEETS_WAIT_SECONDS = 120.0


def pending(deadline: datetime) -> int:
    """How many messages received by ``deadline`` are still waiting to be processed."""
    table = InboundMessage.__table__  # type: ignore[attr-defined]
    query = sa.select(sa.func.count()).select_from(table).where(
        table.c.status == InboundStatus.STORED, table.c.received_at <= deadline)
    with get_engine().connect() as conn:
        return int(conn.execute(query).scalar_one())


def wait_for_mail(deadline: datetime, what: str, *, poll: float = 0.2) -> bool:
    """Until no message received by ``deadline`` is left unprocessed: True; False when some
    still are after ``SHEETS_WAIT_SECONDS`` (logged with ``what``, the step's subject)."""
    limit = float(current_app.config.get("SHEETS_WAIT_SECONDS", SHEETS_WAIT_SECONDS)
                  if has_app_context() else SHEETS_WAIT_SECONDS)
    until = time.monotonic() + limit
    while True:
        left = pending(deadline)
        if not left:
            return True
        if time.monotonic() >= until:
            log.warning("%s: %d message(s) received before the deadline still not processed "
                        "after %.0f s; going on without them", what, left, limit)
            return False
        time.sleep(poll)

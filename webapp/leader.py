"""Leader election: exactly one process runs the scheduler.

A lease row (table ``lease``) names its holder and an expiry. The holder renews it well
before it expires; any other process takes it once it has expired, so a dead leader is
replaced after at most ``ttl`` seconds. Acquisition is one conditional ``UPDATE`` (or the
first ``INSERT``), atomic on PostgreSQL and SQLite alike. Hosts sharing a database must keep
their clocks in sync (NTP): expiry is judged on the local clock.
"""

from __future__ import annotations

import os
import socket
import uuid
from datetime import timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from webapp.models import Lease
from webapp.services import clock

SCHEDULER_LEASE = "scheduler"


def default_holder() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class LeaderLease:
    def __init__(
        self, engine: Engine, *, name: str = SCHEDULER_LEASE, holder: str | None = None,
        ttl_seconds: float = 30.0,
    ) -> None:
        self.engine = engine
        self.name = name
        self.holder = holder or default_holder()
        self.ttl = timedelta(seconds=ttl_seconds)

    def try_acquire(self) -> bool:
        """Take or renew the lease; True when this process holds it afterwards."""
        table = Lease.__table__  # type: ignore[attr-defined]
        now = clock.now()
        expires = now + self.ttl
        with self.engine.begin() as conn:
            renewed = conn.execute(
                sa.update(table)
                .where(table.c.name == self.name)
                .where(sa.or_(table.c.holder == self.holder, table.c.expires_at < now))
                .values(
                    holder=self.holder,
                    expires_at=expires,
                    acquired_at=sa.case(
                        (table.c.holder == self.holder, table.c.acquired_at), else_=now
                    ),
                )
            )
            if renewed.rowcount == 1:
                return True
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    sa.insert(table).values(
                        name=self.name, holder=self.holder, acquired_at=now, expires_at=expires
                    )
                )
            return True
        except sa.exc.IntegrityError:
            return False

    def release(self) -> None:
        """Give the lease up at once (clean shutdown), so another process need not wait."""
        table = Lease.__table__  # type: ignore[attr-defined]
        with self.engine.begin() as conn:
            conn.execute(
                sa.delete(table)
                .where(table.c.name == self.name)
                .where(table.c.holder == self.holder)
            )

    def current_holder(self) -> str | None:
        table = Lease.__table__  # type: ignore[attr-defined]
        with self.engine.connect() as conn:
            row = conn.execute(
                sa.select(table.c.holder, table.c.expires_at).where(table.c.name == self.name)
            ).first()
        if row is None:
            return None
        holder, expires_at = row
        return str(holder) if expires_at is not None and expires_at >= clock.now() else None

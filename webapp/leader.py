"""Leader election: exactly one process runs the scheduler.

A lease row (table ``lease``) names its holder and an expiry. The holder renews it well
before it expires; any other process takes it once it has expired, so a dead leader is
replaced after at most ``ttl`` seconds. Acquisition is one conditional ``UPDATE`` (or the
first ``INSERT``), atomic on PostgreSQL and SQLite alike.

Expiry is set and judged on the **database's** clock (``now()`` on PostgreSQL, SQLite's
``strftime('now')``), never on the host's: a process whose clock is wrong can neither steal a
live lease (its "now" is not used to judge expiry) nor keep a dead one (its expiry is the
database's now + ``ttl``).
"""

from __future__ import annotations

import os
import socket
import uuid
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from webapp.models import Lease
from webapp.services import clock

SCHEDULER_LEASE = "scheduler"


def database_now(conn: Connection) -> datetime:
    """The database server's clock (aware UTC), the one clock every process shares."""
    if conn.dialect.name == "postgresql":
        value = conn.execute(sa.text("SELECT now()")).scalar_one()
        return value.astimezone(UTC)  # type: ignore[no-any-return]
    if conn.dialect.name == "sqlite":
        text = conn.execute(sa.text("SELECT strftime('%Y-%m-%d %H:%M:%f', 'now')")).scalar_one()
        return datetime.fromisoformat(str(text)).replace(tzinfo=UTC)
    return clock.now()  # pragma: no cover (only PostgreSQL and SQLite are supported)


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
        self.attempts = 0  # try_acquire calls, for tests and the logs
        self.last_now: datetime | None = None  # the database's clock at the last attempt

    def try_acquire(self) -> bool:
        """Take or renew the lease; True when this process holds it afterwards."""
        table = Lease.__table__  # type: ignore[attr-defined]
        self.attempts += 1
        with self.engine.begin() as conn:
            now = self.last_now = database_now(conn)
            expires = now + self.ttl
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
                now = database_now(conn)
                expires = now + self.ttl
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
            now = database_now(conn)
            row = conn.execute(
                sa.select(table.c.holder, table.c.expires_at).where(table.c.name == self.name)
            ).first()
        if row is None:
            return None
        holder, expires_at = row
        return str(holder) if expires_at is not None and expires_at >= now else None

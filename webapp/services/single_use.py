"""Single-use tokens (the players' and arbitres' sign-in links): using one is atomic.

Reading a token (« not used yet ») and then marking it used lets every request that read it
before the first mark go on as if it were the only one (issue 24 §5: six browsers posting
one link at once opened up to five sessions). :func:`consume` marks it with one conditional
``UPDATE … SET used_at = :now WHERE id = :id AND used_at IS NULL AND expires_at >= :now``:
the database lets exactly one transaction change the row (PostgreSQL re-reads the row after
the concurrent writer commits, SQLite has one writer at a time), and its row count tells the
caller whether this request is the one that used the token. Every single-use token table has
``id``, ``used_at`` and ``expires_at`` columns and goes through here.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session

from webapp.models import ArbitreLoginToken, LoginToken

SingleUseToken = LoginToken | ArbitreLoginToken


def consume(*, session: Session, token: SingleUseToken, now: datetime) -> bool:
    """Mark ``token`` used at ``now`` in the session's transaction; True for the one caller
    that did so, False when another request used it first (or it has expired). The caller
    commits (a rollback gives the token back)."""
    table = type(token).__table__  # type: ignore[union-attr]
    result = session.execute(
        sa.update(table)
        .where(table.c.id == token.id, table.c.used_at.is_(None), table.c.expires_at >= now)
        .values(used_at=now)
    )
    won: bool = result.rowcount == 1  # type: ignore[attr-defined]
    if won:
        # keep the loaded row in step without a write of its own (no autoflush of a stale
        # value over the database's)
        set_committed_value(token, "used_at", now)
    return won

"""Schedule changes: every transaction that changes what the scheduler plans says so.

A problem's times or status (created, rescheduled, published or closed by hand...), or a
Duplicate game's or round's, decide when :func:`webapp.services.lifecycle.run_due` has work.
Whatever the channel (console, CLI, import, another process), such a commit bumps the row
``change_counter.name = 'schedule'`` in the same transaction, then calls this process's
listeners (its scheduler replans at once). The leader, in whichever process, polls the
counter every ``SCHEDULER_POLL_SECONDS`` and replans when it moved: nobody waits for the
safety tick. The hooks are SQLAlchemy session events, installed once by :func:`install`;
the scheduler's own runs are :func:`quiet` (it replans after each run anyway).
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from sqlalchemy import orm
from sqlalchemy.engine import Connection

from webapp.models import (
    AnticipationRound,
    ChangeCounter,
    DuplicateGame,
    DuplicateRound,
    Problem,
)
from webapp.services import clock

log = logging.getLogger(__name__)

SCHEDULE = "schedule"

#: the attributes of each model that move its instants (any new or deleted row counts too)
WATCHED: dict[type, frozenset[str]] = {
    Problem: frozenset({"status", "publish_at", "deadline_at", "round_interval_minutes",
                        "published_at", "appeals_until", "appeal_days"}),
    DuplicateGame: frozenset({"status", "starts_at", "rhythm", "review_minutes"}),
    DuplicateRound: frozenset({"status", "opens_at", "closes_at", "closed_at"}),
    AnticipationRound: frozenset({"announced_at"}),
}

_PENDING = "arbitre.schedule_changed"
_quiet: contextvars.ContextVar[bool] = contextvars.ContextVar("arbitre_quiet", default=False)
_listeners: list[Callable[[], None]] = []
_listeners_lock = threading.Lock()
_installed = False


@contextmanager
def quiet() -> Iterator[None]:
    """Commits in this block do not signal (the scheduler's own steps: it replans itself)."""
    token = _quiet.set(True)
    try:
        yield
    finally:
        _quiet.reset(token)


def add_listener(fn: Callable[[], None]) -> None:
    """``fn()`` is called (in the committing thread) after each signalling commit."""
    with _listeners_lock:
        if fn not in _listeners:
            _listeners.append(fn)


def remove_listener(fn: Callable[[], None]) -> None:
    with _listeners_lock:
        if fn in _listeners:
            _listeners.remove(fn)


def current(conn: Connection, name: str = SCHEDULE) -> int:
    """The counter's value (0 before the first change)."""
    table = ChangeCounter.__table__  # type: ignore[attr-defined]
    value = conn.execute(sa.select(table.c.value).where(table.c.name == name)).scalar()
    return int(value or 0)


def bump(conn: Connection, name: str = SCHEDULE) -> None:
    """Add one to the counter (creating it), in the caller's transaction."""
    table = ChangeCounter.__table__  # type: ignore[attr-defined]
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert  # type: ignore[assignment]
    now = clock.now()
    stmt = insert(table).values(name=name, value=1, changed_at=now)
    conn.execute(stmt.on_conflict_do_update(
        index_elements=["name"], set_={"value": table.c.value + 1, "changed_at": now}))


def _touches_schedule(session: orm.Session) -> bool:
    for obj in list(session.new) + list(session.deleted):
        if type(obj) in WATCHED:
            return True
    for obj in session.dirty:
        fields = WATCHED.get(type(obj))
        if fields is None:
            continue
        state = sa.inspect(obj)
        for name in fields:
            if name in state.attrs and state.attrs[name].history.has_changes():
                return True
    return False


def _before_flush(session: orm.Session, _ctx: Any, _instances: Any) -> None:
    if not _quiet.get() and _touches_schedule(session):
        session.info[_PENDING] = True


def _before_commit(session: orm.Session) -> None:
    if _quiet.get():
        return
    if session.new or session.dirty or session.deleted:
        session.flush()  # runs _before_flush on what is still pending
    if session.info.get(_PENDING):
        bump(session.connection())
        session.info[_PENDING] = "bumped"


def _after_commit(session: orm.Session) -> None:
    if session.info.pop(_PENDING, None) != "bumped":
        return
    with _listeners_lock:
        listeners = list(_listeners)
    for fn in listeners:
        try:
            fn()
        except Exception:  # a listener must never break the caller's commit
            log.exception("schedule change listener failed")


def _after_rollback(session: orm.Session) -> None:
    session.info.pop(_PENDING, None)


def install() -> None:
    """Install the session hooks (once per process; every Session, every engine)."""
    global _installed
    if _installed:
        return
    sa.event.listen(orm.Session, "before_flush", _before_flush)
    sa.event.listen(orm.Session, "before_commit", _before_commit)
    sa.event.listen(orm.Session, "after_commit", _after_commit)
    sa.event.listen(orm.Session, "after_rollback", _after_rollback)
    _installed = True

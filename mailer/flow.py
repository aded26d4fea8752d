"""In-flow control: the SMTP/LMTP intake waits a little before its ``250`` when the mail
already accepted is not yet answered, so that under a rush the answers keep pace with the
intake instead of piling up behind it.

It is Postfix's ``in_flow_delay`` (« Time to pause before accepting a new message, when
the message arrival rate exceeds the message delivery rate », default 1 s), measured on
our own pipeline: the **backlog** is the work accepted and not yet done — the stored
messages not yet processed (:class:`~webapp.models.InboundStatus` ``stored``) plus the
outgoing mail due and not yet sent (what the sender would claim now: ``pending`` and due,
or ``sending`` past its lease). While it is above
``MAIL_IN_FLOW_BACKLOG``, a session whose message was just stored waits, up to
``MAIL_IN_FLOW_DELAY`` seconds, for its turn; the sessions waiting are let through in
their order, as many as the backlog has room for. Never longer than the delay, never a
refusal: the message is committed (and its time of receipt taken, which is what a deadline
is judged by) **before** the wait, so nothing waits unstored and no deadline moves; a
sender only sees its ``250`` up to a second later (RFC 5321 §4.5.3.2.6 gives it ten
minutes for that answer). ``MAIL_IN_FLOW_DELAY = 0`` turns it off.

The backlog is read from the database by one thread of the serving process (two indexed
counts): every ``interval`` (20 ms) while sessions wait, every 250 ms while sessions arrive
and none waits (a session that must wait asks for a reading at once), so it holds for
every way of processing (threads, worker processes, sender processes, several serving
processes behind Postfix); between two readings the sessions admitted since the last one
began are added to it. The first message after a quiet second waits for one reading
(a few tens of milliseconds), so that a ``250`` is only given on a reading taken after the
message was stored.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from flask import Flask

from mailer import outbox
from webapp.db import get_engine
from webapp.models import InboundMessage, InboundStatus, OutboxMessage
from webapp.services import clock

log = logging.getLogger(__name__)

#: how long after the last session's arrival the gauge goes on reading the backlog
ACTIVE_SECONDS = 1.0
#: a reading older than this is no reason to wait
STALE_SECONDS = 0.5
#: between two readings while sessions arrive but none waits (the arrivals are counted
#: meanwhile; a session that must wait asks for a reading at once)
QUIET_SECONDS = 0.25


def backlog_statement() -> sa.Select[Any]:
    """The accepted work not yet done: messages stored and not processed, plus outgoing
    mail due and not sent (see the module's docstring). Both counts read an index."""
    stored = (sa.select(sa.func.count()).select_from(InboundMessage)
              .where(InboundMessage.status == InboundStatus.STORED)  # type: ignore[arg-type]
              .scalar_subquery())
    # the sender's own claim (a row being sent has its lease ahead)
    claimable = (sa.select(sa.func.count()).select_from(OutboxMessage)
                 .where(outbox.claimable(sa.bindparam("now"))).scalar_subquery())
    return sa.select(stored + claimable)


class BacklogReader:
    """Reads :func:`backlog_statement` on one connection of its own, kept open (a new one
    after an error), in autocommit: each reading is one statement and one round trip, and
    sees what was committed before it (on SQLite a transaction kept open would keep its
    snapshot)."""

    def __init__(self, app: Flask) -> None:
        self.engine = get_engine(app)
        self.statement = backlog_statement()
        self._conn: sa.Connection | None = None

    def __call__(self) -> int:
        if self._conn is None:
            self._conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            return int(self._conn.execute(self.statement, {"now": clock.now()}).scalar_one())
        except Exception:
            self.close()
            raise

    def close(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(Exception):
                self._conn.close()
            self._conn = None


class InFlow:
    """The gauge and the waiting room of :mod:`mailer.flow` (one per serving process,
    shared by its listeners, whatever their event loops)."""

    def __init__(self, read: Callable[[], int], *, limit: int, delay: float,
                 interval: float = 0.02) -> None:
        self.read = read
        self.limit = limit
        self.delay = delay
        self.interval = interval
        #: the last reading (-1: none yet), and when it was taken (monotonic)
        self.backlog = -1
        self.read_at = 0.0
        self.waited = 0  # sessions that waited (operations, benches)
        self.waited_seconds = 0.0
        #: sessions admitted in all; and that count when the last reading began: those
        #: admitted since may not be in it (their commit may have come after its start)
        self._arrivals = 0
        self._arrivals_read = 0
        self._last_arrival = 0.0
        self._failing = False
        self._lock = threading.Lock()
        self._waiters: collections.deque[tuple[asyncio.AbstractEventLoop,
                                               asyncio.Future[None]]] = collections.deque()
        self._wake = threading.Event()
        self._hurry = threading.Event()  # a session waits: read now, then every interval
        self._stopping = False
        self._thread: threading.Thread | None = None
        if delay > 0:
            self._thread = threading.Thread(target=self._run, name="arbitre-in-flow",
                                            daemon=True)
            self._thread.start()

    @classmethod
    def for_app(cls, app: Flask, *, limit: int, delay: float) -> InFlow:
        return cls(BacklogReader(app), limit=limit, delay=delay)

    def _estimate(self) -> int:
        """The backlog now: the last reading, plus the sessions admitted since it began."""
        return self.backlog + self._arrivals - self._arrivals_read

    async def admit(self) -> float:
        """Called once the session's message is stored: wait for its turn (see the
        module's docstring); the seconds waited."""
        if self.delay <= 0:
            return 0.0
        with self._lock:
            self._arrivals += 1
            self._last_arrival = time.monotonic()
            self._wake.set()
            fresh = time.monotonic() - self.read_at <= STALE_SECONDS
            if fresh and not self._waiters and self._estimate() <= self.limit:
                return 0.0
            # over the limit, or no recent reading (the gauge was idle): wait for the next
            loop = asyncio.get_running_loop()
            turn: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, turn))
            self._hurry.set()
        start = time.monotonic()
        try:
            await asyncio.wait_for(turn, self.delay)
        except TimeoutError:
            pass  # the delay is a bound, never a refusal
        finally:
            with self._lock, contextlib.suppress(ValueError):  # released already
                self._waiters.remove((loop, turn))
        waited = time.monotonic() - start
        self.waited += 1
        self.waited_seconds += waited
        return waited

    def _run(self) -> None:
        while not self._stopping:
            self._wake.wait()
            if self._stopping:
                return
            with self._lock:
                arrivals = self._arrivals
            try:
                value = self.read()
                self._failing = False
            except Exception:
                # the database does not answer: let everyone through (the store itself
                # answers 451 when it cannot commit) and try again shortly
                if not self._failing:
                    log.warning("in-flow: cannot read the backlog", exc_info=True)
                self._failing = True
                value = 0
            with self._lock:
                self.backlog, self.read_at, self._arrivals_read = value, time.monotonic(), arrivals
                estimate = self._estimate()
                # at or under the limit: as many of the waiting sessions (each with its
                # next message to come) as take the backlog one past it, oldest first
                room = self.limit - estimate + 1 if estimate <= self.limit else 0
                while self._waiters and room > 0:
                    loop, turn = self._waiters.popleft()
                    with contextlib.suppress(RuntimeError):  # its listener stopped meanwhile
                        loop.call_soon_threadsafe(_release, turn)
                    room -= 1
                if (not self._waiters
                        and time.monotonic() - self._last_arrival > ACTIVE_SECONDS):
                    self._wake.clear()  # idle: until the next session's arrival
                waiting = bool(self._waiters)
                if not waiting:
                    self._hurry.clear()
            if waiting:
                time.sleep(self.interval)
            else:
                self._hurry.wait(QUIET_SECONDS)

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()
        self._hurry.set()
        if self._thread is not None:
            self._thread.join(10)
        close = getattr(self.read, "close", None)
        if close is not None:
            close()


def _release(turn: asyncio.Future[Any]) -> None:
    if not turn.done():
        turn.set_result(None)

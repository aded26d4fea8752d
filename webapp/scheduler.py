"""The schedule: APScheduler inside the app, driven by the database.

The database is the truth. Every job calls :func:`webapp.services.lifecycle.run_due`, which
does whatever has fallen due (publish, remind at J-3/J-1, close, verify, provisional ranking,
finalise) and is safe to run twice. The scheduler only decides *when* to call it: at each
problem's next instant, plus a periodic tick that also picks up problems created by other
processes. On start it catches up at once (a server down across a deadline does the missed
work when it comes back). Only the holder of the leader lease (:mod:`webapp.leader`) runs
jobs, so several processes may share one PostgreSQL.

A change of a problem's or round's times is seen at once: the committing process calls
:meth:`ArbitreScheduler.poke` (:mod:`webapp.services.changes`), and the leader, wherever it
runs, polls the change counter every ``SCHEDULER_POLL_SECONDS`` and replans when it moved.
The periodic tick is only a safety net.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime
from typing import Any

from apscheduler.schedulers.background import BackgroundScheduler  # type: ignore[import-untyped]
from flask import Flask

from webapp.db import get_engine
from webapp.leader import LeaderLease
from webapp.services import changes, clock
from webapp.services import lifecycle as lifecycle

log = logging.getLogger(__name__)

EXTENSION = "arbitre.scheduler"
_DUE_PREFIX = "due:"


class ArbitreScheduler:
    def __init__(self, app: Flask) -> None:
        self.app = app
        self.lease = LeaderLease(
            get_engine(app), ttl_seconds=float(app.config["LEADER_LEASE_SECONDS"])
        )
        self.is_leader = False
        self.runs = 0  # completed run_due calls, for the console and tests
        self._seen: int | None = None  # the change counter at the last tick
        # the clock instant up to which run_due has looked: planning starts after it, so an
        # instant falling due between a run and the planning that follows is not skipped
        self._covered: datetime | None = None
        self._aps: BackgroundScheduler | None = None
        self._lock = threading.Lock()
        self._plan_lock = threading.Lock()  # ticks may come from several job threads at once
        self._beat_lock = threading.Lock()
        self._stopping = False

    @property
    def running(self) -> bool:
        return self._aps is not None and self._aps.running

    def start(self) -> None:
        """Try to become leader (catching up at once if so), then run in the background."""
        if self.running:
            return
        self._stopping = False
        self.heartbeat()
        aps = BackgroundScheduler(
            timezone=UTC,
            job_defaults={"coalesce": True, "max_instances": 1, "misfire_grace_time": None},
        )
        aps.add_job(
            self.heartbeat, "interval", id="leader",
            seconds=float(self.app.config["LEADER_RENEW_SECONDS"]),
        )
        aps.add_job(
            self.tick, "interval", id="tick",
            seconds=float(self.app.config["SCHEDULER_TICK_SECONDS"]),
        )
        aps.add_job(
            self.poll, "interval", id="changes",
            seconds=float(self.app.config.get("SCHEDULER_POLL_SECONDS", 1)),
        )
        self._aps = aps
        aps.start()
        changes.add_listener(self.poke)
        self._plan()

    def shutdown(self, *, release: bool = True) -> None:
        changes.remove_listener(self.poke)
        self._stopping = True
        if self._aps is not None and self._aps.running:
            # not wait=True: APScheduler would wait for running jobs while holding the job
            # store lock that a job which is planning needs (a deadlock); the running job is
            # waited for just below instead
            self._aps.shutdown(wait=False)
        with self._beat_lock, self._lock, self._plan_lock:
            pass  # whatever job was running has finished, and no new one starts
        self._aps = None
        if self.is_leader and release:
            self.lease.release()
        self.is_leader = False

    def heartbeat(self) -> None:
        """Renew (or take) the lease; a new leader catches up immediately."""
        with self._beat_lock:
            if self._stopping:
                return
            try:
                leader = self.lease.try_acquire()
            except Exception:  # the database may be briefly unreachable: stay passive
                log.exception("leader lease: renewal failed")
                leader = False
            became = leader and not self.is_leader
            if self.is_leader and not leader:
                log.warning("leader lease lost by %s", self.lease.holder)
            self.is_leader = leader
        if became:
            log.info("scheduler leader: %s", self.lease.holder)
            aps = self._aps
            if aps is not None and aps.running:
                # in its own job: a long catch-up must not hold up the next renewal
                aps.add_job(self.tick, "date", run_date=datetime.now(UTC))
            else:
                self.tick()  # start(): catch up before returning
        elif not leader:
            self._drop_due_jobs()

    def tick(self) -> None:
        if not self.is_leader or self._stopping:
            return
        try:
            self._seen = self._counter()  # read first: a change during the run is seen later
        except Exception:
            log.exception("change counter unreadable")
        self.run_due()
        self._plan()

    def poll(self) -> None:
        """The leader replans as soon as the change counter moved (another process, or this
        one, changed a problem's or round's times)."""
        if not self.is_leader or self._stopping:
            return
        try:
            value = self._counter()
        except Exception:
            log.exception("change counter unreadable")
            return
        if value != self._seen:
            self.tick()

    def poke(self) -> None:
        """Called after a commit in this process changed a schedule: tick now if leader."""
        aps = self._aps
        if aps is not None and aps.running and self.is_leader:
            aps.add_job(self.tick, "date", run_date=datetime.now(UTC))

    def _counter(self) -> int:
        with get_engine(self.app).connect() as conn:
            return changes.current(conn)

    def run_due(self, now: datetime | None = None) -> list[str]:
        """Do what has fallen due; returns the actions taken (also in the audit log)."""
        with self._lock, self.app.app_context(), changes.quiet():
            at = now or clock.now()
            if self._covered is None or at > self._covered:
                self._covered = at  # attempted: a failed run is retried at the next tick
            try:
                done: list[str] = lifecycle.run_due(now=at)
            except Exception:
                log.exception("scheduled run failed; it is retried at the next tick")
                return []
            self.runs += 1
            return done

    def _job(self) -> None:
        if self.is_leader and not self._stopping:
            self.run_due()
            self._plan()

    def _plan(self) -> None:
        """One date job per instant after the last run (publication, reminders, deadline...).

        Planning starts from the instant the last run looked at, not from the clock: an
        instant that fell due while that run (or the scheduler's start) was under way is
        planned in the past, and APScheduler runs it at once instead of at the next tick."""
        aps = self._aps
        if aps is None or not aps.running or not self.is_leader:
            return
        with self._plan_lock:
            after = self._covered  # one attribute read: no _lock here (shutdown's order)
            with self.app.app_context():
                instants = lifecycle.upcoming_instants(now=after or clock.now())
            wanted = {_DUE_PREFIX + t.isoformat(): t for t in instants}
            for job in aps.get_jobs():
                if job.id.startswith(_DUE_PREFIX) and job.id not in wanted:
                    job.remove()
            for job_id, when in wanted.items():
                if aps.get_job(job_id) is None:
                    aps.add_job(self._job, "date", id=job_id, run_date=when)

    def _drop_due_jobs(self) -> None:
        if self._aps is None:
            return
        for job in self._aps.get_jobs():
            if job.id.startswith(_DUE_PREFIX):
                job.remove()

    def planned(self) -> list[Any]:
        return [] if self._aps is None else sorted(
            j.next_run_time for j in self._aps.get_jobs() if j.id.startswith(_DUE_PREFIX)
        )


def init_app(app: Flask) -> None:
    """Attach a scheduler; it starts only when asked (``arbitre serve``, or
    ``SCHEDULER_AUTOSTART`` for ``gunicorn 'webapp:create_app()'``)."""
    changes.install()
    sched = ArbitreScheduler(app)
    app.extensions[EXTENSION] = sched
    if app.config.get("SCHEDULER_ENABLED") and app.config.get("SCHEDULER_AUTOSTART"):
        sched.start()


def wake(app: Flask) -> bool:
    """Ask this process's scheduler to check what is due now instead of at the next tick
    (every commit that changes a schedule already does, :mod:`webapp.services.changes`).
    Returns False when this process does not lead: the leader elsewhere sees the change
    counter move within ``SCHEDULER_POLL_SECONDS``."""
    sched = app.extensions.get(EXTENSION)
    if sched is None or sched._aps is None or not sched.running or not sched.is_leader:
        return False
    sched.poke()
    return True


def get_scheduler(app: Flask) -> ArbitreScheduler:
    sched: ArbitreScheduler = app.extensions[EXTENSION]
    return sched

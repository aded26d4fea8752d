"""The scheduler lease: one holder at a time, taken over once it expires, and with two real
processes on PostgreSQL: kill the leader, the other one takes over."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from flask import Flask

from tests.waiting import wait_for
from webapp.db import get_engine, make_engine
from webapp.leader import LeaderLease, database_now

pytestmark = pytest.mark.db


def _age(engine: sa.Engine, seconds: float) -> None:
    """Let ``seconds`` pass on the database's clock, as the lease sees it: every stored
    instant moves that much into the past (the clock itself cannot be moved)."""
    from webapp.models import Lease

    table = Lease.__table__  # type: ignore[attr-defined]
    with engine.begin() as conn:
        for name, acquired, expires in conn.execute(
            sa.select(table.c.name, table.c.acquired_at, table.c.expires_at)
        ).all():
            conn.execute(sa.update(table).where(table.c.name == name).values(
                acquired_at=acquired - timedelta(seconds=seconds),
                expires_at=expires - timedelta(seconds=seconds)))


def _expires_at(engine: sa.Engine) -> datetime:
    from webapp.models import Lease

    table = Lease.__table__  # type: ignore[attr-defined]
    with engine.connect() as conn:
        return conn.execute(sa.select(table.c.expires_at)).scalar_one()  # type: ignore[no-any-return]


def _db_now(engine: sa.Engine) -> datetime:
    with engine.connect() as conn:
        return database_now(conn)


def test_one_holder_until_expiry_then_takeover(app: Flask) -> None:
    engine = get_engine(app)
    a = LeaderLease(engine, holder="a", ttl_seconds=30)
    b = LeaderLease(engine, holder="b", ttl_seconds=30)
    assert a.try_acquire() is True
    assert b.try_acquire() is False
    _age(engine, 20)
    assert a.try_acquire() is True  # renewal at t+20: expiry now t+50
    _age(engine, 29)
    assert b.try_acquire() is False  # t+49: a's renewed lease still runs
    assert b.current_holder() == "a"
    _age(engine, 2)  # t+51: a missed its renewal
    assert b.current_holder() is None
    assert b.try_acquire() is True
    assert a.try_acquire() is False
    assert a.current_holder() == "b"


def test_a_host_clock_off_by_an_hour_neither_steals_nor_keeps_the_lease(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Expiry is the database's now + ttl, judged on the database's clock: the host clock of
    the process asking does not count."""
    from webapp.services import clock

    engine = get_engine(app)
    a = LeaderLease(engine, holder="a", ttl_seconds=30)
    ahead = LeaderLease(engine, holder="ahead", ttl_seconds=30)
    behind = LeaderLease(engine, holder="behind", ttl_seconds=30)
    assert a.try_acquire() is True

    monkeypatch.setattr(clock, "OFFSET", timedelta(hours=1))  # this host is an hour ahead
    # on its own clock a's lease ran out 59 min 30 s ago; on the database's it runs 30 s more
    assert ahead.try_acquire() is False
    assert ahead.current_holder() == "a"
    a.release()
    before = _db_now(engine)
    assert ahead.try_acquire() is True
    after = _db_now(engine)
    # its lease ends 30 s after the database's now, not 1 h 30 s from now
    assert before + timedelta(seconds=30) <= _expires_at(engine) <= after + timedelta(seconds=30)
    _age(engine, 31)  # it died 31 s ago: the lease is free although its clock says otherwise
    assert a.try_acquire() is True

    monkeypatch.setattr(clock, "OFFSET", timedelta(hours=-1))  # an hour behind
    a.release()
    before = _db_now(engine)
    assert behind.try_acquire() is True
    after = _db_now(engine)
    assert before + timedelta(seconds=30) <= _expires_at(engine) <= after + timedelta(seconds=30)
    monkeypatch.setattr(clock, "OFFSET", timedelta(0))
    assert a.try_acquire() is False  # its lease is not born expired: nobody takes it
    assert a.current_holder() == "behind"


def test_release_lets_the_other_take_over_at_once(app: Flask) -> None:
    engine = get_engine(app)
    a = LeaderLease(engine, holder="a", ttl_seconds=300)
    b = LeaderLease(engine, holder="b", ttl_seconds=300)
    assert a.try_acquire() and not b.try_acquire()
    a.release()
    assert b.try_acquire() is True


CHILD = textwrap.dedent(
    """
    import sys, time
    from webapp import create_app
    from webapp.scheduler import get_scheduler

    app = create_app({
        "TESTING": True, "SECRET_KEY": "x", "DATABASE_URL": sys.argv[1],
        "DATABASE_SCHEMA": sys.argv[2], "INSTANCE_PATH": sys.argv[3],
        "MAIL_INTAKE_ENABLED": False,
        "LEADER_LEASE_SECONDS": 8, "LEADER_RENEW_SECONDS": 0.5,
        "SCHEDULER_TICK_SECONDS": 3600,
    })
    sched = get_scheduler(app)
    sched.start()
    print("holder", sched.lease.holder, flush=True)
    seen = 0
    while True:  # one line per lease attempt: its result and the database's clock
        lease = sched.lease
        if lease.attempts != seen and lease.last_now is not None:
            seen = lease.attempts
            print("beat", seen, int(sched.is_leader), lease.last_now.isoformat(), flush=True)
        time.sleep(0.02)
    """
)


class Child:
    """A scheduler process; its stdout lines are read by a thread as they come."""

    def __init__(self, script: Path, url: str, schema: str, instance: Path,
                 clock_offset: float = 0) -> None:
        env = dict(os.environ, ARBITRE_TEST_CLOCK_OFFSET_SECONDS=str(clock_offset),
                   PYTHONPATH=str(Path(__file__).resolve().parents[2]))  # this checkout
        self.proc = subprocess.Popen(
            [sys.executable, str(script), url, schema, str(instance)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
            cwd=Path(__file__).resolve().parents[2],
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        first = wait_for(lambda: self.lines or self.proc.poll() is not None)
        assert first is True or self.lines[0].startswith("holder "), self.stderr()
        assert self.lines, self.stderr()
        self.holder = self.lines[0].split()[1]
        self.pid = str(self.proc.pid)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def beats(self) -> list[tuple[int, bool, datetime]]:
        out = []
        for line in list(self.lines):
            if line.startswith("beat "):
                _, n, leader, at = line.split()
                out.append((int(n), leader == "1", datetime.fromisoformat(at)))
        return out

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return ""
        return self.proc.stderr.read() if self.proc.stderr else ""

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)  # no clean release
        self.proc.wait(60)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            self.proc.wait(60)
        finally:
            for pipe in (self.proc.stdout, self.proc.stderr):
                if pipe is not None:
                    pipe.close()


def _holder(engine: sa.Engine) -> tuple[str, datetime] | None:
    with engine.connect() as conn:
        row = conn.execute(sa.text("SELECT holder, expires_at FROM lease")).first()
    if row is None:
        return None
    expires = row[1] if row[1].tzinfo else row[1].replace(tzinfo=UTC)
    return (row[0], expires)


def _add_problem(engine: sa.Engine, code: str) -> None:
    from sqlmodel import Session, select

    from puzzles.generate import new_problem
    from webapp.models import Competition
    from webapp.services import problems

    with Session(engine) as s:
        comp = s.exec(select(Competition)).first() or problems.create_competition(
            session=s, slug="c", name="C")
        now = _db_now(engine)  # the children's clocks may be shifted: the database's is not
        problems.create_problem(
            session=s, competition=comp, code=code, puzzle=new_problem("integral", seed=1),
            publish_at=now, deadline_at=now + timedelta(days=9),
        )
        s.commit()


def _published_by(engine: sa.Engine, code: str) -> list[str]:
    from sqlmodel import Session, select

    from webapp.models import AuditLog

    with Session(engine) as s:
        rows = s.exec(select(AuditLog).where(AuditLog.action == "problem.publish",
                                             AuditLog.target == code)).all()
        return [r.details["process"].split(":")[1] for r in rows]


@pytest.mark.slow
def test_two_processes_on_postgresql_kill_the_leader_the_other_takes_over(
    tmp_path: Path,
) -> None:
    """Three real processes, one with its clock an hour ahead. Expiry is judged on
    PostgreSQL's clock: the shifted one does not steal the live lease, takes it over once
    the leader is killed, and once killed in turn does not keep it (its lease ends on the
    database's clock, not an hour later)."""
    url = os.environ.get("ARBITRE_TEST_DATABASE_URL") or (
        "postgresql+psycopg://postgres@127.0.0.1:5432/test"
    )
    probe = sa.create_engine(url)
    try:
        with probe.connect():
            pass
    except sa.exc.OperationalError as exc:
        pytest.skip(f"PostgreSQL injoignable ({url}) : {exc.orig}")
    finally:
        probe.dispose()

    from sqlmodel import SQLModel

    import webapp.models  # noqa: F401

    schema = f"lease_{uuid.uuid4().hex[:10]}"
    engine = make_engine(url, schema=schema)
    SQLModel.metadata.create_all(engine)
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    children: list[Child] = []
    try:
        first = Child(script, url, schema, tmp_path / "inst0")
        children.append(first)
        wait_for(lambda: (_holder(engine) or ("",))[0] == first.holder)
        ahead = Child(script, url, schema, tmp_path / "inst1", clock_offset=3600)
        children.append(ahead)
        # The leader renews; the shifted process keeps asking and is refused, until it has
        # asked after the instant the leader's *first* lease would have ended: only the
        # renewals kept it. (Before the fix it took the lease at its first attempt.)
        first_expiry = _holder(engine)[1]  # type: ignore[index]
        wait_for(lambda: any(at > first_expiry for _, _, at in ahead.beats()))
        assert [leader for _, leader, _ in ahead.beats()] == [False] * len(ahead.beats())
        assert _holder(engine)[0] == first.holder  # type: ignore[index]

        # the leader, and only it, runs the jobs
        _add_problem(engine, "P1")
        assert wait_for(lambda: _published_by(engine, "P1")) == [first.pid]

        first.kill()
        _add_problem(engine, "P2")
        wait_for(lambda: (_holder(engine) or ("",))[0] == ahead.holder)
        assert wait_for(lambda: _published_by(engine, "P2")) == [ahead.pid]
        assert _published_by(engine, "P1") == [first.pid]
        # its lease ends 8 s after PostgreSQL's now, not an hour and 8 s later
        assert _holder(engine)[1] <= _db_now(engine) + timedelta(seconds=8)  # type: ignore[index]

        third = Child(script, url, schema, tmp_path / "inst2")
        children.append(third)
        ahead.kill()
        wait_for(lambda: (_holder(engine) or ("",))[0] == third.holder)
        _add_problem(engine, "P3")
        assert wait_for(lambda: _published_by(engine, "P3")) == [third.pid]
    finally:
        for child in children:
            child.stop()
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()

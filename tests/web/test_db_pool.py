"""The PostgreSQL pool's liveness check (webapp.db): a connection whose server session ended
while it sat in the pool is replaced before a page gets it, and a healthy one is reused."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa
from flask import Flask

from tests.conftest import PG_URL, on_postgres
from webapp.db import get_engine

pytestmark = [
    pytest.mark.db,
    pytest.mark.skipif(not on_postgres(), reason="pool liveness is a PostgreSQL matter"),
]


def _backend_pid(engine: sa.engine.Engine) -> int:
    with engine.connect() as conn:
        return int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())


def _terminate(pid: int) -> None:
    assert PG_URL is not None
    admin = sa.create_engine(PG_URL, poolclass=sa.pool.NullPool)
    try:
        with admin.connect() as conn:
            assert conn.execute(sa.text("SELECT pg_terminate_backend(:p)"), {"p": pid}).scalar()
            limit = time.monotonic() + 60  # the backend exits asynchronously
            while True:
                gone = conn.execute(
                    sa.text("SELECT count(*) FROM pg_stat_activity WHERE pid = :p"), {"p": pid}
                ).scalar_one() == 0
                if gone or time.monotonic() > limit:
                    break
                # pg_stat_activity is a snapshot per transaction: end it to see the exit
                conn.rollback()
                time.sleep(0.02)
            assert gone
    finally:
        admin.dispose()


def test_healthy_pooled_connection_is_reused(app: Flask) -> None:
    engine = get_engine(app)
    engine.dispose()
    first = _backend_pid(engine)
    assert _backend_pid(engine) == first
    assert _backend_pid(engine) == first


def test_connection_killed_in_the_pool_is_replaced_before_use(app: Flask) -> None:
    engine = get_engine(app)
    engine.dispose()
    pid = _backend_pid(engine)  # back in the pool a moment ago: no ping would be sent
    _terminate(pid)
    with engine.connect() as conn:  # must not fail: the dead session is noticed at checkout
        assert conn.exec_driver_sql("SELECT 41 + 1").scalar_one() == 42
        assert int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()) != pid


def test_connection_idle_past_the_window_is_pinged(app: Flask,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import webapp.db as db

    engine = get_engine(app)
    engine.dispose()
    pings: list[object] = []
    real_ping = engine.dialect.do_ping

    def counting_ping(dbapi_conn: object) -> bool:
        pings.append(dbapi_conn)
        return bool(real_ping(dbapi_conn))

    monkeypatch.setattr(engine.dialect, "do_ping", counting_ping)
    first = _backend_pid(engine)  # a new connection: pinged once at its first checkout
    assert len(pings) == 1
    assert _backend_pid(engine) == first  # recent and quiet: no ping
    assert len(pings) == 1
    monkeypatch.setattr(db, "RECENT_CHECKIN_SECONDS", 0.0)
    assert _backend_pid(engine) == first  # idle past the window: pinged, still alive
    assert len(pings) == 2

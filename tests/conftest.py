"""Root fixtures: the app on a fresh database per test, its test client and CLI runner, a
database session, and a frozen clock.

Without ``ARBITRE_TEST_DATABASE_URL`` each test gets its own SQLite file. With it (CI:
``postgresql+psycopg://postgres@127.0.0.1:5432/test``), the run gets its own PostgreSQL
schema, so concurrent runs on one database never meet, and each test starts from freshly
created tables.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
import time_machine
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from sqlmodel import Session, SQLModel

PG_URL = os.environ.get("ARBITRE_TEST_DATABASE_URL")

#: the instant the frozen clock starts at (a Sunday, 10:00 UTC = 13:00 in Bucharest)
FROZEN_START = datetime(2026, 5, 10, 10, 0, 0, tzinfo=UTC)


def on_postgres() -> bool:
    return bool(PG_URL)


@pytest.fixture(scope="session")
def pg_schema() -> Iterator[str | None]:
    if not PG_URL:
        yield None
        return
    name = f"t_{os.getpid()}_{uuid.uuid4().hex[:8]}"
    yield name
    engine = sa.create_engine(PG_URL)
    with engine.begin() as conn:
        conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{name}" CASCADE'))
    engine.dispose()


@pytest.fixture
def database_url(tmp_path: Path) -> str:
    return PG_URL or f"sqlite:///{tmp_path / 'test.sqlite3'}"


@pytest.fixture
def app_config(tmp_path: Path, database_url: str, pg_schema: str | None) -> dict[str, Any]:
    return {
        "TESTING": True,
        "SECRET_KEY": "test-secret",
        "DATABASE_URL": database_url,
        "DATABASE_SCHEMA": pg_schema,
        "WTF_CSRF_ENABLED": False,
        "SCHEDULER_ENABLED": False,
        "MAIL_INTAKE_ENABLED": False,
        "BASE_URL": "http://arbitre.test",
        "SUBMIT_DOMAIN": "arbitre.test",
        "SERVER_NAME": None,
        "INSTANCE_PATH": str(tmp_path / "instance"),
    }


@pytest.fixture
def app(app_config: dict[str, Any], tmp_path: Path) -> Iterator[Flask]:
    import webapp.models  # noqa: F401  (tables registered on the metadata)
    from webapp import create_app
    from webapp.db import get_engine
    from webapp.scheduler import get_scheduler

    flask_app = create_app(app_config)
    engine = get_engine(flask_app)
    if PG_URL:
        SQLModel.metadata.drop_all(engine)
    SQLModel.metadata.create_all(engine)
    yield flask_app
    get_scheduler(flask_app).shutdown()
    engine.dispose()


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


@pytest.fixture
def db_session(app: Flask) -> Iterator[Session]:
    from webapp.db import get_engine

    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as session:
        yield session


@pytest.fixture
def frozen_start() -> datetime:
    return FROZEN_START


@pytest.fixture
def frozen_clock() -> Iterator[time_machine.Coordinates]:
    """The clock stands still at :data:`FROZEN_START`; move it with ``.move_to`` / ``.shift``."""
    with time_machine.travel(FROZEN_START, tick=False) as traveller:
        yield traveller


@pytest.fixture(autouse=True)
def _fresh_ranking_tables() -> Iterator[None]:
    """A published ranking's rows are rendered once per process, keyed by database, schema,
    ranking id and publication time (``webapp.views.public._ranking_table``). On PostgreSQL
    every test of a run shares one schema whose tables start anew, so two tests' rankings
    can have the same id and (frozen clock) the same time: each test starts with no cached
    table, as each server process does."""
    yield
    from webapp.views.public import _ranking_table

    _ranking_table.cache_clear()

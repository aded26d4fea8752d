"""The database: engine per app, sessions, the UTC timestamp column type, and migrations.

SQLite in the instance folder by default, PostgreSQL (psycopg 3) through ``DATABASE_URL``.
``DATABASE_SCHEMA`` (PostgreSQL only) puts every table in one schema through ``search_path``;
the tests use it to isolate runs that share one database.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from flask import Flask, current_app
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


class UTCDateTime(sa.types.TypeDecorator[datetime]):
    """A timezone-aware UTC instant on every backend.

    SQLite has no time zone type and silently drops ``tzinfo``: we store naive UTC there and
    give back aware UTC, so comparisons never mix naive and aware values.
    """

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: sa.Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime refused: store timezone-aware UTC instants")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(
        self, value: datetime | None, dialect: sa.Dialect
    ) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


_SCHEMA_RE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


def make_engine(url: str, *, schema: str | None = None, echo: bool = False) -> Engine:
    """An engine for ``url``; on SQLite, foreign keys on and a busy timeout for threads."""
    kwargs: dict[str, Any] = {"echo": echo, "future": True}
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    else:
        kwargs["pool_pre_ping"] = True
    engine = sa.create_engine(url, **kwargs)
    if engine.dialect.name == "sqlite":

        @sa.event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.close()

    elif schema:
        if not _SCHEMA_RE.match(schema):
            raise ValueError(f"invalid schema name {schema!r}")

        @sa.event.listens_for(engine, "connect")
        def _search_path(dbapi_conn: Any, _record: Any) -> None:
            autocommit = dbapi_conn.autocommit
            dbapi_conn.autocommit = True
            cur = dbapi_conn.cursor()
            cur.execute(f'CREATE SCHEMA IF NOT EXISTS "{schema}"')
            cur.execute(f'SET search_path TO "{schema}"')
            cur.close()
            dbapi_conn.autocommit = autocommit

    return engine


def init_app(app: Flask) -> None:
    """Create the app's engine (no connection is opened until first use)."""
    url = app.config.get("DATABASE_URL") or default_sqlite_url(app)
    app.config["DATABASE_URL"] = url
    engine = make_engine(
        url, schema=app.config.get("DATABASE_SCHEMA"), echo=bool(app.config.get("SQL_ECHO"))
    )
    app.extensions["arbitre.engine"] = engine


def default_sqlite_url(app: Flask) -> str:
    Path(app.instance_path).mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{Path(app.instance_path) / 'arbitre.sqlite3'}"


def get_engine(app: Flask | None = None) -> Engine:
    app = app or current_app
    engine: Engine = app.extensions["arbitre.engine"]
    return engine


@contextmanager
def session_scope(app: Flask | None = None) -> Iterator[Session]:
    """One transaction: committed on success, rolled back on error."""
    with Session(get_engine(app), expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def alembic_config(engine: Engine) -> Any:
    """Alembic configuration for ``migrations/``, without an ini file on disk."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
    cfg.attributes["engine"] = engine
    return cfg


def upgrade(app: Flask | None = None, revision: str = "head") -> None:
    """Bring the database to ``revision`` (``alembic upgrade``)."""
    from alembic import command

    command.upgrade(alembic_config(get_engine(app)), revision)


def current_revision(app: Flask | None = None) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with get_engine(app).connect() as conn:
        rev: str | None = MigrationContext.configure(conn).get_current_revision()
        return rev


def is_empty(app: Flask | None = None) -> bool:
    """True when no table of ours exists yet (a fresh install)."""
    insp = sa.inspect(get_engine(app))
    return not any(t in insp.get_table_names() for t in SQLModel.metadata.tables)

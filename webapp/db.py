"""The database: engine per app, sessions, the UTC timestamp column type, and migrations.

SQLite in the instance folder by default, PostgreSQL (psycopg 3) through ``DATABASE_URL``.
``DATABASE_SCHEMA`` (PostgreSQL only) puts every table in one schema through ``search_path``;
the tests use it to isolate runs that share one database.
"""

from __future__ import annotations

import re
import select
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from flask import Flask, current_app
from sqlalchemy.engine import Engine
from sqlmodel import Session, SQLModel
from sqlmodel.sql.sqltypes import AutoString

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


_E = TypeVar("_E", bound=StrEnum)


class BigIntText(sa.types.TypeDecorator[int]):
    """A non-negative integer wider than any SQL integer type (a 128-bit draw seed), stored
    as its decimal digits in a VARCHAR: exact on SQLite and PostgreSQL alike (SQLite turns an
    INTEGER past 2**63 into a float, PostgreSQL's BIGINT refuses it)."""

    impl = AutoString
    cache_ok = True

    @property
    def python_type(self) -> type[int]:
        return int

    def process_bind_param(self, value: object, dialect: sa.Dialect) -> str | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"{value!r} is not a non-negative integer")
        return str(value)

    def process_result_value(self, value: object, dialect: sa.Dialect) -> int | None:
        if value is None:
            return None
        return int(str(value))


class UnknownEnumValue(ValueError):
    """A stored string that is no member of its column's enum (a damaged row or a value
    written by a newer release): loading the row fails here, loudly, instead of handing a
    stray string to code that expects a member."""


class StrEnumType(sa.types.TypeDecorator[_E]):
    """A ``StrEnum`` column stored as the plain VARCHAR it always was (no schema change, no
    database enum type): the Python attribute is the member, a loaded row gives members, and
    an unknown value (bound or loaded) raises :class:`UnknownEnumValue`.

    The tables also coerce assignments (``problem.status = "open"`` holds
    ``ProblemStatus.OPEN``): see :class:`StrEnumColumns`.
    """

    impl = AutoString
    cache_ok = True

    def __init__(self, enum_class: type[_E], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.enum_class = enum_class

    @property
    def python_type(self) -> type[_E]:
        return self.enum_class

    def coerce(self, value: object) -> _E:
        """The member ``value`` names (a member or its string)."""
        if isinstance(value, self.enum_class):
            return value
        if isinstance(value, str):
            try:
                return self.enum_class(value)
            except ValueError:
                pass
        known = ", ".join(repr(m.value) for m in self.enum_class)
        raise UnknownEnumValue(f"{value!r} is not a {self.enum_class.__name__} (known: {known})")

    def process_bind_param(self, value: object, dialect: sa.Dialect) -> str | None:
        if value is None:
            return None
        return self.coerce(value).value

    def process_result_value(self, value: object, dialect: sa.Dialect) -> _E | None:
        if value is None:
            return None
        return self.coerce(value)

    def __repr__(self) -> str:
        return f"StrEnumType({self.enum_class.__name__})"


class StrEnumColumns(SQLModel):
    """Base of the tables with :class:`StrEnumType` columns: a string assigned to one
    (constructor or attribute) becomes its member at once, and an unknown one raises
    :class:`UnknownEnumValue` where it is assigned. (SQLModel's own ``__setattr__`` writes
    the raw value last, so a SQLAlchemy ``set`` event could not do this.)"""

    def __setattr__(self, name: str, value: Any) -> None:
        column_type = _enum_columns(type(self)).get(name)
        if column_type is not None and value is not None:
            value = column_type.coerce(value)
        super().__setattr__(name, value)


_ENUM_COLUMNS: dict[type, dict[str, StrEnumType[Any]]] = {}


def _enum_columns(model: type) -> dict[str, StrEnumType[Any]]:
    found = _ENUM_COLUMNS.get(model)
    if found is None:
        table = getattr(model, "__table__", None)
        found = {} if table is None else {
            c.key: c.type for c in table.columns if isinstance(c.type, StrEnumType)
        }
        _ENUM_COLUMNS[model] = found
    return found


_SCHEMA_RE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


#: the longest statement, and the most parameters, whose placeholders psycopg converts once
#: and remembers (:func:`remember_long_statements`)
LONG_STATEMENT_BYTES = 131_072
LONG_STATEMENT_PARAMS = 2_048


def remember_long_statements() -> None:
    """Let psycopg remember the conversion of long statements too.

    Before sending a statement, psycopg rewrites its ``%(name)s`` placeholders as ``$n``
    (a regular expression and a Python loop over every placeholder) and remembers the
    result, a function of the statement's text and encoding alone, only for statements of
    at most 4,096 bytes and 50 parameters (``psycopg._queries``). A mail batch's multi-row
    ``INSERT`` of its receipts (SQLAlchemy's « insertmanyvalues »: 100 rows of 18 columns,
    1,800 parameters, the same text every full batch) was converted anew each time: 10 ms
    a batch of 100 at load 0.7 (the intake's 100-row ``INSERT`` of the raw messages, 9 ms).
    The limits raised (a longer statement is still converted each time), the same text
    comes from psycopg's own cache (128 entries: some 40 MB at worst, 128 different
    statements of that length): the same bytes to the server. A psycopg without these
    limits is left as it is."""
    try:
        from psycopg import _queries
    except ImportError:
        return
    for name, value in (("MAX_CACHED_STATEMENT_LENGTH", LONG_STATEMENT_BYTES),
                        ("MAX_CACHED_STATEMENT_PARAMS", LONG_STATEMENT_PARAMS)):
        current = getattr(_queries, name, None)
        if isinstance(current, int) and current < value:
            setattr(_queries, name, value)


def make_engine(url: str, *, schema: str | None = None, echo: bool = False) -> Engine:
    """An engine for ``url``; on SQLite, foreign keys on and a busy timeout for threads."""
    kwargs: dict[str, Any] = {"echo": echo, "future": True}
    if url.startswith("sqlite"):
        kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
    engine = sa.create_engine(url, **kwargs)
    if engine.dialect.driver == "psycopg":
        remember_long_statements()
    if engine.dialect.name != "sqlite":
        _check_alive_on_checkout(engine)
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


#: A pooled connection given back less than this many seconds ago, whose socket has received
#: nothing since, is handed out without a ping round trip.
RECENT_CHECKIN_SECONDS = 10.0


def _socket_quiet(dbapi_conn: Any) -> bool:
    """True when nothing has arrived on the connection's socket while it sat in the pool.

    The server says something only when it ends the session (restart, ``pg_terminate_backend``,
    idle timeout): a FATAL message and end of file make the socket readable.
    """
    try:
        if dbapi_conn.closed or dbapi_conn.broken:
            return False
        fd = dbapi_conn.pgconn.socket
        readable, _, _ = select.select([fd], [], [], 0)
    except Exception:
        return False
    return not readable


def _check_alive_on_checkout(engine: Engine) -> None:
    """What ``pool_pre_ping`` does, without its round trip for a connection in steady use.

    Under load every page checks out a connection or two, and on a busy machine each ping
    waits for the PostgreSQL backend to be scheduled: pinging cost more than the queries.
    A connection back in the pool for under :data:`RECENT_CHECKIN_SECONDS` with a quiet
    socket is used as is; any other is pinged, and one that fails the ping is replaced
    (``DisconnectionError`` makes the pool discard it and open a new one), so a database
    restart still costs no request.
    """

    @sa.event.listens_for(engine, "checkin")
    def _checked_in(_dbapi_conn: Any, record: Any) -> None:
        if record is not None:
            record.info["arbitre.checkin"] = time.monotonic()

    @sa.event.listens_for(engine, "checkout")
    def _checkout(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        last = record.info.pop("arbitre.checkin", None)
        if (last is not None and time.monotonic() - last < RECENT_CHECKIN_SECONDS
                and _socket_quiet(dbapi_conn)):
            return
        try:
            engine.dialect.do_ping(dbapi_conn)
        except Exception as exc:
            raise sa.exc.DisconnectionError(f"connexion perdue : {exc}") from exc


def init_app(app: Flask) -> None:
    """Create the app's engine (no connection is opened until first use)."""
    url = app.config.get("DATABASE_URL") or default_sqlite_url(app)
    app.config["DATABASE_URL"] = url
    engine = make_engine(
        url, schema=app.config.get("DATABASE_SCHEMA"), echo=bool(app.config.get("SQL_ECHO"))
    )
    app.extensions["arbitre.engine"] = engine


def read_engine(app: Flask | None = None) -> Engine:
    """The engine for sessions that only read (pages): on PostgreSQL its connections run in
    autocommit, so a page's SELECTs cost no BEGIN and no ROLLBACK round trip. Under
    PostgreSQL's READ COMMITTED every statement takes its own snapshot inside a transaction
    too, so what a page reads is the same. On SQLite it is the app's engine (there a
    transaction gives the page one snapshot, which autocommit would not)."""
    app = app or current_app
    engine = get_engine(app)
    if engine.dialect.name == "sqlite":
        return engine
    reader: Engine | None = app.extensions.get("arbitre.read_engine")
    if reader is None:
        reader = engine.execution_options(isolation_level="AUTOCOMMIT")
        app.extensions["arbitre.read_engine"] = reader
    return reader


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
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    # the option goes through configparser's interpolation: a "%" (a URL-quoted accented
    # letter of the path, « /home/andré/… » → « andr%C3%A9 ») is written "%%"
    url = engine.url.render_as_string(hide_password=False)
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    cfg.attributes["engine"] = engine
    return cfg


def upgrade(app: Flask | None = None, revision: str = "head") -> None:
    """Bring the database to ``revision`` (``alembic upgrade``)."""
    command.upgrade(alembic_config(get_engine(app)), revision)


def current_revision(app: Flask | None = None) -> str | None:
    with get_engine(app).connect() as conn:
        rev: str | None = MigrationContext.configure(conn).get_current_revision()
        return rev


def is_empty(app: Flask | None = None) -> bool:
    """True when no table of ours exists yet (a fresh install)."""
    insp = sa.inspect(get_engine(app))
    return not any(t in insp.get_table_names() for t in SQLModel.metadata.tables)

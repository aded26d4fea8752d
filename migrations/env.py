"""Alembic environment: the target is ``SQLModel.metadata`` (every table of webapp.models).

Run through :func:`webapp.db.upgrade` / ``arbitre db upgrade``, which pass the app's engine in
``config.attributes["engine"]``; plain ``alembic -c migrations/alembic.ini`` uses
``ARBITRE_DATABASE_URL`` (or the URL of the ini file).
"""

from __future__ import annotations

import os

import sqlalchemy as sa
from alembic import context
from sqlmodel import SQLModel

import webapp.models  # noqa: F401  (registers the tables)

config = context.config
target_metadata = SQLModel.metadata


def _render_item(type_: str, obj: object, autogen_context: object) -> str | bool:
    from webapp.db import StrEnumType, UTCDateTime

    if type_ == "type" and isinstance(obj, UTCDateTime):
        autogen_context.imports.add("import webapp.db")  # type: ignore[attr-defined]
        return "webapp.db.UTCDateTime()"
    if type_ == "type" and isinstance(obj, StrEnumType):
        # a StrEnum column is the plain VARCHAR the migrations always wrote
        autogen_context.imports.add("import sqlmodel")  # type: ignore[attr-defined]
        return "sqlmodel.sql.sqltypes.AutoString()"
    return False


def run_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
        render_item=_render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    engine = config.attributes.get("engine")
    if engine is None:
        from webapp.db import make_engine

        url = os.environ.get("ARBITRE_DATABASE_URL") or config.get_main_option("sqlalchemy.url")
        engine = make_engine(url or "sqlite:///instance/arbitre.sqlite3")
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    with engine.connect() as conn:
        _run(conn)
        conn.commit()


def _run(connection: sa.Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        render_item=_render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_offline()
else:
    run_online()

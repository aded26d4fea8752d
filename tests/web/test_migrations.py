"""The Alembic chain builds exactly the tables of webapp.models."""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import webapp.models  # noqa: F401
from webapp.db import alembic_config, make_engine

pytestmark = pytest.mark.db


@pytest.fixture
def empty_engine(database_url: str, pg_schema: str | None):
    # a schema of its own on PostgreSQL: the app fixture's tables must not be seen here
    schema = f"{pg_schema}_mig_{uuid.uuid4().hex[:6]}" if pg_schema else None
    engine = make_engine(database_url, schema=schema)
    yield engine
    if schema:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    engine.dispose()


def test_upgrade_head_on_empty_database_matches_the_models(empty_engine: sa.Engine) -> None:
    assert sa.inspect(empty_engine).get_table_names() == []
    command.upgrade(alembic_config(empty_engine), "head")

    tables = set(sa.inspect(empty_engine).get_table_names())
    assert tables == set(SQLModel.metadata.tables) | {"alembic_version"}
    with empty_engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        assert ctx.get_current_revision() == "0003"
        assert compare_metadata(ctx, SQLModel.metadata) == []


def test_downgrade_to_base_then_upgrade_again(empty_engine: sa.Engine) -> None:
    cfg = alembic_config(empty_engine)
    command.upgrade(cfg, "head")
    command.downgrade(cfg, "base")
    assert set(sa.inspect(empty_engine).get_table_names()) == {"alembic_version"}
    command.upgrade(cfg, "head")
    assert "submission" in sa.inspect(empty_engine).get_table_names()

"""The Alembic chain builds exactly the tables of webapp.models."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

import webapp.models  # noqa: F401
from webapp.db import alembic_config

pytestmark = pytest.mark.db


def head_revision(engine: sa.Engine) -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config(engine)).get_current_head()
    assert head is not None
    return head


def test_the_chain_is_linear_and_numbered() -> None:
    from alembic.script import ScriptDirectory

    from webapp.db import make_engine as _make

    engine = _make("sqlite://")
    script = ScriptDirectory.from_config(alembic_config(engine))
    revisions = [r.revision for r in script.walk_revisions()]
    assert len(script.get_heads()) == 1
    assert sorted(revisions) == [f"{i:04d}" for i in range(1, len(revisions) + 1)]
    engine.dispose()


def test_upgrade_head_on_empty_database_matches_the_models(empty_engine: sa.Engine) -> None:
    assert sa.inspect(empty_engine).get_table_names() == []
    command.upgrade(alembic_config(empty_engine), "head")

    tables = set(sa.inspect(empty_engine).get_table_names())
    assert tables == set(SQLModel.metadata.tables) | {"alembic_version"}
    with empty_engine.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": True})
        assert ctx.get_current_revision() == head_revision(empty_engine)
        assert compare_metadata(ctx, SQLModel.metadata) == []


def test_downgrade_to_base_then_upgrade_again(empty_engine: sa.Engine) -> None:
    cfg = alembic_config(empty_engine)
    command.upgrade(cfg, "head")
    command.downgrade(cfg, "base")
    assert set(sa.inspect(empty_engine).get_table_names()) == {"alembic_version"}
    command.upgrade(cfg, "head")
    assert "submission" in sa.inspect(empty_engine).get_table_names()

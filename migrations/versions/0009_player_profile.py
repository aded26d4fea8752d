"""players as people: licence number, category (série) and country

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 00:20:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # existing players have none of the three yet: ""
    with op.batch_alter_table("player", schema=None) as batch_op:
        for name in ("licence", "category", "country"):
            batch_op.add_column(
                sa.Column(name, sqlmodel.sql.sqltypes.AutoString(), server_default="",
                          nullable=False)
            )
        batch_op.create_index(batch_op.f("ix_player_category"), ["category"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_player_category"))
        for name in ("country", "category", "licence"):
            batch_op.drop_column(name)

"""Duplicate variants played by correspondence: the game's variant

Revision ID: 0009
Revises: 0007
Create Date: 2026-12-01 00:05:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0009"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # existing games are plain FISF Duplicates: variant ""
    with op.batch_alter_table("duplicate_game", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("variant", sqlmodel.sql.sqltypes.AutoString(), server_default="",
                      nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("duplicate_game", schema=None) as batch_op:
        batch_op.drop_column("variant")

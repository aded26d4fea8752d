"""problem round interval (Anticipation announced move by move)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 00:25:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # existing problems keep the old behaviour: the whole order announced at publication
    with op.batch_alter_table("problem", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("round_interval_minutes", sa.Integer(), server_default="0", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("problem", schema=None) as batch_op:
        batch_op.drop_column("round_interval_minutes")

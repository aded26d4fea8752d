"""championship standings: competition settings, problem event value

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 00:35:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # existing competitions keep the defaults (NULL) and existing problems the value 100
    with op.batch_alter_table("competition", schema=None) as batch_op:
        batch_op.add_column(sa.Column("standings_settings", sa.JSON(), nullable=True))
    with op.batch_alter_table("problem", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("event_value", sa.Integer(), server_default="100", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("problem", schema=None) as batch_op:
        batch_op.drop_column("event_value")
    with op.batch_alter_table("competition", schema=None) as batch_op:
        batch_op.drop_column("standings_settings")

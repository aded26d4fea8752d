"""change counter: the scheduler's leader replans as soon as a schedule changes

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30 23:45:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import webapp.db

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a new table only; its rows are created on the first change
    op.create_table(
        "change_counter",
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("value", sa.Integer(), nullable=False),
        sa.Column("changed_at", webapp.db.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )


def downgrade() -> None:
    op.drop_table("change_counter")

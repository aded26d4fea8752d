"""Anticipation by correspondence: the announcements stored as rounds (anticipation_round)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 01:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import webapp.db

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a new table only; problems published before it keep their computed schedule
    # (webapp.services.rounds falls back to publication + (k-1) × interval without rows)
    op.create_table(
        "anticipation_round",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("problem_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("announced_at", webapp.db.UTCDateTime(), nullable=False),
        sa.Column("notified_at", webapp.db.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["problem_id"], ["problem.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("problem_id", "number"),
    )
    with op.batch_alter_table("anticipation_round", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_anticipation_round_announced_at"),
                              ["announced_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_anticipation_round_problem_id"), ["problem_id"],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table("anticipation_round", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_anticipation_round_problem_id"))
        batch_op.drop_index(batch_op.f("ix_anticipation_round_announced_at"))
    op.drop_table("anticipation_round")

"""Duplicate variants played by correspondence: the game's variant; the two-player
correspondence game (table correspondence_game)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 00:05:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import webapp.db

_str = sqlmodel.sql.sqltypes.AutoString

revision: str = "0008"
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
    op.create_table(
        "correspondence_game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", _str(), nullable=False),
        sa.Column("competition_id", sa.Integer(), nullable=False),
        sa.Column("title", _str(), nullable=False),
        sa.Column("lang", _str(), nullable=False),
        sa.Column("lexicon_name", _str(), nullable=False),
        sa.Column("lexicon_sha256", _str(), nullable=True),
        sa.Column("row", _str(), nullable=False),
        sa.Column("red_id", sa.Integer(), nullable=False),
        sa.Column("blue_id", sa.Integer(), nullable=False),
        sa.Column("moves", sa.JSON(), nullable=False),
        sa.Column("move_hours", sa.Integer(), nullable=False),
        sa.Column("reminder_hours", sa.Integer(), nullable=False),
        sa.Column("grace_hours", sa.Integer(), nullable=False),
        sa.Column("turn_started_at", webapp.db.UTCDateTime(), nullable=False),
        sa.Column("reminded_moves", sa.Integer(), nullable=False),
        sa.Column("status", _str(), nullable=False),
        sa.Column("end_reason", _str(), nullable=False),
        sa.Column("result_red", sa.Float(), nullable=True),
        sa.Column("result_blue", sa.Float(), nullable=True),
        sa.Column("created_at", webapp.db.UTCDateTime(), nullable=False),
        sa.Column("finished_at", webapp.db.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["competition_id"], ["competition.id"]),
        sa.ForeignKeyConstraint(["red_id"], ["player.id"]),
        sa.ForeignKeyConstraint(["blue_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("correspondence_game", schema=None) as batch_op:
        for name in ("code", "competition_id", "red_id", "blue_id", "turn_started_at",
                     "status"):
            batch_op.create_index(batch_op.f(f"ix_correspondence_game_{name}"), [name],
                                  unique=name == "code")


def downgrade() -> None:
    op.drop_table("correspondence_game")
    with op.batch_alter_table("duplicate_game", schema=None) as batch_op:
        batch_op.drop_column("variant")

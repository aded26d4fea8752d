"""Duplicate by correspondence: games, rounds, bulletins

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 23:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import webapp.db

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_str = sqlmodel.sql.sqltypes.AutoString


def upgrade() -> None:
    # new tables only: every existing row is left as it is
    op.create_table(
        "duplicate_game",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("code", _str(), nullable=False),
        sa.Column("competition_id", sa.Integer(), nullable=False),
        sa.Column("title", _str(), nullable=False),
        sa.Column("lang", _str(), nullable=False),
        sa.Column("lexicon_name", _str(), nullable=False),
        sa.Column("lexicon_sha256", _str(), nullable=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("rhythm", sa.JSON(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("bag_order", _str(), nullable=False),
        sa.Column("state_text", _str(), nullable=False),
        sa.Column("timezone", _str(), nullable=False),
        sa.Column("review_minutes", sa.Integer(), nullable=False),
        sa.Column("starts_at", webapp.db.UTCDateTime(), nullable=False),
        sa.Column("status", _str(), nullable=False),
        sa.Column("created_at", webapp.db.UTCDateTime(), nullable=False),
        sa.Column("finished_at", webapp.db.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["competition_id"], ["competition.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("duplicate_game", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_duplicate_game_code"), ["code"], unique=True)
        batch_op.create_index(batch_op.f("ix_duplicate_game_competition_id"),
                              ["competition_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_duplicate_game_starts_at"), ["starts_at"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_duplicate_game_status"), ["status"], unique=False)

    op.create_table(
        "duplicate_round",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("opens_at", webapp.db.UTCDateTime(), nullable=False),
        sa.Column("closes_at", webapp.db.UTCDateTime(), nullable=False),
        sa.Column("status", _str(), nullable=False),
        sa.Column("draw", sa.JSON(), nullable=False),
        sa.Column("state_before", _str(), nullable=False),
        sa.Column("grid_before", _str(), nullable=False),
        sa.Column("grid_after", _str(), nullable=True),
        sa.Column("top", sa.JSON(), nullable=True),
        sa.Column("top_overridden_by", _str(), nullable=True),
        sa.Column("results", sa.JSON(), nullable=False),
        sa.Column("closed_at", webapp.db.UTCDateTime(), nullable=True),
        sa.Column("corrected_at", webapp.db.UTCDateTime(), nullable=True),
        sa.Column("published_at", webapp.db.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["duplicate_game.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "number"),
    )
    with op.batch_alter_table("duplicate_round", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_duplicate_round_closes_at"), ["closes_at"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_duplicate_round_game_id"), ["game_id"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_duplicate_round_status"), ["status"], unique=False)

    op.create_table(
        "duplicate_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("round_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("channel", _str(), nullable=False),
        sa.Column("received_at", webapp.db.UTCDateTime(), nullable=False),
        sa.Column("raw_text", _str(), nullable=False),
        sa.Column("sha256", _str(), nullable=False),
        sa.Column("late", sa.Boolean(), nullable=False),
        sa.Column("parse_errors", sa.JSON(), nullable=False),
        sa.Column("bulletin", sa.JSON(), nullable=True),
        sa.Column("inbound_message_id", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["inbound_message_id"], ["inbound_message.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.ForeignKeyConstraint(["round_id"], ["duplicate_round.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("round_id", "player_id", "version"),
    )
    with op.batch_alter_table("duplicate_entry", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_duplicate_entry_player_id"), ["player_id"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_duplicate_entry_received_at"), ["received_at"],
                              unique=False)
        batch_op.create_index(batch_op.f("ix_duplicate_entry_round_id"), ["round_id"],
                              unique=False)


def downgrade() -> None:
    op.drop_table("duplicate_entry")
    op.drop_table("duplicate_round")
    op.drop_table("duplicate_game")

"""access control: open registration per competition, session epochs, arbitre sign-in links

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 23:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import webapp.db

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # existing competitions stay closed to non-registered players (the rule of RULES)
    with op.batch_alter_table("competition", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("open_registration", sa.Boolean(), server_default=sa.false(),
                      nullable=False)
        )
    for table in ("player", "arbitre"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(
                sa.Column("session_epoch", sa.Integer(), server_default="0", nullable=False)
            )
    op.create_table(
        "arbitre_login_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("arbitre_id", sa.Integer(), nullable=False),
        sa.Column("token_sha256", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", webapp.db.UTCDateTime(), nullable=False),
        sa.Column("expires_at", webapp.db.UTCDateTime(), nullable=False),
        sa.Column("used_at", webapp.db.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["arbitre_id"], ["arbitre.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("arbitre_login_token", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_arbitre_login_token_arbitre_id"), ["arbitre_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_arbitre_login_token_token_sha256"), ["token_sha256"], unique=True
        )


def downgrade() -> None:
    with op.batch_alter_table("arbitre_login_token", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_arbitre_login_token_token_sha256"))
        batch_op.drop_index(batch_op.f("ix_arbitre_login_token_arbitre_id"))
    op.drop_table("arbitre_login_token")
    for table in ("arbitre", "player"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("session_epoch")
    with op.batch_alter_table("competition", schema=None) as batch_op:
        batch_op.drop_column("open_registration")

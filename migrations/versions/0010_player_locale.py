"""the player's language (pages and e-mails): Player.locale

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 00:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # existing players have chosen nothing yet: "" (their browser's language, then French)
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("locale", sqlmodel.sql.sqltypes.AutoString(), server_default="",
                      nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("player", schema=None) as batch_op:
        batch_op.drop_column("locale")

"""the process holding an outbox row being sent: OutboxMessage.holder_host/_pid/_start

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 20:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # rows claimed before the upgrade have no holder: they keep their lease, as before
    with op.batch_alter_table("outbox_message", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("holder_host", sqlmodel.sql.sqltypes.AutoString(), nullable=True))
        batch_op.add_column(sa.Column("holder_pid", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("holder_start", sqlmodel.sql.sqltypes.AutoString(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox_message", schema=None) as batch_op:
        batch_op.drop_column("holder_start")
        batch_op.drop_column("holder_pid")
        batch_op.drop_column("holder_host")

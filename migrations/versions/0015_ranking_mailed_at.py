"""When a ranking's results mails were all composed into the outbox (``ranking.mailed_at``)

The scheduler stores a ranking in one transaction and composes its results mails afterwards,
a few hundred per transaction (``webapp.services.rankings.announce_pending``); a ranking
whose mails are not all there yet has no ``mailed_at``, and the next run goes on with it.
Rankings stored before were announced in their own transaction: they are marked mailed at
their creation.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02 05:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from webapp.db import UTCDateTime

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("ranking", schema=None) as batch_op:
        batch_op.add_column(sa.Column("mailed_at", UTCDateTime(), nullable=True))
    op.execute("UPDATE ranking SET mailed_at = created_at")


def downgrade() -> None:
    with op.batch_alter_table("ranking", schema=None) as batch_op:
        batch_op.drop_column("mailed_at")

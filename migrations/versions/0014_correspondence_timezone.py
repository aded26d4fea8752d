"""A correspondence game's own time zone (its pages, mails and sheet show its deadlines in
it, chosen on the console; new games default to the site's zone) and the seed its letter
row was drawn from (empty: typed by the arbitre)

Games created before keep the zone the server showed them in, ``Europe/Paris`` (the old
hard-coded ``TIMEZONE``), so their deadlines read as before.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 21:10:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

_str = sqlmodel.sql.sqltypes.AutoString

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("correspondence_game", schema=None) as batch_op:
        batch_op.add_column(sa.Column("timezone", _str(), server_default="Europe/Paris",
                                      nullable=False))
        batch_op.add_column(sa.Column("row_seed", _str(), server_default="", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("correspondence_game", schema=None) as batch_op:
        batch_op.drop_column("row_seed")
        batch_op.drop_column("timezone")

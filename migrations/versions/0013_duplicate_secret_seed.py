"""Duplicate draws no one can predict: the bag's seed widened to 128 bits (stored as its
digits) and where it came from (``seed_source``: secret, given, bag, legacy)

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 21:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

import webapp.db

_str = sqlmodel.sql.sqltypes.AutoString

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # games created before: a 31-bit seed (or 0 for a given bag), their bag order stored —
    # "legacy"; their draws do not change (rounds draw from the stored bag order)
    with op.batch_alter_table("duplicate_game", schema=None) as batch_op:
        batch_op.alter_column("seed", existing_type=sa.Integer(), type_=webapp.db.BigIntText(),
                              existing_nullable=False, postgresql_using="seed::varchar")
        batch_op.add_column(sa.Column("seed_source", _str(), server_default="legacy",
                                      nullable=False))


def downgrade() -> None:
    # a seed wider than an INTEGER cannot go back: such games keep 0 (their bag order is kept)
    op.execute("UPDATE duplicate_game SET seed = '0' WHERE length(seed) > 9")
    with op.batch_alter_table("duplicate_game", schema=None) as batch_op:
        batch_op.drop_column("seed_source")
        batch_op.alter_column("seed", existing_type=webapp.db.BigIntText(), type_=sa.Integer(),
                              existing_nullable=False, postgresql_using="seed::integer")

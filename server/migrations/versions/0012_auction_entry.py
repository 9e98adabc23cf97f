"""auction entry: the event's setting, and a result's auction keyed at the table

The auction is a column of the result, not a table of its own: a result has at most one
auction, it is part of the entry (East's confirmation covers it, a correction replaces it) and
it is audited with the other values in the result's snapshot.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 14:05:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "auction_entry",
                sqlmodel.sql.sqltypes.AutoString(length=8),
                nullable=False,
                server_default="off",
            )
        )
    with op.batch_alter_table("result", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("auction", sqlmodel.sql.sqltypes.AutoString(length=1600), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("result", schema=None) as batch_op:
        batch_op.drop_column("auction")
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.drop_column("auction_entry")

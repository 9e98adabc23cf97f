"""play and deal entry: the event's settings, and a result's play keyed at the table

The play is a column of the result, as the auction is (0012): one per result, part of the entry
that East confirms and a correction replaces, audited with the result's other values.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 15:50:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "play_entry",
                sqlmodel.sql.sqltypes.AutoString(length=8),
                nullable=False,
                server_default="off",
            )
        )
        batch_op.add_column(
            sa.Column("deal_entry", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("result", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("play", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("result", schema=None) as batch_op:
        batch_op.drop_column("play")
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.drop_column("deal_entry")
        batch_op.drop_column("play_entry")

"""pair handicap: percentage points per pair in a handicap event (services/event/handicaps.py)

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 14:05:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("pair", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("handicap", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("pair", schema=None) as batch_op:
        batch_op.drop_column("handicap")

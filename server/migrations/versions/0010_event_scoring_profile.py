"""event scoring profile: the conventions the rules leave open (server/scoring/profiles.py)

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 13:15:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "scoring_profile",
                sqlmodel.sql.sqltypes.AutoString(length=16),
                nullable=False,
                server_default="dbf",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("event", schema=None) as batch_op:
        batch_op.drop_column("scoring_profile")

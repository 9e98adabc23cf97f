"""movement sharing: the groups of tables of a section that share boards (relays)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 07:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("section") as batch:
        batch.add_column(
            sa.Column(
                "shared_tables",
                sqlmodel.sql.sqltypes.AutoString(length=400),
                nullable=False,
                server_default="[]",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("section") as batch:
        batch.drop_column("shared_tables")

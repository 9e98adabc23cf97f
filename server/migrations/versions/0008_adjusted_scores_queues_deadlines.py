"""dashboard: weighted adjusted scores, terminal outbox sizes, a deadline per change (§ X79)

- ``result.adjusted`` grows from 32 to 400 characters: weighted and unbalanced scores.
- ``table_token.queued`` / ``queued_at``: the outbox size a terminal last reported.
- ``section.correction_minutes``: the correction period the TD set when publishing.
- ``audit.corrections_until``: the deadline a change published after the results opens.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("result", schema=None) as batch_op:
        batch_op.alter_column(
            "adjusted",
            existing_type=sqlmodel.sql.sqltypes.AutoString(length=32),
            type_=sqlmodel.sql.sqltypes.AutoString(length=400),
            existing_nullable=True,
        )
    with op.batch_alter_table("table_token", schema=None) as batch_op:
        batch_op.add_column(sa.Column("queued", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("queued_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("section", schema=None) as batch_op:
        batch_op.add_column(sa.Column("correction_minutes", sa.Integer(), nullable=True))
    with op.batch_alter_table("audit", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("corrections_until", sa.DateTime(timezone=True), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table("audit", schema=None) as batch_op:
        batch_op.drop_column("corrections_until")
    with op.batch_alter_table("section", schema=None) as batch_op:
        batch_op.drop_column("correction_minutes")
    with op.batch_alter_table("table_token", schema=None) as batch_op:
        batch_op.drop_column("queued_at")
        batch_op.drop_column("queued")
    with op.batch_alter_table("result", schema=None) as batch_op:
        batch_op.alter_column(
            "adjusted",
            existing_type=sqlmodel.sql.sqltypes.AutoString(length=400),
            type_=sqlmodel.sql.sqltypes.AutoString(length=32),
            existing_nullable=True,
        )

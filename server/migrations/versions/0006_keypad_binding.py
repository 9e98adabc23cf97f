"""keypad binding: the gateway's (port, bus address) -> table token

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "keypad_binding",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("port", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=False),
        sa.Column("address", sa.Integer(), nullable=False),
        sa.Column("token_id", sa.Integer(), nullable=False),
        sa.Column("next_round_from", sa.Integer(), nullable=True),
        sa.Column("bound_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["token_id"], ["table_token.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("port", "address"),
    )
    with op.batch_alter_table("keypad_binding", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_keypad_binding_token_id"), ["token_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("keypad_binding", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_keypad_binding_token_id"))
    op.drop_table("keypad_binding")

"""movements: individual players and seats, board circuits of a web Mitchell

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "section_player",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("section_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("name", sqlmodel.sql.sqltypes.AutoString(length=100), nullable=False),
        sa.Column("member", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.ForeignKeyConstraint(["section_id"], ["section.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("section_id", "number"),
    )
    with op.batch_alter_table("section_player", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_section_player_section_id"), ["section_id"], unique=False
        )
    with op.batch_alter_table("movement_assignment", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("seats", sqlmodel.sql.sqltypes.AutoString(length=40), nullable=True)
        )
    with op.batch_alter_table("section", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "circuits",
                sqlmodel.sql.sqltypes.AutoString(length=400),
                nullable=False,
                server_default="[]",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("section", schema=None) as batch_op:
        batch_op.drop_column("circuits")
    with op.batch_alter_table("movement_assignment", schema=None) as batch_op:
        batch_op.drop_column("seats")
    with op.batch_alter_table("section_player", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_section_player_section_id"))
    op.drop_table("section_player")

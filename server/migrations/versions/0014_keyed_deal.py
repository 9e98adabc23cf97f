"""keyed deals: a hand-dealt board's deal keyed at a table and later tables' checks

One row per section and board: the deal the first table keyed, who keyed it (table, round,
entry id), its state (keyed, confirmed, conflict) and the checks made since (JSON). The board's
own deal (board.deal) is set only once a check agrees, or by the TD.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 16:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "keyed_deal",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("section_id", sa.Integer(), nullable=False),
        sa.Column("board", sa.Integer(), nullable=False),
        sa.Column("deal", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("table_number", sa.Integer(), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("entry_id", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("state", sqlmodel.sql.sqltypes.AutoString(length=12), nullable=False),
        sa.Column("checks", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["section_id"], ["section.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("section_id", "board"),
    )
    with op.batch_alter_table("keyed_deal", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_keyed_deal_section_id"), ["section_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("keyed_deal", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_keyed_deal_section_id"))
    op.drop_table("keyed_deal")

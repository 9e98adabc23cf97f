"""table terminal settings: after-confirm display, ranking, player numbers; section TD code

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 08:00:00
"""

import secrets
from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("event") as batch:
        batch.add_column(
            sa.Column(
                "after_confirm",
                sqlmodel.sql.sqltypes.AutoString(length=12),
                nullable=False,
                server_default="nothing",
            )
        )
        batch.add_column(
            sa.Column("show_ranking", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(
            sa.Column(
                "player_numbers",
                sqlmodel.sql.sqltypes.AutoString(length=12),
                nullable=False,
                server_default="off",
            )
        )
    with op.batch_alter_table("section") as batch:
        batch.add_column(
            sa.Column(
                "td_code",
                sqlmodel.sql.sqltypes.AutoString(length=8),
                nullable=False,
                server_default="",
            )
        )
    # Every section already there gets its own random code.
    section = sa.table("section", sa.column("id", sa.Integer), sa.column("td_code", sa.String))
    conn = op.get_bind()
    for (section_id,) in conn.execute(sa.select(section.c.id)).all():
        code = f"{secrets.randbelow(10**4):04d}"
        conn.execute(section.update().where(section.c.id == section_id).values(td_code=code))


def downgrade() -> None:
    with op.batch_alter_table("section") as batch:
        batch.drop_column("td_code")
    with op.batch_alter_table("event") as batch:
        batch.drop_column("player_numbers")
        batch.drop_column("show_ranking")
        batch.drop_column("after_confirm")

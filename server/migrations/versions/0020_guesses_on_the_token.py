"""guesses on the token: a terminal's wrong E/W PINs and TD codes, counted on its token row

Counted in the database (server/limits/guesses.py), so every worker, the keypad gateway in a
process of its own and a restarted server count the same ones. A token row's change moves its
table's generation (0015), so a worker that remembers the table reads the new count.

Revision ID: 0020
Revises: 0019
Create Date: 2026-12-05 09:37:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Plain ALTER TABLE (no batch copy of the table on SQLite), which keeps the token table's
# generation and notification triggers (0015, 0016).


def upgrade() -> None:
    op.add_column(
        "table_token",
        sa.Column(
            "guesses",
            sqlmodel.sql.sqltypes.AutoString(length=400),
            nullable=False,
            server_default="{}",
        ),
    )


def downgrade() -> None:
    op.drop_column("table_token", "guesses")

"""alert explanations: a result's explanations of its auction's alerted calls

Kept beside the auction (0012) in one column of the result, as the table keyed them
(protocol/alerts.py: a JSON text, call number -> explanation); part of the entry that East
confirms and a correction replaces, audited with the result's other values.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-03 23:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


# Plain ALTER TABLE (no batch copy of the table on SQLite), which keeps the result table's
# generation triggers (0015).


def upgrade() -> None:
    op.add_column(
        "result", sa.Column("alerts", sqlmodel.sql.sqltypes.AutoString(length=5202), nullable=True)
    )


def downgrade() -> None:
    op.drop_column("result", "alerts")

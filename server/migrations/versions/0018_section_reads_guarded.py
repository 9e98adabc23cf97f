"""section reads guarded: a section's sanctions and individual players move its generation

The public ranking reads, besides what the table desk's memory reads, the section's sanctions
(penalties of its pairs) and the players of an individual (``section_player``). Their every
INSERT, UPDATE and DELETE now moves the section's generation too, as the section's other rows
do since 0015, so a live ranking can tell with one small read that nothing it shows changed
unannounced (server/web/live_views.py ``RankingView.current``). Keep in step with
server/services/table/table_memory.py ``SECTION_GUARDED`` (tests/server/services/
test_table_memory.py checks every one has its three triggers on SQLite and PostgreSQL).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-04 17:30:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: The tables, each row naming its section in ``section_id``.
TABLES = ("sanction", "section_player")
OPS = ("INSERT", "UPDATE", "DELETE")
_BUMP = "UPDATE section_generation SET gen = gen + 1 WHERE section_id IN ({ids})"


def _bump(op_: str) -> str:
    """The statement of ``op_`` (NEW / OLD as each dialect names them; an UPDATE may move a
    row to another section: both move)."""
    rows = {"INSERT": ["NEW"], "DELETE": ["OLD"]}.get(op_, ["OLD", "NEW"])
    return _BUMP.format(ids=" UNION ".join(f"SELECT {r}.section_id" for r in rows))


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        for table in TABLES:
            bind.exec_driver_sql(
                f"""
CREATE OR REPLACE FUNCTION traveller_gen_{table}() RETURNS trigger AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    {_bump("INSERT")};
    RETURN NEW;
  ELSIF TG_OP = 'UPDATE' THEN
    {_bump("UPDATE")};
    RETURN NEW;
  ELSE
    {_bump("DELETE")};
    RETURN OLD;
  END IF;
END;
$$ LANGUAGE plpgsql;
"""
            )
            bind.exec_driver_sql(
                f'CREATE TRIGGER traveller_gen_{table} AFTER INSERT OR UPDATE OR DELETE ON "{table}" '
                f"FOR EACH ROW EXECUTE FUNCTION traveller_gen_{table}()"
            )
        return
    for table in TABLES:
        for op_ in OPS:
            bind.exec_driver_sql(
                f'CREATE TRIGGER traveller_gen_{table}_{op_.lower()} AFTER {op_} ON "{table}" '
                f"FOR EACH ROW BEGIN\n  {_bump(op_)};\nEND"
            )


def downgrade() -> None:
    bind = op.get_bind()
    for table in TABLES:
        if bind.dialect.name == "postgresql":
            bind.exec_driver_sql(f'DROP TRIGGER IF EXISTS traveller_gen_{table} ON "{table}"')
            bind.exec_driver_sql(f"DROP FUNCTION IF EXISTS traveller_gen_{table}()")
            continue
        for op_ in OPS:
            bind.exec_driver_sql(f"DROP TRIGGER IF EXISTS traveller_gen_{table}_{op_.lower()}")

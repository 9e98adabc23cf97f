"""token notify: every worker hears at once that a table token changed (PostgreSQL)

A trigger on ``table_token`` sends the token's hash on the ``traveller_token`` channel when a
token is revoked, its expiry moved or the row deleted, from any writer (a worker, a TD tool,
psql). Every worker listens (server/live/notify.py) and its live tokens
(server/live/live_tokens.py) ask the database again before the next push to a socket of that
token, so a revoked token's socket hears nothing more on any worker. NOTIFY is sent at COMMIT
only, never for a rolled-back change. SQLite has one server process, which applies its own
committed changes; nothing here runs there.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03 19:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: Keep in step with server/live/notify.py TOKEN_CHANNEL.
CHANNEL = "traveller_token"

_FUNCTION = f"""
CREATE OR REPLACE FUNCTION traveller_token_changed() RETURNS trigger AS $$
BEGIN
  PERFORM pg_notify('{CHANNEL}', OLD.token_hash);
  RETURN NULL;
END;
$$ LANGUAGE plpgsql;
"""


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    bind.exec_driver_sql(_FUNCTION)
    bind.exec_driver_sql(
        "CREATE TRIGGER traveller_token_changed AFTER UPDATE ON table_token FOR EACH ROW "
        "WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at "
        "OR OLD.expires_at IS DISTINCT FROM NEW.expires_at "
        "OR OLD.token_hash IS DISTINCT FROM NEW.token_hash) "
        "EXECUTE FUNCTION traveller_token_changed()"
    )
    bind.exec_driver_sql(
        "CREATE TRIGGER traveller_token_deleted AFTER DELETE ON table_token FOR EACH ROW "
        "EXECUTE FUNCTION traveller_token_changed()"
    )


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    bind.exec_driver_sql("DROP TRIGGER IF EXISTS traveller_token_deleted ON table_token")
    bind.exec_driver_sql("DROP TRIGGER IF EXISTS traveller_token_changed ON table_token")
    bind.exec_driver_sql("DROP FUNCTION IF EXISTS traveller_token_changed()")

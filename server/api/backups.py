"""The TD's end-of-session backup: the whole database copied now, the file handed back and
the copy audited. The API's route and the end-of-session page both call ``take_backup``."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlmodel import Session

from server.core.errors import ConflictError
from server.live.runtime import Runtime
from server.services import audit
from server.services.event import setup
from server.site import backup


async def take_backup(runtime: Runtime, section_id: int) -> Path:
    """Back up the whole database (from the section's console: ``section_not_found`` for an
    unknown one) and audit it. SQLite: an online copy (``server.site.backup``); PostgreSQL:
    a ``pg_dump`` custom-format archive. ``backup_failed`` (409) when it cannot be made."""
    await runtime.read(lambda s: setup.get_section(s, section_id))
    url = runtime.engine.url.render_as_string(hide_password=False)
    directory = backup_directory(url)
    try:
        if runtime.engine.dialect.name == "sqlite":
            made = await asyncio.to_thread(backup.backup, url, directory, label="td")
        else:
            made = await asyncio.to_thread(backup.dump_postgres, url, directory, label="td")
    except (backup.BackupError, OSError) as exc:
        raise ConflictError(
            "backup_failed", "The backup could not be made: {exc}", exc=exc
        ) from exc

    def record(s: Session) -> None:
        audit.record(
            s,
            actor="td",
            action="backup",
            section_id=section_id,
            new={"file": made.name, "bytes": made.stat().st_size},
        )

    await runtime.run(record)
    return made


def backup_directory(database_url: str) -> Path:
    """Where a TD's backup goes: TRAVELLER_BACKUP_DIR, else ``backups/`` beside a SQLite file,
    else ``backups/`` in the working folder."""
    configured = backup.BackupSettings().dir
    if configured is not None:
        return configured
    try:
        return backup.sqlite_path(database_url).parent / "backups"
    except backup.BackupError:
        return Path("backups")

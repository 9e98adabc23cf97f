"""Online SQLite backups (the sqlite3 backup API) on a timer and at round end, rotated; restore.

A backup is a consistent single-file copy taken while the server runs: the backup API copies
the pages under a read transaction, so a result committed during the copy is either wholly in
it or wholly out. PostgreSQL sites use pg_dump and a streaming replica instead (deploy/README);
the TD's one-click backup runs pg_dump there (``dump_postgres``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import sqlite3
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict
from sqlalchemy import Engine

from protocol.messages import RoundChanged
from server.core.db import make_engine, migrate
from server.live.bus import Bus, Delivery

log = logging.getLogger(__name__)

PREFIX = "traveller-"
SUFFIX = ".db"


class BackupError(RuntimeError):
    """A backup or restore cannot be done (not SQLite, not a Traveller database, ...)."""


class BackupSettings(BaseSettings):
    """TRAVELLER_BACKUP_DIR (unset: no scheduled backups), _MINUTES, _KEEP, _ON_ROUND."""

    model_config = SettingsConfigDict(env_prefix="TRAVELLER_BACKUP_", extra="ignore")

    dir: Path | None = None
    minutes: float = 10.0
    keep: int = 24
    on_round: bool = True


def sqlite_path(database_url: str) -> Path:
    """The file of a ``sqlite:///path`` URL (BackupError for PostgreSQL or in-memory)."""
    if not database_url.startswith("sqlite"):
        raise BackupError(
            "only SQLite databases are backed up here; for PostgreSQL use pg_dump or a "
            "streaming replica (deploy/README.md, 'PostgreSQL')"
        )
    path = database_url.split("///", 1)[1] if "///" in database_url else ""
    if path in ("", ":memory:"):
        raise BackupError("an in-memory database cannot be backed up")
    return Path(path.split("?", 1)[0])


def _copy(source: Path, dest: Path) -> None:
    """A consistent copy of ``source`` into ``dest`` as one self-contained file."""
    src = sqlite3.connect(source, timeout=30)
    try:
        dst = sqlite3.connect(dest)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")  # one file, no -wal beside it
            check = dst.execute("PRAGMA quick_check").fetchone()
            if check is None or check[0] != "ok":
                raise BackupError(f"the copy of {source} fails its integrity check: {check}")
        finally:
            dst.close()
    finally:
        src.close()


def _fsync_dir(directory: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def list_backups(directory: Path) -> list[Path]:
    """The backups in ``directory``, oldest first (their names sort by time)."""
    if not directory.is_dir():
        return []
    return sorted(p for p in directory.glob(f"{PREFIX}*{SUFFIX}") if p.is_file())


def rotate(directory: Path, keep: int) -> list[Path]:
    """Delete all but the newest ``keep`` backups; returns what was deleted."""
    existing = list_backups(directory)
    old = existing[: max(0, len(existing) - max(keep, 1))]
    for path in old:
        path.unlink(missing_ok=True)
    return old


def backup(database_url: str, directory: Path, *, keep: int = 24, label: str = "") -> Path:
    """Back up the SQLite database of ``database_url`` into ``directory`` now, then rotate."""
    source = sqlite_path(database_url)
    if not source.is_file():
        raise BackupError(f"no database at {source}")
    directory.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    name = f"{PREFIX}{stamp}{'-' + label if label else ''}{SUFFIX}"
    part = directory / f".{name}.part"
    try:
        _copy(source, part)
        os.replace(part, directory / name)
    finally:
        part.unlink(missing_ok=True)
    _fsync_dir(directory)
    rotate(directory, keep)
    return directory / name


def dump_postgres(database_url: str, directory: Path, *, label: str = "") -> Path:
    """A PostgreSQL database dumped by ``pg_dump`` (custom format, for ``pg_restore``) into
    ``directory``: consistent, as pg_dump reads one snapshot. BackupError when pg_dump is not
    installed or fails."""
    if not database_url.startswith("postgresql"):
        raise BackupError("pg_dump backs up PostgreSQL databases only")
    program = shutil.which("pg_dump")
    if program is None:
        raise BackupError(
            "pg_dump is not installed on the server (apt-get install postgresql-client)"
        )
    directory.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    name = f"{PREFIX}{stamp}{'-' + label if label else ''}.pgdump"
    part = directory / f".{name}.part"
    # libpq takes the URL itself; drop SQLAlchemy's "+driver" from the scheme.
    libpq_url = "postgresql:" + database_url.split(":", 1)[1]
    try:
        done = subprocess.run(
            [program, "--format=custom", f"--file={part}", f"--dbname={libpq_url}"],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        if done.returncode != 0:
            raise BackupError(f"pg_dump failed: {done.stderr.strip()[:300]}")
        os.replace(part, directory / name)
    finally:
        part.unlink(missing_ok=True)
    _fsync_dir(directory)
    return directory / name


def check_backup(file: Path) -> None:
    """Refuse a file that is not an intact Traveller database."""
    if not file.is_file():
        raise BackupError(f"no such file: {file}")
    try:
        conn = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
        try:
            ok = conn.execute("PRAGMA quick_check").fetchone()
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise BackupError(f"{file} is not a SQLite database: {exc}") from exc
    if ok is None or ok[0] != "ok":
        raise BackupError(f"{file} fails its integrity check: {ok}")
    if not {"alembic_version", "result", "event"} <= tables:
        raise BackupError(f"{file} is not a Traveller database")


def restore(file: Path, database_url: str) -> Path | None:
    """Replace the database of ``database_url`` by the backup ``file`` and migrate it to the
    newest schema. The database it replaces is kept beside it; returns that copy (or None).
    Stop the server first."""
    check_backup(file)
    target = sqlite_path(database_url)
    target.parent.mkdir(parents=True, exist_ok=True)
    kept: Path | None = None
    if target.is_file():
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        kept = target.with_name(f"{target.name}.before-restore-{stamp}")
        _copy(target, kept)
    src = sqlite3.connect(f"file:{file}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(target, timeout=30)
        try:
            src.backup(dst)  # writes through SQLite: a -wal beside the target stays consistent
        finally:
            dst.close()
    finally:
        src.close()
    engine = make_engine(f"sqlite:///{target}")
    try:
        migrate(engine)
    finally:
        engine.dispose()
    _give_back(target, kept)
    return kept


def _give_back(target: Path, kept: Path | None) -> None:
    """Run as root, leave the files to the owner of their folder (the service user): a
    database root owns is one the server cannot write."""
    if os.geteuid() != 0:
        return
    owner = target.parent.stat()
    for path in (target, Path(f"{target}-wal"), Path(f"{target}-shm"), kept):
        if path is not None and path.exists():
            os.chown(path, owner.st_uid, owner.st_gid)


class BackupSchedule:
    """Backs up every ``minutes`` and soon after a round starts or closes."""

    def __init__(self, database_url: str, settings: BackupSettings, *, settle: float = 1.0):
        assert settings.dir is not None
        self.database_url = database_url
        self.settings = settings
        self.directory = settings.dir
        self.settle = settle
        self.taken: list[Path] = []
        self._wake = asyncio.Event()
        self._loop = asyncio.get_running_loop()

    def observe(self, batch: list[Delivery]) -> None:
        """Bus observer: a round change (started or closed) asks for a backup."""
        if self.settings.on_round and any(isinstance(m, RoundChanged) for _, _, m in batch):
            self._loop.call_soon_threadsafe(self._wake.set)

    async def run(self) -> None:
        period = max(self.settings.minutes, 0.01) * 60
        while True:
            label = "timed"
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(period):
                    await self._wake.wait()
                label = "round"
                await asyncio.sleep(self.settle)  # one backup for a burst of round pushes
            self._wake.clear()
            await self.take(label)

    async def take(self, label: str) -> Path | None:
        try:
            path = await asyncio.to_thread(
                backup, self.database_url, self.directory, keep=self.settings.keep, label=label
            )
        except (BackupError, OSError, sqlite3.Error) as exc:
            log.error("backup failed: %s", exc)
            return None
        self.taken.append(path)
        log.info("backup written: %s", path)
        return path


@asynccontextmanager
async def scheduled_backups(
    bus: Bus, engine: Engine, settings: BackupSettings | None = None
) -> AsyncIterator[BackupSchedule | None]:
    """Run scheduled backups of a SQLite engine when TRAVELLER_BACKUP_DIR is set; on the way
    out take a last one."""
    settings = settings or BackupSettings()
    url = engine.url.render_as_string(hide_password=False)
    in_memory = engine.url.database in (None, "", ":memory:")
    if settings.dir is None or engine.dialect.name != "sqlite" or in_memory:
        yield None
        return
    schedule = BackupSchedule(url, settings)
    detach = bus.observe(schedule.observe)
    task = asyncio.create_task(schedule.run(), name="traveller-backups")
    try:
        yield schedule
    finally:
        detach()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await schedule.take("shutdown")

"""The server machine's commands: backup, restore, and `serve` with several workers, mDNS and
TLS (the server extra; `doctor` and `discover`, which also run on a terminal: doctor_cli)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import typer
import uvicorn

from server.core.config import ConfigError, Settings, check
from server.core.db import is_sqlite, make_engine, migrate, pool_for_workers
from server.i18n.cli_words import _
from server.limits.http_limits import uvicorn_options
from server.site.backup import BackupError, check_backup, list_backups, sqlite_path
from server.site.backup import backup as take
from server.site.backup import restore as do_restore
from server.site.discovery import advertise

app = typer.Typer(no_args_is_help=True, add_completion=False)

DB_ENV = "TRAVELLER_DATABASE_URL"


def _database_url(value: str | None) -> str:
    return value or os.environ.get(DB_ENV) or "sqlite:///traveller.db"


@app.command()
def backup(
    database_url: str = typer.Option(None, envvar=DB_ENV, help="Default sqlite:///traveller.db."),
    directory: Path = typer.Option(
        Path("backups"), "--dir", envvar="TRAVELLER_BACKUP_DIR", help="Where backups go."
    ),
    keep: int = typer.Option(24, envvar="TRAVELLER_BACKUP_KEEP", min=1, help="Backups kept."),
    show: bool = typer.Option(False, "--list", help="List the backups instead of taking one."),
) -> None:
    """Back up the SQLite database now (safe while the server runs), keeping the newest N."""
    if show:
        for path in list_backups(directory):
            typer.echo(f"{path}  {path.stat().st_size // 1024} KiB")
        return
    try:
        path = take(_database_url(database_url), directory, keep=keep, label="manual")
    except BackupError as exc:
        typer.echo(_("error: {message}").format(message=exc), err=True)
        raise typer.Exit(2) from exc
    typer.echo(_("backup written: {path}").format(path=path))


@app.command()
def restore(
    file: Path = typer.Argument(..., help="A backup file (traveller-....db)."),
    database_url: str = typer.Option(None, envvar=DB_ENV, help="The database to replace."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Do not ask."),
) -> None:
    """Replace the database by a backup (stop the server first); the old one is kept beside."""
    url = _database_url(database_url)
    try:
        check_backup(file)
        target = sqlite_path(url)
    except BackupError as exc:
        typer.echo(_("error: {message}").format(message=exc), err=True)
        raise typer.Exit(2) from exc
    if not yes:
        typer.confirm(
            _("Replace {target} by {file}? Stop the server first.").format(
                target=target, file=file
            ),
            abort=True,
        )
    try:
        kept = do_restore(file, url)
    except BackupError as exc:
        typer.echo(_("error: {message}").format(message=exc), err=True)
        raise typer.Exit(2) from exc
    typer.echo(_("restored {file} into {target}").format(file=file, target=target))
    if kept is not None:
        typer.echo(_("the database it replaced is kept as {path}").format(path=kept))
    typer.echo(_("start the server again (systemctl start traveller)"))


def serve(
    host: str = typer.Option(None, help="Bind address (TRAVELLER_HOST, default 127.0.0.1)."),
    port: int = typer.Option(None, help="Port (TRAVELLER_PORT, default 8000)."),
    database_url: str = typer.Option(None, help="TRAVELLER_DATABASE_URL, default SQLite."),
    workers: int = typer.Option(
        1, envvar="TRAVELLER_WORKERS", min=1, help="Worker processes (PostgreSQL only if > 1)."
    ),
    mdns: bool = typer.Option(
        False, "--mdns", envvar="TRAVELLER_MDNS", help="Advertise _traveller._tcp on the LAN."
    ),
    ssl_certfile: Path = typer.Option(None, envvar="TRAVELLER_SSL_CERTFILE", help="TLS cert."),
    ssl_keyfile: Path = typer.Option(None, envvar="TRAVELLER_SSL_KEYFILE", help="TLS key."),
) -> None:
    """Run the server (needs TRAVELLER_TD_PASSWORD); --workers N shares pushes through
    PostgreSQL LISTEN/NOTIFY."""
    overrides = {"host": host, "port": port, "database_url": database_url}
    settings = Settings.model_validate({k: v for k, v in overrides.items() if v})
    try:
        check(settings)
        if workers > 1 and is_sqlite(settings.database_url):
            raise ConfigError(
                "several workers need PostgreSQL (TRAVELLER_DATABASE_URL=postgresql+psycopg://"
                "...): SQLite runs in one process"
            )
    except ConfigError as exc:
        typer.echo(_("error: {message}").format(message=exc), err=True)
        raise typer.Exit(2) from exc
    # The workers are new processes: they build their app from the environment.
    os.environ.update(
        {
            "TRAVELLER_HOST": settings.host,
            "TRAVELLER_PORT": str(settings.port),
            DB_ENV: settings.database_url,
        }
    )
    if workers > 1:  # every worker's pool must fit in PostgreSQL's max_connections
        try:
            size, overflow = pool_for_workers(workers)
        except ValueError as exc:
            typer.echo(_("error: {message}").format(message=exc), err=True)
            raise typer.Exit(2) from exc
        os.environ.setdefault("TRAVELLER_DB_POOL_SIZE", str(size))
        os.environ.setdefault("TRAVELLER_DB_MAX_OVERFLOW", str(overflow))
    engine = make_engine(settings.database_url)  # migrate once, before the workers race
    try:
        migrate(engine)
    finally:
        engine.dispose()
    with contextlib.ExitStack() as stack:
        if mdns:
            scheme = "https" if ssl_certfile else "http"
            ad = stack.enter_context(advertise(settings.port, host=settings.host, scheme=scheme))
            typer.echo(_("advertised by mDNS as {name}").format(name=repr(ad.name)))
        uvicorn.run(
            "server.app:app_from_env",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=workers,
            ssl_certfile=str(ssl_certfile) if ssl_certfile else None,
            ssl_keyfile=str(ssl_keyfile) if ssl_keyfile else None,
            log_level="info",
            proxy_headers=True,
            **uvicorn_options(settings),  # header and keep-alive timeouts, size limits
        )

"""Site commands: backup, restore, doctor, and `serve` with several workers, mDNS and TLS.

Only typer and the standard library at module level: server/ops/cli.py may import this module.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from server.i18n.cli_words import _

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
    from server.site.backup import BackupError, list_backups
    from server.site.backup import backup as take

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
    from server.site.backup import BackupError, check_backup, sqlite_path
    from server.site.backup import restore as do_restore

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


ENV_FILE = Path("/etc/traveller/traveller.env")


@app.command()
def doctor(
    server: str = typer.Option(
        None, help="Server URL, or 'auto' to find it by mDNS (default: this machine's)."
    ),
    database_url: str = typer.Option(None, envvar=DB_ENV, help="Checked when on this machine."),
    data_dir: Path = typer.Option(
        None, envvar="TRAVELLER_DATA_DIR", help="Where the database lives (for free disk)."
    ),
    expect_ports: int = typer.Option(None, help="Serial keypads that must be plugged in."),
    timeout: float = typer.Option(5.0, help="Seconds to wait for the server."),
    env_file: Path = typer.Option(
        ENV_FILE, help="The service's settings, read when readable (sudo) for what is not given."
    ),
) -> None:
    """Check this site: server, database, disk, clocks, serial ports. Exit 1 on a problem."""
    from server.site.doctor import DEMO_SITE, healthy, read_site, report, run_checks

    # A demo started here (its port and database), then the service's file, then the shell.
    site = {**read_site(DEMO_SITE), **read_site(env_file), **os.environ}
    cafile = site.get("TRAVELLER_SSL_CERTFILE") or None
    url: str | None = server
    if url == "auto":
        from server.site.discovery import find_servers

        found = find_servers(3.0)
        answered = ", ".join(found) if found else _("no Traveller server answered")
        typer.echo(f"mDNS: {answered}")
        url = found[0] if found else None
    elif url is None:
        scheme = "https" if cafile else "http"
        url = f"{scheme}://127.0.0.1:{site.get('TRAVELLER_PORT', '8000')}"
    db = database_url or site.get(DB_ENV)
    if data_dir is None:
        sqlite_file = db.split("///", 1)[1] if db and db.startswith("sqlite") else None
        data_dir = Path(sqlite_file).resolve().parent if sqlite_file else Path.cwd()
    checks = run_checks(
        url, db, data_dir, expect_ports=expect_ports, timeout=timeout, cafile=cafile
    )
    typer.echo(report(checks))
    if not healthy(checks):
        raise typer.Exit(1)


@app.command()
def discover(
    timeout: float = typer.Option(3.0, help="Seconds to listen."),
    first: bool = typer.Option(False, "--first", help="Print only the first URL."),
    interface: list[str] = typer.Option(
        None, "--interface", help="Browse only from this local address (repeatable)."
    ),
) -> None:
    """Find Traveller servers on the LAN (mDNS); print their URLs, exit 1 when none answers."""
    from server.site.discovery import find_servers

    found = find_servers(timeout, interfaces=interface or None)
    if not found:
        typer.echo(_("no Traveller server answered on the LAN"), err=True)
        raise typer.Exit(1)
    typer.echo("\n".join(found[:1] if first else found))


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
    import contextlib

    import uvicorn

    from server.core.config import ConfigError, Settings, check
    from server.core.db import is_sqlite, make_engine, migrate
    from server.limits.http_limits import uvicorn_options

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
        from server.core.db import pool_for_workers

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
            from server.site.discovery import advertise

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

"""The site checks that also run on a terminal (`traveller[terminal]`, no server extra):
`doctor` (server/site/doctor.py, the standard library) and `discover` (mDNS)."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from server.i18n.cli_words import _
from server.site.discovery import find_servers
from server.site.doctor import DEMO_SITE, healthy, read_site, report, run_checks

app = typer.Typer(no_args_is_help=True, add_completion=False)

DB_ENV = "TRAVELLER_DATABASE_URL"


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
    # A demo started here (its port and database), then the service's file, then the shell.
    site = {**read_site(DEMO_SITE), **read_site(env_file), **os.environ}
    cafile = site.get("TRAVELLER_SSL_CERTFILE") or None
    url: str | None = server
    if url == "auto":
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
    found = find_servers(timeout, interfaces=interface or None)
    if not found:
        typer.echo(_("no Traveller server answered on the LAN"), err=True)
        raise typer.Exit(1)
    typer.echo("\n".join(found[:1] if first else found))

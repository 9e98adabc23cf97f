"""`traveller demo`: the server on SQLite with the demo club night (server/ops/demo.py), kept
between starts, and how to join it."""

from __future__ import annotations

import secrets
from pathlib import Path

import typer
import uvicorn

from server.app import server_app
from server.core.config import Settings
from server.core.db import make_engine
from server.i18n.cli_words import _
from server.io.handrecords import solver_available
from server.limits.http_limits import uvicorn_options
from server.ops.demo import create_demo, find_demo, wipe_sqlite
from server.site.doctor import DEMO_SITE, read_site, write_site


def demo(
    port: int = typer.Option(8000, help="Port to serve on (127.0.0.1 only)."),
    data_dir: Path = typer.Option(Path(".traveller"), help="Where the demo database lives."),
    tables: int = typer.Option(5, min=2, max=30, help="Tables in a new demo Mitchell."),
    wipe: bool = typer.Option(
        False, "--wipe", help="Start the demo event again: every result and pairing is lost."
    ),
) -> None:
    """Start the server on SQLite with the demo club night (kept between starts), and print how
    to join it."""
    data_dir.mkdir(parents=True, exist_ok=True)
    db_path = data_dir / "demo.db"
    site_file = data_dir / DEMO_SITE.name
    if wipe and db_path.exists():
        typer.echo(_("Wiping the demo event in {path} (--wipe).").format(path=db_path.resolve()))
        wipe_sqlite(db_path)
    database_url = f"sqlite:///{db_path.resolve()}"
    engine = make_engine(database_url)
    made = find_demo(engine)
    password = read_site(site_file).get("TRAVELLER_TD_PASSWORD") if made else None
    if made is None:
        made = create_demo(engine, tables=tables)
    password = password or secrets.token_urlsafe(9)
    settings = Settings(demo=True, td_password=password, database_url=database_url, port=port)
    write_site(
        site_file,
        {
            "TRAVELLER_PORT": str(port),
            "TRAVELLER_DATABASE_URL": database_url,
            "TRAVELLER_DATA_DIR": str(data_dir.resolve()),
            "TRAVELLER_TD_PASSWORD": password,
        },
    )
    base = f"http://127.0.0.1:{port}"
    if made.kept:
        heading = _(
            "Traveller demo club night, kept from the last start: a {tables}-table Mitchell "
            "(start it again with --wipe)."
        ).format(tables=made.tables)
    else:
        heading = _(
            "Traveller demo club night: a {tables}-table Mitchell, 3 boards a round, "
            "round 1 started."
        ).format(tables=made.tables)
    lines = [
        "",
        heading,
        _("  Database:        {path}").format(path=db_path.resolve()),
        _("  TD dashboard:    {url}").format(url=f"{base}/td"),
        _("  Public results:  {url}").format(url=f"{base}/results"),
        _("  API and docs:    {url}").format(url=f"{base}/docs"),
        _("  Health:          {url}").format(url=f"{base}/api/v1/health"),
        _("  Table websocket: {url}").format(url=f"ws://127.0.0.1:{port}/api/v1/table/ws"),
        _("  TD password:     {password}").format(password=password),
        _("  Event id {event}, section id {section}").format(
            event=made.event_id, section=made.section_id
        ),
        _("  Pairing codes (a terminal exchanges its table's code for a token):"),
    ]
    lines += [
        _("    table {table}: {code}").format(table=t, code=code)
        for t, code in sorted(made.pairing_codes.items())
    ]
    lines += [
        _("  Terminal:        {command}").format(command=f"traveller terminal --server {base}"),
        _("  Check the site:  {command}").format(command="traveller doctor"),
        *double_dummy_lines(),
        _("  Stop with Ctrl-C."),
        "",
    ]
    typer.echo("\n".join(lines))
    uvicorn.run(
        server_app(settings, engine=engine),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        **uvicorn_options(settings),
    )


def double_dummy_lines() -> list[str]:
    """Without a solver the hand records show no makeable contracts or par: say so, and how to
    add one (the bootstrap's TRAVELLER_EXTRAS, or the `handrecords` extra)."""
    if solver_available():
        return []
    return [
        _("  Double dummy:    not installed (hand records show no makeable contracts or par);"),
        _("                   add it with {command}").format(
            command="TRAVELLER_EXTRAS=handrecords ./traveller demo"
        ),
    ]

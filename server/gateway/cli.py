"""The `traveller gateway` command: serial keypads served from the event database, as a process
of its own (inside the server, set TRAVELLER_GATEWAY_PORTS instead)."""

from __future__ import annotations

import asyncio
import logging
import signal

import typer

from server.core.config import Settings
from server.gateway.ports import PortSpecError, parse_addresses, parse_port
from server.gateway.runner import run_standalone
from server.i18n.cli_words import _


def gateway(
    port: list[str] = typer.Option(
        ...,
        "--port",
        help="A port, repeatable: /dev/ttyUSB0, /dev/serial/by-id/..., socket://host:port, "
        "tcp-listen://0.0.0.0:7001 (waits for a keypad to connect), loop://. Append "
        "#1-8 to poll RS-485 keypads 1 to 8 on it.",
    ),
    bus: str | None = typer.Option(
        None,
        "--bus",
        help="RS-485 keypad addresses (e.g. 1-10 or 1,2,5) for every --port without its own #list.",
    ),
    database_url: str | None = typer.Option(
        None, "--database-url", help="The server's database (default: TRAVELLER_DATABASE_URL)."
    ),
    baud: int = typer.Option(9600, "--baud", help="Line speed of the serial ports."),
    watch: float = typer.Option(
        1.0, "--watch", min=0.1, help="Seconds between looks at the database for others' changes."
    ),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Log every keypad event."),
) -> None:
    """Serve serial keypads: pairing, rounds, entries and confirmations, like the terminals."""
    try:
        default_bus = parse_addresses(bus) if bus else None
        specs = [parse_port(p, default_bus) for p in port]
    except PortSpecError as exc:
        raise typer.BadParameter(str(exc)) from exc
    if len({s.url for s in specs}) != len(specs):
        raise typer.BadParameter("a port is listed twice", param_hint="--port")
    url = database_url or Settings().database_url
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    for name in ("sqlalchemy", "alembic"):
        logging.getLogger(name).setLevel(logging.WARNING)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        ports = ", ".join(str(s) for s in specs)
        typer.echo(_("traveller gateway: {ports}; Ctrl-C stops it").format(ports=ports))
        await run_standalone(specs, url, baud=baud, watch=watch, stop=stop)

    asyncio.run(main())

"""`traveller terminal`: start the table terminal.

`traveller` loads this module for every command, so only typer, the standard library and the
terminal's light modules (config, discovery, i18n: a few milliseconds) are imported up here;
the app, its clients and the links load when the terminal starts."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import typer

from . import discovery
from .config import ConfigStore, StateDirBusyError, StateLock, default_state_dir
from .i18n import _

app = typer.Typer(add_completion=False, help="The table terminal (Textual).")


def find_server(server: str, folder: Path, timeout: float) -> str:
    """The server to use: the one given, else the one remembered, else one found by mDNS."""
    if server:
        return server
    if ConfigStore(folder).load().server or timeout <= 0:
        return ""
    typer.echo("Looking for a Traveller server on the LAN…", err=True)
    found = discovery.discover(timeout)
    if found:
        typer.echo(f"Found {found}", err=True)
    return found or ""


#: Browser terminals at once with --serve, in all and from one device: a terminal process
#: holds about 60 MB, so a Raspberry Pi 4 with 2 GB serves the default with room to spare; a
#: club with more tables raises it.
MAX_SESSIONS = 16
MAX_PER_ADDRESS = 2


@app.callback(invoke_without_command=True)
def run(
    server: str = typer.Option(
        "", "--server", "-s", help="Server URL, e.g. http://192.168.1.10:8000 (remembered)."
    ),
    state_dir: Path | None = typer.Option(
        None,
        "--state-dir",
        help="Where the table token and the outbox live (default ~/.config/traveller).",
    ),
    demo: bool = typer.Option(
        False, "--demo", help="Play against a small in-memory server (pairing code 0101)."
    ),
    device: str = typer.Option("", "--device", help="Name shown to the TD (default: host name)."),
    log_file: Path | None = typer.Option(None, "--log-file", help="Write a debug log here."),
    discover_timeout: float = typer.Option(
        3.0,
        "--discover-timeout",
        help="Seconds to look for a server on the LAN (mDNS) when none is given; 0 = do not.",
    ),
    serve: bool = typer.Option(
        False,
        "--serve",
        help="Serve the terminal to phone and tablet browsers on the LAN (textual-serve).",
    ),
    host: str = typer.Option(
        "0.0.0.0",
        "--host",
        help="With --serve: the address to listen on (default: every address of this host, so "
        "that phones on the club's network reach it; 127.0.0.1 keeps it to this machine).",
    ),
    port: int = typer.Option(8080, "--port", help="With --serve: the port to listen on."),
    max_sessions: int = typer.Option(
        MAX_SESSIONS,
        "--max-sessions",
        min=1,
        help="With --serve: browser terminals at once, in all.",
    ),
    max_per_address: int = typer.Option(
        MAX_PER_ADDRESS,
        "--max-per-address",
        min=1,
        help="With --serve: browser terminals from one device.",
    ),
) -> None:
    """Start the table terminal: pair once with the TD's code, then enter and confirm results."""
    if log_file is not None:
        logging.basicConfig(filename=log_file, level=logging.INFO)
    folder = state_dir or default_state_dir()
    if not demo:
        server = find_server(server, folder, discover_timeout)
    if serve:
        caps = (max_sessions, max_per_address)
        serve_browsers(server, folder, demo=demo, host=host, port=port, caps=caps)
        return
    # The app (textual) and the clients (pydantic models) load only when the terminal starts.
    from .app import TravellerTerminal  # noqa: PLC0415
    from .client import TableClient  # noqa: PLC0415
    from .errors import ClientError  # noqa: PLC0415

    client: TableClient
    lock: StateLock | None = None
    if demo:
        from .demo import demo_server  # noqa: PLC0415 (only for --demo)
        from .testing.server import FakeClient  # noqa: PLC0415 (only for --demo)

        client = FakeClient(demo_server())
    else:
        from .link import WebsocketClient  # noqa: PLC0415 (websockets: when the terminal starts)

        lock = hold_state_dir(folder)
        try:
            client = WebsocketClient(server or None, folder)
        except ClientError as error:
            typer.echo(error.message, err=True)
            raise typer.Exit(2) from None
    TravellerTerminal(client, device=device or socket.gethostname()).run()
    if lock is not None:
        lock.release()


def hold_state_dir(folder: Path) -> StateLock:
    """This terminal's claim on its state directory; a second terminal with the same one is
    refused (exit 2) and told how to start as a terminal of its own."""
    try:
        return StateLock(folder)
    except StateDirBusyError as busy:
        who = _(" (process {pid})").format(pid=busy.pid) if busy.pid else ""
        typer.echo(
            _(
                "Another terminal{who} already uses {folder}: it is that table's terminal, with "
                "its token and its outbox. Start this one with a folder of its own: "
                "traveller terminal --state-dir DIR"
            ).format(who=who, folder=folder),
            err=True,
        )
        raise typer.Exit(2) from None


def serve_browsers(
    server: str,
    folder: Path,
    *,
    demo: bool,
    host: str,
    port: int,
    caps: tuple[int, int],
) -> None:
    """Run textual-serve: every browser session gets its own terminal and state folder, at
    most ``caps`` (in all, from one address) at once."""
    if not demo:
        server = server or ConfigStore(folder).load().server
        if not server:
            typer.echo("No server address: start with --server URL.", err=True)
            raise typer.Exit(2)
    try:
        from .serve import SessionCaps  # noqa: PLC0415 (optional: textual-serve)
        from .serve import serve as serve_app  # noqa: PLC0415
    except ImportError:
        typer.echo("Serving to browsers needs textual-serve: pip install textual-serve", err=True)
        raise typer.Exit(2) from None
    arguments = ["--demo"] if demo else ["--server", server, "--discover-timeout", "0"]
    where = "every address of this host" if host in ("0.0.0.0", "::") else host
    typer.echo(
        f"Serving the table terminal on http://{host}:{port}/ ({where}; at most {caps[0]} "
        f"browsers, {caps[1]} from one device)  (Ctrl-C stops)",
        err=True,
    )
    limits = SessionCaps(max_sessions=caps[0], max_per_address=caps[1])
    serve_app(arguments, folder, host=host, port=port, caps=limits)

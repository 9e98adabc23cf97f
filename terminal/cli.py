"""`traveller terminal`: start the table terminal (only typer and the standard library up here)."""

from __future__ import annotations

import logging
import socket
from pathlib import Path

import typer

app = typer.Typer(add_completion=False, help="The table terminal (Textual).")


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
) -> None:
    """Start the table terminal: pair once with the TD's code, then enter and confirm results."""
    from .config import default_state_dir

    if log_file is not None:
        logging.basicConfig(filename=log_file, level=logging.INFO)
    folder = state_dir or default_state_dir()
    from .app import TravellerTerminal
    from .client import ClientError, TableClient

    client: TableClient
    if demo:
        from .fake import FakeClient

        client = FakeClient()
    else:
        from .link import WebsocketClient

        try:
            client = WebsocketClient(server or None, folder)
        except ClientError as error:
            typer.echo(error.message, err=True)
            raise typer.Exit(2) from None
    TravellerTerminal(client, device=device or socket.gethostname()).run()

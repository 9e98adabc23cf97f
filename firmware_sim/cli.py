"""The `traveller keypad-sim` command: a simulated keypad on a serial port, scripted or typed."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from pathlib import Path

import typer

app = typer.Typer(
    name="keypad-sim",
    help="Run a simulated serial keypad (2x16 LCD + keys).",
    add_completion=False,
)


@app.callback(invoke_without_command=True)
def keypad_sim(
    port: str = typer.Option(
        ..., "--port", help="pyserial URL: loop://, socket://host:port, /dev/ttyUSB0, a pty path."
    ),
    table: int = typer.Option(..., "--table", min=1, help="The table this keypad sits at."),
    script: str = typer.Option(
        "-", "--script", help="Key script file, or - for stdin (keys typed line by line)."
    ),
    address: int | None = typer.Option(
        None, "--address", min=1, max=127, help="Bus address (default: the table number)."
    ),
    store: Path | None = typer.Option(
        None, "--store", help="File for the battery-backed store of unsent entries."
    ),
    bus: bool = typer.Option(False, "--bus", help="RS-485 multi-drop: answer the gateway's polls."),
    baud: int = typer.Option(9600, "--baud"),
    seconds: float | None = typer.Option(None, "--seconds", help="Stop after this long."),
) -> None:
    """Run a keypad: it pairs, shows the round and sends entries like real firmware."""
    # pyserial is the optional "keypad" extra; `traveller` mounts this command without it.
    from .runner import parse_script, run, typed_keys  # noqa: PLC0415

    keys: Iterable[str]
    if script == "-":
        keys = typed_keys(sys.stdin)  # lazily: keys can be typed while it runs
    else:
        try:
            keys = list(parse_script(Path(script).read_text(encoding="utf-8").splitlines()))
        except (OSError, ValueError) as exc:
            raise typer.BadParameter(str(exc), param_hint="--script") from exc
    device = run(
        port,
        table,
        keys,
        address=address,
        store=store,
        bus=bus,
        baud=baud,
        max_seconds=seconds,
    )
    unsent = len(device.store.pending())
    if unsent:
        typer.echo(f"{unsent} entries unsent (kept in the store)", err=True)
        raise typer.Exit(1)

"""The `traveller` command line: one typer app, and a table of its subcommands, each in the module
of its own part, imported only when that command runs.

Importing this module loads typer, the standard library and the pure bridge rules (for `calc`)
only, and so does `traveller --help`: a Raspberry Pi terminal that installed `traveller[terminal]`
(no FastAPI, no SQLModel) runs `traveller terminal`, and a command module imports what it needs at
its top. `COMMANDS` is the one place that imports by name (`load`); tests/cli/test_cli.py checks
that every entry loads and that its line in the table is the command's own.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from typing import Any

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from protocol.bridge import BridgeError, calc_report
from server.i18n.cli_words import _

#: The context settings of a command that passes what it does not know on (to pytest, to the
#: benchmarks).
PASS_ON: dict[str, Any] = {"allow_extra_args": True, "ignore_unknown_options": True}


@dataclass(frozen=True)
class Subcommand:
    """A subcommand kept in another module: where it is, and its line in `traveller --help`."""

    #: "package.module:attribute": a `typer.Typer` (mounted as a group of commands, as
    #: `add_typer`), or a command function (mounted as `app.command`).
    where: str
    #: The first paragraph of the command's help, shown in the list without importing it.
    help: str
    context_settings: dict[str, Any] = field(default_factory=dict)
    #: The extra (pyproject.toml) that brings what the command imports.
    extra: str = "server"


#: Every subcommand but `calc`, in the order `traveller --help` lists them.
COMMANDS: dict[str, Subcommand] = {
    "demo": Subcommand(
        "server.ops.demo_cli:demo",
        "Start the server on SQLite with the demo club night (kept between starts), and print "
        "how to join it.",
    ),
    "test": Subcommand(
        "server.ops.dev_cli:run_tests",
        "Run the house rules (ruff, ruff format, the import-linter layers, mypy), then the whole "
        "test suite (pytest, in parallel workers; the PostgreSQL restart test alone at the end).",
        PASS_ON,
        "dev",
    ),
    "bench": Subcommand(
        "server.ops.dev_cli:bench",
        "Benchmarks and fault runs: load, chaos, scoring, keypad (from a clone of the repository).",
        {**PASS_ON, "help_option_names": []},
        "dev",
    ),
    "score": Subcommand(
        "server.io.cli:score",
        "Score an event from its travellers (never from the totals in the file).",
    ),
    "serve": Subcommand(
        "server.ops.deploy_cli:serve",
        "Run the server (needs TRAVELLER_TD_PASSWORD); --workers N shares pushes through "
        "PostgreSQL LISTEN/NOTIFY.",
    ),
    "keypad-sim": Subcommand(
        "firmware_sim.cli:keypad_sim",
        "Run a keypad: it pairs, shows the round and sends entries like real firmware.",
        extra="keypad",
    ),
    "gateway": Subcommand(
        "server.gateway.cli:gateway",
        "Serve serial keypads: pairing, rounds, entries and confirmations, like the terminals.",
    ),
    # The printable table card (protocol/table_card.py).
    "cards": Subcommand(
        "server.ops.cards_cli:cards",
        "Print the table card: how to enter, confirm, correct, call the TD and move.",
    ),
    "movement": Subcommand("server.movements.cli:app", "Show, check and export movements."),
    "terminal": Subcommand("terminal.cli:app", "The table terminal (Textual).", extra="terminal"),
    "backup": Subcommand(
        "server.ops.deploy_cli:backup",
        "Back up the SQLite database now (safe while the server runs), keeping the newest N.",
    ),
    "restore": Subcommand(
        "server.ops.deploy_cli:restore",
        "Replace the database by a backup (stop the server first); the old one is kept beside.",
    ),
    "doctor": Subcommand(
        "server.ops.doctor_cli:doctor",
        "Check this site: server, database, disk, clocks, serial ports. Exit 1 on a problem.",
        extra="terminal",
    ),
    "discover": Subcommand(
        "server.ops.doctor_cli:discover",
        "Find Traveller servers on the LAN (mDNS); print their URLs, exit 1 when none answers.",
        extra="terminal",
    ),
}


#: Our own packages: a module of theirs that is missing is a bug, not an extra left out.
OURS = frozenset({"protocol", "server", "terminal", "firmware_sim", "benchmarks"})


def load(name: str, command: Subcommand) -> Any:
    """The click command of ``name``, built by typer from its module (imported here). A
    dependency that is not installed (an extra left out) is a plain error, exit status 2."""
    module, _sep, attribute = command.where.partition(":")
    try:
        target = getattr(importlib.import_module(module), attribute)
    except ModuleNotFoundError as exc:
        missing = (exc.name or "").split(".")[0]
        if not missing or missing in OURS:
            raise
        message = _(
            "error: `traveller {command}` needs {package}, which is not installed here: "
            "pip install 'traveller[{extra}]'"
        )
        typer.echo(message.format(command=name, package=missing, extra=command.extra), err=True)
        raise typer.Exit(2) from exc
    host = typer.Typer()
    host.callback()(_no_options)  # a group, whatever it holds: its subcommand is the command
    if isinstance(target, typer.Typer):
        host.add_typer(target, name=name)
    else:
        host.command(name, context_settings=dict(command.context_settings))(target)
    return typer.main.get_group(host).commands[name]


def _no_options() -> None:
    """A group with no options of its own."""


def first_paragraph(text: str | None) -> str:
    """A help text's first paragraph on one line (what the list of commands shows)."""
    return " ".join(inspect.cleandoc(text or "").split("\n\n")[0].split())


class Commands(TyperGroup):
    """The root group: `COMMANDS` are listed by their lines and imported only to run."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        for name, command in COMMANDS.items():
            self.add_command(TyperCommand(name, help=command.help), name)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, found, rest = super().resolve_command(ctx, args)
        if name in COMMANDS:
            found = load(name, COMMANDS[name])
        return name, found, rest


app = typer.Typer(
    name="traveller",
    help="Traveller: table-side score entry for duplicate bridge.",
    no_args_is_help=True,
    add_completion=False,
    cls=Commands,
)
# The group of `COMMANDS` even while `calc` is the only command registered here (typer would
# make the app that one command).
app.callback()(_no_options)


@app.command(context_settings={"ignore_unknown_options": True})
def calc(
    contract: str = typer.Argument(..., help='The contract, e.g. 4SX, 3NT, "4♠X" or PASS.'),
    declarer: str = typer.Argument("N", help="N, E, S or W (ignored for PASS)."),
    tricks: str = typer.Argument("=", help="Tricks taken (0-13) or +1 / = / -2."),
    board: int | None = typer.Option(None, "--board", "-b", help="Board number (Law 2 vul)."),
) -> None:
    """Score one board by Law 77: a calculator for the TD."""
    try:
        typer.echo(calc_report(contract, declarer, tricks, board))
    except BridgeError as exc:
        typer.echo(_("error: {message}").format(message=exc), err=True)
        raise typer.Exit(2) from exc


def main() -> None:
    app()


if __name__ == "__main__":
    main()

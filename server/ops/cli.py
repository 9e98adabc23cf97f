"""The `traveller` command line: one typer app whose subcommands import their parts lazily.

Only typer and the standard library are imported at module level, so a Raspberry Pi terminal
that installed `traveller[terminal]` (no FastAPI, no SQLModel) can still run `traveller terminal`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import typer

from server.i18n.cli_words import _

app = typer.Typer(
    name="traveller",
    help="Traveller: table-side score entry for duplicate bridge.",
    no_args_is_help=True,
    add_completion=False,
)


@app.command(context_settings={"ignore_unknown_options": True})
def calc(
    contract: str = typer.Argument(..., help='The contract, e.g. 4SX, 3NT, "4♠X" or PASS.'),
    declarer: str = typer.Argument("N", help="N, E, S or W (ignored for PASS)."),
    tricks: str = typer.Argument("=", help="Tricks taken (0-13) or +1 / = / -2."),
    board: int | None = typer.Option(None, "--board", "-b", help="Board number (Law 2 vul)."),
) -> None:
    """Score one board by Law 77: a calculator for the TD."""
    from protocol.bridge import BridgeError, calc_report

    try:
        typer.echo(calc_report(contract, declarer, tricks, board))
    except BridgeError as exc:
        typer.echo(_("error: {message}").format(message=exc), err=True)
        raise typer.Exit(2) from exc


@app.command()
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
    import secrets

    import uvicorn

    from server.app import create_app
    from server.core.config import Settings
    from server.core.db import make_engine
    from server.limits.http_limits import uvicorn_options
    from server.live.runtime import tune_interpreter
    from server.ops.demo import create_demo, find_demo, wipe_sqlite
    from server.site.doctor import DEMO_SITE, read_site, write_site

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
        _("  Stop with Ctrl-C."),
        "",
    ]
    typer.echo("\n".join(lines))
    tune_interpreter()
    uvicorn.run(
        create_app(settings, engine=engine),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        **uvicorn_options(settings),
    )


@app.command(
    name="test",
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def run_tests(
    ctx: typer.Context,
    fast: bool = typer.Option(
        False,
        "--fast",
        help="The inner loop: leave out the browser, subprocess, PostgreSQL, deploy and slow "
        "tests (CI runs everything).",
    ),
    checks: bool = typer.Option(
        True,
        "--checks/--no-checks",
        help="Run ruff, ruff format, import-linter and mypy first (the default).",
    ),
) -> None:
    """Run the house rules (ruff, ruff format, the import-linter layers, mypy), then the whole
    test suite (pytest, in parallel workers; the PostgreSQL restart test alone at the end).

    Extra arguments go to pytest, e.g. `traveller test -x -k websocket`."""
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    if importlib.util.find_spec("pytest") is None:  # a .venv made by `./traveller demo`
        typer.echo(
            _("error: the tests need the dev tools: `./traveller test` installs them"), err=True
        )
        raise typer.Exit(2)
    env = os.environ.copy()
    if checks:
        failed = [name for name, args in QUALITY_CHECKS if not _check(root, env, name, args)]
        if failed:
            typer.echo(
                _("error: the house rules failed ({checks}); pytest did not run").format(
                    checks=", ".join(failed)
                ),
                err=True,
            )
            raise typer.Exit(1)
    for cmd in pytest_runs(ctx.args, fast=fast):
        code = subprocess.call(cmd, cwd=root, env=env)
        if code not in (0, NO_TESTS_COLLECTED):
            raise typer.Exit(code)
    raise typer.Exit(0)


#: What `traveller test --fast` leaves out (markers: pyproject.toml, tests/conftest.py).
FAST_TESTS = "not (browser or subprocess or postgres or deploy or slow or pg_restart)"
#: The tests that restart PostgreSQL: a pytest run of their own after the rest (nothing else
#: may use the server meanwhile, so never beside another worker).
ALONE_TESTS = "pg_restart"
#: pytest's exit status when the arguments select nothing (the `pg_restart` run after a
#: `traveller test tests/server`): not a failure.
NO_TESTS_COLLECTED = 5
#: The pytest-xdist workers of a run: one a logical CPU ("auto" would count physical cores
#: when psutil is installed: one worker on a 2-vCPU machine). Arguments that choose their own
#: (`-n 0`, `-p no:xdist`) win.
WORKERS = "logical"
#: How the workers share the tests: an idle worker takes tests queued for a busy one, so a few
#: long tests (browser, end-to-end) at the end do not leave a core idle.
DISTRIBUTION = "worksteal"

#: The house rules, each a tool in the .venv and its arguments (configured in pyproject.toml).
QUALITY_CHECKS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ruff", ("check", ".")),
    ("ruff", ("format", "--check", ".")),
    ("lint-imports", ()),
    ("mypy", ()),
)


def _check(root: Path, env: dict[str, str], tool: str, args: tuple[str, ...]) -> bool:
    """Run one house rule from the .venv's bin folder; its output goes to the terminal."""
    import shutil

    found = shutil.which(tool, path=str(Path(sys.executable).parent)) or shutil.which(tool)
    typer.echo(f"traveller test: {tool} {' '.join(args)}".rstrip(), err=True)
    if found is None:
        typer.echo(
            _("error: {tool} is not installed (pip install -e '.[dev]')").format(tool=tool),
            err=True,
        )
        return False
    return subprocess.call([found, *args], cwd=root, env=env) == 0


def pytest_runs(args: list[str], *, fast: bool) -> list[list[str]]:
    """The pytest commands `traveller test` runs, in order: the suite in parallel workers, then
    (unless --fast, which leaves them out) the tests that must run alone. Arguments that pick
    their own markers (`-m`) get a single run as they asked; arguments that pick their own
    workers (`-n 0`, `-p no:xdist`) keep them."""
    import importlib.util

    pytest = [sys.executable, "-m", "pytest"]
    own_workers = "no:xdist" in args or any(a.startswith(("-n", "--numprocesses")) for a in args)
    serial = own_workers or importlib.util.find_spec("xdist") is None
    parallel = [] if serial else ["-n", WORKERS]
    if parallel and not any(a.startswith("--dist") for a in args):
        parallel += ["--dist", DISTRIBUTION]
    if any(a.startswith("-m") for a in args):  # -m EXPR or -mEXPR: the caller's own selection
        return [[*pytest, *parallel, *args]]
    if fast:
        return [[*pytest, *parallel, "-m", FAST_TESTS, *args]]
    return [
        [*pytest, *parallel, "-m", f"not {ALONE_TESTS}", *args],
        [*pytest, "-m", ALONE_TESTS, *args],
    ]


@app.command(
    name="bench",
    context_settings={
        "allow_extra_args": True,
        "ignore_unknown_options": True,
        "help_option_names": [],
    },
)
def bench(ctx: typer.Context) -> None:
    """Benchmarks and fault runs: load, chaos, scoring, keypad (from a clone of the repository).

    `traveller bench --help` lists them, e.g. `traveller bench load --tables 50`."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "benchmarks" / "bench_cli.py").is_file():
        typer.echo(_("error: `traveller bench` runs from a clone of the repository"), err=True)
        raise typer.Exit(2)
    sys.path.insert(0, str(root))
    from benchmarks.bench_cli import app as bench_app

    bench_app(args=ctx.args, prog_name="traveller bench")


def _mount() -> None:
    """Sub-commands that live with their packages (each imports only typer at load time)."""
    from firmware_sim.cli import keypad_sim
    from server.gateway.cli import gateway
    from server.io.cli import score
    from server.movements.cli import app as movement_app
    from server.ops.cards_cli import cards
    from server.ops.deploy_cli import app as deploy_app
    from server.ops.deploy_cli import serve
    from terminal.cli import app as terminal_app

    app.add_typer(movement_app, name="movement", help="Show, check and export movements.")
    app.add_typer(terminal_app, name="terminal")
    app.command("score")(score)
    app.command(name="serve")(serve)
    app.add_typer(deploy_app)  # backup, restore, doctor, discover
    app.command("keypad-sim")(keypad_sim)
    app.command("gateway")(gateway)
    app.command("cards")(cards)  # the printable table card (protocol/table_card.py)


_mount()


def main() -> None:
    app()


if __name__ == "__main__":
    main()

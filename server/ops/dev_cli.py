"""The commands for a clone of the repository: `traveller test` (the house rules, then the suite
in parallel workers) and `traveller bench` (benchmarks/bench_cli.py). Standard library only."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import typer

from server.i18n.cli_words import _


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
#: The pytest-xdist workers of a run, for each logical CPU. Many tests of the whole suite
#: spend most of their time waiting (on the servers and the Chromium they start, on a
#: gateway's line faults, on a timeout), and the other workers run meanwhile: three a CPU keep
#: the CPUs busiest, more only contend. `--fast` leaves out the waiting tests, so two a CPU
#: already keep them busy. Arguments that choose their own (`-n 0`, `-p no:xdist`) win.
WORKERS_PER_CPU = 3
FAST_WORKERS_PER_CPU = 2


def workers(*, fast: bool = False) -> str:
    """The `-n` of a run: WORKERS_PER_CPU (FAST_WORKERS_PER_CPU for --fast) for each CPU this
    process may use (a container's limit, not the host's count)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return str((FAST_WORKERS_PER_CPU if fast else WORKERS_PER_CPU) * max(1, cpus))


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
    pytest = [sys.executable, "-m", "pytest"]
    own_workers = "no:xdist" in args or any(a.startswith(("-n", "--numprocesses")) for a in args)
    serial = own_workers or importlib.util.find_spec("xdist") is None
    parallel = [] if serial else ["-n", workers(fast=fast)]
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


def bench(ctx: typer.Context) -> None:
    """Benchmarks and fault runs: load, chaos, scoring, keypad (from a clone of the repository).

    `traveller bench --help` lists them, e.g. `traveller bench load --tables 50`."""
    root = Path(__file__).resolve().parents[2]
    if not (root / "benchmarks" / "bench_cli.py").is_file():
        typer.echo(_("error: `traveller bench` runs from a clone of the repository"), err=True)
        raise typer.Exit(2)
    sys.path.insert(0, str(root))
    # benchmarks/ is not installed: importable once the clone's root is on sys.path.
    from benchmarks.bench_cli import app as bench_app  # noqa: PLC0415

    bench_app(args=ctx.args, prog_name="traveller bench")

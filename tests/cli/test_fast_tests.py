"""`traveller test --fast`: the inner loop leaves out what needs a browser, a process, a
PostgreSQL server or the deployment tools, and the markers it selects on are really set."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from server.ops import cli, dev_cli

ROOT = Path(__file__).resolve().parents[2]


def _calls(monkeypatch: pytest.MonkeyPatch, codes: dict[str, int] | None = None) -> list[list[str]]:
    """Every command `traveller test` would run, answered with ``codes`` (by the command's
    first word after the interpreter, or the tool's name) or 0."""
    calls: list[list[str]] = []

    def call(cmd: list[str], **_: Any) -> int:
        calls.append(cmd)
        word = cmd[2] if cmd[0] == sys.executable else Path(cmd[0]).name
        return (codes or {}).get(word, 0)

    monkeypatch.setattr(dev_cli.subprocess, "call", call)
    return calls


def test_fast_passes_the_marker_expression_to_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _calls(monkeypatch)
    runner = CliRunner()
    args = ["--no-checks", "-n", "0", "-x"]
    assert runner.invoke(cli.app, ["test", "--fast", *args, "tests/protocol"]).exit_code == 0
    assert calls == [
        [
            sys.executable,
            "-m",
            "pytest",
            "-m",
            dev_cli.FAST_TESTS,
            "-n",
            "0",
            "-x",
            "tests/protocol",
        ]
    ]
    calls.clear()
    assert runner.invoke(cli.app, ["test", *args]).exit_code == 0
    # Everything, then the PostgreSQL restart alone (no tests there is not a failure).
    assert [c[1:] for c in calls] == [
        ["-m", "pytest", "-m", f"not {dev_cli.ALONE_TESTS}", "-n", "0", "-x"],
        ["-m", "pytest", "-m", dev_cli.ALONE_TESTS, "-n", "0", "-x"],
    ]
    calls.clear()
    assert runner.invoke(cli.app, ["test", "--no-checks", "-m", "slow"]).exit_code == 0
    assert len(calls) == 1
    assert calls[0][-2:] == ["-m", "slow"]  # the caller's own selection, in one run


def test_the_suite_runs_in_workers_and_the_restart_test_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pytest.importorskip("xdist")
    calls = _calls(monkeypatch)
    assert CliRunner().invoke(cli.app, ["test", "--no-checks"]).exit_code == 0
    main, alone = calls
    assert main[3:5] == ["-n", dev_cli.workers()]
    assert "-n" not in alone
    calls.clear()
    assert CliRunner().invoke(cli.app, ["test", "--no-checks", "--fast"]).exit_code == 0
    assert calls[0][3:5] == ["-n", dev_cli.workers(fast=True)]  # busy tests: fewer workers
    calls.clear()
    assert CliRunner().invoke(cli.app, ["test", "--no-checks", "-p", "no:xdist"]).exit_code == 0
    assert all("-n" not in c for c in calls)


def test_workers_follow_the_cpus_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dev_cli.os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    assert dev_cli.workers() == str(2 * dev_cli.WORKERS_PER_CPU)
    assert dev_cli.workers(fast=True) == str(2 * dev_cli.FAST_WORKERS_PER_CPU)
    assert dev_cli.FAST_WORKERS_PER_CPU < dev_cli.WORKERS_PER_CPU  # --fast keeps the CPUs busy


def test_the_house_rules_run_first_and_stop_the_command(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _calls(monkeypatch)
    assert CliRunner().invoke(cli.app, ["test", "--fast"]).exit_code == 0
    tools = [(Path(c[0]).name, tuple(c[1:])) for c in calls[: len(dev_cli.QUALITY_CHECKS)]]
    assert tools == list(dev_cli.QUALITY_CHECKS)
    assert calls[-1][1:3] == ["-m", "pytest"]

    calls = _calls(monkeypatch, {"mypy": 1})
    result = CliRunner().invoke(cli.app, ["test"])
    assert result.exit_code == 1
    assert "mypy" in result.output
    assert all(c[1:3] != ["-m", "pytest"] for c in calls)  # pytest never ran
    assert len(calls) == len(dev_cli.QUALITY_CHECKS)  # every rule ran, to show every failure


def test_a_failing_run_is_the_commands_status(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _calls(monkeypatch, {"pytest": 1})
    assert CliRunner().invoke(cli.app, ["test", "--no-checks"]).exit_code == 1
    assert len(calls) == 1  # the restart test does not run after a failure
    calls = _calls(monkeypatch, {"pytest": dev_cli.NO_TESTS_COLLECTED})
    assert CliRunner().invoke(cli.app, ["test", "--no-checks", "tests/protocol"]).exit_code == 0


def _collected(*args: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return {line for line in proc.stdout.splitlines() if "::" in line}


def test_the_markers_fall_on_the_tests_that_need_them() -> None:
    folders = ("tests/web/test_wizard_browser.py", "tests/deploy/test_doctor.py", "tests/protocol")
    everything = _collected(*folders)
    fast = _collected("-m", dev_cli.FAST_TESTS, *folders)
    assert any("test_wizard_browser" in t for t in everything)
    assert not any("test_wizard_browser" in t for t in fast)  # Chromium
    assert not any("tests/deploy/" in t for t in fast)
    assert any(t.startswith("tests/protocol/") for t in fast)
    quick = _collected("-m", "not slow", *folders)
    assert {t for t in quick if t.startswith("tests/protocol/")} <= fast

"""`traveller test --fast`: the inner loop leaves out what needs a browser, a process, a
PostgreSQL server or the deployment tools, and the markers it selects on are really set."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from server import cli

ROOT = Path(__file__).resolve().parents[2]


def test_fast_passes_the_marker_expression_to_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []

    def call(cmd: list[str], **_: Any) -> int:
        calls.append(cmd)
        return 0

    monkeypatch.setattr(cli.subprocess, "call", call)
    runner = CliRunner()
    assert runner.invoke(cli.app, ["test", "--fast", "-x", "tests/protocol"]).exit_code == 0
    assert runner.invoke(cli.app, ["test", "-x"]).exit_code == 0
    assert calls[0][1:] == ["-m", "pytest", "-m", cli.FAST_TESTS, "-x", "tests/protocol"]
    assert calls[1][1:] == ["-m", "pytest", "-x"]


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
    fast = _collected("-m", cli.FAST_TESTS, *folders)
    assert any("test_wizard_browser" in t for t in everything)
    assert not any("test_wizard_browser" in t for t in fast)  # Chromium
    assert not any("tests/deploy/" in t for t in fast)
    assert any(t.startswith("tests/protocol/") for t in fast)
    quick = _collected("-m", "not slow", *folders)
    assert {t for t in quick if t.startswith("tests/protocol/")} <= fast

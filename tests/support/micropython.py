"""The keypad firmware's core running in MicroPython (its WebAssembly port under Node), driven
from a test: Python source goes in, what it printed comes back (deploy/keypad/host.mjs).

``ensure_installed`` installs the npm package from deploy/keypad's package.json and lock
(``npm ci``) when it is missing; without Node the tests skip with the reason, and fail under
``CI=true`` (.ci/run installs Node first).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.env import ROOT

KEYPAD = ROOT / "deploy" / "keypad"
FIRMWARE = KEYPAD / "firmware"
PACKAGE = KEYPAD / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"


def ensure_installed() -> str:
    """The path of node, with the MicroPython package installed (skip or fail without Node)."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is missing: .ci/run installs it (nodejs, npm)")
        pytest.skip("node is not installed: the MicroPython tests need it (apt-get install nodejs)")
    if not (PACKAGE / "micropython.mjs").exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is missing: install it to fetch MicroPython's WebAssembly port")
        # One install at a time: the suite's workers may all find it missing at once.
        with (KEYPAD / ".npm-install.lock").open("w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if not (PACKAGE / "micropython.mjs").exists():
                subprocess.run(
                    [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
                    cwd=KEYPAD,
                    check=True,
                    timeout=300,
                )
    return node


class MicroPythonError(AssertionError):
    """Python source that raised under MicroPython."""


class MicroPython:
    """One MicroPython interpreter in a Node process, with the firmware on its path."""

    def __init__(self, firmware: Path = FIRMWARE) -> None:
        node = ensure_installed()
        self.proc = subprocess.Popen(
            [node, str(KEYPAD / "host.mjs"), str(firmware)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def run(self, source: str) -> list[str]:
        """Run ``source``; the lines it printed."""
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(source) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise MicroPythonError(f"MicroPython's host stopped (exit {self.proc.poll()})")
        answer: dict[str, Any] = json.loads(line)
        if not answer["ok"]:
            raise MicroPythonError(f"{answer['error']}\nprinted: {answer['out']}")
        out: list[str] = answer["out"]
        return out

    def value(self, expression: str, setup: str = "") -> Any:
        """The value of ``expression`` (JSON-able), after running ``setup``."""
        lines = self.run(f"{setup}\nimport json\nprint(json.dumps({expression}))")
        return json.loads(lines[-1])

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def __enter__(self) -> MicroPython:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

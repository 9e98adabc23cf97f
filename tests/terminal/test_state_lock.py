"""One terminal per state directory (issue 17): a second terminal on the same machine with the
same folder would silently be the same table and share its outbox; it is refused instead."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from terminal.cli import app as terminal_cli
from terminal.config import StateDirBusyError, StateLock


def test_a_second_terminal_on_the_same_state_directory_is_refused(tmp_path: Path) -> None:
    lock = StateLock(tmp_path)
    try:
        with pytest.raises(StateDirBusyError) as busy:
            StateLock(tmp_path)
        assert busy.value.pid == os.getpid()
        out = CliRunner().invoke(
            terminal_cli, ["--server", "http://127.0.0.1:9", "--state-dir", str(tmp_path)]
        )
        assert out.exit_code == 2
        assert f"Another terminal (process {os.getpid()}) already uses {tmp_path}" in out.output
        assert "--state-dir" in out.output
        assert not (tmp_path / "outbox.sqlite3").exists()  # nothing of the table was touched
    finally:
        lock.release()
    StateLock(tmp_path).release()  # free again once the first has gone


def test_the_lock_goes_with_a_killed_terminal(tmp_path: Path) -> None:
    """kill -9 leaves the lock file behind, but not the lock: the restart is not refused."""
    code = (
        "import sys, time; from pathlib import Path; from terminal.config import StateLock; "
        "lock = StateLock(Path(sys.argv[1])); print('locked', flush=True); time.sleep(60)"
    )
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "locked"
        with pytest.raises(StateDirBusyError) as busy:
            StateLock(tmp_path)
        assert busy.value.pid == child.pid
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(10)
    StateLock(tmp_path).release()

"""`traveller terminal`: the typer sub-app imports nothing heavy and explains its options."""

from __future__ import annotations

import subprocess
import sys

from typer.testing import CliRunner

from terminal.cli import app


def test_help_lists_the_options() -> None:
    result = CliRunner().invoke(app, ["--help"])
    assert result.exit_code == 0
    for option in ("--server", "--state-dir", "--demo", "--serve", "--port"):
        assert option in result.output


def test_importing_the_cli_does_not_import_textual() -> None:
    code = "import sys, terminal.cli; print('textual' in sys.modules, 'websockets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_no_server_is_a_plain_message(tmp_path: object) -> None:
    result = CliRunner().invoke(app, ["--state-dir", str(tmp_path), "--discover-timeout", "0"])
    assert result.exit_code == 2
    assert "No server address" in result.output
    assert "Traceback" not in result.output

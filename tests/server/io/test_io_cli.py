"""`traveller score`: output formats, --method, and exit code 2 with a message on bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from server.io.cli import app as io_app
from tests.support.io import score_cli

runner = CliRunner()


def test_json_output(data_dir: Path) -> None:
    result = runner.invoke(
        score_cli(), ["score", str(data_dir / "io" / "mitchell_3_tables.xml"), "--format", "json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["method"] == "mp"
    assert [(p["number"], p["direction"], p["percentage"], p["place"]) for p in data["pairs"]][
        :3
    ] == [(1, "NS", 70.0, "1"), (2, "NS", 45.83, "2"), (3, "NS", 37.5, "3")]


def test_method_option_overrides_the_file(data_dir: Path) -> None:
    result = runner.invoke(
        score_cli(),
        ["score", str(data_dir / "io" / "howell_2_tables.pbn"), "-m", "imps", "-f", "json"],
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["method"] == "imps"
    assert all(p["percentage"] is None for p in data["pairs"])


@pytest.mark.parametrize("fmt", ["text", "csv"])
def test_text_and_csv_output(data_dir: Path, fmt: str) -> None:
    result = runner.invoke(
        score_cli(), ["score", str(data_dir / "io" / "travellers_spellings.csv"), "-f", fmt]
    )
    assert result.exit_code == 0, result.output
    assert "70.00" in result.stdout


def test_standalone_app_runs_the_command(data_dir: Path) -> None:
    result = runner.invoke(io_app, [str(data_dir / "io" / "howell_2_tables.pbn")])
    assert result.exit_code == 0, result.output
    assert "83.33" in result.stdout


@pytest.mark.parametrize(
    ("name", "body", "needle"),
    [
        (
            "bad.pbn",
            '[Event "x"]\n[Board "1"]\n[Contract "4Q"]\n[Declarer "N"]\n[Result "9"]\n',
            "strain",
        ),
        ("bad.xml", "<USEBIO><EVENT>", "not well-formed"),
        ("bad.csv", "board,ns,ew,contract\nq,1,2,3NT\n", "line 2"),
        ("bad.bws", "not an access database", "bws"),
    ],
)
def test_malformed_files_exit_2_with_a_message(
    tmp_path: Path, name: str, body: str, needle: str
) -> None:
    path = tmp_path / name
    path.write_text(body)
    result = runner.invoke(score_cli(), ["score", str(path)])
    assert result.exit_code == 2
    assert "error:" in result.stderr
    assert needle in result.stderr
    assert "Traceback" not in result.output


def test_missing_file_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(score_cli(), ["score", str(tmp_path / "nope.pbn")])
    assert result.exit_code == 2
    assert "cannot read" in result.stderr


def test_unknown_method_is_a_usage_error(data_dir: Path) -> None:
    result = runner.invoke(
        score_cli(), ["score", str(data_dir / "io" / "howell_2_tables.pbn"), "-m", "rubber"]
    )
    assert result.exit_code == 2

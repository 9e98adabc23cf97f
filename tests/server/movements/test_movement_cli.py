"""`movement show` prints the grid, the validation and the balance report."""

from __future__ import annotations

from typer.testing import CliRunner

from server.api.schemas import SPEC_KINDS, MovementSpec
from server.movements.catalog import KINDS
from server.movements.cli import app

runner = CliRunner()


def test_show_mitchell() -> None:
    result = runner.invoke(
        app, ["show", "mitchell", "--tables", "7", "--rounds", "7", "--boards-per-round", "4"]
    )
    assert result.exit_code == 0, result.output
    assert "Mitchell 7 tables" in result.output
    assert "Validation: valid" in result.output
    assert "Balance (two winners, per direction): 100.0%" in result.output
    assert "1NS-7EW: 5-8" in result.output


def test_show_other_kinds() -> None:
    for args in (
        ["show", "howell", "--pairs", "13"],
        ["show", "hesitation", "--tables", "7", "--arrow-switch", "1"],
        ["show", "rover-mitchell", "--tables", "6"],
        ["show", "three-quarter-howell", "--pairs", "16"],
        ["show", "team-match", "--boards-per-round", "8", "--rounds", "2"],
        ["show", "individual", "--pairs", "8"],
        ["show", "bundled", "--name", "Howell10T5B24Relay"],
        [
            "show",
            "mitchell",
            "--tables",
            "6",
            "--even",
            "relay",
            "--table-cards",
            "--pair-card",
            "3EW",
        ],
        ["show", "mitchell", "--tables", "5", "--format", "round-data"],
        ["show", "mitchell", "--tables", "5", "--format", "csv"],
        ["show", "mitchell", "--tables", "5", "--format", "json"],
        ["list"],
    ):
        result = runner.invoke(app, args)
        assert result.exit_code == 0, (args, result.output)
        assert "INVALID" not in result.output


def test_bad_options() -> None:
    result = runner.invoke(app, ["show", "mitchell"])
    assert result.exit_code == 2
    assert "needs tables" in result.output
    assert runner.invoke(app, ["show", "mitchell", "--tables", "4", "--rounds", "9"]).exit_code == 2


def test_the_kinds_come_from_the_catalogue() -> None:
    """`list`, the API's kinds and its spec's schema are the catalogue's entries."""
    listed = runner.invoke(app, ["list"]).output
    for kind in KINDS.values():
        assert f"  {kind.name}: " in listed
    assert "  howell: --pairs, --tables, --rounds, --boards-per-round, --even" in listed
    assert (*KINDS, "imported") == SPEC_KINDS
    assert MovementSpec.model_json_schema()["properties"]["kind"]["enum"] == list(SPEC_KINDS)

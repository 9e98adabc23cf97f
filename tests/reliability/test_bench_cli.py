"""`traveller bench load|chaos` run end to end from the repository (tiny sizes, a few seconds):
the harness itself keeps working as the server changes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from benchmarks.bench_cli import app


def test_bench_load_runs_a_small_session_with_no_errors(tmp_path: Path) -> None:
    out = tmp_path / "load.json"
    args = ["load", "--tables", "4", "--rounds", "2", "--boards-per-round", "2"]
    args += ["--dashboards", "1", "--public", "1", "--spread", "0.2", "--json", str(out)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    (report,) = json.loads(out.read_text())
    assert report["errors"] == 0
    assert report["confirmed"] == 4 * 2 * 2
    assert report["ack_burst"]["count"] == 4 * 2 * 2  # an enter and a confirm per table, round
    assert report["dash_all"]["count"] > 0
    assert report["baseline_ack_all"]["count"] > 0
    assert "burst ack p99" in result.output


@pytest.mark.slow
def test_bench_chaos_survives_its_faults() -> None:
    args = ["chaos", "--tables", "3", "--rounds", "1", "--boards-per-round", "2"]
    args += ["--duration", "20", "--cut", "2"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "every acknowledged result stored exactly once" in result.output
    assert "network cut 2 s" in result.output

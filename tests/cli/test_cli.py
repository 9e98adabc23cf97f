"""The `traveller` command line: calc, the demo set-up, and a CLI that stays light to import."""

from __future__ import annotations

import subprocess
import sys

from sqlmodel import Session, select
from typer.testing import CliRunner

from server.cli import app
from server.db import make_engine
from server.demo import create_demo
from server.models import Pair, Section

runner = CliRunner()


def test_calc_prints_contract_result_vulnerability_and_score() -> None:
    out = runner.invoke(app, ["calc", "4SX", "N", "8", "--board", "5"])
    assert out.exit_code == 0, out.output
    assert "4SX by North" in out.output
    assert "-2" in out.output
    assert "N/S vulnerable" in out.output
    assert "N/S -500" in out.output


def test_calc_relative_result_and_symbols() -> None:
    out = runner.invoke(app, ["calc", "7♠XX", "S", "=", "--board", "4"])
    assert out.exit_code == 0, out.output
    assert "2940" in out.output  # 7SXX= vulnerable: 840 + 500 + 1500 + 100


def test_calc_bad_input_is_a_clear_error() -> None:
    out = runner.invoke(app, ["calc", "8S", "N", "8"])
    assert out.exit_code == 2
    assert "8" in out.output
    out = runner.invoke(app, ["calc", "4S", "N", "14"])
    assert out.exit_code == 2
    assert "14" in out.output


def test_demo_creates_a_five_table_mitchell_with_codes(tmp_path: object) -> None:
    engine = make_engine(f"sqlite:///{tmp_path}/demo.db")
    demo = create_demo(engine)
    assert sorted(demo.pairing_codes) == [1, 2, 3, 4, 5]
    assert all(len(c) == 10 and c.isdigit() for c in demo.pairing_codes.values())
    with Session(engine) as s:
        section = s.exec(select(Section)).one()
        assert (section.tables, section.boards_per_round, section.current_round) == (5, 3, 1)
        pairs = s.exec(select(Pair)).all()
        assert len(pairs) == 10
        assert all(p.player1 and p.player2 for p in pairs)
    engine.dispose()


def test_cli_module_imports_no_server_framework() -> None:
    """A Raspberry Pi with traveller[terminal] has no FastAPI or SQLModel: the CLI must load."""
    code = (
        "import sys, server.cli; "
        "bad = [m for m in ('fastapi', 'sqlmodel', 'sqlalchemy', 'uvicorn') if m in sys.modules]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

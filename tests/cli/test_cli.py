"""The `traveller` command line: calc, the demo set-up (kept between starts, wiped only when
asked), doctor after demo, score's text output, gateway -v, and a CLI that stays light to import."""

from __future__ import annotations

import logging
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
import uvicorn
from sqlmodel import Session, select
from typer.testing import CliRunner

from protocol.messages import GetRound
from server.core.db import make_engine
from server.core.models import Pair, Section
from server.gateway.jobs import Binding, Handled
from server.ops import demo_cli
from server.ops.cli import COMMANDS, app, first_paragraph, load
from server.ops.demo import create_demo
from tests.gateway.test_core import SECTION, Rig, round_info
from tests.server.io.test_io_teams import ROOMS_PBN
from tests.support.installs import run_cli_without

runner = CliRunner()
DATA = Path(__file__).resolve().parents[1] / "data" / "io"


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
        "import sys, server.ops.cli; "
        "bad = [m for m in ('fastapi', 'sqlmodel', 'sqlalchemy', 'uvicorn') if m in sys.modules]; "
        "print(bad)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


#: A Raspberry Pi terminal's install (`traveller[terminal]`): none of the server extra.
SERVER_EXTRA = {
    "fastapi", "starlette", "uvicorn", "sqlmodel", "sqlalchemy", "alembic", "psycopg",
    "pydantic_settings", "jinja2", "multipart", "yaml", "segno",
}  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["terminal", "--help"],
        ["calc", "3NT", "N", "="],
        ["doctor", "--help"],
        ["discover", "--help"],
        ["cards", "--lang", "en"],
        ["movement", "show", "mitchell", "--tables", "3"],
    ],
)
def test_a_terminal_without_the_server_extra_runs_its_commands(args: list[str]) -> None:
    out = run_cli_without(SERVER_EXTRA, *args)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Traceback" not in out.stderr


def test_a_server_command_without_the_server_extra_says_what_to_install() -> None:
    out = run_cli_without(SERVER_EXTRA, "serve", "--help")
    assert out.returncode == 2, out.stdout + out.stderr
    assert "Traceback" not in out.stderr
    assert "`traveller serve` needs uvicorn" in out.stderr
    assert "pip install 'traveller[server]'" in out.stderr


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_in_the_table_loads_and_is_listed_by_its_own_help(name: str) -> None:
    """The line `traveller --help` shows without importing a command is the command's own."""
    command = load(name, COMMANDS[name])
    assert command.name == name
    assert COMMANDS[name].help == first_paragraph(command.help)


def test_the_root_lists_every_command_and_runs_one_from_the_table() -> None:
    out = runner.invoke(app, ["--help"])
    assert out.exit_code == 0, out.output
    assert [n for n in ["calc", *COMMANDS] if f" {n} " in out.output] == ["calc", *COMMANDS]
    out = runner.invoke(app, ["movement", "show", "mitchell", "--tables", "3"])
    assert out.exit_code == 0, out.output
    assert out.output.startswith("Mitchell 3 tables")
    assert "Validation: valid" in out.output


def test_calc_takes_a_result_below_the_contract_as_an_argument() -> None:
    """`-1` is the result (one down), not an unknown option; -b still is the board option."""
    out = runner.invoke(app, ["calc", "3NT", "E", "-1"])
    assert out.exit_code == 0, out.output
    assert "one down, N/S +50" in out.output
    out = runner.invoke(app, ["calc", "3NT", "E", "-2", "-b", "2"])
    assert out.exit_code == 0, out.output
    assert "two down, N/S +100" in out.output
    out = runner.invoke(app, ["calc", "3NT", "E", "-x"])
    assert out.exit_code == 2
    assert "'-x' is not a number of tricks" in out.output


def test_score_text_output_has_column_headers() -> None:
    out = runner.invoke(app, ["score", str(DATA / "mitchell_3_tables.xml"), "-f", "text"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    ranking = next(
        i for i, line in enumerate(lines) if line.split()[:4] == ["Place", "Pair", "Total", "%"]
    )
    assert "Ann North & Bob South" in "\n".join(lines[ranking:])
    board = lines.index("Board 2")
    assert lines[board + 1].split() == ["NS", "EW", "Contract", "Score", "NS", "EW"]


@pytest.fixture
def demo_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """`traveller demo` as started in an empty folder, the web server itself not run."""
    for name in ("TRAVELLER_DATABASE_URL", "TRAVELLER_PORT", "TRAVELLER_DATA_DIR"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(uvicorn, "run", lambda *args, **kwargs: None)
    return tmp_path / ".traveller"


def _demo(*args: str) -> tuple[str, dict[str, str]]:
    out = runner.invoke(app, ["demo", *args])
    assert out.exit_code == 0, out.output
    found = {
        key: match[1]
        for key, pattern in {
            "password": r"TD password:\s+(\S+)",
            "event": r"Event id (\d+)",
            "code": r"table 1: (\d+)",
        }.items()
        if (match := re.search(pattern, out.output))
    }
    return out.output, found


def test_demo_restart_keeps_the_event_and_the_td_password(demo_dir: Path) -> None:
    first, made = _demo("--tables", "3")
    assert "round 1 started" in first
    db = demo_dir / "demo.db"
    engine = make_engine(f"sqlite:///{db}")
    with Session(engine) as s:
        # What the TD did since is kept (here: one more pair).
        s.add(Pair(section_id=s.exec(select(Section)).one().id or 0, number=99, direction="NS"))
        s.commit()
    engine.dispose()
    again, kept = _demo()
    assert "kept from the last start" in again
    assert "--wipe" in again
    assert kept == made  # the same event, pairing codes and TD password
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM event").fetchone() == (1,)
        assert conn.execute("SELECT count(*) FROM pair WHERE number = 99").fetchone() == (1,)
        assert conn.execute("SELECT tables FROM section").fetchone() == (3,)


def test_demo_wipe_says_so_and_starts_again_in_the_same_file(demo_dir: Path) -> None:
    _, made = _demo()
    db = demo_dir / "demo.db"
    inode = db.stat().st_ino
    gateway = sqlite3.connect(db)  # a gateway still running has the file open
    try:
        wiped, fresh = _demo("--wipe", "--tables", "4")
        assert f"Wiping the demo event in {db.resolve()} (--wipe)" in wiped
        assert "round 1 started" in wiped
        assert fresh["password"] != made["password"]
        assert db.stat().st_ino == inode  # wiped in place, not deleted
        # What the gateway's connection reads and writes is the new event, in the live file.
        rows = gateway.execute("SELECT id, name FROM event").fetchall()
        assert rows == [(int(fresh["event"]), "Demo club night")]
        assert gateway.execute("SELECT tables FROM section").fetchone() == (4,)
    finally:
        gateway.close()


def test_doctor_after_demo_checks_its_port_and_database(demo_dir: Path, tmp_path: Path) -> None:
    _demo("--port", "8765")
    out = runner.invoke(app, ["doctor", "--timeout", "0.5", "--env-file", str(tmp_path / "no.env")])
    assert "http://127.0.0.1:8765" in out.output  # the demo's port (not running here)
    db = (demo_dir / "demo.db").resolve()
    line = next(line for line in out.output.splitlines() if "database writable" in line)
    assert line.startswith("OK"), out.output
    assert str(db) in line


def test_gateway_verbose_logs_each_keypad_command_and_reply(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`gateway -v` logs at DEBUG: what each keypad sent and what it was told."""
    caplog.set_level(logging.DEBUG, logger="server.gateway")
    rig = Rig()
    rig.command(GetRound(), Handled(round_info(), Binding(SECTION, 1)))
    logged = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert any("keypad sent get_round" in m for m in logged), logged
    assert any("keypad told round_info" in m and "'table': 1" in m for m in logged), logged


def test_score_text_output_of_a_team_match_has_column_headers(tmp_path: Path) -> None:
    event = tmp_path / "match.pbn"
    event.write_text(ROOMS_PBN)
    out = runner.invoke(app, ["score", str(event), "-f", "text"])
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[3].split() == ["Place", "VP", "Team"]
    assert any(line.split() == ["Bd", "Open", "room", "Closed", "room", "IMPs"] for line in lines)


def test_the_demo_says_when_double_dummy_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The runtime install has no solver: the demo's start-up lines say so and how to add it."""
    monkeypatch.setattr(demo_cli, "solver_available", lambda: False)
    lines = "\n".join(demo_cli.double_dummy_lines())
    assert "not installed" in lines
    assert "TRAVELLER_EXTRAS=handrecords ./traveller demo" in lines
    monkeypatch.setattr(demo_cli, "solver_available", lambda: True)
    assert demo_cli.double_dummy_lines() == []

"""docs/script-your-night.md's example, run as a club would run it: in a process of its own,
with httpx, against the server under uvicorn on a loopback port."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.app import create_app
from server.core.config import Settings
from server.core.models import Board, Section
from tests.support.app_factory import AppFactory
from tests.support.env import ROOT, TD_PASSWORD
from tests.support.live import ThreadServer

PAGE = ROOT / "docs" / "script-your-night.md"
HAND_RECORDS = ROOT / "tests" / "data" / "dealing-machines" / "bigdeal_8.dup"


def example() -> str:
    """The page's Python block."""
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "the page shows one example"
    code: str = blocks[0]
    return code


@pytest.fixture
def engine(apps: AppFactory, tmp_path: Path) -> Engine:
    return apps.engine(f"sqlite:///{tmp_path / 'night.db'}")


def test_the_example_is_short() -> None:
    lines = [line for line in example().splitlines() if line.strip()]
    assert len(lines) <= 20


@pytest.mark.timeout(120)
def test_the_script_runs_a_night_against_a_real_server(tmp_path: Path, engine: Engine) -> None:
    work = tmp_path / "club"
    work.mkdir()
    with ThreadServer(create_app(Settings(td_password=TD_PASSWORD), engine=engine)) as server:
        env = {
            **os.environ,
            "TRAVELLER_URL": server.url,
            "TRAVELLER_TD_PASSWORD": TD_PASSWORD,
            "HAND_RECORDS": str(HAND_RECORDS),
        }
        done = subprocess.run(
            [sys.executable, "-c", example()],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=90,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "hand records: {'read': 8, 'stored': 8, 'refused': [], 'not_in_section': []}" in out
    assert "TD calls: []" in out
    assert "published: provisional" in out
    assert (work / "results.xml").read_text().startswith("<?xml")
    assert "[Board " in (work / "results.pbn").read_text()
    assert (work / "ranking.csv").read_text().strip()
    with Session(engine) as s:
        section = s.exec(select(Section)).one()
        assert (section.publication, section.current_round) == ("provisional", 1)
        assert all(b.deal for b in s.exec(select(Board).where(Board.section_id == section.id)))

"""The wizard takes a dealing machine's hand-record file (Duplimate .dup/.dlm, BigDeal
.bri/.dge) as it takes PBN: the deals go onto the boards; a broken file names the board and
stores nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from server.core.models import Board
from server.io.handrecords import normalise_deal
from server.io.pbn import read_pbn
from tests.support.web import web_login
from tests.web.test_wizard_forms import create, events

DATA = Path(__file__).resolve().parents[1] / "data" / "dealing-machines"


def twin() -> dict[int, str]:
    boards = read_pbn((DATA / "bigdeal_8.pbn").read_text(encoding="utf-8")).boards
    return {n: normalise_deal(b.deal) for n, b in boards.items() if b.deal}


@pytest.mark.parametrize("kind", ["dup", "bri", "dge", "dlm"])
def test_a_dealing_machine_file_puts_its_deals_on_the_boards(
    client: TestClient, engine: Engine, kind: str
) -> None:
    csrf = web_login(client)
    data = (DATA / f"bigdeal_8.{kind}").read_bytes()
    # A neutral name: the format is told from the content.
    r = create(client, csrf, {"pbn_file": ("hands.dat", data, "application/octet-stream")})
    assert r.status_code == 303, r.text
    assert "deals: 8" in client.get(r.headers["location"]).text
    with Session(engine) as s:
        dealt = s.exec(select(Board).where(col(Board.deal).is_not(None))).all()
    expected = twin()
    assert {b.number: b.deal for b in dealt} == expected


def test_a_broken_machine_file_names_the_board_and_stores_nothing(
    client: TestClient, engine: Engine
) -> None:
    csrf = web_login(client)
    data = (DATA / "bigdeal_8.bri").read_bytes()[:-30]
    page = create(client, csrf, {"pbn_file": ("hands.bri", data, "application/octet-stream")})
    assert page.status_code == 422
    assert "The hand-record file: board 8: a BRI file is 128 bytes a board" in page.text
    assert events(engine) == []

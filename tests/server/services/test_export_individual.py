"""The TD's exports of an individual section: PBN and USEBIO files of players (not the
partnerships the movement seats), each line naming its four players, each player's place,
total and percentage the live ranking's; read back and scored by `traveller score`, they
give those figures again."""

from __future__ import annotations

from decimal import Decimal

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session

from server.io.formats import parse_bytes
from server.io.scorefile import score_event
from server.services.event import setup
from server.services.results import exports
from tests.support.movements import movement_club, play_all


@pytest.mark.parametrize("kind", ["pbn", "usebio", "travellers"])
def test_an_individual_is_exported_per_player(
    client: TestClient, engine: Engine, kind: str
) -> None:
    club = movement_club(client, engine, {"kind": "individual", "pairs": 8, "boards_per_round": 2})
    sid = club.section_id
    r = club.td("PUT", f"/api/v1/sections/{sid}/individual/players/3", json={"name": "Ann Berg"})
    assert r.status_code == 200, r.text
    play_all(club)
    live = club.td("GET", f"/api/v1/sections/{sid}/individual/ranking").json()["lines"]
    with Session(engine) as s:
        data = exports.load(s, setup.get_section(s, sid))
    made = exports.export(data, kind)
    event = parse_bytes(made.content, {"pbn": ".pbn", "usebio": ".xml"}.get(kind, ".csv"))
    assert event.individual
    assert event.refused == []
    assert event.lines
    assert all(line.players is not None for line in event.lines)
    assert {p.number: p.name for p in event.players}[3] == "Ann Berg"
    rescored = score_event(event)
    assert {p.key.number: p.place for p in rescored.pairs} == {
        line["number"]: line["place"] for line in live
    }
    if kind == "travellers":
        return  # the CSV travellers publish no totals
    published = {
        p.number: (p.published_percentage, (p.published_place or "").rstrip("="))
        for p in event.players
    }
    assert published == {
        line["number"]: (
            Decimal(str(line["percentage"])).quantize(Decimal("0.01")),
            line["place"].rstrip("="),  # the PBN Rank column holds the number alone
        )
        for line in live
    }

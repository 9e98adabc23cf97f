"""The live public ranking tells, with one small read, whether a poll must read the section
again (server/web/live_views.RankingView.current): it is current while its section's generation
is the one read with its data. That is only sound if every table its read touches either moves
that counter (the triggers of migrations 0015 and 0018) or changes only in ways the ranking is
pushed (results). A new read of an unguarded table fails here."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, event
from sqlmodel import Session

from server.core.models import Section
from server.services.table import table_memory
from server.web.live_views import RankingView
from tests.support.api import client, engine, open_club  # noqa: F401 (fixtures)
from tests.support.movements import movement_club, play_round
from tests.support.table_memory import tables_read

#: What the ranking reads that does not move the section's counter: every change to it comes
#: to the ranking as a push (a result changed, by a table or the TD).
PUSHED = {"result"}


def _tables_read(bind: Engine, load: Any) -> set[str]:
    """The tables of every statement run while ``load`` runs."""
    tables: set[str] = set()

    def seen(conn: Any, clause: Any, *_args: Any) -> None:
        tables.update(tables_read(clause))

    event.listen(bind, "before_execute", seen)
    try:
        asyncio.run(load())
    finally:
        event.remove(bind, "before_execute", seen)
    return tables


@pytest.mark.parametrize("kind", ["mitchell", "individual"])
def test_the_ranking_reads_only_what_moves_its_counter_or_is_pushed(
    client: TestClient,  # noqa: F811 - the fixture
    engine: Engine,  # noqa: F811
    kind: str,
) -> None:
    if kind == "individual":
        club = movement_club(
            client, engine, {"kind": "individual", "pairs": 8, "boards_per_round": 1}
        )
    else:
        club = open_club(client, engine, tables=3, bpr=2)
    club.start_round(1)
    tables = [club.pair(n) for n in range(1, club.section["tables"] + 1)]
    assert play_round(tables) > 0
    penalty = {"pair": "1NS" if kind == "mitchell" else "1", "reason": "slow", "times": 1}
    done = club.td("POST", f"/api/v1/sections/{club.section_id}/penalties/deduct", json=penalty)
    assert done.status_code == 201, done.text
    app: Any = client.app
    view = RankingView(app.state.runtime, app.state.web, club.section_id)
    read = _tables_read(engine, view.load)
    assert {"section_generation", "result", "pair", "sanction"} <= read  # what was watched
    guarded = set(table_memory.SECTION_GUARDED) | PUSHED | {"section_generation"}
    assert read <= guarded, read - guarded
    assert asyncio.run(view.current())


def test_a_change_no_push_announces_makes_the_ranking_not_current(
    client: TestClient,  # noqa: F811
    engine: Engine,  # noqa: F811
) -> None:
    club = open_club(client, engine, tables=3, bpr=2)
    club.start_round(1)
    table = club.pair(1)
    app: Any = client.app
    view = RankingView(app.state.runtime, app.state.web, club.section_id)
    asyncio.run(view.load())
    assert asyncio.run(view.current())
    board = table.round()["boards"][0]["board"]
    assert table.enter(board, "4S", "S", 10).status_code == 200  # pushed: still current
    assert asyncio.run(view.current())
    section = f"/api/v1/sections/{club.section_id}"
    changes = [
        ("PUT", f"{section}/pairs/2EW", {"player1": "Ann", "player2": "Bo"}),
        ("POST", f"{section}/penalties/deduct", {"pair": "2NS", "reason": "slow", "times": 1}),
    ]
    for method, path, body in changes:
        assert club.td(method, path, json=body).status_code in (200, 201)
        assert not asyncio.run(view.current()), path
        asyncio.run(view.load())
        assert asyncio.run(view.current()), path


def test_the_tds_round_control_alone_leaves_the_ranking_current(
    client: TestClient,  # noqa: F811
    engine: Engine,  # noqa: F811
) -> None:
    """Starting, closing or reopening a round moves the section's generation by one and
    changes only its round columns: nothing ranked (the tables' moves are pushed), so the poll
    needs no read. With anything more in between, it does."""
    club = open_club(client, engine, tables=3, bpr=2)
    club.start_round(1)
    app: Any = client.app
    view = RankingView(app.state.runtime, app.state.web, club.section_id)
    asyncio.run(view.load())
    rounds = f"/api/v1/sections/{club.section_id}/rounds"
    for step in ("2/start", "2/close", "2/reopen"):
        before = view.generation
        assert club.td("POST", f"{rounds}/{step}").status_code == 200, step
        assert asyncio.run(view.current()), step
        assert view.generation == (before or 0) + 1
        assert view.row is not None
    assert view.row["current_round"] == 2
    # a round started and a pair named before the next poll: two moves, read in full
    assert club.td("POST", f"{rounds}/3/start").status_code == 200
    named = {"player1": "Ann", "player2": "Bo"}
    assert club.td("PUT", f"/api/v1/sections/{club.section_id}/pairs/1NS", json=named).is_success
    assert not asyncio.run(view.current())
    asyncio.run(view.load())
    # the round time is in the section's row, but it is not the round control's to change
    with Session(engine) as s:
        section = s.get(Section, club.section_id)
        assert section is not None
        section.round_minutes = 17
        s.add(section)
        s.commit()
    assert not asyncio.run(view.current())

"""Fair play on the live feed (issue 18, item 3; rules.md § 11, Law 16): a public page's delta
never carries a result the full page would hide. After every table command of random sessions
the delta of the public ranking (server/web/live_views.RankingView, scored one board at a time)
is compared with the full page computed from the database the way the page route does it: each
fragment the delta sends is the full page's own, the page after the delta is the full page, and
no board is shown that not every table has played."""

from __future__ import annotations

import asyncio
import random
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session

from protocol.messages import BoardResultView, Message, ResultChanged, RoundChanged, RoundInfo
from server.live.runtime import Runtime
from server.services.event import setup
from server.services.results import standings
from server.web.live import Fragments
from server.web.live_views import RankingView, ranking_fragments
from server.web.state import WebState
from tests.support.api import Club, Table, client, engine, open_club  # noqa: F401 (fixtures)

SHOWN_CHIP = re.compile(r'<a class="chip" href="/results/\d+/boards/(\d+)"')


def full_page(club: Club, web: WebState) -> tuple[Fragments, list[int]]:
    """The public ranking's fragments as the page computes them, and the boards released."""
    with Session(club.engine) as s:
        section = setup.get_section(s, club.section_id)
        data = standings.load(s, section)
    ctx = {
        "ranking": standings.rank(data, public=True),
        "players": None,
        "section_id": club.section_id,
        "lang": "en",
    }
    return ranking_fragments(web, ctx), standings.visible_boards(data)


def rounds_pushed(tables: list[Table]) -> list[Message]:
    """The rounds the TD's round start pushes (one to every table: the round it is at)."""
    return [RoundChanged(round=RoundInfo.model_validate(t.round())) for t in tables]


#: A step that pushes nothing: the live channel learns of it only at its poll, where the view
#: says whether it is still current (server/web/live.py, ``View.current``).
UNANNOUNCED: list[Message] = []


def unannounced(rng: random.Random, club: Club) -> list[Message]:
    """The TD names a pair, or penalises one: nothing is pushed."""
    pair = f"{rng.randint(1, 4)}{rng.choice(['NS', 'EW'])}"
    if rng.random() < 0.5:
        names = {"player1": f"Player {rng.randint(1, 999)}", "player2": "Partner"}
        done = club.td("PUT", f"/api/v1/sections/{club.section_id}/pairs/{pair}", json=names)
    else:
        body = {"pair": pair, "reason": "slow play", "times": rng.randint(1, 2)}
        done = club.td("POST", f"/api/v1/sections/{club.section_id}/penalties/deduct", json=body)
    assert done.status_code in (200, 201), done.text
    return UNANNOUNCED


def step(rng: random.Random, club: Club, tables: list[Table]) -> list[Message] | None:
    """One random table command (or the TD starting the next round, or a TD change that is
    pushed to nobody); what it pushes, as far as the public ranking reads it (None: something
    it reads in full)."""
    if rng.random() < 0.08:
        return unannounced(rng, club)
    table = rng.choice(tables)
    info = table.round()
    if rng.random() < 0.1:
        pushed: list[Message] = []
        if info["round"] < club.section["rounds"] and rng.random() < 0.5:  # the TD's turn
            club.td("POST", f"/api/v1/sections/{club.section_id}/rounds/{info['round'] + 1}/start")
            pushed += rounds_pushed(tables)
        moved = table.send({"type": "next_round"})
        if moved.status_code == 200:  # the table moves on: its round is pushed
            pushed.append(RoundChanged(round=RoundInfo.model_validate(moved.json())))
        return pushed
    boards = [b for b in info["boards"] if b["state"] != "confirmed"]
    if not boards:
        return None
    board = rng.choice(boards)
    if board["state"] == "entered" and rng.random() < 0.8:
        reply = table.confirm(board["board"], board["result"]["version"])
    else:
        contract = rng.choice(["3NT", "4S", "2H", "PASS"])
        declarer = None if contract == "PASS" else rng.choice("NESW")
        tricks = 0 if contract == "PASS" else rng.randint(5, 12)
        if board["state"] == "entered":
            reply = table.send(
                {
                    "type": "correct_result",
                    "entry_id": f"c{rng.random()}",
                    "board": board["board"],
                    "version": board["result"]["version"],
                    "values": {"contract": contract, "declarer": declarer, "tricks": tricks},
                }
            )
        else:
            reply = table.enter(board["board"], contract, declarer, tricks)
    if reply.status_code != 200:
        return None
    return [ResultChanged(result=BoardResultView.model_validate(reply.json()["result"]))]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_public_delta_never_carries_what_the_full_page_hides(
    client: TestClient,  # noqa: F811 - the fixture above
    engine: Engine,  # noqa: F811
    seed: int,
) -> None:
    rng = random.Random(seed)
    club = open_club(client, engine, tables=4, bpr=2)
    club.start_round(1)
    tables = [club.pair(n) for n in range(1, 5)]
    runtime: Runtime = client.app.state.runtime  # type: ignore[attr-defined]
    web: WebState = client.app.state.web  # type: ignore[attr-defined]
    view = RankingView(runtime, web, club.section_id)
    asyncio.run(view.load())
    view.fragments()
    seen = {"deltas": 0, "released": 0, "moves": 0, "current": 0, "caught": 0}

    def follow(pushed: list[Message] | None) -> None:
        if pushed is UNANNOUNCED:  # the channel's poll: read only when the view is not current
            full, _ = full_page(club, web)
            if asyncio.run(view.current()):
                assert view.shown == full, seed  # current: what it shows is the page
                return
            seen["caught"] += view.shown != full
            asyncio.run(view.load())
            view.fragments()
            assert view.shown == full, seed
            return
        delta = view.apply(pushed) if pushed is not None else None
        if delta is not None:
            seen["moves"] += sum(isinstance(m, RoundChanged) for m in pushed or [])
        if delta is None:  # nothing it can follow: the live page reads the section again
            asyncio.run(view.load())
            view.fragments()
        full, visible = full_page(club, web)
        for name, html in (delta or {}).get("fragments", {}).items():
            assert html == full[name], (seed, name)
            seen["deltas"] += 1
        assert view.shown == full, seed  # the page after the delta is the full page
        shown = [int(b) for b in SHOWN_CHIP.findall(view.shown["boards"])]
        assert shown == visible  # only boards every table that plays them has finished
        seen["released"] = max(seen["released"], len(visible))
        # a poll now (the pushes taken) would find it current unless the section changed
        seen["current"] += asyncio.run(view.current())

    for _ in range(80):
        follow(step(rng, club, tables))
    # then the session is played out, round by round
    for round_ in range(1, club.section["rounds"] + 1):
        for table in tables:
            while table.round()["round"] < round_:
                follow(step_on(club, table, tables))
            for board in table.round()["boards"]:
                if board["state"] == "confirmed":
                    continue
                if board["state"] != "entered":
                    entered = table.enter(board["board"], "4S", "S", rng.randint(8, 11))
                    follow(pushed_by(entered))
                    version = entered.json()["result"]["version"]
                else:
                    version = board["result"]["version"]
                follow(pushed_by(table.confirm(board["board"], version)))
    # every board is played everywhere now, and the deltas showed them as they were released
    assert seen["released"] == view.ctx["ranking"].boards_total > 0
    assert seen["deltas"] > 0
    assert seen["moves"] > 0  # rounds pushed were followed without a read
    assert seen["caught"] > 0  # an unannounced change the page showed was read at the poll
    assert seen["current"] > 0  # and polls after pushes alone need no read


def pushed_by(reply: Any) -> list[Message]:
    assert reply.status_code == 200, reply.text
    return [ResultChanged(result=BoardResultView.model_validate(reply.json()["result"]))]


def step_on(club: Club, table: Table, tables: list[Table]) -> list[Message]:
    """The TD starts the table's next round if need be; the table moves on."""
    now = table.round()["round"]
    started = club.td("POST", f"/api/v1/sections/{club.section_id}/rounds/{now + 1}/start")
    pushed = rounds_pushed(tables) if started.status_code == 200 else []
    moved = table.send({"type": "next_round"})
    assert moved.status_code == 200, moved.text
    return [*pushed, RoundChanged(round=RoundInfo.model_validate(moved.json()))]

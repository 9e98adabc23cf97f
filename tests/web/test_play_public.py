"""The tables' auctions and play on the public traveller's hand viewer and on the TD's board
page (issue 20, server/services/results/replay.py). Fair play: the public sees them only with the
traveller, once every table has played the board or the results are published, and only for
the tables on it; a board still in play shows neither. (SQLite and PostgreSQL.)"""

from __future__ import annotations

import random
import re

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.models import Board, Result
from tests.support.api import Club, Table, open_club
from tests.support.app_factory import AppFactory, app_client
from tests.support.plays import BOARD_12, stored_play
from tests.support.web import web_login
from tests.web.test_hand_record_public import DEAL
from tests.web.test_web_forms import board_url, post

# The RealBridge board 12 deal (tests/data/README.md) on board 1 (dealer North, none vulnerable):
# North opens 1♥, East's 2♦ is alerted, South raises to game. The play is the real one: East
# leads the ♣9, seven tricks, then North claims 9 tricks.
AUCTION = "1H 2D! 4H P P P"
PLAY = stored_play(BOARD_12)
EAST_LEAD = 'data-card="C9"'


@pytest.fixture
def both_client(apps: AppFactory, db_engine: Engine) -> TestClient:
    """The app on SQLite and on PostgreSQL."""
    return apps.client(db_engine)


def allow_auctions(club: Club) -> None:
    r = club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"auction_entry": "optional"})
    assert r.status_code == 200, r.text


def play_with_auction(table: Table, board: int, *, confirm: bool = True) -> None:
    """North keys 4♥ by North, 9 tricks, with the auction; East confirms (unless not)."""
    values = {"auction": AUCTION}
    ack = table.enter(board, "4H", "N", 9, values=values)
    assert ack.status_code == 200, ack.text
    if confirm:
        r = table.confirm(board, ack.json()["result"]["version"])
        assert r.status_code == 200, r.text


def put_deal(engine: Engine, board: int, deal: str, *, section_id: int | None = None) -> None:
    with Session(engine) as s:
        found = select(Board).where(Board.number == board)
        if section_id is not None:
            found = found.where(Board.section_id == section_id)
        row = s.exec(found).one()
        row.deal = deal
        s.add(row)
        s.commit()


def put_play(
    engine: Engine,
    table: int,
    round_: int,
    board: int,
    text: str = PLAY,
    *,
    section_id: int | None = None,
) -> None:
    """The play keyed at the table (the play entry is another step of issue 20): stored as
    Result.play, as the entry will store it."""
    with Session(engine) as s:
        found = select(Result).where(
            Result.table_number == table, Result.round == round_, Result.board == board
        )
        if section_id is not None:
            found = found.where(Result.section_id == section_id)
        row = s.exec(found).one()
        row.play = text
        s.add(row)
        s.commit()


def play_round(club: Club, tables: dict[int, Table], round_: int) -> None:
    """Every table plays its boards of the round: board 1 with the auction and the play."""
    for number, table in tables.items():
        for status in table.round()["boards"]:
            board = status["board"]
            if board == 1:
                play_with_auction(table, board)
                put_play(club.engine, number, round_, board)
            else:
                ack = table.enter(board, "3NT", "N", 9)
                assert ack.status_code == 200, ack.text
                table.confirm(board, ack.json()["result"]["version"])


def _auction_for(board: int) -> str:
    """North opens 1H, East's 2D is alerted, South bids game: from the board's dealer (Law 2)."""
    passes = (board - 1) % 4  # dealers N, E, S, W: passes by those before North
    return " ".join(["P"] * (0 if passes == 0 else 4 - passes) + AUCTION.split())


def shows_play(page: str) -> bool:
    return 'id="table-plays"' in page or "data-replay" in page or EAST_LEAD in page


def auction_cells(page: str) -> list[str]:
    found = re.search(r'<table class="auction-grid".*?<tbody>(.*?)</tbody>', page, re.S)
    assert found is not None, "no auction on the page"
    return [re.sub(r"<[^>]+>", "", c) for c in re.findall(r"<td>(.*?)</td>", found.group(1))]


def test_the_play_comes_only_once_every_table_has_played_the_board(
    both_client: TestClient, db_engine: Engine
) -> None:
    client = both_client
    club = open_club(client, db_engine, tables=3, bpr=1)
    allow_auctions(club)
    put_deal(db_engine, 1, DEAL)
    club.start_round(1)
    tables = {n: club.pair(n) for n in (1, 2, 3)}
    url = f"/results/{club.section_id}/boards/1"
    play_round(club, tables, 1)  # one table has played board 1, its auction and play stored
    page = client.get(url).text
    assert "Still being played" in page
    assert not shows_play(page)
    assert "Auction" not in page
    assert "2♦" not in page
    for round_ in (2, 3):
        club.start_round(round_)
        for table in tables.values():
            assert table.send({"type": "next_round"}).status_code == 200
        play_round(club, tables, round_)
        page = client.get(url).text
        if round_ == 2:  # two of three tables: still nothing
            assert not shows_play(page), round_
    # Every table has played it: the traveller, the deal, and each table's auction and play.
    assert 'id="traveller"' in page
    assert 'id="hand-record"' in page
    assert page.count('class="table-play"') == 3
    assert auction_cells(page)[:4] == ["", "1♥", "2♦!", "4♥"]
    assert 'title="Alerted"' in page
    assert page.count('<tr data-trick="') == 3 * 7  # seven tricks each, then the claim
    assert "Claim: declarer takes 9 tricks in all." in page
    assert "Tricks: N/S 9, E/W 4" in page
    # The tricks are listed without JavaScript: East's ♣9 lead underlined, North's ♣A won it.
    assert 'class="pc suit-c lead" data-seat="E" data-card="C9">♣9<' in page
    assert 'class="pc suit-c won" data-seat="N" data-card="CA">♣A<' in page
    assert re.search(r'<div class="replay-stage" hidden>', page)  # the stepping needs the script
    assert "replay.js" in page


def test_a_published_traveller_shows_only_the_tables_on_it(client: TestClient, club: Club) -> None:
    allow_auctions(club)
    put_deal(club.engine, 1, DEAL)
    t1 = club.pair(1)
    play_with_auction(t1, 1)
    put_play(club.engine, 1, 1, 1)
    url = f"/results/{club.section_id}/boards/1"
    page = client.get(url).text
    assert "Still being played" in page
    assert not shows_play(page)

    # The published traveller shows table 1; a result only keyed (not confirmed) is not on it,
    # and neither is its auction or play.
    t2 = club.pair(2)
    second = t2.enter(4, "4H", "N", 9, values={"auction": "P 1H P 4H P P P"})
    assert second.status_code == 200, second.text
    put_play(club.engine, 2, 1, 4, "DA D2 D3 D4")
    csrf = web_login(client)
    r = post(
        client,
        f"/td/s/{club.section_id}/publish",
        csrf,
        status="provisional",
        amount="72",
        confirmed="yes",
    )
    assert "Published as provisional" in r.text
    page = client.get(url).text
    assert page.count('class="table-play"') == 1
    assert 'id="play-1-1"' in page
    assert EAST_LEAD in page
    board_four = client.get(f"/results/{club.section_id}/boards/4").text
    assert "Still being played" not in board_four  # published: every board's traveller shows
    assert not shows_play(board_four)  # table 2's board 4 is not confirmed: not on it


def test_a_board_without_auction_or_play_shows_the_hand_record_only(
    client: TestClient, club: Club
) -> None:
    put_deal(club.engine, 1, DEAL)
    t1 = club.pair(1)
    ack = t1.enter(1, "4H", "N", 9).json()
    t1.confirm(1, ack["result"]["version"])
    csrf = web_login(client)
    post(
        client,
        f"/td/s/{club.section_id}/publish",
        csrf,
        status="provisional",
        amount="72",
        confirmed="yes",
    )
    page = client.get(f"/results/{club.section_id}/boards/1").text
    assert 'id="hand-record"' in page
    assert not shows_play(page)
    assert "replay.css" not in page


def test_without_the_deal_the_auction_and_tricks_still_show(client: TestClient, club: Club) -> None:
    """A hand-dealt board nobody keyed: no hand record, but the tables' auction and play (the
    replay's table then has only the trick in the middle)."""
    allow_auctions(club)
    t1 = club.pair(1)
    play_with_auction(t1, 1)
    put_play(club.engine, 1, 1, 1)
    csrf = web_login(client)
    post(
        client,
        f"/td/s/{club.section_id}/publish",
        csrf,
        status="provisional",
        amount="72",
        confirmed="yes",
    )
    page = client.get(f"/results/{club.section_id}/boards/1").text
    assert 'id="hand-record"' not in page
    assert 'id="table-plays"' in page
    assert page.count('<tr data-trick="') == 7
    assert 'class="c" data-card=' not in page  # no hands to take the cards from
    assert auction_cells(page)[:4] == ["", "1♥", "2♦!", "4♥"]


def test_the_td_sees_every_tables_auction_and_play_on_the_board(
    client: TestClient, club: Club
) -> None:
    allow_auctions(club)
    put_deal(club.engine, 1, DEAL)
    t1 = club.pair(1)
    play_with_auction(t1, 1)
    put_play(club.engine, 1, 1, 1)
    # Table 2's entry of board 4, keyed but not confirmed: the TD sees it too.
    t2 = club.pair(2)
    second = t2.enter(4, "4H", "N", 9, values={"auction": "P 1H P 4H P P P"})
    assert second.status_code == 200, second.text
    web_login(client)
    page = client.get(board_url(club, 1, 1, 1)).text
    assert 'id="board-plays"' in page
    assert 'id="play-1-1"' in page
    assert "replay.js" in page
    section = re.search(
        r'<section class="card table-plays" id="board-plays">.*?</section>', page, re.S
    )
    assert section is not None
    plays = section.group(0)
    assert plays.count('<tr data-trick="') == 7
    assert "Claim: declarer takes 9 tricks in all." in plays
    assert auction_cells(plays)[:4] == ["", "1♥", "2♦!", "4♥"]
    assert '<details class="table-play here" id="play-1-1" open>' in plays
    # Board 4 at table 2: its page lists the auction (no play keyed) of that table.
    other = client.get(board_url(club, 2, 1, 4)).text
    assert 'id="play-2-1"' in other
    assert "data-replay" not in other
    assert auction_cells(other)[:4] == ["Pass", "1♥", "Pass", "4♥"]  # dealer West


# ---------------------------------------------------------------- the property


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(rng=st.randoms(use_true_random=False), publish_after=st.integers(0, 24))
def test_no_public_page_shows_an_auction_or_play_before_its_traveller(
    engine: Engine, rng: random.Random, publish_after: int
) -> None:
    """A 3-table Mitchell played in a random order (each table keys, its play stored, then
    confirms; the TD may publish at any point): after every step each board's page shows the
    auction and play of exactly the confirmed tables once the board is done everywhere or
    published, and nothing before."""
    with app_client(engine) as client:
        club = open_club(client, engine, tables=3, bpr=1)
        allow_auctions(club)
        csrf = web_login(client)
        put_deal(engine, 1, DEAL, section_id=club.section_id)
        club.start_round(1)
        tables = {n: club.pair(n) for n in (1, 2, 3)}
        confirmed: set[tuple[int, int, int]] = set()
        published = False
        steps = 0

        def check() -> None:
            for board in (1, 2, 3):
                page = client.get(f"/results/{club.section_id}/boards/{board}").text
                done = {(t, r) for t, r, b in confirmed if b == board}
                visible = published or len(done) == 3  # board 1, 2 and 3 each go to all 3 tables
                shown = {(int(t), int(r)) for t, r in re.findall(r'id="play-(\d+)-(\d+)"', page)}
                if not visible:
                    assert not shows_play(page), (board, steps)
                    assert shown == set()
                else:
                    assert shown == done, (board, steps, shown, done)

        for round_ in (1, 2, 3):
            if round_ > 1:
                club.start_round(round_)
                for table in tables.values():
                    assert table.send({"type": "next_round"}).status_code == 200
            boards = {n: t.round()["boards"][0]["board"] for n, t in tables.items()}
            # Each table keys, then confirms; the tables' steps interleaved at random.
            actions = [(n, "enter") for n in tables] + [(n, "confirm") for n in tables]
            rng.shuffle(actions)
            keyed: dict[int, int] = {}
            pending = list(actions)
            while pending:
                n, kind = pending.pop(0)
                if kind == "confirm" and n not in keyed:
                    pending.append((n, kind))  # not keyed yet: later
                    continue
                board = boards[n]
                if kind == "enter":
                    ack = tables[n].enter(
                        board, "4H", "N", 9, values={"auction": _auction_for(board)}
                    )
                    assert ack.status_code == 200, ack.text
                    keyed[n] = ack.json()["result"]["version"]
                    put_play(engine, n, round_, board, section_id=club.section_id)
                else:
                    r = tables[n].confirm(board, keyed[n])
                    assert r.status_code == 200, r.text
                    confirmed.add((n, round_, board))
                steps += 1
                if steps == publish_after and not published:
                    post(
                        client,
                        f"/td/s/{club.section_id}/publish",
                        csrf,
                        status="provisional",
                        amount="72",
                        confirmed="yes",
                    )
                    published = True
                check()

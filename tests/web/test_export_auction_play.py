"""The TD's PBN export carries each table's auction and play and the board's deal (issue 20),
and reading the file back gives them unchanged."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlmodel import Session, select

from protocol.bridge import Seat, dealer
from protocol.bridge.deal import parse_deal
from protocol.bridge.play import Play, format_play
from server.core.models import Result
from server.io.pbn import read_pbn
from server.services.event import event_wizard
from tests.support.api import Club
from tests.support.web import web_login

DEAL = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"


def _auction_to_3nt_by_north(board: int) -> str:
    """Passes from the dealer round to North, 3NT, three passes."""
    calls, seat = [], dealer(board)
    while seat is not Seat.N:
        calls.append("P")
        seat = seat.lho
    return " ".join([*calls, "3NT", "P", "P", "P"])


def _one_trick_and_a_claim(tricks: int) -> str:
    """East leads; each player follows with its first card of the suit; declarer claims."""
    play = Play("NT", "N", parse_deal(DEAL))
    for _ in range(4):
        held = sorted(play.held(play.to_play) or ())
        led = play.tricks[-1].suit_led
        play.play(next((c for c in held if c[0] == led), held[0]))
    play.claim(tricks)
    return format_play(play)


def test_the_pbn_export_carries_the_auction_the_play_and_the_deal(
    client: TestClient, club: Club
) -> None:
    web_login(client)
    table = club.pair(1)
    board = table.round()["boards"][0]["board"]
    ack = table.enter(board, "3NT", "N", 9).json()
    table.confirm(board, ack["result"]["version"])
    auction, play = _auction_to_3nt_by_north(board), _one_trick_and_a_claim(9)
    with Session(club.engine) as s:
        assert event_wizard.put_deals(s, club.section_id, {board: DEAL}) == 1
        mine = (Result.section_id == club.section_id, Result.table_number == 1)
        result = s.exec(select(Result).where(*mine, Result.board == board)).one()
        assert result.state == "confirmed"
        result.auction, result.play = auction, play  # as the table's entry stores them
        s.add(result)
        s.commit()

    r = client.get(f"/td/s/{club.section_id}/publish/export/pbn")
    assert r.status_code == 200
    event = read_pbn(r.text)
    assert event.refused == []
    assert event.boards[board].deal == DEAL
    (line,) = [ln for ln in event.lines if ln.board == board and ln.table == 1]
    assert (line.contract, line.declarer, line.tricks) == ("3NT", "N", 9)
    assert line.auction == auction
    assert line.play == play
    assert all(ln.auction is None and ln.play is None for ln in event.lines if ln is not line)

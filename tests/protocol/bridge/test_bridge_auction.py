"""Auction legality (Laws 18-19, 22) and the contract and declarer it gives (Law 22B)."""

from __future__ import annotations

import pytest

from protocol.bridge import Contract, Seat
from protocol.bridge.auction import Auction, Call, IllegalCall, parse_pbn_auction
from protocol.bridge.enums import Doubling, Strain

# dealer, calls, contract, declarer
ENDED = [
    ("N", "P P P P", "PASS", None),
    ("N", "1C P P P", "1C", "N"),
    ("E", "1H P 2H P P P", "2H", "E"),  # E opened hearts, W raised: E declares
    ("S", "P 1S P 2S P 4S P P P", "4S", "W"),
    # N/S both name spades; North named them first, South bids the game.
    ("N", "1S P 2C P 2S P 4S P P P", "4S", "N"),
    ("N", "1C 1H P P X P P P", "1HX", "E"),
    ("W", "1NT X XX P P P", "1NTXX", "W"),
    ("N", "1D X P P XX P P P", "1DXX", "N"),  # the doubled side's partner redoubles later
    ("N", "1C X 1D P P P", "1D", "S"),  # a new bid wipes the double
    ("E", "1C P 1H P 1NT P 3NT P P P", "3NT", "E"),
    ("N", "7NT X XX P P P", "7NTXX", "N"),
]


@pytest.mark.parametrize(("dealer", "calls", "contract", "declarer"), ENDED)
def test_an_ended_auction_gives_the_contract_and_declarer(
    dealer: str, calls: str, contract: str, declarer: str | None
) -> None:
    auction = Auction(dealer, calls.split())
    assert auction.ended
    outcome = auction.outcome()
    assert outcome.contract == Contract.parse(contract) if contract != "PASS" else Contract(0, None)
    assert outcome.declarer == (Seat(declarer) if declarer else None)


# dealer, calls before, the illegal call, its code
ILLEGAL = [
    ("N", "1S", "1H", "insufficient_bid"),
    ("N", "1S", "1S", "insufficient_bid"),
    ("N", "1NT P", "1S", "insufficient_bid"),
    ("N", "1NT P", "2C", None),  # sufficient: a higher level
    ("N", "", "X", "no_bid"),
    ("N", "P P", "XX", "no_bid"),
    ("N", "1C P", "X", "double_own_side"),  # South doubles partner's bid
    ("N", "1C X P", "X", "double_twice"),  # West doubles 1C, which East has doubled
    ("N", "1C X", "X", "double_own_side"),  # South "doubles" the double of partner's 1C
    ("N", "1C X P P", "X", "double_own_side"),
    ("N", "1C", "XX", "redouble_without_double"),
    ("N", "1C X XX", "XX", "redouble_without_double"),  # already redoubled
    ("N", "1C X", "XX", None),  # South redoubles: legal
    ("N", "1C X P", "XX", "redouble_opponents"),  # West redoubles partner's double
    ("N", "1C X P P", "XX", None),  # North redoubles after two passes: legal
    ("N", "1C P P P", "2C", "auction_ended"),
    ("N", "P P P P", "1C", "auction_ended"),
    ("N", "P P P", "P", None),  # the fourth pass ends it
    ("N", "", "8C", "invalid_call"),
    ("N", "", "1Z", "invalid_call"),
]


@pytest.mark.parametrize(("dealer", "before", "call", "code"), ILLEGAL)
def test_an_illegal_call_is_refused_with_its_reason_and_changes_nothing(
    dealer: str, before: str, call: str, code: str | None
) -> None:
    auction = Auction(dealer, before.split())
    calls = auction.calls
    if code is None:
        auction.add(call)
        assert len(auction.calls) == len(calls) + 1
        return
    with pytest.raises(IllegalCall) as refused:
        auction.add(call)
    assert refused.value.code == code
    assert str(refused.value)
    assert auction.calls == calls


def test_calls_are_read_in_the_usual_spellings() -> None:
    assert Call.parse("1nt") == Call("bid", 1, Strain.NT)
    assert Call.parse("4♠") == Call("bid", 4, Strain.S)
    assert Call.parse("Pass") == Call("P")
    assert Call.parse("Dbl") == Call("X")
    assert Call.parse("XX!") == Call("XX", alert=True)
    assert str(Call.parse("2C!")) == "2C!"


def test_the_seat_to_call_goes_round_from_the_dealer() -> None:
    auction = Auction("W", ["1D", "P"])
    assert auction.to_call is Seat.E
    assert [auction.seat_of(i) for i in range(4)] == [Seat.W, Seat.N, Seat.E, Seat.S]


def test_an_open_auction_has_no_outcome() -> None:
    with pytest.raises(IllegalCall) as refused:
        Auction("N", ["1C", "P", "P"]).outcome()
    assert refused.value.code == "auction_open"


def test_pbn_auction_reads_notes_as_alerts_and_ap_as_the_closing_passes() -> None:
    auction = parse_pbn_auction("S", "1C =1= Pass 1NT =2= Pass\nAP")
    assert auction.ended
    assert [str(c) for c in auction.calls] == ["1C!", "P", "1NT!", "P", "P", "P"]
    outcome = auction.outcome()
    assert (outcome.contract, outcome.declarer) == (Contract(1, Strain.NT), Seat.N)
    assert outcome.contract.doubling is Doubling.NONE

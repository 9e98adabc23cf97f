"""The keypad's auction and deal entry (issue 20) on the 2x16 LCD, against the fake server:
the same keys as the terminal (protocol/keys_play.py), UP the alert key."""

from __future__ import annotations

import pytest

from firmware_sim.device import Device, Screen
from firmware_sim.fake_gateway import FakeTables
from firmware_sim.store import MemoryStore
from protocol.bridge.auction import Auction, parse_pbn_auction
from protocol.bridge.deal import format_hand, parse_deal
from protocol.bridge.enums import Seat
from protocol.keys_play import ALERT, call_keys
from protocol.messages import EnterResult
from tests.support.keypad import Table

#: Board 5 (North deals) is table 3's first board in round 1.
DEAL = "N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ96"
RANK_KEYS = {"T": ["0"], "J": ["1", "1"], "Q": ["1", "2"], "K": ["1", "3"], "A": ["1", "4"]}


def hand_keys(hand: str) -> list[str]:
    """A hand suit by suit (S H D C), ENT after each suit."""
    keys: list[str] = []
    for holding in hand.split("."):
        for rank in holding:
            keys += RANK_KEYS.get(rank, [rank])
        keys.append("ENT")
    return keys


def seated(tables: FakeTables) -> Table:
    table = Table(tables).boot()
    table.press("0003", "ENT")
    table.press("ENT")
    assert table.device.screen is Screen.BOARD
    return table


@pytest.mark.parametrize("play_entry", ["off", "optional"])
def test_an_optional_auction_costs_no_key_on_a_result(play_entry: str) -> None:
    """4♠ by South made and East's OK: 7 keys, as without the auction (and with the event's
    optional play, which the keypad does not key); the screens say what ENT does (the auction
    first on an empty entry, then sending)."""
    tables = FakeTables(auction_entry="optional", play_entry=play_entry)  # type: ignore[arg-type]
    table = seated(tables)
    # ENT on an empty entry keys the auction first, and the screen says so
    assert table.press("ENT") == ("B5 ENT=auction", "Level 1-7 0=pass")
    table.press("BACK")
    assert table.device.screen is Screen.BOARD
    presses = ["4", "4", "3", "1", "0", "ENT", "ENT"]
    screens = [table.press(key) for key in presses]
    assert screens[4] == ("4S S = +620?", "ENT=send BK=edit")
    assert screens[5] == ("4S S = +620", "EW:ENT=OK BK=no")
    stored = tables.results[(3, 5)]
    assert (stored.contract, stored.declarer, stored.tricks, stored.state) == (
        "4S", "S", 10, "confirmed",
    )  # fmt: skip
    assert stored.auction is None
    assert len(presses) == 7
    # a passed-out board: 0, send, East's OK
    assert table.press("0", "ENT") == ("PASS 0", "EW:ENT=OK BK=no")
    table.press("ENT")
    assert tables.results[(3, 6)].state == "confirmed"


def test_the_auction_after_the_contract_with_an_alert_and_an_illegal_call() -> None:
    tables = FakeTables(auction_entry="required")
    table = seated(tables)
    assert table.press("3", "5", "1", "9") == ("3NT N = +600?", "ENT=auction")
    assert table.press("ENT") == ("B5 auction", "N? 0=P *=X ^!")
    assert table.press("1", "5", "UP") == ("B5 1NT!", "E? 0=P *=X ^!")
    assert table.press("1") == ("B5 1NT!", "E: 1_")
    assert table.press("1") == ("B5 1NT!", "Insufficient bid")
    table.press("0", "3", "5", "0", "0")
    assert table.lines == ("B5 P 3NT P P", "E? 0=P *=X ^!")  # the last calls that fit
    table.press("0")  # the third pass ends the auction: the entry goes at once
    assert table.device.screen is Screen.EW_CONFIRM
    stored = tables.results[(3, 5)]
    assert (stored.contract, stored.declarer, stored.tricks) == ("3NT", "N", 9)
    assert stored.auction == "1NT! P 3NT P P P"


def test_an_auction_that_disagrees_with_the_contract_goes_back_to_it() -> None:
    tables = FakeTables(auction_entry="required")
    table = seated(tables)
    table.press("4", "4", "3", "1", "0", "ENT")
    assert table.press("1", "5", "0", "3", "5", "0", "0", "0")[1] == "Auction differs"
    assert table.device.screen is Screen.ENTRY
    assert (3, 5) not in tables.results
    assert table.press("ENT") == ("B5 P 3NT P P P", "S? 0=P *=X ^!")  # the calls kept
    assert table.device.screen is Screen.AUCTION
    assert table.press("0")[1] == "Not possible"  # the auction has ended: take a call back


def test_the_auction_alone_gives_the_contract_and_the_server_derives_it() -> None:
    tables = FakeTables(auction_entry="required")
    table = seated(tables)
    table.press("ENT")  # the board: an empty entry
    assert table.press("ENT") == ("B5 auction", "N? 0=P *=X ^!")  # required: no way round it
    assert table.press("ENT") == ("B5 auction", "N? 0=P *=X ^!")
    table.press("1", "4", "*", "0", "0", "0")  # 1♠ by North, doubled
    assert table.device.screen is Screen.ENTRY
    assert table.lines == ("B5 1SX N", "Tricks 0-13: _")
    table.press("7")
    table.hold = True
    table.press("ENT")
    commands = table.device.outgoing()
    entry = next(c for c in commands if isinstance(c, EnterResult))
    assert (entry.values.contract, entry.values.declarer) == ("", None)
    assert entry.values.auction == "1S X P P P"
    table.hold = False
    for command in commands:
        table.bound, reply = tables.handle(table.bound, command)
        table.device.receive(reply)
    stored = tables.results[(3, 5)]
    assert (stored.contract, stored.declarer, stored.tricks, stored.ns_score) == (
        "1SX",
        "N",
        7,
        160,
    )


def test_the_deal_is_keyed_suit_by_suit_and_checked_before_it_is_sent() -> None:
    tables = FakeTables(deal_entry=True)
    table = seated(tables)
    assert table.lines[1] == "ENT=deal 0-7=res"
    assert table.press("ENT") == ("B5 N S:_", "0/13 ENT=suit")
    hands = parse_deal(DEAL)
    assert table.press("1", "3", "0") == ("B5 N S:KT_", "2/13 ENT=suit")
    assert table.press("0")[1] == "Keyed already"
    assert table.press("ENT") == ("B5 N H:_", "2/13 ENT=suit")
    table.press("BACK", "8", "ENT")  # back to the spades for the 8
    for key in hand_keys(format_hand(hands[Seat.N]))[5:]:
        table.press(key)
    assert table.lines == ("B5 E S:_", "0/13 ENT=suit")
    for seat in (Seat.E, Seat.S):
        for key in hand_keys(format_hand(hands[seat])):
            table.press(key)
    west = hand_keys(format_hand(hands[Seat.W]))
    for key in west[:-2]:
        table.press(key)
    assert table.press("ENT")[1] == "13 cards a hand"  # West's clubs without the 6
    table.press(*west[-2:])
    assert table.lines == ("Deal stored", "ENT=continue")
    assert tables.deals[5] == (3, hands)
    table.press("ENT")
    assert table.lines[1] != "ENT=deal 0-7=res"  # asked no more


def test_checking_a_deal_keyed_at_another_table_reports_a_conflict() -> None:
    tables = FakeTables(deal_entry=True)
    tables.deals[5] = (1, parse_deal(DEAL))
    tables.deal_states[5] = "keyed"
    table = seated(tables)
    table.press("ENT")
    for key in hand_keys("KT9.A96.A95.7542"):  # the 9 of spades for the 8
        table.press(key)
    # not yet played here: "differs", and not which cards (the fair-play rule)
    assert table.lines == ("Deal differs: TD", "ENT=continue")
    assert tables.deal_states[5] == "conflict"


def test_key_counts_of_a_real_six_call_auction_on_the_keypad() -> None:
    """The typical board of protocol/keys.md (tests/terminal/test_key_counts.py: the first
    RealBridge board with six calls and 13 tricks played), keyed on the keypad from its board
    screen to East's OK, the auction first: the same call keys as on the terminal."""
    # The terminal's key-count test module pulls in Textual and its screens: only here.
    from tests.terminal.test_key_counts import typical  # noqa: PLC0415

    record = typical()
    auction = parse_pbn_auction(record["Auction"], record["AuctionText"])
    tables = FakeTables(auction_entry="optional")
    table = Table(tables, table=2).boot()  # table 2's first board, 3, is dealt by South
    table.press("0002", "ENT")
    table.press("ENT")
    assert table.device.selected is not None
    assert table.device.selected.dealer == auction.dealer.value == "S"
    presses = ["ENT", "ENT"]  # the board's entry, then the auction first
    replay = Auction(auction.dealer)
    for call in auction.calls:
        presses += ["UP" if key == ALERT else key for key in call_keys(replay, call)]
        replay.add(call)
    presses += [*record["Result"], "ENT", "ENT"]  # the tricks, send, East's OK
    for key in presses:
        table.device.press(key)
        table.flush()
    stored = tables.results[(2, 3)]
    assert (stored.contract, stored.declarer, stored.tricks) == ("1NT", "N", 7)
    assert stored.state == "confirmed"
    assert stored.auction == str(auction)
    assert len(presses) == 2 + 9 + 1 + 2 == 14


@pytest.mark.parametrize("lang", ["en", "da", "nb", "de", "ru"])
def test_the_auction_and_deal_screens_fit_16_characters_in_every_language(lang: str) -> None:
    tables = FakeTables(auction_entry="optional", deal_entry=True)
    table = Table(tables)
    table.device = Device(3, MemoryStore(3), language=lang)
    table.boot()
    table.press("0003", "ENT")
    table.press("ENT")
    screens = []

    seen = set()

    def shown() -> None:
        screens.append(table.device._render())  # the lines before the LCD cuts them
        seen.add(table.device.screen)

    table.press("ENT")
    shown()  # the deal, North's spades
    for key in ["1", "3", "1", "1", "ENT", "1", "4", "0", "ENT", "1", "1"]:
        table.press(key)
        shown()
    table.press("BACK")
    while table.device.screen is Screen.DEAL:
        table.press("BACK")
    table.press("1", "BACK", "ENT")  # an empty entry (1 taken back), then the auction first
    shown()
    for key in ["1", "5", "UP", "1", "1", "*", "*", "0", "0"]:
        table.press(key)
        shown()
    assert seen == {Screen.DEAL, Screen.AUCTION}
    for line1, line2 in screens:
        assert len(line1) <= 16, (lang, line1)
        assert len(line2) <= 16, (lang, line2)

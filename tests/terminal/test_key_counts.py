"""Key counts of issue 20 through the real flows: a real RealBridge board (its deal, auction and
13-trick play, tests/data/endplay-realbridge) keyed on the terminal against the fake server, key
by key, from the board screen to East's confirmation. The figures in protocol/keys.md come from
``PYTHONPATH=. python -m tests.terminal.test_key_counts``."""

from __future__ import annotations

import asyncio
import statistics
from dataclasses import dataclass

import pytest

from protocol.bridge.auction import parse_pbn_auction
from protocol.bridge.contract import Contract
from protocol.bridge.deal import format_hand, parse_deal
from protocol.bridge.enums import Seat
from protocol.bridge.play import Play, parse_pbn_play
from protocol.keys_play import ALERT, call_keys, card_keys
from terminal.screens.auction import AuctionScreen
from terminal.screens.board_entry import BoardEntryScreen
from terminal.screens.confirm import ConfirmScreen
from terminal.screens.deal_entry import DealEntryScreen
from terminal.screens.play import PlayScreen
from terminal.testing.server import FakeServer
from tests.protocol.bridge.test_bridge_play import AUCTIONS, PLAYS
from tests.support.terminal import make_app, seated, settle

from .test_table_entry import SIZE, hand_keys, terminal_keys

#: The fake's table and board whose dealer is the record's (Law 2's rotation: board 1 N ...).
BOARD_OF_DEALER = {"N": (1, 1), "E": (1, 2), "S": (2, 3), "W": (2, 4)}
#: Records with an auction and a complete play.
FULL = [r for r in PLAYS if r in AUCTIONS and len(r["PlayText"].split()) >= 52]


@dataclass
class Counted:
    """Keys pressed in each part of one board, from the board screen to East's confirmation."""

    deal: int = 0
    auction: int = 0
    play: int = 0
    rest: int = 0  # opening the auction, sending, East's confirmation

    @property
    def total(self) -> int:
        return self.auction + self.play + self.rest


def six_calls(record: dict[str, str]) -> bool:
    return len([t for t in record["AuctionText"].split() if not t.startswith("=")]) == 6


async def key_board(record: dict[str, str], *, with_deal: bool) -> Counted:
    """Key ``record`` through the screens; what the server stored is checked against it."""
    auction = parse_pbn_auction(record["Auction"], record["AuctionText"])
    contract = Contract.parse(record["Contract"])
    assert contract.strain is not None
    hands = parse_deal(record["Deal"])
    played = parse_pbn_play(
        record["Play"], record["PlayText"], contract.strain, record["Declarer"], hands
    )
    table, board = BOARD_OF_DEALER[auction.dealer.value]
    server = FakeServer(auction_entry="optional", play_entry="optional", deal_entry=with_deal)
    app, client = make_app(server, table=table)
    counted = Counted()
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await settle(pilot, client)
        if board % 2 == 0:
            await pilot.press("right")  # the round's second board (not counted: not entry)
        assert isinstance(app.screen, BoardEntryScreen)
        assert app.screen.board == board
        await pilot.press("enter")  # the deal when asked, else the auction
        counted.rest += 1
        if with_deal:
            assert isinstance(app.screen, DealEntryScreen)
            keys = [
                k
                for s in (Seat.N, Seat.E, Seat.S, Seat.W)
                for k in hand_keys(format_hand(hands[s]))
            ]
            await pilot.press(*keys)
            await settle(pilot, client)
            await pilot.press("enter")  # the server's answer read: on to the auction
            counted.deal = len(keys) + 1
        assert isinstance(app.screen, AuctionScreen)
        replay = type(auction)(auction.dealer)
        for call in auction.calls:
            keys = terminal_keys(call_keys(replay, call))
            await pilot.press(*keys)
            counted.auction += len(keys)
            replay.add(call)
        assert isinstance(app.screen, PlayScreen)
        follow = Play(contract.strain, record["Declarer"], hands if with_deal else None)
        for trick in played.tricks:
            for _seat, card in trick.cards:
                keys = terminal_keys(card_keys(follow, card))
                assert keys
                assert ALERT not in keys
                await pilot.press(*keys)
                counted.play += len(keys)
                follow.play(card)
        await settle(pilot, client)
        assert isinstance(app.screen, ConfirmScreen), type(app.screen)
        await pilot.press("enter")  # East confirms
        counted.rest += 1
        await settle(pilot, client)
    await client.close()
    stored = server.results[(table, 1, board)]
    assert (stored.state, stored.tricks) == ("confirmed", int(record["Result"]))
    assert stored.auction == str(auction)
    assert stored.play is not None
    assert len(stored.play.split()) == 52
    return counted


@pytest.mark.parametrize("play_entry", ["off", "optional"])
@pytest.mark.parametrize("auction_entry", ["off", "optional"])
async def test_a_result_alone_takes_7_keys_with_the_auction_off_or_optional(
    auction_entry: str, play_entry: str
) -> None:
    """ "4♠ by South, ten tricks" and East's OK is `4 4 3 1 0 Enter Enter` whether the event
    takes no auction or an optional one (keyed first, or not at all), and no play or an
    optional one (keyed at the tricks, or not at all)."""
    server = FakeServer(auction_entry=auction_entry, play_entry=play_entry)
    app, client = make_app(server)
    keys = ["4", "4", "3", "1", "0", "enter", "enter"]
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        for key in keys:
            await pilot.press(key)
        await settle(pilot, client)
    stored = server.results[(1, 1, 1)]
    assert (stored.state, stored.contract, stored.declarer, stored.tricks) == (
        "confirmed", "4S", "S", 10,
    )  # fmt: skip
    assert len(keys) == 7


def typical() -> dict[str, str]:
    """The first real board with a six-call auction and a complete play."""
    return next(r for r in FULL if six_calls(r))


@pytest.mark.slow  # 22-25 s: out of `traveller test --fast` (the full suite runs it)
async def test_a_six_call_auction_and_a_13_trick_play_through_the_terminal() -> None:
    record = typical()
    known = await key_board(record, with_deal=True)
    unknown = await key_board(record, with_deal=False)
    # The auction's keys are the grammar's (1-3 a call); the play is shorter with the deal
    # keyed at this table (the suit led implied, the only card on OK) than without it.
    assert 6 <= known.auction == unknown.auction <= 18
    assert known.play < unknown.play <= 52 * 3
    assert known.rest == unknown.rest == 2  # open the auction (or the deal), East's OK
    assert known.deal > 52


def key_counts() -> str:
    """The figures for protocol/keys.md, over every real six-call auction with a full play."""
    records = [r for r in FULL if six_calls(r)]

    async def run() -> list[tuple[Counted, Counted]]:
        return [
            (await key_board(r, with_deal=True), await key_board(r, with_deal=False))
            for r in records
        ]

    results = asyncio.run(run())
    first_known, first_unknown = results[0]
    lines = [
        f"boards (six-call auction and 13 tricks played): {len(results)}",
        f"first: auction {first_known.auction}, play {first_known.play} with the deal keyed"
        f" ({first_unknown.play} without), deal {first_known.deal}, rest {first_known.rest}:"
        f" board {first_known.total} keys ({first_unknown.total} without the deal)",
    ]
    for name, pick in (("with the deal keyed", 0), ("without the deal", 1)):
        totals = [pair[pick].total for pair in results]
        plays = [pair[pick].play for pair in results]
        lines.append(
            f"{name}: play keys mean {statistics.mean(plays):.1f} (min {min(plays)}, max"
            f" {max(plays)}); board total mean {statistics.mean(totals):.1f}"
        )
    auctions = [pair[0].auction for pair in results]
    deals = [pair[0].deal for pair in results]
    lines.append(
        f"auction keys mean {statistics.mean(auctions):.1f} (min {min(auctions)}, max"
        f" {max(auctions)}); deal entry mean {statistics.mean(deals):.1f}"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    print(key_counts())

"""The auction and play view model (server/services/results/replay.py): calls under W N E S, tricks
with their leader, cards and winner, the running count and the claim, checked on a real RealBridge
event's play (tests/data/README.md) and on plays that stop or break."""

from __future__ import annotations

from decimal import Decimal

import pytest

from protocol.bridge.auction import parse_pbn_auction
from protocol.bridge.deal import parse_deal
from server.services.results import replay
from server.services.results.standings import PairName, Traveller, TravellerLine
from tests.protocol.bridge.test_bridge_play import PLAYS
from tests.support.plays import BOARD_12, stored_play


def test_the_real_play_of_board_12_trick_by_trick() -> None:
    record = BOARD_12
    assert record["Contract"] == "4H"
    assert record["Declarer"] == "N"
    text = stored_play(record)
    assert text.endswith(" =9")
    view = replay.play_view("4H", "N", text, parse_deal(record["Deal"]))
    assert view is not None
    assert view.leader == "E"
    assert view.dummy == "S"
    # Worked from the PBN by hand: CA wins trick 1 for North; HJ draws a round of trumps; East
    # wins HA; West's CJ; East over-ruffs North's HT with the HQ; South's DJ; East's SA.
    assert [(t.leader, t.winner) for t in view.tricks] == [
        ("E", "N"), ("N", "N"), ("N", "E"), ("E", "W"), ("W", "E"), ("E", "S"), ("S", "E"),
    ]  # fmt: skip
    assert [t.cards[0].card for t in view.tricks] == ["C9", "HJ", "H5", "C2", "CK", "D5", "S3"]
    assert [(t.ns, t.ew) for t in view.tricks][-1] == (3, 4)
    fifth = view.tricks[4].by_seat()
    assert (fifth["N"].card, fifth["E"].card) == ("HT", "HQ")
    assert fifth["N"].rank == "10"
    assert fifth["N"].symbol == "♥"
    assert view.claim == 9
    assert (view.ns, view.ew) == (9, 4)  # the claim gives declarer 9 in all, the rest to E/W
    assert view.declarer_tricks == 9
    assert view.stopped is None
    assert view.cards == 28


@pytest.mark.parametrize("record", PLAYS, ids=lambda r: f"b{r['Board']}t{r.get('Table')}")
def test_every_real_play_replays_to_its_published_result(record: dict[str, str]) -> None:
    """Each trick shows the cards the PBN lists for it, seat by seat, and the play ends on the
    tricks the event published."""
    view = replay.play_view(
        record["Contract"], record["Declarer"], stored_play(record), parse_deal(record["Deal"])
    )
    assert view is not None
    assert view.stopped is None
    columns = _pbn_columns(record["Play"])
    lines = [line.split() for line in record["PlayText"].splitlines() if line.split()]
    for trick, line in zip(view.tricks, lines, strict=False):
        if line[0] == "*":
            break
        listed = {seat: card for seat, card in zip(columns, line, strict=False) if card != "-"}
        assert {s: c.card for s, c in trick.by_seat().items()} == listed
    assert view.declarer_tricks == int(record["Result"])
    assert view.ns + view.ew == 13
    won = [t.winner for t in view.tricks if t.winner]
    assert view.tricks[-1].ns + view.tricks[-1].ew == len(won)
    for before, after in zip(view.tricks, view.tricks[1:], strict=False):
        assert after.leader == before.winner  # Law 44G: the winner leads to the next trick


def _pbn_columns(first: str) -> list[str]:
    order = ["N", "E", "S", "W"]
    start = order.index(first)
    return [order[(start + k) % 4] for k in range(4)]


DEAL = parse_deal("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")


def test_a_revoke_stops_the_replay_there_and_keeps_what_came_before() -> None:
    # South declares spades: West leads H2, North wins HA; North's SA wins the next trick; on
    # North's SK East, who still holds spades, plays HT: a revoke.
    view = replay.play_view("4S", "S", "H2 HA HJ H8 SA ST S3 S2 SK HT", DEAL)
    assert view is not None
    assert view.stopped == 10  # East holds spades: HT is a revoke, nothing after it is shown
    assert [t.winner for t in view.tricks] == ["N", "N", None]
    assert [c.card for c in view.tricks[2].cards] == ["SK"]
    assert (view.ns, view.ew) == (2, 0)


def test_a_claim_that_is_not_last_or_impossible_stops_the_replay() -> None:
    view = replay.play_view("4S", "S", "H2 HA HJ H8 =12 SA", DEAL)
    assert view is not None
    assert view.stopped == 5
    assert view.claim is None
    view = replay.play_view("4S", "S", "H2 HA HJ H8 =0", DEAL)
    assert view is not None
    assert view.stopped == 5  # declarer has already won a trick: 0 is no claim


def test_a_play_without_the_deal_is_replayed_without_the_hand_checks() -> None:
    view = replay.play_view("3NT", "E", "SA S2 S3 S4 =9")
    assert view is not None
    assert view.stopped is None
    assert view.leader == "S"
    assert view.tricks[0].winner == "S"  # the ace of the suit led, no trumps
    assert (view.ns, view.ew) == (4, 9)


@pytest.mark.parametrize(
    ("contract", "declarer", "text"),
    [
        ("PASS", None, "SA"),
        ("4S", None, "SA"),
        (None, "N", "SA"),
        ("4S", "N", ""),
        ("4S", "N", None),
    ],
)
def test_no_play_is_shown_without_a_contract_declarer_and_cards(
    contract: str | None, declarer: str | None, text: str | None
) -> None:
    assert replay.play_view(contract, declarer, text, DEAL) is None


def test_the_auction_starts_in_the_dealers_column_with_alerts_marked() -> None:
    view = replay.auction_view("N", "1C 1NT! P 3NT P P P")
    assert view.dealer == "N"
    assert [[c.call if c else "" for c in row] for row in view.rows] == [
        ["", "1C", "1NT", "P"],
        ["3NT", "P", "P", "P"],
    ]
    alerted = [c.call for row in view.rows for c in row if c and c.alert]
    assert alerted == ["1NT"]
    assert [c.bid for c in view.rows[1] if c] == [True, False, False, False]
    west = replay.auction_view("W", "P P P P")
    assert [[c.call if c else "" for c in row] for row in west.rows] == [["P", "P", "P", "P"]]
    odd = replay.auction_view("S", "1H ?? P")
    assert [c.call if c else "" for c in odd.rows[0]] == ["", "", "", "1H"]
    assert odd.rows[1][0] is not None
    assert odd.rows[1][0].call == "??"


def test_the_real_auction_of_board_12() -> None:
    auction = parse_pbn_auction(BOARD_12["Auction"], BOARD_12["AuctionText"])
    view = replay.auction_view("W", str(auction))
    assert [[c.call if c else "" for c in row] for row in view.rows] == [
        ["3C", "3H", "P", "4H"],
        ["P", "P", "P", ""],
    ]


def test_hand_cards_run_high_to_low_with_voids() -> None:
    hands = replay.hand_cards(DEAL)
    north = hands["N"]
    assert [s.suit for s in north] == ["S", "H", "D", "C"]
    assert [c.rank for c in north[0].cards] == ["A", "K", "Q", "J"]
    one_suit = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
    west = replay.hand_cards(parse_deal(one_suit))
    assert west["W"][0].cards == ()
    assert len(west["W"][3].cards) == 13


def _line(table: int, round_: int) -> TravellerLine:
    pair = PairName(1, 1, "NS", "1 NS", "1NS", "")
    return TravellerLine(
        table, round_, pair, pair, "4♠", "S", None, "=", "420", "", Decimal(1), Decimal(1),
        None, None,
    )  # fmt: skip


def _table(table: int, round_: int, state: str) -> replay.TablePlay:
    return replay.TablePlay(
        table, round_, state, "4S", "S", 10, replay.auction_view("N", "1S P 4S P P P"),
        replay.play_view("4S", "S", "H2 HA HJ H8 =10", DEAL),
    )  # fmt: skip


def test_the_public_sees_only_the_tables_of_a_shown_traveller() -> None:
    plays = replay.BoardPlays(
        1, "N", replay.hand_cards(DEAL),
        (_table(1, 1, "confirmed"), _table(2, 1, "entered"), _table(3, 2, "td_pending")),
    )  # fmt: skip
    hidden = Traveller(1, False, [], "MP")
    board, shown = replay.shown(plays, hidden)
    assert shown == []
    assert board.hands is None
    assert board.tables == ()
    visible = Traveller(1, True, [_line(3, 2), _line(1, 1), _line(2, 1)], "MP")
    board, shown = replay.shown(plays, visible)
    assert [(s.play.table, s.play.round) for s in shown] == [(3, 2), (1, 1)]  # not "entered"
    assert board.hands is not None
    assert [(t.table, t.round) for t in board.tables] == [(3, 2), (1, 1)]  # nothing else kept
    assert replay.shown(plays, Traveller(2, True, [_line(1, 1)], "MP"))[1] == []  # other board
    assert replay.shown(None, visible)[1] == []

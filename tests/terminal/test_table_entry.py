"""The auction, play and deal flows of issue 20 on the terminal, driven by key presses at 80x24
against the fake server: the keys are those of protocol/keys_play.py (call_keys, card_keys),
so the same grammar is checked end to end."""

from __future__ import annotations

from textual import events

from protocol.bridge.deal import format_hand, parse_deal
from protocol.bridge.enums import Seat
from protocol.bridge.play import Play
from protocol.keys import OK
from protocol.keys_play import ALERT, card_keys
from protocol.messages import AlertExplanation, DealAck, EnterDeal, EnterResult
from terminal.screens.auction import AuctionScreen
from terminal.screens.board_entry import BoardEntryScreen
from terminal.screens.confirm import ConfirmScreen
from terminal.screens.deal_entry import DealEntryScreen
from terminal.screens.explain import ExplainScreen
from terminal.screens.play import PlayScreen
from terminal.testing.event import FakeKeyedDeal
from terminal.testing.server import FakeServer
from tests.support.terminal import checked, make_app, screen_text, seated, settle

SIZE = (80, 24)
#: Board 1's deal in the tests (protocol tests' DEAL): North deals.
DEAL = "N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ96"
TERMINAL_KEY = {ALERT: "+", OK: "enter"}


def terminal_keys(keys: tuple[str, ...]) -> list[str]:
    """The grammar's keys as the terminal's keys (the alert is +, OK is Enter)."""
    return [TERMINAL_KEY.get(key, key) for key in keys]


def rank_keys(rank: str) -> list[str]:
    """A rank on the keys of the lead: 2-9, 0 ten, 11 J 12 Q 13 K 14 A."""
    return {"T": ["0"], "J": ["1", "1"], "Q": ["1", "2"], "K": ["1", "3"], "A": ["1", "4"]}.get(
        rank, [rank]
    )


def hand_keys(hand: str) -> list[str]:
    """One hand ("KT8.A96.A95.7542") suit by suit, Enter after each suit."""
    keys: list[str] = []
    for holding in hand.split("."):
        for rank in holding:
            keys += rank_keys(rank)
        keys.append("enter")
    return keys


def deal_keys(deal: str) -> list[str]:
    hands = parse_deal(deal)
    return [
        key
        for seat in (Seat.N, Seat.E, Seat.S, Seat.W)
        for key in hand_keys(format_hand(hands[seat]))
    ]


def entries(server: FakeServer) -> list[EnterResult]:
    return [c for c in server.received if isinstance(c, EnterResult)]


async def test_an_optional_auction_costs_no_key_and_every_screen_says_what_enter_does() -> None:
    """4♠ by South made with East's OK is 7 keys, as without the auction; the auction is
    keyed first (Enter on an empty result) or not at all."""
    server = FakeServer(auction_entry="optional")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        text = screen_text(app)
        assert "Enter = key the auction   Backspace = undo" in text
        assert "Enter = send" not in text
        await pilot.press("4", "4", "3")
        assert "Enter = send" not in screen_text(app)  # the tricks are still to key
        assert "Backspace = undo" in screen_text(app)
        await pilot.press("1", "0")
        assert "Enter = send   Backspace = undo" in screen_text(app)
        await pilot.press("enter")
        assert isinstance(app.screen, ConfirmScreen)  # sent: no auction dialog in between
        await pilot.press("enter")
        await settle(pilot, client)
        stored = server.results[(1, 1, 1)]
        assert (stored.state, stored.contract, stored.declarer, stored.tricks) == (
            "confirmed", "4S", "S", 10,
        )  # fmt: skip
        assert stored.auction is None
        await pilot.press("0", "enter", "enter")  # board 2 passed out: 3 keys
        await settle(pilot, client)
    assert server.results[(1, 1, 2)].contract == "PASS"
    assert [e.board for e in entries(server)] == [1, 2]


async def test_an_optional_play_costs_no_key_and_every_screen_says_what_enter_does() -> None:
    """With the auction and the play both optional, 4♠ by South made with East's OK is still 7
    keys: the play is keyed in place of the tricks (Enter at the tricks) or not at all."""
    server = FakeServer(auction_entry="optional", play_entry="optional")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        assert "Enter = key the auction   Backspace = undo" in screen_text(app)
        await pilot.press("4", "4", "3")
        assert "Enter = key the play   Backspace = undo" in screen_text(app)
        await pilot.press("1", "0")
        text = screen_text(app)
        assert "Enter = send   Backspace = undo" in text
        assert "key the play" not in text
        await pilot.press("enter")
        assert isinstance(app.screen, ConfirmScreen)  # sent: no play dialog in between
        await pilot.press("enter")
        await settle(pilot, client)
        stored = server.results[(1, 1, 1)]
        assert (stored.state, stored.contract, stored.tricks, stored.play) == (
            "confirmed", "4S", 10, None,
        )  # fmt: skip
        await pilot.press("1", "5", "3")  # board 2: 1NT by South, and Enter keys the play
        await pilot.press("enter")
        assert isinstance(app.screen, PlayScreen)
    assert [e.board for e in entries(server)] == [1]


async def test_the_auction_after_the_contract_refuses_an_illegal_call_and_marks_an_alert() -> None:
    server = FakeServer(auction_entry="required")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("3", "5", "1", "9", "enter")  # 3NT by North, nine tricks
        assert isinstance(app.screen, AuctionScreen)
        await pilot.press("1", "5", "+", "1", "1")  # 1NT alerted, then 1♣ is insufficient
        text = screen_text(app)
        assert "Insufficient bid: bid higher than 1NT." in text
        assert "1NT!" in text
        assert "East to call." in text
        await pilot.press("0", "3", "5", "0", "0", "0")  # ends by itself after three passes
        assert isinstance(app.screen, ConfirmScreen)
        assert "Auction (dealer North): 1NT!  Pass  3NT  Pass  Pass  Pass" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot, client)
    stored = server.results[(1, 1, 1)]
    assert (stored.state, stored.contract, stored.declarer) == ("confirmed", "3NT", "N")
    assert stored.auction == "1NT! P 3NT P P P"


async def test_the_table_keys_an_alert_explanation_and_east_sees_it_with_the_auction() -> None:
    """+ alerts 1NT, + again opens its explanation: typed on the keyboard (a pasted right-to-left
    override refused, a line break too), it goes with the auction, East sees it and the server
    stores it."""
    server = FakeServer(auction_entry="required")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("3", "5", "1", "9", "enter")  # 3NT by North, nine tricks
        await pilot.press("1", "5", "+")
        assert "1NT! alerted: + again to explain it." in screen_text(app)
        await pilot.press("+")
        assert isinstance(app.screen, ExplainScreen)
        assert "Board 1: explain 1NT!" in screen_text(app)
        await pilot.press("1", "5", "minus", "1", "7", "space", "h", "c", "p")
        app.screen.post_message(events.Paste("\u202ebad"))
        await pilot.pause()
        assert "The character U+202E cannot stand in an explanation." in screen_text(app)
        app.screen.post_message(events.Paste("x\ny"))
        await pilot.pause()
        assert "An explanation is one line." in screen_text(app)
        assert "15-17 hcp_" in screen_text(app)  # nothing of the refused pastes kept
        await pilot.press("enter")
        assert isinstance(app.screen, AuctionScreen)
        assert "1NT!  15-17 hcp" in screen_text(app)  # listed under the grid
        await pilot.press("0", "3", "5", "0", "0", "0")
        assert isinstance(app.screen, ConfirmScreen)
        text = screen_text(app)
        assert "Auction (dealer North): 1NT!  Pass  3NT  Pass  Pass  Pass" in text
        assert "Alerts: 1NT! 15-17 hcp" in text
        await pilot.press("enter")
        await settle(pilot, client)
    sent = entries(server)[-1].values
    assert sent.alerts == [AlertExplanation(call=1, text="15-17 hcp")]
    stored = server.results[(1, 1, 1)]
    assert (stored.state, stored.auction) == ("confirmed", "1NT! P 3NT P P P")
    assert stored.alerts == [AlertExplanation(call=1, text="15-17 hcp")]


async def test_an_explanation_goes_with_its_call_when_the_call_is_taken_back() -> None:
    server = FakeServer(auction_entry="required")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("3", "5", "1", "9", "enter")
        await pilot.press("1", "5", "+", "+", "x", "enter")
        assert "1NT!  x" in screen_text(app)
        await pilot.press("backspace")  # 1NT taken back, and its explanation with it
        await pilot.press("1", "5", "+", "0", "3", "5", "0", "0", "0", "enter")
        await settle(pilot, client)
    assert server.results[(1, 1, 1)].auction == "1NT! P 3NT P P P"
    assert server.results[(1, 1, 1)].alerts is None
    assert entries(server)[-1].values.alerts is None


async def test_an_auction_that_disagrees_with_the_contract_is_not_sent() -> None:
    server = FakeServer(auction_entry="required")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter")  # 4♠ by South
        await pilot.press("1", "5", "0", "3", "5", "0", "0", "0")  # but 3NT by North
        assert isinstance(app.screen, BoardEntryScreen)
        assert "The auction ends in 3NT by North, not as keyed" in screen_text(app)
        assert entries(server) == []
        await pilot.press("enter")  # the auction again, its calls kept: take back to fix
        assert isinstance(app.screen, AuctionScreen)
        assert "3NT" in screen_text(app)


async def test_the_auction_alone_gives_the_contract_and_the_server_derives_it() -> None:
    server = FakeServer(auction_entry="required", play_entry="optional")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("enter")  # an empty result: the auction first
        assert isinstance(app.screen, AuctionScreen)
        await pilot.press("enter")  # required: Enter does not skip it
        assert isinstance(app.screen, AuctionScreen)
        await pilot.press("1", "4", "*", "0", "0", "0")  # 1♠ X by East, then passes
        assert isinstance(app.screen, PlayScreen)  # the play next (it would give the tricks)
        await pilot.press("enter")  # without the play
        assert isinstance(app.screen, BoardEntryScreen)
        text = screen_text(app)
        assert "Still to key: the tricks." in text
        await pilot.press("7", "enter")
        assert isinstance(app.screen, ConfirmScreen)
        assert "1♠X by North" in screen_text(app) or "1♠ doubled by North" in screen_text(app)
        await settle(pilot, client)
    sent = entries(server)[-1].values
    assert (sent.contract, sent.declarer, sent.auction) == ("", None, "1S X P P P")
    stored = server.results[(1, 1, 1)]
    assert (stored.contract, stored.declarer, stored.tricks) == ("1SX", "N", 7)


async def test_the_deal_keyed_then_the_play_checked_against_it_with_a_claim() -> None:
    server = FakeServer(deal_entry=True, play_entry="optional", auction_entry="optional")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        assert "Hand-dealt board: key its deal" in screen_text(app)
        await pilot.press("enter")
        assert isinstance(app.screen, DealEntryScreen)
        await pilot.press(*deal_keys(DEAL))
        await settle(pilot, client)
        assert "The deal is stored. Thank you." in screen_text(app)
        assert server.keyed_deals[1].hands == parse_deal(DEAL)
        await pilot.press("enter")  # any key goes on: the auction
        assert isinstance(app.screen, AuctionScreen)
        await pilot.press("enter")  # optional: without it
        await pilot.press("1", "5", "3", "enter")  # 1NT by South: the play next
        assert isinstance(app.screen, PlayScreen)
        play = Play("NT", "S", parse_deal(DEAL))
        for card in ("C6", "C2", "C8", "CA", "SA", "S3", "S8", "S5"):  # West leads
            await pilot.press(*terminal_keys(card_keys(play, card)))
            play.play(card)
        text = screen_text(app)
        assert "→ South" in text
        assert "Tricks: declarer 2, defence 0" in text
        await pilot.press("4", "1", "3")  # South to lead: ♠K is North's
        assert "That card is not in the hand of the player to play." in screen_text(app)
        await pilot.press("*", "1", "3", "enter")  # a claim of all 13 ends the play
        await settle(pilot, client)  # the play gave the tricks: the entry is sent
        assert isinstance(app.screen, ConfirmScreen)
        assert "Play keyed: 8 of 52 cards, then a claim of 13" in screen_text(app)
        await pilot.press("enter")
        await settle(pilot, client)
    stored = server.results[(1, 1, 1)]
    assert (stored.contract, stored.tricks, stored.lead) == ("1NT", 13, "C6")
    assert stored.play == "C6 C2 C8 CA SA S3 S8 S5 =13"
    assert server.td_calls == []


async def test_a_claim_beyond_the_tricks_left_is_refused() -> None:
    server = FakeServer(play_entry="optional")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("1", "5", "3", "enter")
        await pilot.press("1", "6", "1", "2", "1", "1", "4", "1", "8")  # ♣6 ♣2 ♣A ♣8
        text = screen_text(app)
        assert "→ East" in text
        await pilot.press("*", "1", "3", "enter")  # the defence has a trick: 13 is too many
        assert "That claim is not possible: declarer has 0 and at most 12 tricks." in (
            screen_text(app)
        )
        assert isinstance(app.screen, PlayScreen)


async def test_without_the_deal_the_server_refuses_a_card_not_in_the_hand() -> None:
    server = FakeServer(play_entry="optional", deals={1: DEAL})
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("1", "5", "3", "enter")
        assert isinstance(app.screen, PlayScreen)
        await pilot.press("4", "1", "4")  # ♠A led by West: the terminal cannot know
        await pilot.press("*", "7", "enter")
        await settle(pilot, client)
        await checked(pilot)  # the server's check of the entry, in a worker
        assert isinstance(app.screen, BoardEntryScreen)
        assert "SA is not in West's hand" in screen_text(app)
        await pilot.press("enter")  # the play again, its cards kept: take back and change
        assert isinstance(app.screen, PlayScreen)
        await pilot.press("backspace", "backspace")  # the claim, then the lead
        await pilot.press("1", "6", "*", "7", "enter")  # ♣6 (West's), then a claim of 7
        await settle(pilot, client)
        await checked(pilot)
        assert isinstance(app.screen, ConfirmScreen)
    assert server.results[(1, 1, 1)].play == "C6 =7"


async def test_checking_a_deal_keyed_elsewhere_reports_a_conflict_to_the_td() -> None:
    server = FakeServer(deal_entry=True)
    server.keyed_deals[1] = FakeKeyedDeal(table=2, round=1, hands=parse_deal(DEAL))
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        assert "check its deal with North's hand" in screen_text(app)
        await pilot.press(".", "7")
        assert isinstance(app.screen, DealEntryScreen)
        await pilot.press(*hand_keys("KT9.A96.A95.7542"))  # ♠9 for ♠8
        await settle(pilot, client)
        text = screen_text(app)
        assert "This hand differs from the deal keyed at another table" in text
        assert "extra" not in text  # not yet played here: "differs", and not which cards
        assert "missing" not in text
    assert server.keyed_deals[1].state == "conflict"
    assert server.td_calls == [(1, "conflicting deals for board 1")]


async def test_a_deal_with_a_card_in_two_hands_is_refused_before_it_is_sent() -> None:
    server = FakeServer(deal_entry=True)
    app, client = make_app(server)
    bad = "N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ99"
    bad = bad.replace("KJ99", "KJ96").replace("N:KT8", "N:KT7")  # ♠7 twice, ♠8 nowhere
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("enter")
        keys = [k for seat in bad[2:].split() for k in hand_keys(seat)]
        await pilot.press(*keys)
        assert "♠7 is in two hands." in screen_text(app)
        await pilot.press("backspace")  # still on the screen, West's last suit open
        assert isinstance(app.screen, DealEntryScreen)
    assert server.keyed_deals == {}
    assert not [c for c in server.received if c.type == "enter_deal"]


async def test_a_hand_of_twelve_cards_is_refused() -> None:
    server = FakeServer(deal_entry=True)
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("enter")
        await pilot.press(*hand_keys("KT.A96.A95.7542"))
        assert "North has 12 cards: a hand has 13." in screen_text(app)


async def test_after_east_rejects_the_auction_goes_again_with_the_result() -> None:
    server = FakeServer(auction_entry="required")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        assert "Enter = key the auction first" in screen_text(app)
        await pilot.press("enter", "1", "5", "0", "3", "5", "0", "0", "0", "9", "enter")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("backspace")  # East rejects
        await settle(pilot, client)
        assert isinstance(app.screen, BoardEntryScreen)
        assert "Auction keyed ✓" in screen_text(app)
        await pilot.press("backspace", "8", "enter")  # eight tricks, the auction unchanged
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("enter")
        await settle(pilot, client)
    stored = server.results[(1, 1, 1)]
    assert (stored.state, stored.tricks, stored.auction) == ("confirmed", 8, "1NT P 3NT P P P")


def test_the_fake_answers_a_deal_command_sent_again_as_the_first_time() -> None:
    server = FakeServer(deal_entry=True)
    server.round_info(1)
    command = EnterDeal(entry_id="deal-entry-1", board=1, deal=DEAL)
    first = server.handle(1, command)
    again = server.handle(1, command)
    assert isinstance(first, DealAck)
    assert again == first
    assert first.state == "keyed"
    other = server.handle(1, command.model_copy(update={"entry_id": "deal-entry-2"}))
    assert other.type == "error"
    assert getattr(other, "code", None) == "deal_keyed_here"

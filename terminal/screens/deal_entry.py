"""A hand-dealt board's deal keyed at the table. The first table to play it keys the
four hands ("enter"), suit by suit (♠ ♥ ♦ ♣ of North, East, South, West), with 13 cards each
and 52 in all checked here (protocol/bridge/deal.py) before EnterDeal is sent; a later table
checks the deal by keying North's hand ("check", CheckDeal). The server's DealAck is shown:
stored, confirmed, or a conflict for the TD (the stored deal is never overwritten)."""

from __future__ import annotations

from typing import Literal

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.bridge import BridgeError
from protocol.bridge.deal import Hand
from protocol.bridge.enums import Seat
from protocol.keys import HIGH_RANKS, KeyRefusedError
from protocol.keys_deal import SUITS, DealKeys
from terminal import i18n
from terminal.bridge_words import card_text, refusal_text
from terminal.errors import ClientError
from terminal.i18n import N_, _
from terminal.keypad import SYMBOLS

from .base import key_of
from .navigation import terminal_of

HINTS = N_("ranks: 2-9, 0 ten, 11 J, 12 Q, 13 K, 14 A   Enter = next suit   Backspace = undo")
ACK_TEXT = {
    "keyed": N_("The deal is stored. Thank you."),
    "confirmed": N_("The deal is confirmed ✓"),
    "conflict": N_("This hand differs from the deal keyed at another table: the TD is informed."),
}

Mode = Literal["enter", "check"]


class DealEntryScreen(ModalScreen[dict[Seat, Hand] | None]):
    """Key the hands suit by suit; dismissed with the hands once the server has answered (the
    four hands, or North's alone when checking), None on Escape."""

    def __init__(self, board: int, mode: Mode) -> None:
        super().__init__()
        self.board = board
        self.mode = mode
        self.keys = DealKeys(mode)  # the grammar: protocol/keys_deal.py
        self.seats = self.keys.seats
        self.answer: str | None = None

    def compose(self) -> ComposeResult:
        """The hands keyed so far, the suit being keyed, a message and the keys."""
        title = (
            _("Board {board}: key the four hands")
            if self.mode == "enter"
            else _("Board {board}: check the deal, key North's hand")
        )
        with Vertical(id="deal-entry", classes="dialog"):
            yield Static(title.format(board=self.board), classes="dialog-title")
            yield Static("", id="deal-hands", classes="dialog-text", markup=False)
            yield Static("", id="deal-turn", classes="dialog-text", markup=False)
            yield Static("", id="deal-message", classes="dialog-text", markup=False)
            yield Static(_(HINTS), id="deal-keys", classes="dialog-keys")

    def on_mount(self) -> None:
        """Start with North's spades."""
        self._show()

    # ------------------------------------------------------------------ reading the keys

    @property
    def seat(self) -> Seat:
        """The hand being keyed."""
        return self.keys.seat

    @property
    def suit(self) -> str:
        """The suit being keyed."""
        return self.keys.suit

    def hand(self, index: int) -> Hand:
        """The cards keyed for the seat at ``index`` of :attr:`seats`."""
        return self.keys.hand(index)

    def hands(self) -> dict[Seat, Hand]:
        """Every hand keyed so far."""
        return self.keys.hands()

    def _show(self, message: str = "") -> None:
        lines = []
        for index, seat in enumerate(self.seats):
            suits = self.keys.holdings[index * 4 : index * 4 + 4]
            if not suits:
                break
            shown = "  ".join(
                SYMBOLS[SUITS[n]] + ("".join(h).replace("T", "10") or "—")
                for n, h in enumerate(suits)
            )
            count = len(self.hand(index))
            lines.append(f"{i18n.seat_name(seat.value):<7} {shown}   ({count})")
        self.query_one("#deal-hands", Static).update("\n".join(lines))
        if self.answer is None:
            turn = _("{seat}: {suit}").format(
                seat=i18n.seat_name(self.seat.value), suit=SYMBOLS[self.suit]
            ) + (" 1_" if self.keys.high else " _")
            self.query_one("#deal-turn", Static).update(turn)
        self.query_one("#deal-message", Static).update(message)

    # ------------------------------------------------------------------ keys

    def on_key(self, event: events.Key) -> None:
        """Ranks, Enter after each suit, Backspace to take back."""
        key = key_of(event)
        event.stop()
        event.prevent_default()
        if self.answer is not None:  # the server has answered: any key closes
            self.dismiss(self.hands())
        elif key == "escape":
            self.dismiss(None)
        elif key == "backspace":
            self._undo()
        elif key == "enter":
            self._next_suit()
        elif key.isdigit():
            self._rank(key)

    def _rank(self, key: str) -> None:
        rank = HIGH_RANKS.get(key, "") if self.keys.high else ("T" if key == "0" else key)
        try:
            self.keys.press(key)
        except KeyRefusedError as refused:
            self._show(self._refusal(refused.code, rank))
            return
        self._show()

    def _refusal(self, code: str, rank: str) -> str:
        """A refused key of the deal in the language in use."""
        seat = i18n.seat_name(self.seat.value)
        if code == "deal_high":
            return _("After 1: 1 J, 2 Q, 3 K, 4 A.")
        if code == "deal_keyed_already":
            shown = SYMBOLS[self.suit] + ("10" if rank == "T" else rank)
            return _("{card} is keyed already.").format(card=shown)
        if code == "deal_hand_full":
            return _("{seat} has 13 cards already: Enter.").format(seat=seat)
        count = len(self.hand((len(self.keys.holdings) - 1) // 4))
        return _("{seat} has {count} cards: a hand has 13.").format(seat=seat, count=count)

    def _next_suit(self) -> None:
        try:
            done = self.keys.next_suit()
        except KeyRefusedError as refused:
            self._show(self._refusal(refused.code, ""))
            return
        except BridgeError as error:
            self._show(self._deal_refusal(error))
            return
        if done:
            self._send()
            return
        self._show()

    def _undo(self) -> None:
        if not self.keys.back():
            self.dismiss(None)
            return
        self._show()

    # ------------------------------------------------------------------ the server

    def _deal_refusal(self, error: BridgeError) -> str:
        """The four hands are not 52 different cards (check_deal), in the language in use."""
        hands = self.hands()
        seat = next((s for s in self.seats if len(hands[s]) != 13), Seat.N)
        return refusal_text(
            error,
            seat=i18n.seat_name(seat.value),
            count=len(hands[seat]),
            card=card_text(str(error.value)) if error.code == "card_twice" else "",
        )

    def _send(self) -> None:
        hands = self.hands()
        self._show(_("Sending the deal to the server…"))
        self.run_worker(self._ask(hands), exclusive=True)

    async def _ask(self, hands: dict[Seat, Hand]) -> None:
        client = terminal_of(self.app).client
        try:
            if self.mode == "enter":
                ack = await client.enter_deal(self.board, self.keys.text())
            else:
                ack = await client.check_deal(self.board, "N", self.keys.text())
        except ClientError as error:
            self._show(error.message)
            return
        self.answer = ack.state
        text = _(ACK_TEXT[ack.state])
        if ack.differences:
            text += "\n" + ", ".join(ack.differences)
        self.query_one("#deal-turn", Static).update("")
        self._show(text + "\n" + _("Any key = go on"))

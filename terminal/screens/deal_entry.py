"""A hand-dealt board's deal keyed at the table (issue 20). The first table to play it keys the
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
from protocol.bridge.deal import Hand, check_deal, format_deal, format_hand
from protocol.bridge.enums import Seat
from protocol.keys import HIGH_RANKS
from terminal import i18n
from terminal.bridge_words import card_text, refusal_text
from terminal.errors import ClientError
from terminal.i18n import N_, _
from terminal.keypad import SYMBOLS

from .base import key_of

SUIT_ORDER = ("S", "H", "D", "C")
SEATS = (Seat.N, Seat.E, Seat.S, Seat.W)
LOW = "23456789"
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
        self.seats = SEATS if mode == "enter" else (Seat.N,)
        self.holdings: list[str] = []  # one string of ranks a suit, in keying order
        self.high = False  # a 1 keyed: J Q K A next
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
        self.holdings = [""]
        self._show()

    # ------------------------------------------------------------------ reading the keys

    @property
    def seat(self) -> Seat:
        """The hand being keyed."""
        return self.seats[min((len(self.holdings) - 1) // 4, len(self.seats) - 1)]

    @property
    def suit(self) -> str:
        """The suit being keyed."""
        return SUIT_ORDER[(len(self.holdings) - 1) % 4]

    def hand(self, index: int) -> Hand:
        """The cards keyed for the seat at ``index`` of :attr:`seats`."""
        suits = self.holdings[index * 4 : index * 4 + 4]
        return frozenset(
            f"{SUIT_ORDER[n]}{rank}" for n, holding in enumerate(suits) for rank in holding
        )

    def hands(self) -> dict[Seat, Hand]:
        """Every hand keyed so far."""
        return {seat: self.hand(index) for index, seat in enumerate(self.seats)}

    def _show(self, message: str = "") -> None:
        lines = []
        for index, seat in enumerate(self.seats):
            suits = self.holdings[index * 4 : index * 4 + 4]
            if not suits:
                break
            shown = "  ".join(
                SYMBOLS[SUIT_ORDER[n]] + ("".join(h).replace("T", "10") or "—")
                for n, h in enumerate(suits)
            )
            count = len(self.hand(index))
            lines.append(f"{i18n.seat_name(seat.value):<7} {shown}   ({count})")
        self.query_one("#deal-hands", Static).update("\n".join(lines))
        if self.answer is None:
            turn = _("{seat}: {suit}").format(
                seat=i18n.seat_name(self.seat.value), suit=SYMBOLS[self.suit]
            ) + (" 1_" if self.high else " _")
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
        if self.high:
            rank = HIGH_RANKS.get(key)
            if rank is None or rank == "T":
                self._show(_("After 1: 1 J, 2 Q, 3 K, 4 A."))
                return
            self.high = False
        elif key == "1":
            self.high = True
            self._show()
            return
        else:
            rank = "T" if key == "0" else key
        holding = self.holdings[-1]
        if rank in holding:
            shown = SYMBOLS[self.suit] + ("10" if rank == "T" else rank)
            self._show(_("{card} is keyed already.").format(card=shown))
            return
        if len(self.hand(len(self.holdings[:-1]) // 4)) >= 13:
            self._show(
                _("{seat} has 13 cards already: Enter.").format(
                    seat=i18n.seat_name(self.seat.value)
                )
            )
            return
        self.holdings[-1] = holding + rank
        self._show()

    def _next_suit(self) -> None:
        index = (len(self.holdings) - 1) // 4
        if self.suit == "C":
            count = len(self.hand(index))
            if count != 13:
                self._show(
                    _("{seat} has {count} cards: a hand has 13.").format(
                        seat=i18n.seat_name(self.seat.value), count=count
                    )
                )
                return
            if index == len(self.seats) - 1:
                self._send()
                return
        self.holdings.append("")
        self._show()

    def _undo(self) -> None:
        if self.high:
            self.high = False
        elif self.holdings[-1]:
            self.holdings[-1] = self.holdings[-1][:-1]
        elif len(self.holdings) > 1:
            self.holdings.pop()
        else:
            self.dismiss(None)
            return
        self._show()

    # ------------------------------------------------------------------ the server

    def _send(self) -> None:
        hands = self.hands()
        if self.mode == "enter":
            try:
                check_deal(hands)
            except BridgeError as error:
                seat = next((s for s in SEATS if len(hands[s]) != 13), Seat.N)
                self._show(
                    refusal_text(
                        error,
                        seat=i18n.seat_name(seat.value),
                        count=len(hands[seat]),
                        card=card_text(str(error.value)) if error.code == "card_twice" else "",
                    )
                )
                return
        self._show(_("Sending the deal to the server…"))
        self.run_worker(self._ask(hands), exclusive=True)

    async def _ask(self, hands: dict[Seat, Hand]) -> None:
        client = self.app.client  # type: ignore[attr-defined]
        try:
            if self.mode == "enter":
                ack = await client.enter_deal(self.board, format_deal(hands))
            else:
                ack = await client.check_deal(self.board, "N", format_hand(hands[Seat.N]))
        except ClientError as error:
            self._show(error.message)
            return
        self.answer = ack.state
        text = _(ACK_TEXT[ack.state])
        if ack.differences:
            text += "\n" + ", ".join(ack.differences)
        self.query_one("#deal-turn", Static).update("")
        self._show(text + "\n" + _("Any key = go on"))

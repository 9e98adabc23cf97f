"""North keys the auction call by call (issue 20), in the one grammar (protocol/keys_play.py):
level then suit for a bid, 0 pass, * double or redouble, + alerts the call just made. The
calls show as a grid under W N E S from the dealer; an illegal call is refused with its reason
and the auction ends by itself after the closing passes (Law 22A)."""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.bridge.auction import Auction, Call, IllegalCall
from protocol.bridge.enums import Seat
from protocol.keys import KeyRefusedError
from protocol.keys_play import read_call
from terminal import i18n
from terminal.bridge_words import call_text, key_hint, refusal_text
from terminal.i18n import N_, _

from .base import key_of

COLUMNS = (Seat.W, Seat.N, Seat.E, Seat.S)
CELL = 9
#: The terminal's alert key (the grammar's ALERT).
ALERT_KEY = "+"
HINTS = N_("bid = level, suit   0 pass   * X/XX   + alert   Backspace = undo")
SKIP_HINT = N_("Enter = go on without the auction")


def auction_grid(auction: Auction, pending: str = "") -> str:
    """The calls in rows under W N E S, the dealer's first call in the dealer's column, and
    ``pending`` (the keys of the call being made) in the next player's cell."""
    head = "".join(f"{i18n.seat(seat.value):<{CELL}}" for seat in COLUMNS)
    cells = [""] * COLUMNS.index(auction.dealer)
    cells += [call_text(call) for call in auction.calls]
    if not auction.ended:
        cells.append(pending + "_")
    rows = [cells[i : i + 4] for i in range(0, len(cells), 4)] or [[]]
    lines = [head] + ["".join(f"{cell:<{CELL}}" for cell in row).rstrip() for row in rows]
    return "\n".join(lines)


def outcome_words(auction: Auction) -> str:
    """ "The auction has ended: 3NT by South." """
    outcome = auction.outcome()
    if outcome.declarer is None:
        return _("The auction has ended: passed out.")
    return _("The auction has ended: {contract} by {declarer}.").format(
        contract=i18n.contract(str(outcome.contract)), declarer=i18n.seat_name(outcome.declarer)
    )


class AuctionScreen(ModalScreen[str | None]):
    """The calls of one board; dismissed with the auction's text (Auction.__str__) once it has
    ended, "" when North goes on without one (``optional``), None on Escape."""

    def __init__(self, board: int, dealer: str, *, optional: bool, calls: str = "") -> None:
        super().__init__()
        self.board = board
        self.optional = optional
        self.auction = Auction(dealer, calls.split())
        self.keys: tuple[str, ...] = ()

    def compose(self) -> ComposeResult:
        """The board, the grid, a message line and the keys."""
        with Vertical(id="auction", classes="dialog"):
            yield Static(
                _("Board {board}: the auction").format(board=self.board), classes="dialog-title"
            )
            yield Static("", id="auction-grid", classes="dialog-text", markup=False)
            yield Static("", id="auction-turn", classes="dialog-text")
            yield Static("", id="auction-message", classes="dialog-text", markup=False)
            yield Static("", id="auction-keys", classes="dialog-keys")

    def on_mount(self) -> None:
        """Draw the grid."""
        self._show()

    def _show(self, message: str = "") -> None:
        pending = " ".join(self.keys)
        self.query_one("#auction-grid", Static).update(auction_grid(self.auction, pending))
        turn = _("{seat} to call.").format(seat=i18n.seat_name(self.auction.to_call.value))
        self.query_one("#auction-turn", Static).update(turn)
        self.query_one("#auction-message", Static).update(message)
        hints = _(HINTS)
        if self.optional and not self.auction.calls and not self.keys:
            hints += "\n" + _(SKIP_HINT)
        self.query_one("#auction-keys", Static).update(hints)

    def on_key(self, event: events.Key) -> None:
        """One key of a call; the auction is returned as soon as it has ended."""
        key = key_of(event)
        event.stop()
        event.prevent_default()
        if key == "escape":
            self.dismiss(None)
        elif key == "backspace":
            self._undo()
        elif key == ALERT_KEY:
            if self.keys or not self.auction.calls:
                self._show(_("Make the call first, then + alerts it."))
            else:
                self.auction.mark_alert()
                self._show()
        elif key == "enter":
            if self.optional and not self.auction.calls and not self.keys:
                self.dismiss("")
            else:
                self._show(_("Key the next call; the auction ends by itself after the passes."))
        elif len(key) == 1:
            self._press(key)

    def _press(self, key: str) -> None:
        keys = (*self.keys, key)
        try:
            call = read_call(self.auction, keys)
        except KeyRefusedError as refusal:
            self.keys = ()
            self._show(key_hint(refusal))
            return
        except IllegalCall as error:
            self.keys = ()
            self._show(refusal_text(error, last=self._last_bid()))
            return
        if call is None:
            self.keys = keys
            self._show()
            return
        self.keys = ()
        self.auction.add(call)
        if self.auction.ended:
            self.dismiss(str(self.auction))
            return
        self._show()

    def _undo(self) -> None:
        if self.keys:
            self.keys = self.keys[:-1]
        elif self.auction.calls:
            self.auction = Auction(self.auction.dealer, self.auction.calls[:-1])
        else:
            self.dismiss(None)  # back to the board
            return
        self._show()

    def _last_bid(self) -> str:
        bid = next((c for c in reversed(self.auction.calls) if c.is_bid), None)
        return call_text(Call(bid.kind, bid.level, bid.strain)) if bid else ""

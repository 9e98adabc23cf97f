"""North keys the auction call by call, in the one grammar (protocol/keys_play.py):
level then suit for a bid, 0 pass, * double or redouble, + alerts the call just made, and +
again on an alerted call types its explanation (ExplainScreen; the terminal only, the keypad
keys no text). The calls show as a grid under W N E S from the dealer, the explained ones
listed under it; an illegal call is refused with its reason and the auction ends by itself
after the closing passes (Law 22A)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.widgets import Static

from protocol.bridge import BridgeError
from protocol.bridge.auction import Auction, Call, IllegalCall
from protocol.bridge.enums import Seat
from protocol.keys_play import read_call
from terminal import i18n
from terminal.bridge_words import call_text, refusal_text
from terminal.i18n import N_, _

from .explain import ExplainScreen
from .keyed_dialog import KeyedDialog

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


def explained_lines(auction: Auction, explanations: dict[int, str]) -> str:
    """The explained calls under the grid, one a line: "1NT!  12-14 balanced"."""
    lines = []
    for number, text in sorted(explanations.items()):
        if number <= len(auction.calls):
            lines.append(f"{call_text(auction.calls[number - 1])}  {text}")
    return "\n".join(lines)


def outcome_words(auction: Auction) -> str:
    """ "The auction has ended: 3NT by South." """
    outcome = auction.outcome()
    if outcome.declarer is None:
        return _("The auction has ended: passed out.")
    return _("The auction has ended: {contract} by {declarer}.").format(
        contract=i18n.contract(str(outcome.contract)), declarer=i18n.seat_name(outcome.declarer)
    )


class AuctionScreen(KeyedDialog[Call]):
    """The calls of one board; dismissed with the auction's text (Auction.__str__) once it has
    ended, "" when North goes on without one (``optional``), None on Escape."""

    DIALOG = "auction"
    REFUSED = IllegalCall

    def __init__(
        self,
        board: int,
        dealer: str,
        *,
        optional: bool,
        calls: str = "",
        explanations: dict[int, str] | None = None,
    ) -> None:
        super().__init__(board)
        self.optional = optional
        self.auction = Auction(dealer, calls.split())
        #: The explanations typed, call number (1 = the dealer's first call) -> text.
        self.explanations: dict[int, str] = dict(explanations or {})

    def heading(self) -> str:
        """ "Board 3: the auction"."""
        return _("Board {board}: the auction").format(board=self.board)

    def compose_lines(self) -> ComposeResult:
        """The grid and whose call it is."""
        yield Static("", id="auction-grid", classes="dialog-text", markup=False)
        yield Static("", id="auction-notes", classes="dialog-text", markup=False)
        yield Static("", id="auction-turn", classes="dialog-text")

    def show_lines(self) -> None:
        """The grid with the call being made, and whose call it is."""
        pending = " ".join(self.keys)
        self.query_one("#auction-grid", Static).update(auction_grid(self.auction, pending))
        notes = explained_lines(self.auction, self.explanations)
        self.query_one("#auction-notes", Static).update(notes)
        self.query_one("#auction-notes", Static).display = bool(notes)
        turn = _("{seat} to call.").format(seat=i18n.seat_name(self.auction.to_call.value))
        self.query_one("#auction-turn", Static).update(turn)

    def hints(self) -> str:
        """The keys of a call (and, before the first, how to go on without the auction)."""
        hints = _(HINTS)
        if self.optional and not self.auction.calls and not self.keys:
            hints += "\n" + _(SKIP_HINT)
        return hints

    def take_key(self, key: str) -> None:
        """+ alerts the call just made; Enter goes on without the auction (when it may)."""
        if key == ALERT_KEY:
            if self.keys or not self.auction.calls:
                self.show(_("Make the call first, then + alerts it."))
            elif self.auction.calls[-1].alert:
                self.explain()
            else:
                self.auction.mark_alert()
                call = call_text(self.auction.calls[-1])
                self.show(_("{call} alerted: + again to explain it.").format(call=call))
        elif key == "enter":
            if self.optional and not self.auction.calls and not self.keys:
                self.dismiss("")
            else:
                self.show(_("Key the next call; the auction ends by itself after the passes."))
        elif len(key) == 1:
            self.press(key)

    def explain(self) -> None:
        """Type the explanation of the alerted call just made (or change it)."""
        number = len(self.auction.calls)
        call = call_text(self.auction.calls[-1])
        screen = ExplainScreen(self.board, call, self.explanations.get(number, ""))

        def typed(text: str | None) -> None:
            if text is None:
                self.show()
                return
            if text:
                self.explanations[number] = text
            else:
                self.explanations.pop(number, None)
            self.show()

        self.app.push_screen(screen, typed)

    def read(self, keys: tuple[str, ...]) -> Call | None:
        """The call the keys make (IllegalCall when the auction does not allow it)."""
        return read_call(self.auction, keys)

    def add(self, item: Call) -> None:
        """Make the call."""
        self.auction.add(item)

    def finished(self) -> str | None:
        """The auction's text once it has ended."""
        return str(self.auction) if self.auction.ended else None

    def refusal(self, error: BridgeError) -> str:
        """Why the call is not allowed (above which bid)."""
        return refusal_text(error, last=self._last_bid())

    def take_back(self) -> bool:
        """Take back the last call."""
        if not self.auction.calls:
            return False
        self.explanations.pop(len(self.auction.calls), None)
        self.auction = Auction(self.auction.dealer, self.auction.calls[:-1])
        return True

    def _last_bid(self) -> str:
        bid = next((c for c in reversed(self.auction.calls) if c.is_bid), None)
        return call_text(Call(bid.kind, bid.level, bid.strain)) if bid else ""

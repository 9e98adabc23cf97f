"""East's confirmation (§ 262B3): the whole result on one screen; confirm, or reject to North."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Literal

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.bridge.auction import Call
from protocol.messages import BoardResultView, BoardStatus
from terminal import i18n
from terminal.bridge_words import call_text
from terminal.i18n import N_, _
from terminal.keypad import SYMBOLS

from .base import key_of

VULNERABLE = {
    "NONE": N_("nobody vulnerable"),
    "NS": N_("N/S vulnerable"),
    "EW": N_("E/W vulnerable"),
    "BOTH": N_("both vulnerable"),
}
#: § 262B3 in the regulations' words (the Danish catalogue has the original text).
REGULATION_CONFIRM = N_(
    "§ 262B3: A player of the other side, usually East, confirms that the information entered "
    "is correct."
)


@dataclass(frozen=True)
class EastAnswer:
    """What East decided, with the PIN keyed if one was asked."""

    decision: Literal["confirm", "reject"]
    pin: str | None = None


def board_line(status: BoardStatus) -> str:
    """ "Board 5 · dealer North · N/S vulnerable" """
    vul = _(VULNERABLE[status.vulnerability])
    return _("Board {board}  ·  dealer {dealer}  ·  {vulnerable}").format(
        board=status.board, dealer=i18n.seat_name(status.dealer), vulnerable=vul
    )


def card_text(card: str | None) -> str:
    """ "SA" -> "♠A", "HT" -> "♥10" """
    if not card:
        return ""
    rank = "10" if card[1:] == "T" else card[1:]
    return SYMBOLS.get(card[0], card[0]) + rank


def score_line(view: BoardResultView) -> str:
    """ "N/S +420    E/W -420" """
    return i18n.score_line(view.ns_score)


def view_words(view: BoardResultView) -> str:
    """The result in words in the language in use ("4♠ by South, made, N/S +420")."""
    return i18n.result_words(
        view.contract, view.declarer, view.tricks, view.ns_score, english=view.description
    )


def auction_line(dealer: str, text: str) -> str:
    """ "Auction (dealer North): 1♣  Pass  1♥!  Pass ..." """
    calls = "  ".join(call_text(Call.parse(word)) for word in text.split())
    return _("Auction (dealer {dealer}): {calls}").format(
        dealer=i18n.seat_name(dealer), calls=calls
    )


def alerts_line(view: BoardResultView) -> str:
    """ "Alerts: 1NT! 12-14 balanced; 2♦! transfer" (the explanations keyed with the auction)."""
    calls = [Call.parse(word) for word in (view.auction or "").split()]
    notes = [
        f"{call_text(calls[note.call - 1])} {note.text}"
        for note in view.alerts or ()
        if note.call <= len(calls)
    ]
    return _("Alerts: {notes}").format(notes="; ".join(notes))


def play_line(view: BoardResultView) -> str:
    """ "Play keyed: 52 of 52 cards, declarer's tricks: 9" or "... 5 of 52 cards, then a claim
    of 9" (counted in cards: no plural forms to get wrong)."""
    tokens = (view.play or "").split()
    claim = tokens[-1][1:] if tokens and tokens[-1].startswith("=") else None
    cards = len(tokens) - (1 if claim is not None else 0)
    if claim is not None:
        return _("Play keyed: {cards} of 52 cards, then a claim of {claim}").format(
            cards=cards, claim=claim
        )
    return _("Play keyed: {cards} of 52 cards, declarer's tricks: {won}").format(
        cards=cards, won=view.tricks if view.tricks is not None else "?"
    )


class ConfirmScreen(ModalScreen[EastAnswer | None]):
    """East checks the result North sent; Enter confirms, Backspace rejects (protocol/keys.md;
    Enter is ignored at first)."""

    def __init__(
        self, status: BoardStatus, view: BoardResultView, *, pin_required: bool, guard: float
    ) -> None:
        super().__init__()
        self.status = status
        self.view = view
        self.pin_required = pin_required
        self.guard = guard
        self.pin = ""
        self.opened = time.monotonic()

    def compose(self) -> ComposeResult:
        """Who must act, the board, the result in words, the score, the PIN and the keys."""
        view = self.view
        with Vertical(id="confirm", classes="dialog"):
            yield Static(_("EAST: please check this result"), classes="dialog-title")
            yield Static(_(REGULATION_CONFIRM), classes="dialog-text")
            yield Static(board_line(self.status), classes="dialog-text")
            yield Static(view_words(view), id="confirm-words", classes="big")
            if view.lead:
                yield Static(
                    _("Opening lead {card}").format(card=card_text(view.lead)),
                    classes="dialog-text",
                )
            if view.auction:
                yield Static(auction_line(self.status.dealer, view.auction), classes="dialog-text")
                if view.alerts:
                    yield Static(alerts_line(view), classes="dialog-text", markup=False)
            if view.play:
                yield Static(play_line(view), classes="dialog-text")
            if view.ruling_pending:
                yield Static(_("A TD ruling is pending on this board."), classes="dialog-text")
            yield Static(score_line(view), id="confirm-score", classes="big")
            if self.pin_required:
                yield Static("", id="pin")
            yield Static("", id="confirm-message", classes="dialog-text")
            yield Static(
                _("Enter = CONFIRM        Backspace = REJECT (back to North)"),
                classes="dialog-keys",
            )

    def on_mount(self) -> None:
        """Show the PIN field."""
        self._show_pin()

    def _show_pin(self) -> None:
        if self.pin_required:
            dots = "•" * len(self.pin) or "_"
            self.query_one("#pin", Static).update(_("E/W PIN:") + f"  {dots}")

    def on_key(self, event: events.Key) -> None:
        """Enter confirms, Backspace rejects (after deleting any PIN digits), digits key the PIN."""
        key = key_of(event)
        event.stop()
        if key == "enter":
            if time.monotonic() - self.opened < self.guard:
                return  # a second Enter from North's hand, not East's answer
            if self.pin_required and not self.pin:
                self.query_one("#confirm-message", Static).update(_("East: key the E/W PIN first."))
                return
            self.dismiss(EastAnswer("confirm", self.pin or None))
        elif key == "backspace" and self.pin:
            self.pin = self.pin[:-1]
            self._show_pin()
        elif key in ("backspace", "-"):
            self.dismiss(EastAnswer("reject"))  # the grammar's reject ("-" from habit)
        elif key.isdigit() and self.pin_required and len(self.pin) < 8:
            self.pin += key
            self._show_pin()
        elif key == "escape":
            self.dismiss(None)

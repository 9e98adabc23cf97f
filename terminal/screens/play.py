"""North keys the play card by card (issue 20), in the one grammar (protocol/keys_play.py):
suit then rank, the rank alone when the suit led is implied (the deal known at this table), OK
for the only card, * tricks OK a claim. Trick winners and the tricks total show as it goes; the
play ends by itself after 13 tricks or a claim.

The terminal knows the deal only when this table keyed it itself (it never receives it from the
server, protocol/fair_play.py): then a card not in the hand and a revoke are refused here;
otherwise the server checks the play when the entry arrives and its refusal is shown."""

from __future__ import annotations

from collections.abc import Mapping

from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from protocol.bridge import BridgeError
from protocol.bridge.deal import Hand
from protocol.bridge.enums import Seat, Strain
from protocol.bridge.play import Play, format_play, parse_play
from protocol.keys import KeyRefusedError
from protocol.keys_play import Claim, read_card
from terminal import i18n
from terminal.bridge_words import card_text, key_hint, refusal_text
from terminal.i18n import N_, _

from .base import key_of

HINTS = N_("card = suit, rank (2-9, 0 ten, 11 J … 14 A)   * n Enter = claim   Backspace = undo")
SKIP_HINT = N_("Enter = go on without the play")
#: Tricks shown above the one being played.
SHOWN_TRICKS = 6


def trick_lines(play: Play) -> list[str]:
    """One line a trick: its number, the cards from the leader, and who won it."""
    lines = []
    for number, trick in enumerate(play.tricks, start=1):
        if not trick.cards:
            continue
        cards = "  ".join(f"{i18n.seat(s.value)} {card_text(card)}" for s, card in trick.cards)
        line = f"{number:>2}. {cards}"
        if trick.complete:
            winner = trick.winner(play.strain)
            line += "   → " + i18n.seat_name(winner.value)
        lines.append(line)
    return lines[-SHOWN_TRICKS:]


def tricks_total(play: Play) -> str:
    """ "Declarer 5, defence 2" (declarer's side's tricks and the defenders')."""
    done = sum(1 for trick in play.tricks if trick.complete)
    won = play.declarer_tricks()
    return _("Tricks: declarer {won}, defence {lost}").format(won=won, lost=done - won)


class PlayScreen(ModalScreen[str | None]):
    """The cards of one board; dismissed with the play's text (format_play) once it has ended,
    "" when North goes on without it, None to go back (Backspace with nothing played)."""

    def __init__(
        self,
        board: int,
        strain: str,
        declarer: str,
        hands: Mapping[Seat, Hand] | None = None,
        *,
        text: str = "",
    ) -> None:
        super().__init__()
        self.board = board
        self.strain = strain
        self.declarer = declarer
        self.hands = hands
        self.play = parse_play(text, strain, declarer, hands) if text else self._fresh()
        self.keys: tuple[str, ...] = ()

    def _fresh(self) -> Play:
        return Play(self.strain, self.declarer, self.hands)

    def compose(self) -> ComposeResult:
        """The board, the tricks so far, the total, a message line and the keys."""
        with Vertical(id="play", classes="dialog"):
            yield Static(
                _("Board {board}: the play").format(board=self.board), classes="dialog-title"
            )
            yield Static("", id="play-tricks", classes="dialog-text", markup=False)
            yield Static("", id="play-total", classes="dialog-text")
            yield Static("", id="play-turn", classes="dialog-text", markup=False)
            yield Static("", id="play-message", classes="dialog-text", markup=False)
            yield Static("", id="play-keys", classes="dialog-keys")

    def on_mount(self) -> None:
        """Draw the tricks."""
        self._show()

    @property
    def started(self) -> bool:
        """Whether any card (or key) has been keyed."""
        return bool(self.keys or self.play.tricks[0].cards)

    def _show(self, message: str = "") -> None:
        lines = trick_lines(self.play) or [
            _("The opening lead is made by {seat}.").format(
                seat=i18n.seat_name(self.play.to_play.value)
            )
        ]
        self.query_one("#play-tricks", Static).update("\n".join(lines))
        self.query_one("#play-total", Static).update(tricks_total(self.play))
        turn = _("{seat} to play.").format(seat=i18n.seat_name(self.play.to_play.value))
        if self.keys:
            turn += "  " + " ".join(self.keys) + "_"
        self.query_one("#play-turn", Static).update(turn)
        self.query_one("#play-message", Static).update(message)
        hints = _(HINTS)
        if not self.started:
            hints += "\n" + _(SKIP_HINT)
        self.query_one("#play-keys", Static).update(hints)

    def on_key(self, event: events.Key) -> None:
        """One key of a card or a claim; the play is returned as soon as it has ended."""
        key = key_of(event)
        event.stop()
        event.prevent_default()
        if key == "escape":
            self.dismiss(None)
        elif key == "backspace":
            self._undo()
        elif key == "enter" and not self.started:
            self.dismiss("")
        elif key == "enter" or len(key) == 1:
            self._press(key)

    def _press(self, key: str) -> None:
        keys = (*self.keys, key)
        try:
            card = read_card(self.play, keys)
        except KeyRefusedError as refusal:
            self.keys = ()
            self._show(key_hint(refusal))
            return
        except BridgeError as error:
            self.keys = ()
            self._show(self._refusal(error))
            return
        if card is None:
            self.keys = keys
            self._show()
            return
        self.keys = ()
        try:
            if isinstance(card, Claim):
                self.play.claim(card.tricks)
            else:
                self.play.play(card)
        except BridgeError as error:
            self._show(self._refusal(error))
            return
        if self.play.ended:
            self.dismiss(format_play(self.play))
            return
        self._show()

    def _refusal(self, error: BridgeError) -> str:
        led = self.play.tricks[-1].suit_led
        won = self.play.declarer_tricks()
        done = sum(1 for trick in self.play.tricks if trick.complete)
        suit = i18n.strain(Strain(led).value) if led else ""
        return refusal_text(error, suit=suit, won=won, most=won + 13 - done)

    def _undo(self) -> None:
        if self.keys:
            self.keys = self.keys[:-1]
        elif self.play.tricks[0].cards:
            cards = format_play(self.play).split()[:-1]
            self.play = parse_play(" ".join(cards), self.strain, self.declarer, self.hands)
        else:
            self.dismiss(None)
            return
        self._show()

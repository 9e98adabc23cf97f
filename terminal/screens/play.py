"""North keys the play card by card, in the one grammar (protocol/keys_play.py):
suit then rank, the rank alone when the suit led is implied (the deal known at this table), OK
for the only card, * tricks OK a claim. Trick winners and the tricks total show as it goes; the
play ends by itself after 13 tricks or a claim.

The terminal knows the deal only when this table keyed it itself (it never receives it from the
server, protocol/fair_play.py): then a card not in the hand and a revoke are refused here;
otherwise the server checks the play when the entry arrives and its refusal is shown."""

from __future__ import annotations

from collections.abc import Mapping

from textual.app import ComposeResult
from textual.widgets import Static

from protocol.bridge import BridgeError
from protocol.bridge.deal import Hand
from protocol.bridge.enums import Seat, Strain
from protocol.bridge.play import Play, format_play, parse_play
from protocol.keys_play import Claim, read_card
from terminal import i18n
from terminal.bridge_words import card_text, refusal_text
from terminal.i18n import N_, _

from .keyed_dialog import KeyedDialog

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


class PlayScreen(KeyedDialog[str | Claim]):
    """The cards of one board; dismissed with the play's text (format_play) once it has ended,
    "" when North goes on without it, None to go back (Backspace with nothing played)."""

    DIALOG = "play"

    def __init__(
        self,
        board: int,
        strain: str,
        declarer: str,
        hands: Mapping[Seat, Hand] | None = None,
        *,
        text: str = "",
    ) -> None:
        super().__init__(board)
        self.strain = strain
        self.declarer = declarer
        self.hands = hands
        self.play = parse_play(text, strain, declarer, hands) if text else self._fresh()

    def _fresh(self) -> Play:
        return Play(self.strain, self.declarer, self.hands)

    @property
    def started(self) -> bool:
        """Whether any card (or key) has been keyed."""
        return bool(self.keys or self.play.tricks[0].cards)

    def heading(self) -> str:
        """ "Board 3: the play"."""
        return _("Board {board}: the play").format(board=self.board)

    def compose_lines(self) -> ComposeResult:
        """The tricks so far, the total and whose card it is."""
        yield Static("", id="play-tricks", classes="dialog-text", markup=False)
        yield Static("", id="play-total", classes="dialog-text")
        yield Static("", id="play-turn", classes="dialog-text", markup=False)

    def show_lines(self) -> None:
        """The tricks (or who leads), the total, and whose card it is with the keys so far."""
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

    def hints(self) -> str:
        """The keys of a card (and, before the first, how to go on without the play)."""
        hints = _(HINTS)
        if not self.started:
            hints += "\n" + _(SKIP_HINT)
        return hints

    def take_key(self, key: str) -> None:
        """Enter before any card goes on without the play; else a key of a card or a claim."""
        if key == "enter" and not self.started:
            self.dismiss("")
        elif key == "enter" or len(key) == 1:
            self.press(key)

    def read(self, keys: tuple[str, ...]) -> str | Claim | None:
        """The card or claim the keys make (BridgeError when the play does not allow it)."""
        return read_card(self.play, keys)

    def add(self, item: str | Claim) -> None:
        """Play the card, or make the claim."""
        if isinstance(item, Claim):
            self.play.claim(item.tricks)
        else:
            self.play.play(item)

    def finished(self) -> str | None:
        """The play's text once it has ended."""
        return format_play(self.play) if self.play.ended else None

    def refusal(self, error: BridgeError) -> str:
        """Why the card or claim is not allowed (the suit led, the tricks left)."""
        led = self.play.tricks[-1].suit_led
        won = self.play.declarer_tricks()
        done = sum(1 for trick in self.play.tricks if trick.complete)
        suit = i18n.strain(Strain(led).value) if led else ""
        return refusal_text(error, suit=suit, won=won, most=won + 13 - done)

    def take_back(self) -> bool:
        """Take back the last card."""
        if not self.play.tricks[0].cards:
            return False
        cards = format_play(self.play).split()[:-1]
        self.play = parse_play(" ".join(cards), self.strain, self.declarer, self.hands)
        return True

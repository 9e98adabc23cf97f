"""The play: cards trick by trick, checked as the Laws say, with the trick winners and a claim.

- Law 41C / 54: the player on declarer's left makes the opening lead.
- Law 44C: each player must follow suit if able; otherwise any card may be played (Law 44D).
  A card of another suit while holding the suit led is a revoke (Law 61), refused here when the
  deal is known.
- Law 44E/F: a trick with a trump is won by the highest trump, else by the highest card of the
  suit led; the winner leads to the next trick (Law 44G).
- Law 68: a claim ends the play; the claimed tricks are declarer's total.

Without the deal (a hand-dealt board not yet keyed) the checks that need it are left out, but a
card played twice is still refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from .card import RANKS, parse_card
from .deal import Hand
from .enums import Seat, Strain
from .errors import BridgeError


class IllegalPlay(BridgeError):  # noqa: N818 (public API name, like the other errors)
    """A card that may not be played now."""

    default_code = "illegal_play"


@dataclass(slots=True)
class Trick:
    """One trick: who led, and the cards in the order played."""

    leader: Seat
    cards: list[tuple[Seat, str]] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return len(self.cards) == 4

    @property
    def suit_led(self) -> str | None:
        return self.cards[0][1][0] if self.cards else None

    def winner(self, trumps: Strain | None) -> Seat:
        """Law 44E/F: the highest trump, else the highest card of the suit led."""
        if not self.complete:
            raise IllegalPlay("the trick is not complete", None, code="trick_open")
        trump = trumps.value if trumps is not None and trumps is not Strain.NT else None
        led = self.suit_led

        def strength(item: tuple[Seat, str]) -> tuple[int, int]:
            card = item[1]
            suit_rank = 2 if card[0] == trump else 1 if card[0] == led else 0
            return (suit_rank, -RANKS.index(card[1]))

        return max(self.cards, key=strength)[0]


class Play:
    """The play of one board: the contract's strain and declarer, the deal if known."""

    def __init__(
        self, strain: Strain | str, declarer: Seat | str, hands: Mapping[Seat, Hand] | None = None
    ) -> None:
        self.strain = Strain.parse(strain)
        self.declarer = Seat.parse(declarer)
        self.hands = dict(hands) if hands is not None else None
        self.tricks: list[Trick] = [Trick(self.declarer.lho)]
        self.claimed: int | None = None
        self._played: set[str] = set()

    @property
    def ended(self) -> bool:
        return self.claimed is not None or (len(self.tricks) == 13 and self.tricks[-1].complete)

    @property
    def to_play(self) -> Seat:
        trick = self.tricks[-1]
        seat = trick.leader
        for _ in range(len(trick.cards)):
            seat = seat.lho
        return seat

    def held(self, seat: Seat) -> Hand | None:
        """The cards `seat` still holds (None without the deal)."""
        if self.hands is None:
            return None
        return frozenset(self.hands[seat] - self._played)

    def legal(self, card: str) -> str:
        """The card read and checked for the player to play; IllegalPlay with the reason."""
        if self.ended:
            raise IllegalPlay(f"{card}: the play has ended", card, code="play_ended")
        canonical = parse_card(card)
        seat = self.to_play
        if canonical in self._played:
            raise IllegalPlay(f"{canonical} has already been played", canonical, code="card_played")
        held = self.held(seat)
        if held is not None:
            if canonical not in held:
                raise IllegalPlay(
                    f"{canonical} is not in {seat.name_en}'s hand", canonical, code="not_in_hand"
                )
            led = self.tricks[-1].suit_led
            if led is not None and canonical[0] != led and any(c[0] == led for c in held):
                raise IllegalPlay(
                    f"{canonical}: {seat.name_en} must follow suit ({Strain(led).name_en})",
                    canonical,
                    code="revoke",
                )
        return canonical

    def play(self, card: str) -> Seat | None:
        """Play the next card (checked). Returns the trick's winner when it completes it."""
        canonical = self.legal(card)
        trick = self.tricks[-1]
        trick.cards.append((self.to_play, canonical))
        self._played.add(canonical)
        if not trick.complete:
            return None
        winner = trick.winner(self.strain)
        if len(self.tricks) < 13:
            self.tricks.append(Trick(winner))
        return winner

    def won(self) -> dict[Seat, int]:
        """Completed tricks won, by the seat that won them."""
        count = dict.fromkeys(Seat, 0)
        for trick in self.tricks:
            if trick.complete:
                count[trick.winner(self.strain)] += 1
        return count

    def declarer_tricks(self) -> int:
        """The tricks declarer's side has won so far (the claim when there is one)."""
        if self.claimed is not None:
            return self.claimed
        won = self.won()
        return won[self.declarer] + won[self.declarer.partner]

    def claim(self, declarer_total: int) -> None:
        """Law 68: a claim (or concession) ends the play with declarer's total tricks, which
        cannot be fewer than declarer has already won nor more than remain possible."""
        if self.ended:
            raise IllegalPlay("the play has ended", declarer_total, code="play_ended")
        won = self.declarer_tricks()
        complete = sum(1 for trick in self.tricks if trick.complete)
        most = won + (13 - complete)
        if not won <= declarer_total <= most:
            raise IllegalPlay(
                f"a claim of {declarer_total} tricks: declarer has {won} and can have at most "
                f"{most}",
                declarer_total,
                code="bad_claim",
            )
        self.claimed = declarer_total


def parse_pbn_play(
    opening_leader: Seat | str,
    text: str,
    strain: Strain | str,
    declarer: Seat | str,
    hands: Mapping[Seat, Hand] | None = None,
) -> Play:
    """The play of a PBN `[Play]` section (PBN 2.1 § 3.5.2): one line a trick, the cards in
    seat order clockwise from the opening leader (whoever led the trick), "-" for a card not
    played (the play stopped), "*" the end. IllegalPlay on a card the rules refuse."""
    first = Seat.parse(opening_leader)
    play = Play(strain, declarer, hands)
    if play.declarer.lho is not first:
        raise IllegalPlay(
            f"the opening lead is made by {play.declarer.lho.name_en}, not {first.name_en}",
            first.value,
            code="wrong_leader",
        )
    columns = (first, first.lho, first.partner, first.rho)
    for line in text.splitlines():
        tokens = [t for t in line.split() if not t.startswith(("=", "$"))]
        if not tokens or tokens[0] == "*":
            if tokens:
                break
            continue
        cards = dict(zip(columns, tokens, strict=False))
        for _ in range(4):
            if play.ended:
                break
            token = cards.get(play.to_play, "-")
            if token in ("-", "*"):
                return play
            play.play(token)
    return play


def format_play(play: Play) -> str:
    """The play as table-side text: the cards in the order played from the opening lead,
    space-separated ("HK H2 H4 HA ..."), and "=n" last for a claim of n tricks in all."""
    cards = [card for trick in play.tricks for _, card in trick.cards]
    if play.claimed is not None:
        cards.append(f"={play.claimed}")
    return " ".join(cards)


def parse_play(
    text: str,
    strain: Strain | str,
    declarer: Seat | str,
    hands: Mapping[Seat, Hand] | None = None,
) -> Play:
    """The play of `text` (format_play's form) replayed and checked card by card: IllegalPlay
    with the reason for the first card the rules refuse, or a claim that is not last."""
    play = Play(strain, declarer, hands)
    tokens = text.split()
    for index, token in enumerate(tokens):
        if token.startswith("="):
            if index != len(tokens) - 1:
                raise IllegalPlay(f"{token}: a claim ends the play", token, code="claim_not_last")
            try:
                total = int(token[1:])
            except ValueError:
                raise IllegalPlay(f"{token}: not a claim", token, code="bad_claim") from None
            play.claim(total)
        else:
            play.play(token)
    return play

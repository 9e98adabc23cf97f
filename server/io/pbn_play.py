"""PBN 2.1 [Auction] and [Play] sections (https://www.tistis.nl/pbn/pbn_v21.txt §3.5, §3.6) to
and from a traveller line's auction and play.

- §3.5 Auction section: the tag's value is the dealer; the calls follow in rotation, "Pass",
  "X", "XX" and the bids, four a line. An alerted call is written with a note reference "=n="
  after it and a ``[Note "n:Alert"]`` tag (§3.5.4 "Notes"), the form the standard keeps in its
  export format (the "!" suffix is an import-format annotation, "good call", §3.5.2). On import
  both "=n=" and "!" mark the call alerted (``protocol.bridge.auction.parse_pbn_auction``).
- §3.6 Play section: the tag's value is the opening leader; each line is a trick, the cards in
  the columns of the seats clockwise from the opening leader (not in the order played), "-" for
  a card not played and "*" where the play stops. A play that stops early is ended by a claim of
  the [Result] tricks, as the table would have claimed.

The line holds the texts as ``Result`` does: the auction as canonical calls from the dealer
("1C 1NT! P 3NT P P P"), the play as ``format_play`` writes it. Both are checked with the
protocol modules on import; a broken one is refused with its place and the line is kept
without it.
"""

from __future__ import annotations

from protocol.bridge import BridgeError, Contract, Seat
from protocol.bridge.auction import Auction, Call, parse_pbn_auction
from protocol.bridge.deal import parse_deal
from protocol.bridge.play import Play, format_play, parse_pbn_play, parse_play

from .pbn_syntax import Game, quote

ALERT_NOTE = "Alert"
"""The text of the [Note] an alerted call refers to."""


# --- reading -------------------------------------------------------------------------------------


class SectionError(ValueError):
    """An [Auction] or [Play] section that cannot be read: the reason and the section's line."""

    def __init__(self, reason: str, line: int | None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.line = line


def _body(game: Game, tag: str) -> str:
    return "\n".join(text for _, text in game.rows.get(tag, []))


def _contract_words(contract: Contract, declarer: Seat | None) -> str:
    if contract.strain is None:
        return "passed out"
    return f"{contract} by {declarer.value if declarer else '?'}"


def read_auction(game: Game, contract: str | None, declarer: str | None) -> str | None:
    """The game's [Auction] as canonical calls, or None without one. SectionError when a call
    is illegal, the auction does not end, or it ends in another contract than the line's."""
    if "Auction" not in game.tags:
        return None
    where = game.lines.get("Auction")
    body = _body(game, "Auction")
    if not body.strip():
        return None
    try:
        auction = parse_pbn_auction(game.tags["Auction"].strip(), body)
    except BridgeError as exc:
        raise SectionError(f"the auction: {exc}", where) from None
    if not auction.ended:
        raise SectionError(f"the auction {auction} does not end (Law 22A)", where)
    outcome = auction.outcome()
    if contract is not None:
        keyed = Contract.parse(contract)
        seat = None if keyed.strain is None else Seat.parse(declarer or "")
        if (keyed, seat) != (outcome.contract, outcome.declarer):
            raise SectionError(
                f"the auction ends in {_contract_words(outcome.contract, outcome.declarer)}, "
                f"the result says {_contract_words(keyed, seat)}",
                where,
            )
    return str(auction)


def read_play(
    game: Game, contract: str | None, declarer: str | None, tricks: int | None, deal: str | None
) -> str | None:
    """The game's [Play] as ``format_play`` text, or None without one. A play that stops early
    is claimed at the line's tricks. SectionError when a card is refused (not in the hand, a
    revoke, the wrong opening leader), or the play and the result disagree."""
    if "Play" not in game.tags:
        return None
    where = game.lines.get("Play")
    body = _body(game, "Play")
    if not body.strip():
        return None
    if contract is None or declarer is None or contract == "PASS":
        raise SectionError("a [Play] without a contract played", where)
    strain = Contract.parse(contract).strain
    assert strain is not None
    try:
        hands = parse_deal(deal) if deal else None
        play = parse_pbn_play(game.tags["Play"].strip(), body, strain, declarer, hands)
        if not play.ended:
            if tricks is None:
                raise SectionError(
                    "the play stops before the end and the result is not given", where
                )
            play.claim(tricks)
    except BridgeError as exc:
        raise SectionError(f"the play: {exc}", where) from None
    if tricks is not None and play.declarer_tricks() != tricks:
        raise SectionError(
            f"the play gives declarer {play.declarer_tricks()} tricks, the result {tricks}", where
        )
    return format_play(play)


# --- writing -------------------------------------------------------------------------------------


def _call_word(call: Call) -> str:
    if call.kind == "P":
        return "Pass"
    if call.is_bid and call.strain is not None:
        return f"{call.level}{call.strain.value}"
    return call.kind


def auction_section(dealer: str, text: str) -> list[str]:
    """The [Auction] tag, the calls four a line, and a [Note] per alerted call."""
    auction = Auction(dealer, text.split())
    words: list[str] = []
    notes: list[str] = []
    for call in auction.calls:
        word = _call_word(call)
        if call.alert:
            notes.append(f"{len(notes) + 1}:{ALERT_NOTE}")
            word += f" ={len(notes)}="
        words.append(word)
    out = [f"[Auction {quote(auction.dealer.value)}]"]
    for start in range(0, len(words), 4):
        out.append(" ".join(words[start : start + 4]))
    out.extend(f"[Note {quote(note)}]" for note in notes)
    return out


def play_section(contract: str, declarer: str, text: str, deal: str | None) -> list[str]:
    """The [Play] tag and a line a trick in the opening leader's columns; "*" when the play
    stops before thirteen tricks (a claim: the [Result] gives the tricks)."""
    strain = Contract.parse(contract).strain
    assert strain is not None
    play: Play = parse_play(text, strain, declarer, parse_deal(deal) if deal else None)
    first = play.declarer.lho
    columns = (first, first.lho, first.partner, first.rho)
    out = [f"[Play {quote(first.value)}]"]
    complete = 0
    for trick in play.tricks:
        if not trick.cards:
            continue
        complete += trick.complete
        held = dict(trick.cards)
        out.append(" ".join(held.get(seat, "-") for seat in columns))
    if complete < 13:
        out.append("*")
    return out

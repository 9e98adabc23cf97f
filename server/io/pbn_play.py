"""PBN 2.1 [Auction] and [Play] sections (https://www.tistis.nl/pbn/pbn_v21.txt §3.5, §3.6) to
and from a traveller line's auction and play.

- §3.5 Auction section: the tag's value is the dealer; the calls follow in rotation, "Pass",
  "X", "XX" and the bids, four a line. An alerted call is written with a note reference "=n="
  after it and a ``[Note "n:text"]`` tag (§3.5.4 "Notes"): the table's explanation of the call
  when it keyed one, else "Alert". That is the form the standard keeps in its export format
  (the "!" suffix is an import-format annotation, "good call", §3.5.2). On import both "=n="
  and "!" mark the call alerted (``protocol.bridge.auction.parse_pbn_auction``).
- §3.6 Play section: the tag's value is the opening leader; each line is a trick, the cards in
  the columns of the seats clockwise from the opening leader (not in the order played), "-" for
  a card not played and "*" where the play stops. A play that stops early is ended by a claim of
  the [Result] tricks, as the table would have claimed.

The line holds the texts as ``Result`` does (``played``); both are checked there on import,
and a broken one is refused with its place and the line is kept without it.
"""

from __future__ import annotations

from collections.abc import Mapping

from protocol.alerts import ALERT_TEXT
from protocol.bridge import Contract
from protocol.bridge.auction import Auction, Call, parse_pbn_auction
from protocol.bridge.play import Play, parse_pbn_play, parse_play
from protocol.text import neutral

from .pbn_syntax import Game, quote
from .played import PlayedError, auction_text, hands_of, play_text

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


def read_auction(game: Game, contract: str | None, declarer: str | None) -> str | None:
    """The game's [Auction] as canonical calls, or None without one. SectionError when a call
    is illegal, the auction does not end, or it ends in another contract than the line's."""
    body = _body(game, "Auction")
    if "Auction" not in game.tags or not body.strip():
        return None
    dealer = game.tags["Auction"].strip()
    try:
        return auction_text(lambda: parse_pbn_auction(dealer, body), contract, declarer)
    except PlayedError as exc:
        raise SectionError(str(exc), game.lines.get("Auction")) from None


def read_explanations(game: Game) -> dict[int, str]:
    """The explanations the game's [Auction] refers to with "=n=" notes, call number (1 = the
    dealer's first call) -> text; a note that only says "Alert" explains nothing. The text is
    made one safe line (``protocol.text.neutral``) and cut to an explanation's length."""
    out: dict[int, str] = {}
    calls = 0
    for token in _body(game, "Auction").split():
        if token.startswith("=") and token.endswith("=") and len(token) > 2:
            text = neutral(game.notes.get(token[1:-1], "")).strip()[:ALERT_TEXT].strip()
            if calls and text and text.casefold() != ALERT_NOTE.casefold():
                out[calls] = text
        elif token.startswith("$"):
            continue
        elif token in ("*", "+", "-") or token.upper() == "AP":
            break  # the rest are passes or unknown calls: nothing more to explain
        else:
            calls += 1
    return out


def read_play(
    game: Game, contract: str | None, declarer: str | None, tricks: int | None, deal: str | None
) -> str | None:
    """The game's [Play] as ``format_play`` text, or None without one. A play that stops early
    is claimed at the line's tricks. SectionError when a card is refused (not in the hand, a
    revoke, the wrong opening leader), or the play and the result disagree."""
    body = _body(game, "Play")
    if "Play" not in game.tags or not body.strip():
        return None
    leader = game.tags["Play"].strip()

    def build(played: Contract, seat: str) -> Play:
        assert played.strain is not None
        return parse_pbn_play(leader, body, played.strain, seat, hands_of(deal))

    try:
        return play_text(build, contract, declarer, tricks)
    except PlayedError as exc:
        raise SectionError(str(exc), game.lines.get("Play")) from None


# --- writing -------------------------------------------------------------------------------------


def _call_word(call: Call) -> str:
    if call.kind == "P":
        return "Pass"
    if call.is_bid and call.strain is not None:
        return f"{call.level}{call.strain.value}"
    return call.kind


def auction_section(
    dealer: str, text: str, explanations: Mapping[int, str] | None = None
) -> list[str]:
    """The [Auction] tag, the calls four a line, and a [Note] per alerted call: the table's
    explanation of it (``explanations``: call number -> text), else "Alert"."""
    auction = Auction(dealer, text.split())
    explained = explanations or {}
    words: list[str] = []
    notes: list[str] = []
    for number, call in enumerate(auction.calls, start=1):
        word = _call_word(call)
        if call.alert:
            notes.append(f"{len(notes) + 1}:{explained.get(number) or ALERT_NOTE}")
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
    play: Play = parse_play(text, strain, declarer, hands_of(deal))
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

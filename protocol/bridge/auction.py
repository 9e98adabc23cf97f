"""The auction: calls, their legality (Laws 18-19, 22) and the final contract and declarer.

A call is a bid ("1C" ... "7NT"), a pass, a double or a redouble, optionally alerted. An
`Auction` takes the calls in turn from the dealer and refuses an illegal one with a reason that
names it, leaving the auction as it was:

- Law 18B/C: a bid must be higher than the last bid (a higher level, or the same level in a
  higher strain, C < D < H < S < NT); otherwise it is *insufficient*.
- Law 19A1: a player may double only the last bid, and only if it was made by an opponent and
  no call other than a pass has followed it (so never a partner's bid, never twice).
- Law 19B1: a player may redouble only the last double, made by an opponent of a bid of the
  player's own side, with no call other than a pass since.
- Law 22A: the auction ends with three passes in rotation after a bid, or four passes when no
  one has bid (the board is passed out); no call may follow (Law 39 for calls after the end).
- Law 22B / Law 1 definitions ("Declarer"): the contract is the last bid, with the double or
  redouble that followed it; the declarer is the player of the side that made the final bid who
  first named its strain.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .contract import Contract
from .enums import Doubling, Seat, Strain
from .errors import BridgeError

STRAIN_ORDER = (Strain.C, Strain.D, Strain.H, Strain.S, Strain.NT)


class IllegalCall(BridgeError):  # noqa: N818 (public API name, like the other errors)
    """A call the Laws do not allow at this point of the auction."""

    default_code = "illegal_call"


@dataclass(frozen=True, slots=True)
class Call:
    """One call: a bid (level 1-7 and a strain), or "P" (pass), "X" (double), "XX" (redouble)."""

    kind: str
    """"bid", "P", "X" or "XX"."""
    level: int = 0
    strain: Strain | None = None
    alert: bool = False

    @property
    def is_bid(self) -> bool:
        return self.kind == "bid"

    def rank(self) -> int:
        """A bid's place in the bidding order (1C = 0 ... 7NT = 34)."""
        assert self.strain is not None
        return (self.level - 1) * 5 + STRAIN_ORDER.index(self.strain)

    def __str__(self) -> str:
        text = f"{self.level}{self.strain.value}" if self.is_bid and self.strain else self.kind
        return text + ("!" if self.alert else "")

    @classmethod
    def parse(cls, text: str) -> Call:
        """Read a call: "1C", "3nt", "4♠", "Pass"/"P"/"-", "X"/"Dbl", "XX"/"Rdbl"; a trailing "!"
        marks an alert."""
        raw = "".join(str(text).split())
        alert = raw.endswith("!")
        word = raw.rstrip("!").casefold()
        if word in _CALL_WORDS:
            return cls(_CALL_WORDS[word], alert=alert)
        if len(word) >= 2 and word[0] in "1234567":
            try:
                strain = Strain.parse(word[1:])
            except BridgeError:
                pass
            else:
                return cls("bid", int(word[0]), strain, alert)
        raise IllegalCall(
            f"{text!r} is not a call: give 1C to 7NT, Pass, X or XX", text, code="invalid_call"
        )


_CALL_WORDS = {
    "p": "P", "pass": "P", "pas": "P", "-": "P", "passe": "P",
    "x": "X", "d": "X", "dbl": "X", "double": "X", "dobl": "X",
    "xx": "XX", "r": "XX", "rdbl": "XX", "redouble": "XX", "redobl": "XX",
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class AuctionOutcome:
    """How an ended auction came out: the contract, and its declarer (None when passed out)."""

    contract: Contract
    declarer: Seat | None


class Auction:
    """The calls of one board's auction, from the dealer round the table, kept legal."""

    def __init__(self, dealer: Seat | str, calls: Iterable[Call | str] = ()) -> None:
        self.dealer = Seat.parse(dealer)
        self._calls: list[Call] = []
        for call in calls:
            self.add(call)

    @property
    def calls(self) -> tuple[Call, ...]:
        return tuple(self._calls)

    def seat_of(self, index: int) -> Seat:
        """Who made (or makes) the call at position `index` (0 = the dealer)."""
        seat = self.dealer
        for _ in range(index % 4):
            seat = seat.lho
        return seat

    @property
    def to_call(self) -> Seat:
        return self.seat_of(len(self._calls))

    @property
    def ended(self) -> bool:
        """Law 22A: three passes after a bid, or four passes in all."""
        calls = self._calls
        if not any(c.is_bid for c in calls):
            return len(calls) == 4
        return _trailing_passes(calls) >= 3

    def legal(self, call: Call | str) -> Call:
        """The call read and checked; IllegalCall (with the reason) if it may not be made now."""
        call = call if isinstance(call, Call) else Call.parse(call)
        if self.ended:
            raise IllegalCall(f"{call}: the auction has ended", str(call), code="auction_ended")
        me = self.to_call
        last_bid = self._last_bid_index()
        if call.is_bid:
            if call.level < 1 or call.level > 7 or call.strain is None:
                raise IllegalCall(f"{call} is not a bid", str(call), code="invalid_call")
            if last_bid is not None and call.rank() <= self._calls[last_bid].rank():
                raise IllegalCall(
                    f"{call} is insufficient after {self._calls[last_bid]}",
                    str(call),
                    code="insufficient_bid",
                )
            return call
        if call.kind == "P":
            return call
        if last_bid is None:
            raise IllegalCall(f"{call}: there is no bid to double", str(call), code="no_bid")
        bidder_side = self.seat_of(last_bid).side
        since = [c.kind for c in self._calls[last_bid + 1 :] if c.kind != "P"]
        if call.kind == "X":
            if bidder_side is me.side:
                raise IllegalCall(
                    f"X: {self._calls[last_bid]} was bid by your own side",
                    str(call),
                    code="double_own_side",
                )
            if since:
                raise IllegalCall(
                    f"X: {self._calls[last_bid]} is already doubled", str(call), code="double_twice"
                )
            return call
        # XX
        if since != ["X"]:
            raise IllegalCall(
                "XX: there is no double to redouble"
                if not since
                else "XX: the bid is already redoubled",
                str(call),
                code="redouble_without_double",
            )
        if bidder_side is not me.side:
            raise IllegalCall(
                "XX: only the side that made the doubled bid may redouble",
                str(call),
                code="redouble_opponents",
            )
        return call

    def add(self, call: Call | str) -> Call:
        """Make the next call (checked); nothing changes when it is refused."""
        checked = self.legal(call)
        self._calls.append(checked)
        return checked

    def mark_alert(self) -> None:
        """Mark the last call as alerted (or explained)."""
        if self._calls:
            last = self._calls[-1]
            self._calls[-1] = Call(last.kind, last.level, last.strain, alert=True)

    def _last_bid_index(self) -> int | None:
        for index in range(len(self._calls) - 1, -1, -1):
            if self._calls[index].is_bid:
                return index
        return None

    def outcome(self) -> AuctionOutcome:
        """Law 22B: the final contract and the declarer; IllegalCall while the auction runs."""
        if not self.ended:
            raise IllegalCall("the auction has not ended", None, code="auction_open")
        last = self._last_bid_index()
        if last is None:
            return AuctionOutcome(Contract(0, None), None)
        bid = self._calls[last]
        since = [c.kind for c in self._calls[last + 1 :] if c.kind != "P"]
        doubling = Doubling.XX if "XX" in since else Doubling.X if "X" in since else Doubling.NONE
        side = self.seat_of(last).side
        for index, call in enumerate(self._calls):
            seat = self.seat_of(index)
            if call.is_bid and call.strain is bid.strain and seat.side is side:
                declarer = seat
                break
        return AuctionOutcome(Contract(bid.level, bid.strain, doubling), declarer)

    def __str__(self) -> str:
        return " ".join(str(c) for c in self._calls)


def _trailing_passes(calls: Sequence[Call]) -> int:
    count = 0
    for call in reversed(calls):
        if call.kind != "P":
            break
        count += 1
    return count


def parse_pbn_auction(dealer: Seat | str, text: str) -> Auction:
    """An auction from a PBN `[Auction]` section (PBN 2.1 § 3.5): calls separated by white
    space, "AP" for all pass (the passes that end it), "!" an alert, and a "=n=" note
    reference taken as an explained (alerted) call; "$n" NAGs are ignored. Raises IllegalCall
    on an illegal or unreadable call."""
    auction = Auction(dealer)
    for token in text.split():
        if token.startswith("=") and token.endswith("=") and len(token) > 2:
            auction.mark_alert()
            continue
        if token.startswith("$"):
            continue
        if token == "*":  # PBN: the auction stops here (incomplete)
            break
        if token.upper() == "AP":
            while not auction.ended:
                auction.add(Call("P"))
            continue
        auction.add(token)
    return auction

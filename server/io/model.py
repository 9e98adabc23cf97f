"""Plain data every format reads into and writes from: pairs, boards and traveller lines."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from protocol.bridge import BridgeError, ns_score
from server.scoring import Method


@dataclass(frozen=True, slots=True, order=True)
class PairKey:
    """A pair: its number, and its section and direction when the numbering needs them."""

    section: str | None
    number: int
    direction: str | None = None
    """"NS"/"EW" when pair numbers repeat across directions (a Mitchell), else None."""

    def __str__(self) -> str:
        text = str(self.number)
        if self.direction:
            text += f" {self.direction}"
        if self.section:
            text = f"({self.section}) {text}"
        return text


@dataclass(slots=True)
class PairEntry:
    """A pair in the event, with what the file published for it (never used to score)."""

    key: PairKey
    names: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    published_total: Decimal | None = None
    published_percentage: Decimal | None = None
    published_place: str | None = None


@dataclass(slots=True)
class BoardRecord:
    """A board's hand record: dealer, vulnerability and the deal (PBN notation)."""

    number: int
    dealer: str | None = None
    vulnerable: str | None = None
    deal: str | None = None
    """"N:AKQ.JT9.876.5432 ..." in PBN notation, or None without a hand record."""
    optimum: dict[str, dict[str, int]] | None = None
    """Double-dummy tricks the file gives: declarer seat -> strain -> tricks."""


@dataclass(slots=True)
class Line:
    """One table's result on a board, as the traveller gives it."""

    board: int
    ns: PairKey | None
    ew: PairKey | None
    contract: str | None = None
    """Canonical contract ("4SX", "PASS"), or None for an artificial score or no play."""
    declarer: str | None = None
    tricks: int | None = None
    lead: str | None = None
    artificial: tuple[Fraction, Fraction] | None = None
    """(N/S %, E/W %) of an artificial adjusted score."""
    section: str | None = None
    round: int | None = None
    table: int | None = None
    published_ns_score: int | None = None

    @property
    def played(self) -> bool:
        return self.contract is not None or self.artificial is not None

    def ns_points(self) -> int | None:
        """The N/S score of the contract played (Law 77), or None without one."""
        if self.contract is None or self.tricks is None:
            return None
        declarer = None if self.contract == "PASS" else self.declarer
        try:
            return ns_score(self.board, self.contract, declarer, self.tricks)
        except BridgeError:
            return None


@dataclass(slots=True)
class EventFile:
    """An event read from (or to be written to) a file."""

    name: str = ""
    date: str = ""
    method: Method | None = None
    """The scoring method the file names, if any."""
    scoring: str = ""
    """The file's own words for the scoring method."""
    winners: int | None = None
    """1 for one ranking, 2 for one per direction; None if the file does not say."""
    across_sections: bool = False
    pairs: list[PairEntry] = field(default_factory=list)
    boards: dict[int, BoardRecord] = field(default_factory=dict)
    lines: list[Line] = field(default_factory=list)
    source: str = ""
    """The format it came from ("pbn", "usebio", "csv", "bws")."""

    def pair(self, key: PairKey) -> PairEntry | None:
        for entry in self.pairs:
            if entry.key == key:
                return entry
        return None

"""The small enums of the bridge domain (seat, side, strain, doubling, vulnerability)."""

from __future__ import annotations

from enum import IntEnum, StrEnum

from .errors import BridgeError, InvalidDoubling, InvalidSeat, InvalidStrain


def _key(text: object) -> str:
    """Fold text for table look-up: trimmed, case-folded, inner whitespace removed."""
    if not isinstance(text, str):
        return ""
    return "".join(text.split()).casefold()


class Seat(StrEnum):
    """A compass seat at the table, in clockwise order N, E, S, W."""

    N = "N"
    E = "E"
    S = "S"
    W = "W"

    @classmethod
    def parse(cls, text: str | Seat) -> Seat:
        """Read a seat: "N", "north", " s ", or a Danish/Norwegian/German name ("Øst", "Syd")."""
        if isinstance(text, Seat):
            return text
        seat = _SEAT_WORDS.get(_key(text))
        if seat is None:
            raise InvalidSeat(f"{text!r} is not a seat (expected N, E, S or W)", text)
        return seat

    @property
    def partner(self) -> Seat:
        """The seat opposite."""
        return _CLOCKWISE[(_CLOCKWISE.index(self) + 2) % 4]

    @property
    def lho(self) -> Seat:
        """Left-hand opponent: the next seat clockwise (who plays after this seat)."""
        return _CLOCKWISE[(_CLOCKWISE.index(self) + 1) % 4]

    @property
    def rho(self) -> Seat:
        """Right-hand opponent: the previous seat clockwise."""
        return _CLOCKWISE[(_CLOCKWISE.index(self) + 3) % 4]

    @property
    def side(self) -> Side:
        """The partnership this seat belongs to."""
        return Side.NS if self in (Seat.N, Seat.S) else Side.EW

    @property
    def name_en(self) -> str:
        """The English name: "North", "East", "South", "West"."""
        return _SEAT_NAMES[self]


_CLOCKWISE = (Seat.N, Seat.E, Seat.S, Seat.W)
_SEAT_NAMES = {Seat.N: "North", Seat.E: "East", Seat.S: "South", Seat.W: "West"}
_SEAT_WORDS: dict[str, Seat] = {
    # English
    "n": Seat.N, "north": Seat.N,
    "e": Seat.E, "east": Seat.E,
    "s": Seat.S, "south": Seat.S,
    "w": Seat.W, "west": Seat.W,
    # Danish and Norwegian: Nord, Øst, Syd/Sør, Vest; German: Nord, Ost, Süd, West
    "nord": Seat.N,
    "ø": Seat.E, "øst": Seat.E, "o": Seat.E, "ost": Seat.E, "oest": Seat.E,
    "syd": Seat.S, "sør": Seat.S, "sor": Seat.S, "süd": Seat.S, "sud": Seat.S,
    "v": Seat.W, "vest": Seat.W,
}  # fmt: skip


class Side(StrEnum):
    """A partnership: North-South or East-West."""

    NS = "NS"
    EW = "EW"

    @classmethod
    def parse(cls, text: str | Side) -> Side:
        """Read a side: "NS", "N/S", "N-S", "North-South", "EW", "E/W", "ØV", "OV", "Ost-West"."""
        if isinstance(text, Side):
            return text
        key = _key(text)
        for separator in "/-&+_.,":
            key = key.replace(separator, "")
        side = _SIDE_WORDS.get(key)
        if side is None:
            raise InvalidSeat(
                f"{text!r} is not a side (expected NS or EW)", text, code="invalid_side"
            )
        return side

    @property
    def other(self) -> Side:
        """The opposing partnership."""
        return Side.EW if self is Side.NS else Side.NS

    @property
    def seats(self) -> tuple[Seat, Seat]:
        """The two seats of this partnership."""
        return (Seat.N, Seat.S) if self is Side.NS else (Seat.E, Seat.W)

    @property
    def label(self) -> str:
        """The usual printed form: "N/S" or "E/W"."""
        return "N/S" if self is Side.NS else "E/W"


_SIDE_WORDS: dict[str, Side] = {
    "ns": Side.NS, "sn": Side.NS, "northsouth": Side.NS, "nordsyd": Side.NS,
    "nordsør": Side.NS, "nordsüd": Side.NS, "nordsud": Side.NS,
    "ew": Side.EW, "we": Side.EW, "eastwest": Side.EW,
    "øv": Side.EW, "vø": Side.EW, "ov": Side.EW, "vo": Side.EW, "ow": Side.EW, "wo": Side.EW,
    "østvest": Side.EW, "ostwest": Side.EW,
}  # fmt: skip


class Strain(StrEnum):
    """The denomination of a contract, in bidding order C < D < H < S < NT."""

    C = "C"
    D = "D"
    H = "H"
    S = "S"
    NT = "NT"

    @classmethod
    def parse(cls, text: str | Strain) -> Strain:
        """Read a strain: C, D, H, S, N, NT, SA, a suit symbol (♣♦♥♠ or ♧♢♡♤) or an English name."""
        if isinstance(text, Strain):
            return text
        strain = _STRAIN_WORDS.get(_key(text))
        if strain is None:
            raise InvalidStrain(f"{text!r} is not a strain (expected C, D, H, S or NT)", text)
        return strain

    @property
    def symbol(self) -> str:
        """The suit symbol ("♣", "♦", "♥", "♠"), or "NT" for notrump."""
        return _STRAIN_SYMBOLS[self]

    @property
    def name_en(self) -> str:
        """The English name: "clubs", "diamonds", "hearts", "spades", "notrump"."""
        return _STRAIN_NAMES[self]

    @property
    def is_major(self) -> bool:
        """Hearts or spades."""
        return self in (Strain.H, Strain.S)

    @property
    def is_minor(self) -> bool:
        """Clubs or diamonds."""
        return self in (Strain.C, Strain.D)


_STRAIN_SYMBOLS = {Strain.C: "♣", Strain.D: "♦", Strain.H: "♥", Strain.S: "♠", Strain.NT: "NT"}
_STRAIN_NAMES = {
    Strain.C: "clubs",
    Strain.D: "diamonds",
    Strain.H: "hearts",
    Strain.S: "spades",
    Strain.NT: "notrump",
}
_STRAIN_WORDS: dict[str, Strain] = {
    "c": Strain.C, "♣": Strain.C, "♧": Strain.C, "club": Strain.C, "clubs": Strain.C,
    "d": Strain.D, "♦": Strain.D, "♢": Strain.D, "diamond": Strain.D, "diamonds": Strain.D,
    "h": Strain.H, "♥": Strain.H, "♡": Strain.H, "heart": Strain.H, "hearts": Strain.H,
    "s": Strain.S, "♠": Strain.S, "♤": Strain.S, "spade": Strain.S, "spades": Strain.S,
    "n": Strain.NT, "nt": Strain.NT, "sa": Strain.NT, "notrump": Strain.NT,
    "notrumps": Strain.NT, "no-trump": Strain.NT, "no-trumps": Strain.NT,
}  # fmt: skip


class Doubling(IntEnum):
    """Undoubled, doubled or redoubled; the value is the multiplier of the trick points."""

    NONE = 1
    X = 2
    XX = 4

    @classmethod
    def parse(cls, text: str | Doubling) -> Doubling:
        """Read a doubling: "" (none), "X"/"x"/"*" (doubled), "XX"/"xx"/"**" (redoubled)."""
        if isinstance(text, Doubling):
            return text
        doubling = _DOUBLING_WORDS.get(_key(text)) if isinstance(text, str) else None
        if doubling is None:
            raise InvalidDoubling(f"{text!r} is not a doubling (expected nothing, X or XX)", text)
        return doubling

    @property
    def suffix(self) -> str:
        """The contract suffix: "", "X" or "XX"."""
        return _DOUBLING_SUFFIXES[self]


_DOUBLING_SUFFIXES = {Doubling.NONE: "", Doubling.X: "X", Doubling.XX: "XX"}
_DOUBLING_WORDS: dict[str, Doubling] = {
    "": Doubling.NONE, "-": Doubling.NONE,
    "x": Doubling.X, "*": Doubling.X, "dbl": Doubling.X, "doubled": Doubling.X,
    "xx": Doubling.XX, "**": Doubling.XX, "rdbl": Doubling.XX, "redoubled": Doubling.XX,
}  # fmt: skip


class Vulnerability(StrEnum):
    """Which sides are vulnerable on a board."""

    NONE = "NONE"
    NS = "NS"
    EW = "EW"
    BOTH = "BOTH"

    @classmethod
    def parse(cls, text: str | Vulnerability) -> Vulnerability:
        """Read a vulnerability: "None"/"Love"/"-", "NS"/"N/S", "EW"/"E/W", "Both"/"All"."""
        if isinstance(text, Vulnerability):
            return text
        vulnerability = _VULNERABILITY_WORDS.get(_key(text))
        if vulnerability is None:
            try:
                vulnerability = Vulnerability(Side.parse(text))
            except InvalidSeat:
                raise BridgeError(
                    f"{text!r} is not a vulnerability (expected None, NS, EW or Both)",
                    text,
                    code="invalid_vulnerability",
                ) from None
        return vulnerability

    def is_vulnerable(self, side_or_seat: Side | Seat | str) -> bool:
        """Whether the side (or the seat's side) is vulnerable; text is a side, else a seat."""
        if isinstance(side_or_seat, Seat):
            side = side_or_seat.side
        elif isinstance(side_or_seat, Side):
            side = side_or_seat
        else:
            try:
                side = Side.parse(side_or_seat)
            except InvalidSeat:
                side = Seat.parse(side_or_seat).side
        return self is Vulnerability.BOTH or self.value == side.value


_VULNERABILITY_WORDS: dict[str, Vulnerability] = {
    "none": Vulnerability.NONE, "love": Vulnerability.NONE, "-": Vulnerability.NONE,
    "0": Vulnerability.NONE, "nil": Vulnerability.NONE,
    "both": Vulnerability.BOTH, "all": Vulnerability.BOTH, "begge": Vulnerability.BOTH,
    "alle": Vulnerability.BOTH,
}  # fmt: skip

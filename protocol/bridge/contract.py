"""Contracts, results and table results: parsing, validation and canonical formatting."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .enums import Doubling, Seat, Strain
from .errors import (
    InvalidContract,
    InvalidDoubling,
    InvalidLevel,
    InvalidResult,
    InvalidSeat,
    InvalidStrain,
    InvalidTricks,
)

_PASS_WORDS = frozenset(
    {"pass", "p", "ap", "allpass", "passed", "passedout", "passout", "pas", "passet", "-"}
)
_LEVEL_REST = re.compile(r"(\d+)(.*)")
_STRAIN_DOUBLING = re.compile(r"(.*?)([xX*]*)")
_RELATIVE = re.compile(r"([+-])([0-9]{1,2})")
_MADE_WORDS = frozenset({"=", "m", "made", "mk"})
_DASHES = str.maketrans({"−": "-", "–": "-", "—": "-"})


def _compact(text: str) -> str:
    return "".join(text.split()).casefold()


def _check_tricks(tricks: object) -> int:
    if isinstance(tricks, bool) or not isinstance(tricks, int) or not 0 <= tricks <= 13:
        raise InvalidTricks(f"{tricks!r} is not a number of tricks (expected 0 to 13)", tricks)
    return tricks


@dataclass(frozen=True)
class Contract:
    """A final contract; level 0 with no strain is a passed-out board."""

    level: int
    strain: Strain | None
    doubling: Doubling = Doubling.NONE

    def __post_init__(self) -> None:
        level, strain, doubling = self.level, self.strain, self.doubling
        if isinstance(level, bool) or not isinstance(level, int) or not 0 <= level <= 7:
            raise InvalidLevel(f"{level!r} is not a contract level (expected 1 to 7)", level)
        if level == 0:
            if strain is not None or doubling is not Doubling.NONE:
                raise InvalidContract(
                    "a passed-out contract (level 0) has no strain and no doubling",
                    (level, strain, doubling),
                )
            return
        if strain is None:
            raise InvalidStrain(f"contract level {level} needs a strain", strain)
        # Accept plain strings from callers but store the enums.
        object.__setattr__(self, "strain", Strain.parse(strain))
        if not isinstance(doubling, Doubling):
            object.__setattr__(
                self,
                "doubling",
                Doubling.parse(doubling) if isinstance(doubling, str) else _doubling_int(doubling),
            )

    @classmethod
    def passed_out(cls) -> Contract:
        """The contract of a board passed out."""
        return cls(0, None, Doubling.NONE)

    @classmethod
    def parse(cls, text: str | Contract) -> Contract:
        """Read "4S", "4sx", "4 S X", "4♠X", "3NTXX", "3 nt xx", "PASS", "all pass" and the like."""
        if isinstance(text, Contract):
            return text
        if not isinstance(text, str):
            raise InvalidContract(f"{text!r} is not a contract", text)
        if _compact(text) in _PASS_WORDS:
            return cls.passed_out()
        # Keep the case so that errors quote what was typed.
        match = _LEVEL_REST.fullmatch("".join(text.split()))
        if match is None:
            raise InvalidContract(
                f"{text.strip()!r} is not a contract (expected e.g. 4S, 3NTX or PASS)", text
            )
        digits, rest = match.groups()
        level = int(digits)
        if not 1 <= level <= 7:
            raise InvalidLevel(
                f"{digits!r} in {text.strip()!r} is not a contract level (expected 1 to 7)", level
            )
        strain_doubling = _STRAIN_DOUBLING.fullmatch(rest)
        assert strain_doubling is not None  # the pattern matches any string
        strain_text, doubling_text = strain_doubling.groups()
        if not strain_text:
            raise InvalidStrain(
                f"{text.strip()!r} has no strain (expected C, D, H, S or NT after the level)", text
            )
        try:
            strain = Strain.parse(strain_text)
        except InvalidStrain:
            raise InvalidStrain(
                f"{strain_text!r} in {text.strip()!r} is not a strain (expected C, D, H, S or NT)",
                strain_text,
            ) from None
        try:
            doubling = Doubling.parse(doubling_text)
        except InvalidDoubling:
            raise InvalidDoubling(
                f"{doubling_text.upper()!r} in {text.strip()!r} is not a doubling "
                "(expected nothing, X or XX)",
                doubling_text,
            ) from None
        return cls(level, strain, doubling)

    @property
    def is_pass(self) -> bool:
        """Whether the board was passed out."""
        return self.level == 0

    @property
    def tricks_needed(self) -> int:
        """Tricks declarer needs to make the contract (level + 6); 0 for a pass."""
        return 0 if self.is_pass else self.level + 6

    def format(self, symbols: bool = False) -> str:
        """The canonical text ("4SX", "PASS"), with suit symbols ("4♠X") if asked."""
        if self.strain is None:
            return "PASS"
        strain = self.strain.symbol if symbols else self.strain.value
        return f"{self.level}{strain}{self.doubling.suffix}"

    def __str__(self) -> str:
        return self.format()


def _doubling_int(value: object) -> Doubling:
    if isinstance(value, int) and value in (1, 2, 4):
        return Doubling(value)
    raise InvalidDoubling(f"{value!r} is not a doubling (expected 1, 2 or 4)", value)


def all_contracts() -> tuple[Contract, ...]:
    """Every possible contract: the pass, then 1C to 7NTXX (106 in all)."""
    bids = tuple(
        Contract(level, strain, doubling)
        for level in range(1, 8)
        for strain in Strain
        for doubling in Doubling
    )
    return (Contract.passed_out(), *bids)


def parse_tricks(text: str, contract: Contract) -> int:
    """Tricks taken, from an absolute count ("0".."13") or a result ("=", "+1", "-2", "made")."""
    if not isinstance(text, str):
        raise InvalidTricks(f"{text!r} is not a number of tricks or a result", text)
    compact = _compact(text).translate(_DASHES)
    if contract.is_pass:
        if compact in ("", "0", "=", "-"):
            return 0
        raise InvalidResult(
            f"{text.strip()!r} is not a result for a passed-out board (leave it empty)", text
        )
    if not compact:
        raise InvalidTricks("no tricks given (expected 0 to 13, =, +n or -n)", text)
    if compact in _MADE_WORDS:
        return contract.tricks_needed
    relative = _RELATIVE.fullmatch(compact)
    if relative is not None:
        sign, count = relative.groups()
        tricks = contract.tricks_needed + (int(count) if sign == "+" else -int(count))
        if not 0 <= tricks <= 13:
            raise InvalidResult(
                f"{contract}{sign}{int(count)} is impossible: {contract} needs "
                f"{contract.tricks_needed} tricks and a board has 13",
                text,
            )
        return tricks
    if compact.isascii() and compact.isdigit() and len(compact) <= 2:  # not "²", "١٠"
        tricks = int(compact)
        if tricks <= 13:
            return tricks
    raise InvalidTricks(
        f"{text.strip()!r} is not a number of tricks (expected 0 to 13, =, +n or -n)", text
    )


def format_result(contract: Contract, tricks: int) -> str:
    """The result relative to the contract: "=", "+1", "-2"; "" for a passed-out board."""
    _check_tricks(tricks)
    if contract.is_pass:
        return ""
    difference = tricks - contract.tricks_needed
    return "=" if difference == 0 else f"{difference:+d}"


@dataclass(frozen=True)
class TableResult:
    """What happened at one table on one board: contract, declarer and tricks taken."""

    contract: Contract
    declarer: Seat | None
    tricks: int

    def __post_init__(self) -> None:
        if not isinstance(self.contract, Contract):
            raise InvalidContract(f"{self.contract!r} is not a Contract", self.contract)
        _check_tricks(self.tricks)
        if self.contract.is_pass:
            if self.declarer is not None:
                raise InvalidSeat(
                    f"a passed-out board has no declarer, not {self.declarer!r}", self.declarer
                )
            if self.tricks != 0:
                raise InvalidResult(
                    f"a passed-out board has no tricks, not {self.tricks!r}", self.tricks
                )
        elif not isinstance(self.declarer, Seat):
            raise InvalidSeat(
                f"{self.declarer!r} is not a declarer (expected N, E, S or W)", self.declarer
            )

    @classmethod
    def make(
        cls, contract: str | Contract, declarer: str | Seat | None, tricks: int | str
    ) -> TableResult:
        """Build a validated result from loose input ("4sx", "s", "-2"); tricks may be relative."""
        parsed = Contract.parse(contract)
        seat: Seat | None
        if parsed.is_pass:
            if declarer is not None and not (
                isinstance(declarer, str) and declarer.strip() in ("", "-")
            ):
                raise InvalidSeat(f"a passed-out board has no declarer, not {declarer!r}", declarer)
            seat = None
        elif declarer is None or (isinstance(declarer, str) and not declarer.strip()):
            raise InvalidSeat(f"{parsed} needs a declarer (N, E, S or W)", declarer)
        else:
            seat = Seat.parse(declarer)
        taken = parse_tricks(tricks, parsed) if isinstance(tricks, str) else _check_tricks(tricks)
        return cls(parsed, seat, taken)

    @property
    def result(self) -> str:
        """The result relative to the contract: "=", "+1", "-2"; "" for a pass."""
        return format_result(self.contract, self.tricks)

    def __str__(self) -> str:
        if self.declarer is None:
            return str(self.contract)
        return f"{self.contract} {self.declarer} {self.result}"

"""The errors raised for bad bridge input, each with a machine-readable code and the bad value."""

from __future__ import annotations


class BridgeError(ValueError):
    """Any bad bridge input.

    ``code`` is a stable machine-readable string (for APIs and keypads), ``value`` the input that
    was rejected, and the message (``str(error)``) is a sentence for people that names that value.
    """

    default_code = "invalid_bridge_input"

    def __init__(self, message: str, value: object = None, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.value = value
        self.code: str = code if code is not None else self.default_code


class InvalidContract(BridgeError):  # noqa: N818 (public API name)
    """A contract that cannot be read, such as "" or "four spades"."""

    default_code = "invalid_contract"


class InvalidLevel(InvalidContract):
    """A contract level outside 1..7, such as the 8 of "8S" or the 0 of "0NT"."""

    default_code = "invalid_level"


class InvalidStrain(InvalidContract):
    """A strain that is not clubs, diamonds, hearts, spades or notrump, such as the Z of "4Z"."""

    default_code = "invalid_strain"


class InvalidDoubling(InvalidContract):
    """A doubling other than none, X or XX, such as the XXX of "4SXXX"."""

    default_code = "invalid_doubling"


class InvalidTricks(BridgeError):  # noqa: N818 (public API name)
    """A number of tricks taken outside 0..13, or text that is not a trick count or result."""

    default_code = "invalid_tricks"


class InvalidResult(InvalidTricks):
    """A result that cannot happen with the contract, such as 7NT+1 or 1C-8 (tricks beyond 0..13).

    A subclass of InvalidTricks, so callers that only care about "bad tricks" catch both.
    """

    default_code = "invalid_result"


class InvalidSeat(BridgeError):  # noqa: N818 (public API name)
    """A seat (or side) that is not North, East, South or West, or a declarer given for a pass."""

    default_code = "invalid_seat"


class InvalidBoard(BridgeError):  # noqa: N818 (public API name)
    """A board number that is not a whole number of at least 1."""

    default_code = "invalid_board"


class InvalidCard(BridgeError):  # noqa: N818 (public API name)
    """A playing card that cannot be read, such as "1S" or "SZ"."""

    default_code = "invalid_card"

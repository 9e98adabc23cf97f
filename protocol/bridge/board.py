"""Law 2: the dealer and vulnerability printed on each board, repeating every 16 boards."""

from __future__ import annotations

from .enums import Seat, Vulnerability
from .errors import InvalidBoard

_DEALERS = (Seat.N, Seat.E, Seat.S, Seat.W)

_N, _NS, _EW, _B = Vulnerability.NONE, Vulnerability.NS, Vulnerability.EW, Vulnerability.BOTH
# Boards 1..16 in order; board 17 is board 1 again.
_VULNERABILITIES = (
    _N, _NS, _EW, _B,
    _NS, _EW, _B, _N,
    _EW, _B, _N, _NS,
    _B, _N, _NS, _EW,
)  # fmt: skip


def _check_board(board: object) -> int:
    if isinstance(board, bool) or not isinstance(board, int) or board < 1:
        raise InvalidBoard(f"{board!r} is not a board number (expected a whole number >= 1)", board)
    return board


def dealer(board: int) -> Seat:
    """The dealer of a board: N on 1, E on 2, S on 3, W on 4, and so on."""
    return _DEALERS[(_check_board(board) - 1) % 4]


def vulnerability(board: int) -> Vulnerability:
    """The vulnerability of a board by the 16-board cycle of Law 2."""
    return _VULNERABILITIES[(_check_board(board) - 1) % 16]

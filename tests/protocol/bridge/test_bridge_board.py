"""Law 2: dealer and vulnerability of boards 1..64 against the table in rules.md."""

import pytest

from protocol.bridge import InvalidBoard, Seat, Vulnerability, dealer, vulnerability

# rules.md section 1, written out as printed.
DEALER_ON = {
    Seat.N: {1, 5, 9, 13},
    Seat.E: {2, 6, 10, 14},
    Seat.S: {3, 7, 11, 15},
    Seat.W: {4, 8, 12, 16},
}
VULNERABLE_ON = {
    Vulnerability.NONE: {1, 8, 11, 14},
    Vulnerability.NS: {2, 5, 12, 15},
    Vulnerability.EW: {3, 6, 9, 16},
    Vulnerability.BOTH: {4, 7, 10, 13},
}


@pytest.mark.parametrize("board", range(1, 65))
def test_law_2(board: int) -> None:
    first_cycle = (board - 1) % 16 + 1
    assert board in range(1, 65)
    assert first_cycle in DEALER_ON[dealer(board)]
    assert first_cycle in VULNERABLE_ON[vulnerability(board)]


def test_known_boards() -> None:
    assert (dealer(1), vulnerability(1)) == (Seat.N, Vulnerability.NONE)
    assert (dealer(5), vulnerability(5)) == (Seat.N, Vulnerability.NS)
    assert (dealer(16), vulnerability(16)) == (Seat.W, Vulnerability.EW)
    assert (dealer(17), vulnerability(17)) == (Seat.N, Vulnerability.NONE)
    assert (dealer(1000), vulnerability(1000)) == (dealer(8), vulnerability(8))


@pytest.mark.parametrize("bad", [0, -1, -16, 1.0, "5", True, None])
def test_bad_board_numbers(bad: object) -> None:
    for function in (dealer, vulnerability):
        with pytest.raises(InvalidBoard) as caught:
            function(bad)  # type: ignore[arg-type]
        assert caught.value.code == "invalid_board"
        assert caught.value.value == bad
        assert repr(bad) in str(caught.value)

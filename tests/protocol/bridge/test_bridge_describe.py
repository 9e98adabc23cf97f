"""describe() sentences and the `traveller calc` report."""

import pytest

from protocol.bridge import (
    BridgeError,
    InvalidBoard,
    InvalidLevel,
    InvalidResult,
    InvalidSeat,
    TableResult,
    calc_report,
    describe,
)


@pytest.mark.parametrize(
    ("board", "result", "vulnerable", "sentence"),
    [
        (None, ("4SX", "S", 8), True, "4♠ doubled by South, two down, N/S -500"),
        (5, ("4SX", "S", 8), None, "4♠ doubled by South, two down, N/S -500"),
        (1, ("4SX", "S", 8), True, "4♠ doubled by South, two down, N/S -300"),
        (None, ("3NT", "E", 10), True, "3NT by East, made with one overtrick, N/S -630"),
        (None, ("3NT", "N", 9), False, "3NT by North, made, N/S +400"),
        (None, ("3NT", "N", 9), None, "3NT by North, made, N/S +400"),
        (None, ("4H", "W", 12), False, "4♥ by West, made with two overtricks, N/S -480"),
        (None, ("7NTXX", "N", 0), False, "7NT redoubled by North, thirteen down, N/S -7000"),
        (None, ("1C", "S", 7), False, "1♣ by South, made, N/S +70"),
        (None, ("PASS", None, 0), None, "Passed out, 0"),
        (3, ("PASS", None, 0), None, "Passed out, 0"),
    ],
)
def test_describe(
    board: int | None,
    result: tuple[str, str | None, int],
    vulnerable: bool | None,
    sentence: str,
) -> None:
    assert describe(board, TableResult.make(*result), vulnerable) == sentence


def test_calc_report_with_board() -> None:
    report = calc_report("4SX", "N", "8", 5)
    assert report.splitlines() == [
        "Contract:  4SX by North (needs 10 tricks)",
        "Result:    -2 (8 tricks taken)",
        "Board:     5, dealer North, N/S vulnerable",
        "Declarer:  N/S, vulnerable",
        "Score:     N/S -500, N/S (declaring side) -500",
        "4♠ doubled by North, two down, N/S -500",
    ]


def test_calc_report_without_board() -> None:
    report = calc_report("3nt", "e", "+1", None)
    assert "none given; declarer taken as not vulnerable" in report
    assert "Result:    +1 (10 tricks taken)" in report
    assert "Score:     N/S -430, E/W (declaring side) +430" in report
    assert report.endswith("3NT by East, made with one overtrick, N/S -430")
    vulnerable = calc_report("3nt", "e", "+1", None, vulnerable=True)
    assert "N/S -630, E/W (declaring side) +630" in vulnerable


def test_calc_report_pass() -> None:
    report = calc_report("pass", "", "", 3)
    assert report.splitlines() == [
        "Contract:  PASS (passed out)",
        "Board:     3, dealer South, E/W vulnerable",
        "Score:     0",
        "Passed out, 0",
    ]


@pytest.mark.parametrize(
    ("args", "error", "named"),
    [
        (("8S", "N", "10", None), InvalidLevel, "'8'"),
        (("4S", "Q", "10", None), InvalidSeat, "'Q'"),
        (("7NT", "N", "+1", None), InvalidResult, "7NT+1"),
        (("4S", "N", "10", 0), InvalidBoard, "0"),
    ],
)
def test_calc_report_errors(
    args: tuple[str, str, str, int | None], error: type[BridgeError], named: str
) -> None:
    with pytest.raises(error) as caught:
        calc_report(*args)
    assert named in str(caught.value)

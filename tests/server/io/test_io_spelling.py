"""Every spelling real producers write for pair numbers, contracts, tricks and adjusted scores."""

from fractions import Fraction

import pytest

from server.io import spelling
from server.scoring import Method


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7", (None, 7, None)),
        (7, (None, 7, None)),
        ("7 NS", (None, 7, "NS")),
        ("7NS", (None, 7, "NS")),
        ("7-EW", (None, 7, "EW")),
        ("7 E-W", (None, 7, "EW")),
        ("12 N-S", (None, 12, "NS")),
        ("(A) 7 NS", ("A", 7, "NS")),
        ("A7", ("A", 7, None)),
        ("  3  ", (None, 3, None)),
        ("4 Ö-V", (None, 4, "EW")),
        ("4 ØV", (None, 4, "EW")),
    ],
)
def test_pair_numbers_in_every_producer_spelling(text: str | int, expected: tuple) -> None:
    assert spelling.pair_number(text) == expected


@pytest.mark.parametrize("text", ["", "NS", "seven", "7 XY", "-3"])
def test_bad_pair_numbers_raise_spelling_error(text: str) -> None:
    with pytest.raises(spelling.SpellingError):
        spelling.pair_number(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4S", "4S"),
        ("4Sx", "4SX"),
        ("4 S x", "4SX"),
        ("4 s xx", "4SXX"),
        ("3N", "3NT"),
        ("3 NT", "3NT"),
        ("7NTXX", "7NTXX"),
        ("PASS", "PASS"),
        ("Pass", "PASS"),
        ("AP", "PASS"),
        ("4♠X", "4SX"),
    ],
)
def test_contracts_in_every_spelling(text: str, expected: str) -> None:
    assert spelling.contract(text) == expected


@pytest.mark.parametrize(
    ("text", "contract", "tricks"),
    [("10", "4S", 10), (10, "4S", 10), ("=", "4S", 10), ("+1", "4S", 11), ("-2", "4S", 8)],
)
def test_tricks_absolute_or_relative(text: str | int, contract: str, tricks: int) -> None:
    assert spelling.tricks(text, contract) == tricks


def test_impossible_tricks_raise() -> None:
    with pytest.raises(spelling.SpellingError):
        spelling.tricks("+4", "4S")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A6040", (60, 40)),
        ("A4060", (40, 60)),
        ("A5050", (50, 50)),
        ("A6060", (60, 60)),
        ("A60/40", (60, 40)),
        ("A60 40", (60, 40)),
        ("A60", (60, 40)),
        ("AVE+", (60, 40)),
        ("A-", (40, 60)),
        ("A55.5/44.5", (Fraction("55.5"), Fraction("44.5"))),
    ],
)
def test_artificial_scores(text: str, expected: tuple) -> None:
    assert spelling.artificial(text) == (Fraction(expected[0]), Fraction(expected[1]))


@pytest.mark.parametrize("text", ["420", "4S", "", "-100"])
def test_non_artificial_is_none(text: str) -> None:
    assert spelling.artificial(text) is None


def test_artificial_label_round_trips() -> None:
    for ns, ew in [(60, 40), (50, 50), (40, 60), (Fraction(55, 1), Fraction(45))]:
        label = spelling.artificial_label(Fraction(ns), Fraction(ew))
        assert spelling.artificial(label) == (Fraction(ns), Fraction(ew))


@pytest.mark.parametrize(
    ("text", "method"),
    [
        ("MatchPoints;MP1", Method.MATCHPOINTS),
        ("MP", Method.MATCHPOINTS),
        ("MP_PAIRS", Method.MATCHPOINTS),
        ("MATCH_POINTS", Method.MATCHPOINTS),
        ("IMP", Method.IMPS_ACROSS),
        ("CROSS_IMPS", Method.CROSS_IMPS),
        ("IMP;Cross", Method.CROSS_IMPS),
        ("Butler", Method.BUTLER),
        ("BUTLER_PAIRS", Method.BUTLER),
        ("TotalPoints", Method.TOTAL),
        ("Rubber", None),
        ("", None),
    ],
)
def test_file_method_names(text: str, method: Method | None) -> None:
    assert spelling.method(text) == method


@pytest.mark.parametrize(
    ("text", "method"),
    [
        ("mp", Method.MATCHPOINTS),
        ("mp-american", Method.MATCHPOINTS_AMERICAN),
        ("imps", Method.IMPS_ACROSS),
        ("butler", Method.BUTLER),
        ("cross-imps", Method.CROSS_IMPS),
        ("total", Method.TOTAL),
    ],
)
def test_cli_method_names(text: str, method: Method) -> None:
    assert spelling.cli_method(text) == method


def test_unknown_cli_method_raises() -> None:
    with pytest.raises(spelling.SpellingError, match="not a method"):
        spelling.cli_method("rubber")

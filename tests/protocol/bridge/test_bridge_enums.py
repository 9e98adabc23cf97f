"""Seat, Side, Strain, Doubling and Vulnerability: parsing, display and relations."""

import pytest

from protocol.bridge import (
    BridgeError,
    Doubling,
    InvalidDoubling,
    InvalidSeat,
    InvalidStrain,
    Seat,
    Side,
    Strain,
    Vulnerability,
)


@pytest.mark.parametrize(
    ("text", "seat"),
    [
        ("N", Seat.N), ("n", Seat.N), ("North", Seat.N), ("nord", Seat.N), (" S ", Seat.S),
        ("E", Seat.E), ("east", Seat.E), ("Ø", Seat.E), ("ø", Seat.E), ("Øst", Seat.E),
        ("O", Seat.E), ("Ost", Seat.E), ("S", Seat.S), ("south", Seat.S), ("Syd", Seat.S),
        ("Süd", Seat.S), ("Sør", Seat.S), ("W", Seat.W), ("west", Seat.W), ("V", Seat.W),
        ("Vest", Seat.W), ("WEST", Seat.W), (Seat.W, Seat.W),
    ],
)  # fmt: skip
def test_seat_parse(text: str, seat: Seat) -> None:
    assert Seat.parse(text) is seat


@pytest.mark.parametrize("bad", ["Q", "", "NS", "Nx", "Northwest"])
def test_seat_parse_rejects(bad: str) -> None:
    with pytest.raises(InvalidSeat) as caught:
        Seat.parse(bad)
    assert caught.value.code == "invalid_seat"
    assert caught.value.value == bad
    assert repr(bad) in str(caught.value)


def test_seat_relations() -> None:
    assert [seat.value for seat in Seat] == ["N", "E", "S", "W"]
    assert [seat.partner for seat in Seat] == [Seat.S, Seat.W, Seat.N, Seat.E]
    assert [seat.lho for seat in Seat] == [Seat.E, Seat.S, Seat.W, Seat.N]
    assert [seat.rho for seat in Seat] == [Seat.W, Seat.N, Seat.E, Seat.S]
    assert [seat.side for seat in Seat] == [Side.NS, Side.EW, Side.NS, Side.EW]
    assert [seat.name_en for seat in Seat] == ["North", "East", "South", "West"]
    assert str(Seat.N) == "N"


@pytest.mark.parametrize(
    ("text", "side"),
    [
        ("NS", Side.NS), ("ns", Side.NS), ("N/S", Side.NS), ("N-S", Side.NS),
        ("North-South", Side.NS), (" n s ", Side.NS), ("EW", Side.EW), ("E/W", Side.EW),
        ("OV", Side.EW), ("ØV", Side.EW), ("Ø/V", Side.EW), ("Ost-West", Side.EW),
        (Side.EW, Side.EW),
    ],
)  # fmt: skip
def test_side_parse(text: str, side: Side) -> None:
    assert Side.parse(text) is side


def test_side_relations_and_errors() -> None:
    assert Side.NS.other is Side.EW
    assert Side.EW.other is Side.NS
    assert Side.NS.seats == (Seat.N, Seat.S)
    assert Side.EW.label == "E/W"
    with pytest.raises(InvalidSeat) as caught:
        Side.parse("NE")
    assert caught.value.code == "invalid_side"
    assert "'NE'" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "strain"),
    [
        ("C", Strain.C), ("c", Strain.C), ("♣", Strain.C), ("♧", Strain.C), ("clubs", Strain.C),
        ("D", Strain.D), ("♦", Strain.D), ("♢", Strain.D), ("H", Strain.H), ("♥", Strain.H),
        ("♡", Strain.H), ("S", Strain.S), ("s", Strain.S), ("♠", Strain.S), ("♤", Strain.S),
        ("N", Strain.NT), ("NT", Strain.NT), ("nt", Strain.NT), ("SA", Strain.NT),
        (" Nt ", Strain.NT), ("notrump", Strain.NT),
    ],
)  # fmt: skip
def test_strain_parse(text: str, strain: Strain) -> None:
    assert Strain.parse(text) is strain


def test_strain_display() -> None:
    assert [s.value for s in Strain] == ["C", "D", "H", "S", "NT"]
    assert [s.symbol for s in Strain] == ["♣", "♦", "♥", "♠", "NT"]
    assert [s.name_en for s in Strain] == ["clubs", "diamonds", "hearts", "spades", "notrump"]
    assert [s for s in Strain if s.is_major] == [Strain.H, Strain.S]
    assert [s for s in Strain if s.is_minor] == [Strain.C, Strain.D]


@pytest.mark.parametrize("bad", ["Z", "", "X", "♪"])
def test_strain_parse_rejects(bad: str) -> None:
    with pytest.raises(InvalidStrain) as caught:
        Strain.parse(bad)
    assert caught.value.code == "invalid_strain"
    assert repr(bad) in str(caught.value)


@pytest.mark.parametrize(
    ("text", "doubling"),
    [
        ("", Doubling.NONE), ("X", Doubling.X), ("x", Doubling.X), ("*", Doubling.X),
        ("XX", Doubling.XX), ("xx", Doubling.XX), ("**", Doubling.XX), (" x x ", Doubling.XX),
    ],
)  # fmt: skip
def test_doubling_parse(text: str, doubling: Doubling) -> None:
    assert Doubling.parse(text) is doubling


def test_doubling_values_and_errors() -> None:
    assert [int(d) for d in Doubling] == [1, 2, 4]
    assert [d.suffix for d in Doubling] == ["", "X", "XX"]
    with pytest.raises(InvalidDoubling) as caught:
        Doubling.parse("XXX")
    assert caught.value.code == "invalid_doubling"
    assert "'XXX'" in str(caught.value)


@pytest.mark.parametrize(
    ("vulnerability", "ns", "ew"),
    [
        (Vulnerability.NONE, False, False),
        (Vulnerability.NS, True, False),
        (Vulnerability.EW, False, True),
        (Vulnerability.BOTH, True, True),
    ],
)
def test_is_vulnerable(vulnerability: Vulnerability, ns: bool, ew: bool) -> None:
    assert vulnerability.is_vulnerable(Side.NS) is ns
    assert vulnerability.is_vulnerable(Side.EW) is ew
    assert vulnerability.is_vulnerable(Seat.N) is ns
    assert vulnerability.is_vulnerable(Seat.S) is ns
    assert vulnerability.is_vulnerable(Seat.E) is ew
    assert vulnerability.is_vulnerable(Seat.W) is ew
    assert vulnerability.is_vulnerable("N/S") is ns
    assert vulnerability.is_vulnerable("W") is ew


@pytest.mark.parametrize(
    ("text", "vulnerability"),
    [
        ("None", Vulnerability.NONE), ("love", Vulnerability.NONE), ("-", Vulnerability.NONE),
        ("NS", Vulnerability.NS), ("N/S", Vulnerability.NS), ("EW", Vulnerability.EW),
        ("All", Vulnerability.BOTH), ("Both", Vulnerability.BOTH),
    ],
)  # fmt: skip
def test_vulnerability_parse(text: str, vulnerability: Vulnerability) -> None:
    assert Vulnerability.parse(text) is vulnerability


def test_vulnerability_parse_rejects() -> None:
    with pytest.raises(BridgeError) as caught:
        Vulnerability.parse("sometimes")
    assert caught.value.code == "invalid_vulnerability"
    assert "'sometimes'" in str(caught.value)

"""Contracts, tricks and table results: accepted spellings, round trips and every error."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.bridge import (
    BridgeError,
    Contract,
    Doubling,
    InvalidContract,
    InvalidDoubling,
    InvalidLevel,
    InvalidResult,
    InvalidSeat,
    InvalidStrain,
    InvalidTricks,
    Seat,
    Strain,
    TableResult,
    all_contracts,
    format_result,
    parse_tricks,
)

FOUR_SPADES_DOUBLED = Contract(4, Strain.S, Doubling.X)


def test_there_are_106_contracts() -> None:
    contracts = all_contracts()
    assert len(contracts) == 106
    assert len(set(contracts)) == 106
    assert contracts[0].is_pass


@pytest.mark.parametrize("contract", all_contracts(), ids=str)
def test_round_trip(contract: Contract) -> None:
    assert Contract.parse(str(contract)) == contract
    assert Contract.parse(contract.format(symbols=True)) == contract
    assert Contract.parse(str(contract).lower()) == contract


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1C", Contract(1, Strain.C, Doubling.NONE)),
        ("7NT", Contract(7, Strain.NT, Doubling.NONE)),
        ("4SX", FOUR_SPADES_DOUBLED),
        ("4sx", FOUR_SPADES_DOUBLED),
        ("4Sx", FOUR_SPADES_DOUBLED),
        ("4 S X", FOUR_SPADES_DOUBLED),
        ("4♠X", FOUR_SPADES_DOUBLED),
        ("4♠ x", FOUR_SPADES_DOUBLED),
        ("4♤x", FOUR_SPADES_DOUBLED),
        ("4S*", FOUR_SPADES_DOUBLED),
        ("3NTXX", Contract(3, Strain.NT, Doubling.XX)),
        ("3 nt xx", Contract(3, Strain.NT, Doubling.XX)),
        ("3NXX", Contract(3, Strain.NT, Doubling.XX)),
        ("3SA", Contract(3, Strain.NT, Doubling.NONE)),
        ("5Dx", Contract(5, Strain.D, Doubling.X)),
        ("2♥", Contract(2, Strain.H, Doubling.NONE)),
        ("PASS", Contract.passed_out()),
        ("pass", Contract.passed_out()),
        ("Pass", Contract.passed_out()),
        ("P", Contract.passed_out()),
        ("AP", Contract.passed_out()),
        ("all pass", Contract.passed_out()),
        ("passed out", Contract.passed_out()),
    ],
)
def test_accepted_spellings(text: str, expected: Contract) -> None:
    assert Contract.parse(text) == expected


def test_contract_properties() -> None:
    assert str(FOUR_SPADES_DOUBLED) == "4SX"
    assert FOUR_SPADES_DOUBLED.format(symbols=True) == "4♠X"
    assert Contract.parse("3NT").format(symbols=True) == "3NT"
    assert str(Contract.parse("7ntxx")) == "7NTXX"
    assert str(Contract.passed_out()) == "PASS"
    assert Contract.passed_out().format(symbols=True) == "PASS"
    assert FOUR_SPADES_DOUBLED.tricks_needed == 10
    assert Contract.parse("7NT").tricks_needed == 13
    assert Contract.passed_out().is_pass
    assert not FOUR_SPADES_DOUBLED.is_pass
    assert Contract(4, "S", "X") == FOUR_SPADES_DOUBLED  # type: ignore[arg-type]


@given(
    contract=st.sampled_from(all_contracts()[1:]),
    symbols=st.booleans(),
    spaces=st.lists(st.sampled_from(["", " ", "  "]), min_size=3, max_size=3),
    lower=st.lists(st.booleans(), min_size=3, max_size=3),
)
def test_any_case_and_spacing_parses(
    contract: Contract, symbols: bool, spaces: list[str], lower: list[bool]
) -> None:
    assert contract.strain is not None
    parts = [
        str(contract.level),
        contract.strain.symbol if symbols else contract.strain.value,
        contract.doubling.suffix,
    ]
    parts = [p.lower() if low else p for p, low in zip(parts, lower, strict=True)]
    text = spaces[0] + parts[0] + spaces[1] + parts[1] + spaces[2] + parts[2]
    assert Contract.parse(text) == contract


@pytest.mark.parametrize(
    ("text", "error", "code", "named"),
    [
        ("0S", InvalidLevel, "invalid_level", "'0'"),
        ("8S", InvalidLevel, "invalid_level", "'8'"),
        ("8NTX", InvalidLevel, "invalid_level", "'8'"),
        ("4Z", InvalidStrain, "invalid_strain", "'Z'"),
        ("4", InvalidStrain, "invalid_strain", "'4'"),
        ("4SXXX", InvalidDoubling, "invalid_doubling", "'XXX'"),
        ("", InvalidContract, "invalid_contract", "''"),
        ("four spades", InvalidContract, "invalid_contract", "'four spades'"),
        ("S4", InvalidContract, "invalid_contract", "'S4'"),
    ],
)
def test_contract_errors(text: str, error: type[BridgeError], code: str, named: str) -> None:
    with pytest.raises(error) as caught:
        Contract.parse(text)
    assert caught.value.code == code
    assert named in str(caught.value)
    assert isinstance(caught.value, InvalidContract)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize(
    ("args", "error"),
    [
        ((0, Strain.S, Doubling.NONE), InvalidContract),
        ((0, None, Doubling.X), InvalidContract),
        ((8, Strain.S, Doubling.NONE), InvalidLevel),
        ((4, None, Doubling.NONE), InvalidStrain),
        ((4, Strain.S, 3), InvalidDoubling),
    ],
)
def test_direct_construction_is_validated(args: tuple[object, ...], error: type[Exception]) -> None:
    with pytest.raises(error):
        Contract(*args)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "contract", "tricks"),
    [
        ("0", "4S", 0), ("8", "4SX", 8), ("13", "1C", 13), (" 10 ", "4H", 10),
        ("=", "4S", 10), ("made", "3NT", 9), ("m", "7NT", 13), ("+1", "3NT", 10),
        ("+3", "4H", 13), ("-1", "4S", 9), ("-2", "4SX", 8), ("−2", "4S", 8),
        ("-7", "1C", 0), ("-13", "7NT", 0), ("+6", "1NT", 13),
        ("", "PASS", 0), ("0", "PASS", 0), ("=", "pass", 0),
    ],
)  # fmt: skip
def test_parse_tricks(text: str, contract: str, tricks: int) -> None:
    assert parse_tricks(text, Contract.parse(contract)) == tricks


@pytest.mark.parametrize(
    ("text", "contract", "error", "code", "named"),
    [
        ("14", "4S", InvalidTricks, "invalid_tricks", "'14'"),
        ("99", "4S", InvalidTricks, "invalid_tricks", "'99'"),
        ("ten", "4S", InvalidTricks, "invalid_tricks", "'ten'"),
        ("", "4S", InvalidTricks, "invalid_tricks", "no tricks"),
        ("+1", "7NT", InvalidResult, "invalid_result", "7NT+1"),
        ("-8", "1C", InvalidResult, "invalid_result", "1C-8"),
        ("+7", "1NT", InvalidResult, "invalid_result", "1NT+7"),
        ("-14", "7NT", InvalidResult, "invalid_result", "7NT-14"),
        ("5", "PASS", InvalidResult, "invalid_result", "'5'"),
    ],
)
def test_parse_tricks_errors(
    text: str, contract: str, error: type[BridgeError], code: str, named: str
) -> None:
    with pytest.raises(error) as caught:
        parse_tricks(text, Contract.parse(contract))
    assert caught.value.code == code
    assert named in str(caught.value)
    assert caught.value.value == text
    assert isinstance(caught.value, InvalidTricks)


@pytest.mark.parametrize(
    ("contract", "tricks", "text"),
    [("4S", 10, "="), ("4S", 11, "+1"), ("4SX", 8, "-2"), ("7NT", 0, "-13"), ("PASS", 0, "")],
)
def test_format_result(contract: str, tricks: int, text: str) -> None:
    parsed = Contract.parse(contract)
    assert format_result(parsed, tricks) == text
    if not parsed.is_pass:
        assert parse_tricks(text, parsed) == tricks


@pytest.mark.parametrize("contract", all_contracts()[1:], ids=str)
def test_result_round_trip(contract: Contract) -> None:
    for tricks in range(14):
        assert parse_tricks(format_result(contract, tricks), contract) == tricks
        assert parse_tricks(str(tricks), contract) == tricks


@pytest.mark.parametrize("tricks", [-1, 14])
def test_format_result_rejects_impossible_tricks(tricks: int) -> None:
    with pytest.raises(InvalidTricks) as caught:
        format_result(FOUR_SPADES_DOUBLED, tricks)
    assert str(tricks) in str(caught.value)


def test_table_result_make() -> None:
    result = TableResult.make("4sx", "s", 8)
    assert result == TableResult(FOUR_SPADES_DOUBLED, Seat.S, 8)
    assert str(result) == "4SX S -2"
    assert result.result == "-2"
    assert TableResult.make(FOUR_SPADES_DOUBLED, Seat.S, "-2") == result
    assert TableResult.make("3NT", "Øst", "+1") == TableResult(Contract.parse("3NT"), Seat.E, 10)
    assert str(TableResult.make("3NT", "N", "=")) == "3NT N ="
    passed = TableResult.make("pass", None, "")
    assert passed == TableResult(Contract.passed_out(), None, 0)
    assert str(passed) == "PASS"
    assert TableResult.make("PASS", "", 0) == passed
    assert TableResult.make("AP", None, "0") == passed


@pytest.mark.parametrize(
    ("contract", "declarer", "tricks", "error", "code", "named"),
    [
        ("4S", "Q", 10, InvalidSeat, "invalid_seat", "'Q'"),
        ("4S", None, 10, InvalidSeat, "invalid_seat", "needs a declarer"),
        ("4S", "", 10, InvalidSeat, "invalid_seat", "needs a declarer"),
        ("PASS", "N", 0, InvalidSeat, "invalid_seat", "'N'"),
        ("4S", "N", -1, InvalidTricks, "invalid_tricks", "-1"),
        ("4S", "N", 14, InvalidTricks, "invalid_tricks", "14"),
        ("4S", "N", "14", InvalidTricks, "invalid_tricks", "'14'"),
        ("7NT", "N", "+1", InvalidResult, "invalid_result", "7NT+1"),
        ("1C", "N", "-8", InvalidResult, "invalid_result", "1C-8"),
        ("PASS", None, 3, InvalidResult, "invalid_result", "3"),
        ("8S", "N", 10, InvalidLevel, "invalid_level", "'8'"),
    ],
)
def test_table_result_errors(
    contract: str,
    declarer: str | None,
    tricks: int | str,
    error: type[BridgeError],
    code: str,
    named: str,
) -> None:
    with pytest.raises(error) as caught:
        TableResult.make(contract, declarer, tricks)
    assert caught.value.code == code
    assert named in str(caught.value)


def test_table_result_direct_construction_is_validated() -> None:
    with pytest.raises(InvalidSeat):
        TableResult(FOUR_SPADES_DOUBLED, None, 8)
    with pytest.raises(InvalidTricks):
        TableResult(FOUR_SPADES_DOUBLED, Seat.N, 14)
    with pytest.raises(InvalidSeat):
        TableResult(Contract.passed_out(), Seat.N, 0)


@pytest.mark.parametrize("text", ["²", "١٠", "①", "+²", "-١", "1²"])
def test_tricks_in_digits_of_other_scripts_are_refused_as_tricks(text: str) -> None:
    """str.isdigit() and the regex \\d take them for digits; int() refuses "²" (a 500 on
    the TD's form) and would read "١٠" as 10: both are refused as bad tricks."""
    with pytest.raises(InvalidTricks):
        TableResult.make("4S", "S", text)

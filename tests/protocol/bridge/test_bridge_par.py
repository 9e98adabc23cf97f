"""Par (protocol/bridge/par.py) against the par scores a real event published: RealBridge's
[OptimumScore] for each of its ten boards, from its [DoubleDummyTricks]."""

from __future__ import annotations

import pytest

from protocol.bridge import Seat
from protocol.bridge.enums import Doubling, Strain
from protocol.bridge.par import par
from tests.protocol.bridge.test_bridge_play import RECORDS

_SEATS = "NSEW"  # the order of [DoubleDummyTricks], as the file's [OptimumResultTable] shows
_STRAINS = ("NT", "S", "H", "D", "C")


def _dd(digits: str) -> dict[str, dict[str, int]]:
    """PBN [DoubleDummyTricks]: hex digits, seats N S E W, strains NT S H D C."""
    return {
        seat: {strain: int(digits[5 * i + j], 16) for j, strain in enumerate(_STRAINS)}
        for i, seat in enumerate(_SEATS)
    }


BOARDS = {r["Board"]: r for r in RECORDS if r.get("DoubleDummyTricks") and r.get("OptimumScore")}


def test_the_real_file_gives_ten_boards_with_a_published_par() -> None:
    assert sorted(BOARDS, key=int) == [str(n) for n in range(11, 21)]


@pytest.mark.parametrize("board", sorted(BOARDS, key=int))
def test_par_equals_the_published_optimum_score(board: str) -> None:
    record = BOARDS[board]
    side, points = record["OptimumScore"].split()
    expected = int(points) if side == "NS" else -int(points)
    found = par(_dd(record["DoubleDummyTricks"]), record["Vulnerable"], record["Dealer"])
    assert found.ns_score == expected, str(found)


def _flat(tricks: int) -> dict[str, dict[str, int]]:
    return {seat: dict.fromkeys(_STRAINS, tricks) for seat in _SEATS}


def test_a_deal_where_nobody_makes_anything_is_passed_out() -> None:
    # Every strain takes six tricks for either side: one down wherever it is played.
    found = par(_flat(6), "NONE", "N")
    assert found.ns_score == 0
    assert found.contract is None
    assert str(found) == "Passed out, 0"


def test_a_cheap_sacrifice_is_taken() -> None:
    # N/S make 4S (10 tricks, vulnerable: +620); E/W, not vulnerable, take 9 in clubs:
    # 5CX two down is -300 for them, better than -620.
    tricks = {seat: dict.fromkeys(_STRAINS, 0) for seat in _SEATS}
    for seat in "NS":
        tricks[seat].update({"S": 10, "C": 4})
    for seat in "EW":
        tricks[seat].update({"C": 9, "S": 3})
    found = par(tricks, "NS", "N")
    assert found.ns_score == 300
    assert found.contract is not None
    assert (found.contract.level, found.contract.strain) == (5, Strain.C)
    assert found.contract.doubling is Doubling.X
    assert found.declarer in (Seat.E, Seat.W)


def test_the_same_sacrifice_does_not_pay_vulnerable_against_not() -> None:
    # The same tricks with E/W vulnerable and N/S not: 5CX -2 costs 500 against 420.
    tricks = {seat: dict.fromkeys(_STRAINS, 0) for seat in _SEATS}
    for seat in "NS":
        tricks[seat].update({"S": 10, "C": 4})
    for seat in "EW":
        tricks[seat].update({"C": 9, "S": 3})
    found = par(tricks, "EW", "N")
    assert found.ns_score == 420
    assert str(found) == "4S= N, NS +420"

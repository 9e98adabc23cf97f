"""Par (protocol/bridge/par.py) against the par scores a real event published: RealBridge's
[OptimumScore] for each of its ten boards, from its [DoubleDummyTricks]."""

from __future__ import annotations

import random

import pytest

from protocol.bridge import Seat
from protocol.bridge.enums import Doubling, Strain
from protocol.bridge.par import par
from server.io import handrecords
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


@pytest.mark.slow
def test_par_equals_endplays_dds_par_on_random_deals() -> None:
    """The same par as DDS (through endplay, the optional solver) on 16 seeded random deals,
    one for each vulnerability and dealer."""
    pytest.importorskip("endplay")

    deck = [suit + rank for suit in "SHDC" for rank in "AKQJT98765432"]
    rng = random.Random(20261201)
    vuls = ("None", "NS", "EW", "All")
    for n in range(16):
        rng.shuffle(deck)
        hands = [sorted(deck[13 * i : 13 * i + 13]) for i in range(4)]
        deal = "N:" + " ".join(
            ".".join("".join(c[1] for c in hand if c[0] == suit) for suit in "SHDC")
            for hand in hands
        )
        vul, dealer = vuls[n % 4], "NESW"[(n // 4) % 4]
        analysis = handrecords.analyse(deal, dealer, vul)
        found = par(analysis.tricks, vul.upper() if vul != "All" else "BOTH", dealer)
        assert found.ns_score == analysis.par_score, (deal, vul, dealer, str(found))

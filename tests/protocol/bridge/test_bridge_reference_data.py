"""Scores and IMPs cross-checked against published reference data (see tests/data/README.md)."""

import json
import re
from pathlib import Path
from typing import Any

import pytest

from protocol.bridge import (
    Seat,
    Vulnerability,
    contract_score,
    dealer,
    imps,
    ns_score,
    vulnerability,
)

DATA = Path(__file__).resolve().parents[2] / "data"
VECTORS = json.loads(
    (DATA / "bridge-scorer-vectors" / "bridge_scorer_test_vectors.json").read_text("utf-8")
)
PBN = DATA / "endplay-realbridge" / "example2_realbridge_2021_online_qual_open_R2.pbn"
_TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$', re.MULTILINE)


def read_pbn_tags(text: str) -> list[dict[str, str]]:
    """Just enough PBN for these tests: the tag pairs of each game (games split on blank lines)."""
    games = []
    for block in re.split(r"\n\s*\n", text):
        tags = dict(_TAG.findall(block))
        if "Board" in tags:
            games.append(tags)
    return games


GAMES = read_pbn_tags(PBN.read_text("utf-8"))


def _contract_id(record: dict[str, Any]) -> str:
    vul = "vul" if record["vulnerable"] else "nv"
    contract = f"{record['level']}{record['strain']}{record['risk']}"
    return f"{contract} {record['tricks_taken']} tricks {vul} = {record['declarer_score']}"


@pytest.mark.parametrize("record", VECTORS["contract_scores"], ids=_contract_id)
def test_bridge_scorer_contract_scores(record: dict[str, Any]) -> None:
    contract = f"{record['level']}{record['strain']}{record['risk']}"
    score = contract_score(contract, record["tricks_taken"], record["vulnerable"])
    assert score == record["declarer_score"]


@pytest.mark.parametrize("record", VECTORS["imp_table"], ids=lambda r: f"{r['diff']}->{r['imps']}")
def test_bridge_scorer_imp_table(record: dict[str, int]) -> None:
    assert imps(record["diff"]) == record["imps"]


def test_every_pbn_record_is_read() -> None:
    assert len(GAMES) == 299


def _game_id(tags: dict[str, str]) -> str:
    return f"board {tags['Board']} table {tags.get('Table', '?')} {tags['Contract']}"


@pytest.mark.parametrize("tags", GAMES, ids=_game_id)
def test_realbridge_scores(tags: dict[str, str]) -> None:
    board = int(tags["Board"])
    assert dealer(board) is Seat.parse(tags["Dealer"])
    assert vulnerability(board) is Vulnerability.parse(tags["Vulnerable"])
    tricks = int(tags["Result"]) if tags["Result"] else 0
    declarer = tags["Declarer"] or None
    score = ns_score(board, tags["Contract"], declarer, tricks)
    if "Score" in tags:
        side, points = tags["Score"].split()
        assert side == "NS"
        assert score == int(points)
    else:
        assert tags["Contract"] == "Pass"
        assert score == 0

"""Two club games exported by Bridgewebs (PBN), read as a club would and checked against what
Bridgewebs published in them.

The files are Bridgewebs' own PBN exports ("%Creator: Bridgewebs") of two club games:
"Wednesday Morning STaC Game", Newton Bridge Club, 2016-01-20 (pairs numbered 101-110 N/S and
1101-1110 E/W) and "Silver Points Pairs", Westwood Duplicate Bridge Club, 2019-06-25 (a
Mitchell whose N/S and E/W pairs are both numbered 1-16). Source, licence and what they hold:
tests/data/published/README.md. Nothing published is used to score.

What Bridgewebs' export holds, and so what can be compared:
- every traveller line (pairs, contract, declarer, tricks), but no score, no matchpoints and no
  totals: there is no published ranking in these files to reproduce;
- every hand with its double-dummy table (`[DoubleDummyTricks]`/`[OptimumResultTable]`), and
  for Newton the par (`[OptimumScore]`).
What the tests found:
- all 240 + 384 lines are read, none refused, with Bridgewebs' spellings: a doubled contract
  written "3H*", a passed-out board "PASS N -", a board not played "- N -";
- the Westwood Mitchell numbers each direction from 1, so N/S 1 and E/W 1 are two pairs: read
  as one pair (what the reader did before), "pair 1" played board 1 twice. The reader now keys
  such a file by direction (one pair never plays a board twice);
- Bridgewebs' double-dummy table is endplay's on all 30 + 32 boards, and its par is ours
  (protocol/bridge/par.py) on all 30 Newton boards.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from protocol.bridge.par import par
from server.io import handrecords
from server.io.formats import load
from server.io.model import EventFile
from server.io.pbn import read_pbn
from server.io.scorefile import score_event
from server.scoring import Method

DATA = Path(__file__).resolve().parents[2] / "data" / "published"
NEWTON = DATA / "bridgewebs_newton_2016-01-20_wednesday_morning_stac.pbn"
WESTWOOD = DATA / "bridgewebs_westwood_2019-06-25_silver_points_pairs.pbn"
FILES = {"newton": (NEWTON, 240, 30, 20), "westwood": (WESTWOOD, 384, 32, 32)}
"""name -> (file, traveller lines, boards, pairs)."""


@pytest.fixture(scope="module", params=sorted(FILES))
def read(request: pytest.FixtureRequest) -> tuple[str, EventFile]:
    name = request.param
    return name, load(FILES[name][0])


def _rows(path: Path) -> list[list[str]]:
    """The [ScoreTable] rows of the file, split on blanks, as Bridgewebs wrote them."""
    rows: list[list[str]] = []
    inside = False
    for line in path.read_text(encoding="ascii").splitlines():
        if line.startswith("["):
            inside = line.startswith("[ScoreTable ")
            continue
        if inside and line.strip():
            rows.append(line.split())
    return rows


def test_every_line_is_read_and_none_refused(read: tuple[str, EventFile]) -> None:
    name, event = read
    _, lines, boards, pairs = FILES[name]
    assert event.program == "Bridgewebs"
    assert event.method is Method.MATCHPOINTS
    assert event.refused == []
    assert len(event.lines) == lines == len(_rows(FILES[name][0]))
    assert len(event.boards) == boards
    assert all(record.deal and record.optimum for record in event.boards.values())
    assert len(event.pairs) == pairs


def test_bridgewebs_spellings_are_read_as_written(read: tuple[str, EventFile]) -> None:
    name, event = read
    rows = _rows(FILES[name][0])
    spelled = Counter(row[2] if not row[2].endswith("*") else "*" for row in rows)
    assert spelled["*"] > 0
    assert spelled["PASS"] > 0
    assert spelled["-"] == {"newton": 0, "westwood": 5}[name]
    for row, line in zip(rows, event.lines, strict=True):
        if row[2] == "PASS":
            assert (row[3], row[4]) == ("N", "-")  # Bridgewebs' passed-out row
            assert line.contract == "PASS"
            assert line.played
        elif row[2] == "-":
            assert (row[3], row[4]) == ("N", "-")  # and its row for a board not played
            assert not line.played
        else:
            assert line.contract == row[2].replace("*", "X")
            assert (line.declarer, line.tricks) == (row[3], int(row[4]))


def test_westwood_numbers_each_direction_from_one() -> None:
    event = load(WESTWOOD)
    sides = Counter(pair.key.direction for pair in event.pairs)
    assert sides == {"NS": 16, "EW": 16}
    assert {p.key.number for p in event.pairs if p.key.direction == "NS"} == set(range(1, 17))
    played: Counter[tuple[int, object]] = Counter()
    for line in event.lines:
        assert line.ns is not None
        assert line.ns.direction == "NS"
        assert line.ew is not None
        assert line.ew.direction == "EW"
        played[(line.board, line.ns)] += 1
        played[(line.board, line.ew)] += 1
    assert max(played.values()) == 1  # nobody plays a board twice
    # "1 1 6H E 11", board 1: N/S pair 1 against E/W pair 1
    first = event.lines[0]
    assert (first.board, str(first.ns), str(first.ew)) == (1, "1 NS", "1 EW")


def test_the_numbering_is_noted_and_one_clash_alone_does_not_decide_it() -> None:
    assert load(WESTWOOD).notes == [
        "pairs numbered per direction: a number sits N/S and E/W on 32 boards (pair 1, board 1 "
        "first), so N/S 1 and E/W 1 are two pairs"
    ]
    assert load(NEWTON).notes == []
    # Minimal file (made here, not a real one): a 4-pair Howell whose board 3 has pair 3 on
    # both sides, a mistyped number. One board is not a numbering: the pairs keep one key
    # each, and the clash is noted for the TD.
    head = '[ScoreTable "PairId_NS\\1R;PairId_EW\\1R;Contract\\4L;Declarer\\1R;Result\\2R"]'
    boards = {1: ("1 2", "3 4"), 2: ("2 1", "4 3"), 3: ("1 3", "3 2")}
    text = "".join(
        f'[Board "{board}"]\n{head}\n' + "".join(f"{row} 3NT N 9\n" for row in rows) + "\n"
        for board, rows in boards.items()
    )
    event = read_pbn(text)
    assert event.refused == []
    assert all(pair.key.direction is None for pair in event.pairs)
    assert len(event.lines) == 6
    assert event.notes == ["pair 3 sits N/S and E/W on board 3; read as one pair"]


def test_westwood_is_ranked_in_two_directions() -> None:
    report = score_event(load(WESTWOOD))
    assert Counter(p.key.direction for p in report.pairs) == {"NS": 16, "EW": 16}
    top = 2 * (12 - 1)  # 12 results a board; the 5 boards with 11 are factored up to 12
    short = 0
    for board in report.boards:
        sums = [
            row.ns_value + row.ew_value
            for row in board.rows
            if row.ns_value is not None and row.ew_value is not None
        ]
        short += len(sums) == 11
        assert set(sums) == {top}, board.board
    assert short == 5


def test_newton_keeps_its_pair_numbers() -> None:
    event = load(NEWTON)
    numbers = {pair.key.number for pair in event.pairs}
    assert numbers == set(range(101, 111)) | set(range(1101, 1111))
    assert all(pair.key.direction is None for pair in event.pairs)


@pytest.mark.slow
def test_bridgewebs_double_dummy_tables_and_par_are_ours(read: tuple[str, EventFile]) -> None:
    """The double-dummy table Bridgewebs published with every hand is endplay's, and its
    [OptimumScore] (Newton) is the par of protocol/bridge/par.py."""
    pytest.importorskip("endplay")

    name, event = read
    text = FILES[name][0].read_text(encoding="ascii")
    published_par: dict[int, int] = {}
    for game in text.split("\n\n"):
        board = re.search(r'\[Board "(\d+)"\]', game)
        optimum = re.search(r'\[OptimumScore "(NS|EW) (-?\d+)"\]', game)
        if board and optimum:
            score = int(optimum.group(2))
            published_par[int(board.group(1))] = score if optimum.group(1) == "NS" else -score
    assert len(published_par) == {"newton": 30, "westwood": 0}[name]
    for number, record in sorted(event.boards.items()):
        assert record.deal is not None
        tricks = handrecords.dd_table(record.deal)
        assert tricks == record.optimum, number
        if number in published_par:
            vul = {"None": "NONE", "All": "BOTH"}.get(record.vulnerable or "", record.vulnerable)
            found = par(tricks, vul or "NONE", record.dealer or "N")
            assert found.ns_score == published_par[number], (number, str(found))

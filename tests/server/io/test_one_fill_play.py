"""One reading of a line's result cells for every reader (issue 19 item 2, ``server/io/lines.py``):
the same contract, declarer, tricks and score cells give the same line, or the same refusal
text, whether they come from a PBN [ScoreTable], a PBN game, a CSV traveller, a USEBIO
TRAVELLER_LINE, a Bridgemate ReceivedData row or an ACBL Live board result; the team readers
(team PBN, USEBIO teams) refuse alike what a team match cannot score.

Each file here is minimal and hand-made (one line under test beside one plain line); the
committed real files read as before (``test_reader_snapshot.py``).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from server.io.acbl_live import read_acbl_live
from server.io.bws import from_tables
from server.io.csv_io import read_travellers_csv
from server.io.model import EventFile
from server.io.pbn import read_pbn
from server.io.usebio import read_usebio
from tests.support.io import DATA

Cells = tuple[str, str, str, str]
"""(contract, declarer, tricks, score) as the file writes them."""
Outcome = tuple[Any, ...]


def _outcome(event: EventFile) -> Outcome:
    if event.refused:
        return ("refused", event.refused[0].reason)
    (line,) = [
        ln for ln in event.lines if ln.board == 1 and ln.ns is not None and ln.ns.number == 1
    ]
    return (line.contract, line.declarer, line.tricks, line.artificial, line.score)


def _q(text: str) -> str:
    return f'"{text}"' if not text or " " in text else text


def _pbn_table(cells: Cells) -> Outcome:
    contract, declarer, tricks, score = cells
    text = (
        '[Event "x"]\n[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n'
        '[ScoreTable "PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;'
        'Score_NS\\5R"]\n'
        f"1 2 {_q(contract)} {_q(declarer)} {_q(tricks)} {_q(score)}\n"
        '3 4 3NT N 9 "400"\n'
    )
    return _outcome(read_pbn(text))


def _pbn_game(cells: Cells) -> Outcome:
    contract, declarer, tricks, _ = cells
    players = '[North "a"]\n[South "b"]\n[East "c"]\n[West "d"]\n'
    text = (
        f'[Event "x"]\n[Board "1"]\n{players}[Contract "{contract}"]\n'
        f'[Declarer "{declarer}"]\n[Result "{tricks}"]\n\n'
        f'[Event "x"]\n[Board "2"]\n{players}[Contract "3NT"]\n[Declarer "N"]\n[Result "9"]\n'
    )
    return _outcome(read_pbn(text))


def _csv(cells: Cells) -> Outcome:
    row = ",".join(cells)
    text = f"board,ns,ew,contract,declarer,tricks,score\n1,1,2,{row}\n1,3,4,3NT,N,9,\n"
    return _outcome(read_travellers_csv(text))


def _tag(name: str, value: str) -> str:
    return f"<{name}>{value}</{name}>" if value else ""


def _usebio(cells: Cells) -> Outcome:
    inner = "".join(
        _tag(name, value)
        for name, value in zip(("CONTRACT", "PLAYED_BY", "TRICKS", "SCORE"), cells, strict=True)
    )
    xml = (
        '<?xml version="1.0"?><USEBIO Version="1.2"><EVENT EVENT_TYPE="MP_PAIRS"><BOARD>'
        "<BOARD_NUMBER>1</BOARD_NUMBER><TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER>"
        f"<EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>{inner}</TRAVELLER_LINE><TRAVELLER_LINE>"
        "<NS_PAIR_NUMBER>3</NS_PAIR_NUMBER><EW_PAIR_NUMBER>4</EW_PAIR_NUMBER>"
        "<CONTRACT>3NT</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS></TRAVELLER_LINE>"
        "</BOARD></EVENT></USEBIO>"
    )
    return _outcome(read_usebio(xml.encode()))


def _bws(cells: Cells) -> Outcome:
    contract, declarer, tricks, score = cells
    # ReceivedData has no score column: an adjusted score is written in Result.
    result = score if score.startswith("A") else tricks
    rows = [
        {"Section": 1, "Table": 1, "Round": 1, "Board": 1, "PairNS": 1, "PairEW": 2}
        | {"NS/EW": declarer, "Contract": contract, "Result": result},
        {"Section": 1, "Table": 2, "Round": 1, "Board": 1, "PairNS": 3, "PairEW": 4}
        | {"NS/EW": "N", "Contract": "3 NT", "Result": "="},
    ]
    rounds = [
        {"Section": 1, "Table": t, "Round": 1, "NSPair": ns, "EWPair": ew}
        | {"LowBoard": 1, "HighBoard": 1}
        for t, ns, ew in ((1, 1, 2), (2, 3, 4))
    ]
    tables = {"Section": [{"ID": 1, "Letter": "A"}], "RoundData": rounds, "ReceivedData": rows}
    return _outcome(from_tables(tables).event)


_ACBL: dict[str, Any] = json.loads(
    (DATA / "published" / "acbl_stoneridge_creek_2026-04-15_pairs.json").read_text("utf-8")
)


def _acbl(cells: Cells) -> Outcome:
    record = copy.deepcopy(_ACBL)
    board = record["sessions"][0]["sections"][0]["boards"][0]
    board["board_number"] = 1
    row = board["board_results"][0]
    row["ns_pair"], row["ew_pair"] = "1", "2"
    row["contract"], row["declarer"], row["tricks_taken"], row["ns_score"] = cells
    event = read_acbl_live(json.dumps(record).encode())
    if event.refused:
        return ("refused", event.refused[0].reason)
    (line,) = [ln for ln in event.lines if ln.board == 1 and ln.table == row["table_number"]]
    return (line.contract, line.declarer, line.tricks, line.artificial, line.score)


PAIRS: dict[str, Callable[[Cells], Outcome]] = {
    "PBN [ScoreTable]": _pbn_table,
    "CSV": _csv,
    "USEBIO": _usebio,
    "BWS": _bws,
    "ACBL Live": _acbl,
}
GAME = {"PBN game": _pbn_game}  # a game's tags: contract, declarer and result, no score cell


@pytest.mark.parametrize(
    ("cells", "want"),
    [
        (("4S", "N", "10", "420"), ("4S", "N", 10, None, None)),
        (("4 S x", "south", "7", "-500"), ("4SX", "S", 7, None, None)),
        (("3 NT", "W", "9", "-400"), ("3NT", "W", 9, None, None)),
        (("PASS", "", "", "0"), ("PASS", None, 0, None, None)),
        (("4S", "", "10", "420"), ("refused", "4S has no declarer")),
        (("4S", "N", "", "420"), ("refused", "4S has no tricks")),
        (("4S", "Q", "10", "420"), ("refused", "'Q' is not a seat (expected N, E, S or W)")),
        (
            ("9Z", "N", "10", ""),
            ("refused", "'9' in '9Z' is not a contract level (expected 1 to 7)"),
        ),
        (("4S", "N", "lots", ""), ("refused", "'lots' is not a number of tricks")),
        (("4S", "N", "14", ""), ("refused", "'14' is not a number of tricks")),
    ],
)
def test_the_same_cells_read_the_same_in_every_pairs_reader(cells: Cells, want: Outcome) -> None:
    got = {name: read(cells) for name, read in (PAIRS | GAME).items()}
    for name, outcome in got.items():
        if want[0] == "refused":
            assert outcome[0] == "refused", name
            assert outcome[1].startswith(want[1]), (name, outcome)
        else:
            assert outcome == want, name


@pytest.mark.parametrize(
    ("cells", "want"),
    [
        (("4S", "N", "+1", ""), ("4S", "N", 11, None, None)),
        (("4S", "N", "=", ""), ("4S", "N", 10, None, None)),
        (("4S", "N", "-2", ""), ("4S", "N", 8, None, None)),
        (("PO", "", "", ""), ("PASS", None, 0, None, None)),
        (("NP", "", "", ""), (None, None, None, None, None)),
        (("-", "", "", ""), (None, None, None, None, None)),
        (("7NT", "E", "+1", ""), ("refused", "7NT+1 is impossible")),
    ],
)
def test_relative_tricks_and_other_spellings_read_alike(cells: Cells, want: Outcome) -> None:
    readers = {name: read for name, read in (PAIRS | GAME).items() if name != "ACBL Live"}
    if cells[0] == "-":
        del readers["PBN game"]  # a game whose [Contract] is "-" (not known) is no line at all
    for name, read in readers.items():
        outcome = read(cells)
        if want[0] == "refused":
            assert outcome[0] == "refused", (name, outcome)
            assert outcome[1].startswith(want[1]), (name, outcome)
        else:
            assert outcome == want, name


@pytest.mark.parametrize("cells", [("", "", "", "A6040"), ("A60", "", "", "")])
def test_an_artificial_score_reads_alike(cells: Cells) -> None:
    readers = {name: read for name, read in PAIRS.items() if name != "ACBL Live"}
    for name, read in readers.items():
        assert read(cells) == (None, None, None, (Fraction(60), Fraction(40)), None), name


def test_a_score_without_a_contract_is_scored_from_it_and_junk_is_refused() -> None:
    for name in ("PBN [ScoreTable]", "CSV", "USEBIO"):
        assert PAIRS[name](("", "", "", "420")) == (None, None, None, None, 420), name
        refused = PAIRS[name](("", "", "", "abc"))
        assert refused == (
            "refused",
            "'abc' is not a score (expected a whole number, or an artificial score such as A60)",
        ), name


@pytest.mark.parametrize("tricks", ["+1", "=", "-2"])
def test_acbl_live_tricks_taken_is_a_count_and_a_relative_result_is_refused(tricks: str) -> None:
    # ACBL Live writes the count in tricks_taken (its "result" field holds "+4" and is not
    # read); a relative spelling there is refused with the shared reason, not read as 1 trick.
    assert _acbl(("4S", "N", tricks, "420")) == (
        "refused",
        f"{tricks!r} is not a number of tricks (expected 0 to 13)",
    )


def _team_pbn(cells: Cells) -> str:
    contract, declarer, tricks, _ = cells
    head = '[Event "x"]\n[Board "1"]\n[HomeTeam "A"]\n[VisitTeam "B"]\n'
    text = (
        f'{head}[Room "Open"]\n[Contract "{contract}"]\n[Declarer "{declarer}"]\n'
        f'[Result "{tricks}"]\n\n'
        f'{head}[Room "Closed"]\n[Contract "3NT"]\n[Declarer "N"]\n[Result "9"]\n'
    )
    event = read_pbn(text)  # the table is refused, the rest of the file read (issue 16)
    assert event.teams is not None
    assert [line.room for line in event.teams.lines] == ["Closed"]
    (refused,) = event.refused
    assert (refused.line, refused.board) == (6, 1)  # its [Contract] line
    return refused.reason


def _team_usebio(cells: Cells) -> str:
    def line(table: int, ns: str, ew: str, inner: str) -> str:
        return (
            f"<TRAVELLER_LINE><ROUND_NUMBER>1</ROUND_NUMBER><TABLE_NUMBER>{table}</TABLE_NUMBER>"
            f"<NS_PAIR_NUMBER>{ns}</NS_PAIR_NUMBER><EW_PAIR_NUMBER>{ew}</EW_PAIR_NUMBER>"
            f"{inner}</TRAVELLER_LINE>"
        )

    inner = "".join(
        _tag(name, value)
        for name, value in zip(("CONTRACT", "PLAYED_BY", "TRICKS", "SCORE"), cells, strict=True)
    )
    plain = "<CONTRACT>3NT</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS>"
    teams = "".join(
        f"<TEAM><TEAM_ID>{n}</TEAM_ID><TEAM_NAME>{n}</TEAM_NAME></TEAM>" for n in (1, 2)
    )
    boards = "".join(
        f"<BOARD><BOARD_NUMBER>{b}</BOARD_NUMBER>"
        + line(1, "1-1-1", "2-1-2", inner if b == 1 else plain)
        + line(2, "2-1-1", "1-1-2", plain)
        + "</BOARD>"
        for b in (1, 2)
    )
    xml = (
        '<?xml version="1.0"?><USEBIO Version="1.2"><EVENT EVENT_TYPE="TEAMS">'
        f"<BOARD_SCORING_METHOD>IMPS</BOARD_SCORING_METHOD><PARTICIPANTS>{teams}</PARTICIPANTS>"
        f"{boards}</EVENT></USEBIO>"
    )
    event = read_usebio(xml.encode())
    assert event.refused, "the line is refused"
    return event.refused[0].reason


@pytest.mark.parametrize(
    ("cells", "says"),
    [
        (("A60", "", "", ""), "the artificial score 'A60' in a team match is not read"),
        (("4S", "", "10", ""), "4S has no declarer"),
        (("4S", "N", "", ""), "4S has no tricks"),
        (("4S", "N", "lots", ""), "'lots' is not a number of tricks"),
    ],
)
def test_the_team_readers_refuse_alike(cells: Cells, says: str) -> None:
    assert _team_pbn(cells).startswith(says)
    assert _team_usebio(cells).startswith(says)

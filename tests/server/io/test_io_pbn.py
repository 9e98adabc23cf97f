"""PBN 2.1: reading Ruter-style results tables, writing them back, and clear errors."""

from __future__ import annotations

import contextlib
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.io import EventFileError
from server.io.formats import load, parse_bytes
from server.io.model import PairKey
from server.io.pbn import read_pbn, write_pbn
from server.io.pbn_syntax import columns, split_games
from server.io.scorefile import score_event
from server.scoring import Method
from tests.support.io import content


def test_columns_drop_widths_and_alignment() -> None:
    spec = "Rank\\2R;RankTie\\1R;PairId\\2R;Names\\45L;Contract"
    assert columns(spec) == ["Rank", "RankTie", "PairId", "Names", "Contract"]


def test_reads_ruter_style_totals_scoretable_and_hand_records(data_dir: Path) -> None:
    event = load(data_dir / "io" / "howell_2_tables.pbn")
    assert event.name == "Two-table Howell"
    assert event.method is Method.MATCHPOINTS
    assert [str(p.key) for p in event.pairs] == ["1", "2", "3", "4"]
    first = event.pair(PairKey(None, 1))
    assert first is not None
    assert first.names == ("Ann North", "Bob South")
    assert first.published_percentage == Decimal("83.33")
    assert first.published_place == "1"
    assert event.pair(PairKey(None, 2)).published_place == "2-3"  # type: ignore[union-attr]
    assert len(event.lines) == 6
    assert event.boards[1].deal is not None
    assert event.boards[1].deal.startswith("N:9753.QT93.9752.8 ")
    assert event.boards[2].dealer == "E"
    assert event.boards[2].vulnerable == "NS"
    assert event.boards[1].optimum is not None
    assert event.boards[1].optimum["E"]["C"] == 9


def test_howell_scored_from_contracts_not_from_published_scores(data_dir: Path) -> None:
    # Board 2 publishes Score_NS 1400 for 1NTX W down 4; the Law 77 score is +800.
    event = load(data_dir / "io" / "howell_2_tables.pbn")
    line = next(ln for ln in event.lines if ln.board == 2 and ln.contract == "1NTX")
    assert line.published_ns_score == 1400
    assert line.ns_points() == 800
    report = score_event(event)
    got = {p.key.number: p.percentage for p in report.pairs}
    # Pair 1: 2 + 2 + 1 of 6 = 83.33 %; pairs 2 and 4: 3 of 6; pair 3: 1 of 6.
    assert got == {1: Fraction(250, 3), 2: Fraction(50), 3: Fraction(50, 3), 4: Fraction(50)}
    assert [p.place for p in report.pairs] == ["1", "2=", "2=", "4"]


def test_inherited_values_and_no_blank_line_between_games() -> None:
    text = (
        '[Event "E"]\n[Board "1"]\n[Contract "3NT"]\n[Declarer "N"]\n[Result "9"]\n'
        '[North "Para-1"]\n[South "Para-1"]\n[East "Para-2"]\n[West "Para-2"]\n'
        '[Board "1"]\n[Event "#"]\n[Contract "4S"]\n[Declarer "S"]\n[Result "10"]\n'
        '[North "Para-3"]\n[South "Para-3"]\n[East "Para-4"]\n[West "Para-4"]\n'
    )
    games = split_games(text)
    assert len(games) == 2
    assert games[1].tags["Event"] == "E"
    event = read_pbn(text)
    assert sorted(str(p.key) for p in event.pairs) == ["1", "2", "3", "4"]
    assert [(ln.contract, ln.tricks) for ln in event.lines] == [("3NT", 9), ("4S", 10)]


def test_comments_are_ignored() -> None:
    text = (
        "% a comment line\n"
        '[Event "E"] ; trailing comment\n'
        "{ a block\ncomment }\n"
        '[Board "1"]\n[Contract "Pass"]\n[North "A"]\n[South "B"]\n[East "C"]\n[West "D"]\n'
    )
    event = read_pbn(text)
    assert event.name == "E"
    assert event.lines[0].contract == "PASS"


_TABLE = '[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result"]\n'


@pytest.mark.parametrize(
    ("text", "line", "needle"),
    [
        ('[Event "E"]\n[Board "x"]\n', 2, "not a board number"),
        ('[Event "E"\n', 1, "malformed tag"),
        ("just words\n", 1, "outside any tag"),
        (
            _TABLE + "1 2 4S N\n",
            3,
            "4 values for 5 columns",
        ),
        (
            _TABLE + "1 2 4Q N 10\n",
            3,
            "strain",
        ),
        (
            _TABLE + "1 2 4S N +5\n",
            3,
            "impossible",
        ),
        ('[Board "1"]\n[Deal "N:AKQ.JT9.876.543 - - -"]\n', 2, "North has 12 cards; a hand has 13"),
    ],
)
def test_malformed_pbn_names_the_line(text: str, line: int, needle: str) -> None:
    with pytest.raises(EventFileError) as info:
        read_pbn(text)
    assert info.value.line == line
    assert needle in str(info.value)
    assert f"line {line}" in str(info.value)


def test_round_trip_preserves_the_event(data_dir: Path) -> None:
    original = load(data_dir / "io" / "howell_2_tables.pbn")
    report = score_event(original)
    again = read_pbn(write_pbn(original, report))
    assert content(again) == content(original)
    assert again.boards[1].deal == original.boards[1].deal
    assert again.boards[1].optimum == original.boards[1].optimum
    assert {p.key: p.published_percentage for p in again.pairs} == {
        p.key: Decimal(f"{float(p.percentage):.2f}") for p in report.pairs if p.percentage
    }


def test_round_trip_of_a_mitchell_with_artificial_scores(data_dir: Path) -> None:
    original = load(data_dir / "io" / "mitchell_3_tables.xml")
    report = score_event(original)
    text = write_pbn(original, report)
    again = read_pbn(text)
    assert content(again, rounds=False) == content(original, rounds=False)
    assert all(p.key.direction for p in again.pairs)
    rescored = score_event(again)
    assert [(p.key, p.percentage) for p in rescored.pairs] == [
        (p.key, p.percentage) for p in report.pairs
    ]


def test_sniffing_reads_pbn_without_suffix(data_dir: Path) -> None:
    data = (data_dir / "io" / "howell_2_tables.pbn").read_bytes()
    assert parse_bytes(data).source == "pbn"


def test_latin1_files_are_read(data_dir: Path) -> None:
    text = (data_dir / "io" / "howell_2_tables.pbn").read_text(encoding="utf-8")
    event = parse_bytes(text.encode("latin-1"), ".pbn")
    names = {p.key.number: p.names for p in event.pairs}
    assert names[4] == ("Gus Roe", "Hal Poe")


_PIECES = st.sampled_from(
    [
        '[Event "x"]',
        '[Board "1"]',
        '[Board "0"]',
        '[Board "99999"]',
        '[Contract "4S"]',
        '[Contract "9Z"]',
        '[Declarer "N"]',
        '[Result "10"]',
        '[Result "+9"]',
        '[Deal "N:AKQJT98765432..."]',
        '[Deal "N:AKQ.JT9.876.5432 - - -"]',
        '[Vulnerable "Both"]',
        '[Dealer "Q"]',
        '[ScoreTable "PairId_NS\\2R;PairId_EW;Contract;Declarer;Result"]',
        '[TotalScoreTable "Rank;PairId;Names"]',
        '[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]',
        "1 2 4S N 10",
        "1 2 A6040 - -",
        '1 3 "x y"',
        "N NT 9",
        "",
        "{",
        "}",
        "% c",
        "; c",
        "#",
        '"',
        "[",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_PIECES, max_size=25), st.text(max_size=40))
def test_pbn_parser_raises_only_event_file_errors(pieces: list[str], noise: str) -> None:
    text = "\n".join(pieces) + "\n" + noise
    try:
        event = read_pbn(text)
    except EventFileError:
        return
    for line in event.lines:
        assert line.board >= 1


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_pbn_parser_on_arbitrary_text(text: str) -> None:
    with contextlib.suppress(EventFileError):
        read_pbn(text)

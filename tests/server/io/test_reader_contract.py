"""The reader contract (issue 16 item 1): every traveller line is read or refused with its place
and reason, and each failure class the issue lists is read as the file means it.

Where a real file may be committed the test uses it (the FFB Magic Contest PBN in
tests/data/published/); otherwise a minimal file reproducing the class, marked so.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from server.io import EventFileError
from server.io.formats import load, parse_bytes
from server.io.limits import MAX_FILE_BYTES
from server.io.model import PairKey
from server.io.pbn import read_pbn
from server.io.report import ScoreReport
from server.io.scorefile import score_event
from server.io.usebio import read_usebio, write_usebio
from server.scoring import Method

FFB = "published/ffb_open2_dn1_finale_2022_seance1.pbn"


def _usebio(body: str, event_type: str = "MP_PAIRS", head: str = "") -> bytes:
    return (
        f'<?xml version="1.0"?>\n<USEBIO Version="1.2">\n<EVENT EVENT_TYPE="{event_type}">\n'
        f"{head}{body}\n</EVENT>\n</USEBIO>\n"
    ).encode()


def _tl(ns: int, ew: int, inner: str) -> str:
    return (
        f"<TRAVELLER_LINE><NS_PAIR_NUMBER>{ns}</NS_PAIR_NUMBER>"
        f"<EW_PAIR_NUMBER>{ew}</EW_PAIR_NUMBER>{inner}</TRAVELLER_LINE>"
    )


def _values(report: object, board: int = 1) -> dict[str, tuple[Fraction | None, ...]]:
    assert isinstance(report, ScoreReport)
    [traveller] = [b for b in report.boards if b.board == board]
    return {str(row.ns): (row.ns_value, row.ew_value) for row in traveller.rows}


# --- silently empty: SCORE and no CONTRACT -------------------------------------------------


def test_usebio_lines_with_a_score_and_no_contract_are_scored_from_the_score() -> None:
    # Minimal file reproducing "silently empty" (an individual event written SCORE alone);
    # no real file under a usable licence.
    scores = _usebio(
        "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
        + _tl(1, 2, "<SCORE>420</SCORE>")
        + _tl(3, 4, "<SCORE>-50</SCORE>")
        + _tl(5, 6, "<SCORE>170</SCORE>")
        + "</BOARD>"
    )
    contracts = _usebio(
        "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
        + _tl(1, 2, "<CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>10</TRICKS>")
        + _tl(3, 4, "<CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS>")
        + _tl(5, 6, "<CONTRACT>3S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS>")
        + "</BOARD>"
    )
    event = read_usebio(scores)
    assert [line.score for line in event.lines] == [420, -50, 170]
    assert all(line.played for line in event.lines)
    assert event.refused == []
    by_score, by_contract = score_event(event), score_event(read_usebio(contracts))
    assert _values(by_score) == _values(by_contract)
    assert _values(by_score)["1"] == (Fraction(4), Fraction(0))
    assert [(p.key.number, p.total) for p in by_score.pairs] == [
        (p.key.number, p.total) for p in by_contract.pairs
    ]
    again = read_usebio(write_usebio(event))  # the export keeps the score
    assert [line.score for line in again.lines] == [420, -50, 170]


def test_a_file_with_lines_but_no_result_is_refused_not_read_as_empty() -> None:
    # Minimal file: travellers whose lines hold no result at all.
    xml = _usebio("<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>" + _tl(1, 2, "") + "</BOARD>")
    with pytest.raises(EventFileError, match="no traveller line holds a result"):
        read_usebio(xml)


# --- one token no longer refuses the event -----------------------------------------------

VOID_DEAL = "N:Q64.-.KQ8643.KQT4 AKJT98753.AK.A.A 2.QJT98765432.J.- -.-.T9752.J9876532"
VOID_CANONICAL = "N:Q64..KQ8643.KQT4 AKJT98753.AK.A.A 2.QJT98765432.J. ..T9752.J9876532"


def test_a_void_written_dash_in_a_pbn_hand_record_is_a_void() -> None:
    # Minimal file reproducing the void "-" (the hand Q64.-.KQ8643.KQT4); no real
    # file under a usable licence.
    event = read_pbn(f'[Board "1"]\n[Deal "{VOID_DEAL}"]\n\n[Board "2"]\n[Deal "N:AK - - -"]\n')
    assert event.boards[1].deal == VOID_CANONICAL
    [refusal] = event.refused  # board 2's deal is broken: refused alone, board 1 kept
    assert (refusal.line, refusal.board) == (5, 2)
    assert "the deal" in refusal.reason


def test_a_void_written_dash_in_a_usebio_handset_is_a_void() -> None:
    # Minimal file reproducing the void "-" in <HANDSET>.
    hands = dict(zip("NESW", VOID_DEAL[2:].split(), strict=True))
    names = {"N": "North", "E": "East", "S": "South", "W": "West"}
    xml_hands = ""
    for seat, hand in hands.items():
        suits = hand.split(".")
        xml_hands += f"<HAND><DIRECTION>{names[seat]}</DIRECTION>" + "".join(
            f"<{tag}>{cards}</{tag}>"
            for tag, cards in zip(("SPADES", "HEARTS", "DIAMONDS", "CLUBS"), suits, strict=True)
        )
        xml_hands += "</HAND>"
    xml = (
        '<USEBIO Version="1.2"><EVENT EVENT_TYPE="MP_PAIRS">'
        "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
        + _tl(1, 2, "<CONTRACT>3NT</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS>")
        + "</BOARD></EVENT><HANDSET><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
        + xml_hands
        + "</BOARD></HANDSET></USEBIO>"
    ).encode()
    assert read_usebio(xml).boards[1].deal == VOID_CANONICAL


BRIDGEWEBS = (
    # Minimal file reproducing Bridgewebs-style spellings ("PO" passed out, "A A A" an adjusted
    # score); no real Bridgewebs file under a usable licence.
    '[Application "Bridgewebs"]\n[Event "Club night"]\n[Board "1"]\n'
    '[ScoreTable "Table\\2R;PairId_NS\\2R;PairId_EW\\2R;Contract\\4L;Declarer\\1R;Result\\2R;'
    'Score_NS\\5R;Score_EW\\5R;MP_NS\\4R;MP_EW\\4R"]\n'
    '1 1 5 4S N 10 "420" - 6 0\n'
    "2 2 6 PO - - - - 4 2\n"
    '3 3 7 3S N 8 - "50" 2 4\n'
    "4 4 8 A A A - - 3.6 2.4\n"
)


def test_bridgewebs_po_is_passed_out_and_a_a_a_an_adjusted_score() -> None:
    event = read_pbn(BRIDGEWEBS)
    assert event.program == "Bridgewebs"
    assert event.refused == []
    by_ns = {line.ns.number: line for line in event.lines if line.ns is not None}
    assert (by_ns[2].contract, by_ns[2].tricks) == ("PASS", 0)
    assert by_ns[4].artificial == (Fraction(60), Fraction(40))  # 3.6 and 2.4 of a top of 6
    assert any("A A A read as 60 % / 40 %" in note for note in event.notes)
    values = _values(score_event(event))
    assert values["4"] == (Fraction(18, 5), Fraction(12, 5))  # 60 % and 40 % of 6
    # PASS beats -50 and loses to 420: 2 of 4 over three results, factored to four (Neuberg)
    assert values["2"] == (Fraction(3), Fraction(3))


def test_a_a_a_takes_the_lines_published_percentage_first() -> None:
    text = (
        '[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result;'
        'Percentage_NS;Percentage_EW"]\n1 2 3NT N 9 100 0\n3 4 A A A 50 50\n'
    )
    [_, adjusted] = read_pbn(text).lines
    assert adjusted.artificial == (Fraction(50), Fraction(50))


def test_a_a_a_without_a_per_cent_is_refused_with_its_line() -> None:
    text = (
        '[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result"]\n'
        "1 2 3NT N 9\n3 4 A A A\n"
    )
    event = read_pbn(text)
    assert len(event.lines) == 1
    [refusal] = event.refused
    assert (refusal.line, refusal.board) == (4, 1)
    assert "adjusted score (A A A)" in refusal.reason


def test_a_typo_in_one_contract_of_a_real_file_refuses_that_line_only(data_dir: Path) -> None:
    """The real FFB file (Magic Contest, 660 lines) with one contract mistyped: the other
    659 lines are read and scored, the bad one is named by its line and board."""
    text = (data_dir / FFB).read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[61].startswith(" 3  1  3 42 4S  S 10")  # line 62, board 1
    lines[61] = lines[61].replace(" 4S  S 10", " 4Q  S 10")
    event = read_pbn("\n".join(lines) + "\n")
    whole = read_pbn(text)
    assert len(whole.lines) == 660
    assert whole.refused == []
    assert len(event.lines) == 659
    [refusal] = event.refused
    assert (refusal.line, refusal.board) == (62, 1)
    assert "strain" in refusal.reason
    assert str(refusal).startswith("line 62, board 1: ")
    assert len(score_event(event).pairs) == 44


def test_one_bad_usebio_line_is_refused_with_its_element_and_line() -> None:
    body = (
        '<SECTION SECTION_ID="A">\n<BOARD><BOARD_NUMBER>3</BOARD_NUMBER>\n'
        + _tl(1, 2, "<CONTRACT>3NT</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS>")
        + "\n"
        + _tl(3, 4, "<CONTRACT>3NQ</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS>")
        + "\n</BOARD>\n</SECTION>"
    )
    event = read_usebio(_usebio(body))
    assert len(event.lines) == 1
    [refusal] = event.refused
    assert refusal.element == "SECTION A / BOARD 3 / TRAVELLER_LINE 2"
    assert (refusal.line, refusal.board) == (7, 3)  # the second TRAVELLER_LINE, line 7


# --- misread: NP with SCORE 0 and matchpoints ---------------------------------------------


def test_np_with_score_0_and_matchpoints_is_passed_out_and_plain_np_not_played() -> None:
    # Minimal file reproducing NP written for a board passed out; no real file under a
    # usable licence.
    mp = "<NS_MATCH_POINTS>{}</NS_MATCH_POINTS><EW_MATCH_POINTS>{}</EW_MATCH_POINTS>"
    body = (
        "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
        + _tl(
            1,
            2,
            "<CONTRACT>4S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>10</TRICKS>"
            "<SCORE>420</SCORE>" + mp.format(4, 0),
        )
        + _tl(3, 4, "<CONTRACT>NP</CONTRACT><SCORE>0</SCORE>" + mp.format(2, 2))
        + _tl(
            5,
            6,
            "<CONTRACT>3S</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>8</TRICKS>"
            "<SCORE>-50</SCORE>" + mp.format(0, 4),
        )
        + _tl(7, 8, "<CONTRACT>NP</CONTRACT>")
        + "</BOARD>"
    )
    event = read_usebio(_usebio(body))
    by_ns = {line.ns.number: line for line in event.lines if line.ns is not None}
    assert (by_ns[3].contract, by_ns[3].tricks) == ("PASS", 0)
    assert not by_ns[7].played
    assert any("NP with SCORE 0 and matchpoints read as passed out" in n for n in event.notes)
    assert _values(score_event(event))["3"] == (Fraction(2), Fraction(2))


# --- pair identity: a Howell section beside Mitchell sections -----------------------------


def _pair(number: int, direction: str = "") -> str:
    side = f"<DIRECTION>{direction}</DIRECTION>" if direction else ""
    return f"<PAIR><PAIR_NUMBER>{number}</PAIR_NUMBER>{side}</PAIR>"


def _play(ns: int, ew: int, tricks: int) -> str:
    return _tl(ns, ew, f"<CONTRACT>3NT</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>{tricks}</TRICKS>")


def test_howell_pairs_beside_a_mitchell_section_keep_one_identity() -> None:
    # Minimal file reproducing a Howell section next to a Mitchell section; no real
    # multi-section USEBIO file under a usable licence.
    mitchell = (
        '<SECTION SECTION_ID="A"><PARTICIPANTS>'
        + "".join(_pair(n, d) for d in ("NS", "EW") for n in (1, 2))
        + "</PARTICIPANTS><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
        + _play(1, 1, 9)
        + _play(2, 2, 10)
        + "</BOARD></SECTION>"
    )
    howell = (
        '<SECTION SECTION_ID="B"><PARTICIPANTS>'
        + "".join(_pair(n) for n in (1, 2, 3, 4))
        + "</PARTICIPANTS><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
        + _play(1, 2, 9)
        + _play(3, 4, 8)
        + "</BOARD><BOARD><BOARD_NUMBER>2</BOARD_NUMBER>"
        + _play(1, 3, 9)
        + _play(4, 2, 10)
        + "</BOARD></SECTION>"
    )
    event = read_usebio(_usebio(mitchell + howell))
    section_b = [p.key for p in event.pairs if p.key.section == "B"]
    assert section_b == [PairKey("B", n) for n in (1, 2, 3, 4)]
    section_a = {p.key for p in event.pairs if p.key.section == "A"}
    assert section_a == {PairKey("A", n, d) for n in (1, 2) for d in ("NS", "EW")}
    ranked = [p.key for p in score_event(event).pairs if p.key.section == "B"]
    assert sorted(ranked) == section_b  # each Howell pair ranked once, on both boards


# --- event type, scoring method and scoring across sections -------------------------------

_ONE_BOARD = "<BOARD><BOARD_NUMBER>1</BOARD_NUMBER>" + _play(1, 2, 9) + _play(3, 4, 8) + "</BOARD>"


def test_an_unknown_event_type_gives_way_to_an_inner_butler_type_and_scoring_method() -> None:
    # Minimal file reproducing an unknown top-level EVENT_TYPE; no real file under a usable
    # licence.
    body = (
        '<SECTION SECTION_ID="A" EVENT_TYPE="BUTLER_PAIRS"><SCORING_METHOD>IMPS</SCORING_METHOD>'
        + _ONE_BOARD
        + "</SECTION>"
    )
    event = read_usebio(_usebio(body, event_type="CLUB_NIGHT_SPECIAL"))
    assert event.method is Method.BUTLER
    assert any("'CLUB_NIGHT_SPECIAL' is not a scoring method" in n for n in event.notes)
    assert not any("disagree" in n for n in event.notes)
    assert score_event(event).method is Method.BUTLER


def test_scoring_method_imps_beats_an_unknown_event_type() -> None:
    head = "<SCORING_METHOD>IMPS</SCORING_METHOD>"
    event = read_usebio(_usebio(_ONE_BOARD, event_type="WHATEVER", head=head))
    assert event.method is Method.IMPS_ACROSS


def test_a_conflict_between_the_places_is_noted() -> None:
    head = "<BOARD_SCORING_METHOD>IMPS</BOARD_SCORING_METHOD>"
    event = read_usebio(_usebio(_ONE_BOARD, event_type="MP_PAIRS", head=head))
    assert event.method is Method.IMPS_ACROSS
    [note] = [n for n in event.notes if "disagree" in n]
    assert "EVENT EVENT_TYPE 'MP_PAIRS'" in note
    assert "scored as imps" in note


def test_no_known_method_is_noted_not_silent() -> None:
    event = read_usebio(_usebio(_ONE_BOARD, event_type="WHATEVER"))
    assert event.method is None
    assert any("no scoring method Traveller knows" in n for n in event.notes)


def test_our_own_export_reads_back_without_a_note(data_dir: Path) -> None:
    original = load(data_dir / "io" / "mitchell_3_tables.xml")
    again = read_usebio(write_usebio(original, score_event(original, Method.BUTLER)))
    assert again.method is Method.BUTLER
    assert again.notes == []


def _two_sections(top: int) -> str:
    mp = f"<NS_MATCH_POINTS>{top // 2}</NS_MATCH_POINTS><EW_MATCH_POINTS>{top - top // 2}"
    mp += "</EW_MATCH_POINTS>"
    sections = ""
    for letter in "AB":
        lines = "".join(
            _tl(
                n, n + 10, f"<CONTRACT>3NT</CONTRACT><PLAYED_BY>N</PLAYED_BY><TRICKS>9</TRICKS>{mp}"
            )
            for n in (1, 2)
        )
        sections += (
            f'<SECTION SECTION_ID="{letter}"><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>{lines}'
            "</BOARD></SECTION>"
        )
    return sections


def test_scoring_across_sections_is_read_from_the_published_matchpoints() -> None:
    # Minimal files: two sections of two tables; the published top is 6 (over all four
    # tables) in one and 2 (per section) in the other.
    across = read_usebio(_usebio(_two_sections(6)))
    assert across.across_sections is True
    assert any("scored across sections" in n for n in across.notes)
    per_section = read_usebio(_usebio(_two_sections(2)))
    assert per_section.across_sections is False


# --- the program that wrote the file ------------------------------------------------------


def test_the_program_is_read_from_every_format(data_dir: Path) -> None:
    assert load(data_dir / FFB).program.startswith("Magic Contest France 4.13.3.4")
    assert load(data_dir / "io" / "mitchell_3_tables.xml").program == "hand-written test fixture"
    head = "<PROGRAM_NAME>EBUScore</PROGRAM_NAME><PROGRAM_VERSION>10.2</PROGRAM_VERSION>"
    assert read_usebio(_usebio(_ONE_BOARD, head=head)).program == "EBUScore 10.2"
    generator = '[Generator "BigDeal 2.2"]\n[Board "1"]\n[Deal "' + VOID_DEAL + '"]\n'
    assert read_pbn(generator).program == "BigDeal 2.2"


# --- a file unreadable as a whole ---------------------------------------------------------


def test_a_file_over_the_size_bound_is_refused_before_parsing() -> None:
    with pytest.raises(EventFileError, match="MB"):
        parse_bytes(b"[" + b" " * MAX_FILE_BYTES)


def test_every_line_refused_names_the_first_place() -> None:
    text = '[Board "1"]\n[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result"]\n1 2 9S N 9\n'
    with pytest.raises(EventFileError, match="nothing usable left") as info:
        read_pbn(text)
    assert info.value.line == 3


def test_pbn_games_that_disagree_on_the_scoring_are_noted() -> None:
    # Minimal file: two games naming different [Scoring].
    row = '[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result"]\n1 2 3NT N 9\n'
    text = f'[Board "1"]\n[Scoring "MatchPoints"]\n{row}\n[Board "2"]\n[Scoring "IMP"]\n{row}'
    event = read_pbn(text)
    assert event.method is Method.MATCHPOINTS
    [note] = event.notes
    assert "line 2 'MatchPoints'; line 7 'IMP'" in note

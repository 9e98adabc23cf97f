"""Every USEBIO export variant held against the files two other programs wrote, and scored again.

No copy of the USEBIO 1.2 DTD could be had (none in the stored public code, pages or docs: the
DTD's address, www.ebu.co.uk/usebio/usebio_v1_2.dtd, is only ever named in a DOCTYPE; usebio.org's
page links it without its text), so the export's structure is held against real files:

- **Compscore3** (Australia): ``results/tests/test_files/mp_pairs_howell.xml``,
  ``mp_pairs_mitchell.xml`` and ``mp_pairs_mitchell_adjusted.xml`` of github.com/abftech/cobalt,
  commit e6219726a231885ed200d2ffd94a92476763b947 (GPL-3.0). Real club sessions, with the players'
  names and national numbers: the files are not copied here (a copyleft licence, and personal
  data); only the element order below was transcribed from them (the three files agree).
- **NZ Bridge Scorer**, converted by scorer-to-usebio: ``tests/integration_tests/converted/
  pairs.xml`` and ``three_quarter_howell_with_phantom.xml`` of github.com/duaneg/scorer-to-usebio,
  commit 1888aeae7788c8c487a14fe9e376dd9a1949bbd3 (AGPL-3.0; anonymised names): not copied
  either, the element order transcribed.

The two writers disagree on the order of EVENT's and PAIR's children (Compscore puts the
description before the program and a pair's players last), so no strict order can be what every
reader expects. The rule held: under every element, two children that every writer writing both
puts in one order come in that order in the export too; and under every element the export
follows at least one writer's whole order. Each variant is also read back and scored again to the
figures it was written with.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import pytest

from server.io.formats import load
from server.io.model import EventFile, PairEntry
from server.io.pbn_syntax import split_games
from server.io.report import ScoreReport
from server.io.scorefile import score_event
from server.io.usebio import read_usebio, write_usebio
from tests.support.io import pairs_event

Orders = dict[str, list[str]]
"""A writer's order: an element's path -> its children's names."""

_LINE = ["NS_PAIR_NUMBER", "EW_PAIR_NUMBER", "CONTRACT", "PLAYED_BY", "LEAD", "TRICKS", "SCORE"]
COMPSCORE3: Orders = {
    "USEBIO": ["CLUB", "EVENT", "HANDSET"],
    "USEBIO/CLUB": ["CLUB_NAME", "CLUB_ID_NUMBER"],
    "USEBIO/EVENT": [
        "EVENT_IDENTIFIER", "EVENT_DESCRIPTION", "PROGRAM_NAME", "PROGRAM_VERSION",
        "WINNER_TYPE", "TITLE", "DATE", "VENUE", "MASTER_POINT_SCALE", "MASTER_POINT_TYPE",
        "MPS_AWARDED_FLAG", "SESSION_COUNT", "SECTION_COUNT", "P2P_CHARGE_RATE", "CONTACT",
        "PARTICIPANTS", "BOARD",
    ],
    "USEBIO/EVENT/PARTICIPANTS": ["PAIR"],
    "USEBIO/EVENT/PARTICIPANTS/PAIR": [
        "PAIR_NUMBER", "DIRECTION", "TOTAL_SCORE", "PERCENTAGE", "PLACE",
        "MASTER_POINTS_AWARDED", "MASTER_POINT_TYPE", "PLAYER",
    ],
    "USEBIO/EVENT/PARTICIPANTS/PAIR/PLAYER": [
        "PLAYER_NAME", "NATIONAL_ID_NUMBER", "CLUB_ID_NUMBER",
    ],
    "USEBIO/EVENT/BOARD": ["BOARD_NUMBER", "TRAVELLER_LINE"],
    "USEBIO/EVENT/BOARD/TRAVELLER_LINE": [*_LINE, "NS_MATCH_POINTS", "EW_MATCH_POINTS"],
    "USEBIO/HANDSET": ["BOARD"],
    "USEBIO/HANDSET/BOARD": ["BOARD_NUMBER", "HAND"],
    "USEBIO/HANDSET/BOARD/HAND": ["DIRECTION", "CLUBS", "DIAMONDS", "HEARTS", "SPADES"],
}  # fmt: skip
NZ_SCORER: Orders = {
    "USEBIO": ["CLUB", "EVENT"],
    "USEBIO/CLUB": ["CLUB_NAME", "CLUB_ID_NUMBER"],
    "USEBIO/EVENT": [
        "PROGRAM_NAME", "PROGRAM_VERSION", "EVENT_DESCRIPTION", "DATE", "WINNER_TYPE",
        "BOARDS_PLAYED", "MPS_AWARDED_FLAG", "PARTICIPANTS", "BOARD",
    ],
    "USEBIO/EVENT/PARTICIPANTS": ["PAIR"],
    "USEBIO/EVENT/PARTICIPANTS/PAIR": [
        "PAIR_NUMBER", "DIRECTION", "BOARDS_PLAYED", "PLAYER", "PLACE", "TOTAL_SCORE",
        "PERCENTAGE", "MASTER_POINTS",
    ],
    "USEBIO/EVENT/PARTICIPANTS/PAIR/PLAYER": ["PLAYER_NAME", "NATIONAL_ID_NUMBER"],
    "USEBIO/EVENT/PARTICIPANTS/PAIR/MASTER_POINTS": ["MASTER_POINTS_AWARDED", "MASTER_POINT_TYPE"],
    "USEBIO/EVENT/BOARD": ["BOARD_NUMBER", "TRAVELLER_LINE"],
    "USEBIO/EVENT/BOARD/TRAVELLER_LINE": [*_LINE, "NS_MATCH_POINTS", "EW_MATCH_POINTS"],
}  # fmt: skip
WRITERS = {"Compscore3": COMPSCORE3, "NZ Scorer": NZ_SCORER}
REALBRIDGE = "endplay-realbridge/example2_realbridge_2021_online_qual_open_R2.pbn"
HOSTILE = ('Ann "the Ace" & <Berg>', "Øy; Ærø – ½ ]]>")


def orders(data: bytes) -> dict[str, list[list[str]]]:
    """Each element's path -> the names of the children of each element at that path, in the
    order they come (a repeated child named once, where it first comes)."""
    out: dict[str, list[list[str]]] = {}

    def walk(element: ET.Element, path: str) -> None:
        out.setdefault(path, []).append(list(dict.fromkeys(child.tag for child in element)))
        for child in element:
            walk(child, f"{path}/{child.tag}")

    root = ET.fromstring(data)
    walk(root, root.tag)
    return out


def _before(order: list[str], a: str, b: str) -> bool:
    return order.index(a) < order.index(b)


def disagreements(ours: dict[str, list[list[str]]]) -> list[str]:
    """Where an element of the export breaks the rule of the module's docstring."""
    out: list[str] = []
    for path, elements in ours.items():
        theirs = {name: w[path] for name, w in WRITERS.items() if path in w}
        for children in elements:
            for a, b in combinations(children, 2):
                writing = [order for order in theirs.values() if a in order and b in order]
                agreed = {_before(order, a, b) for order in writing}
                if len(agreed) == 1 and agreed != {_before(children, a, b)}:
                    out.append(f"{path}: {a} and {b} in the other order than every writer")
            followed = [
                name
                for name, order in theirs.items()
                if [c for c in children if c in order] == [c for c in order if c in children]
            ]
            if theirs and not followed:
                out.append(f"{path}: follows neither writer ({children})")
    return sorted(set(out))


def _figures(report: ScoreReport) -> list[tuple[str, object, object, str]]:
    return [(str(p.key), p.total, p.percentage, p.place) for p in report.pairs]


def _hostile(data_dir: Path) -> EventFile:
    event = load(data_dir / "io" / "howell_2_tables.pbn")
    first = event.pairs[0]
    event.pairs[0] = PairEntry(first.key, HOSTILE)
    return event


def _provisional(data_dir: Path) -> EventFile:
    event = load(data_dir / "io" / "mitchell_3_tables.xml")
    event.provisional, event.tables_per_board = True, 4
    return event


def _played(data_dir: Path) -> EventFile:
    real = load(data_dir / REALBRIDGE)
    assert real.teams is not None
    return pairs_event(real.teams.lines, split_games((data_dir / REALBRIDGE).read_text()))


VARIANTS: dict[str, Callable[[Path], EventFile]] = {
    "pairs without hand records": lambda d: load(d / "io" / "mitchell_3_tables.xml"),
    "pairs with hand records": lambda d: load(d / "io" / "howell_2_tables.pbn"),
    "individual": lambda d: load(d / "io" / "individual_minimal.xml"),
    "real individual (Ruter)": lambda d: load(
        d / "published" / "ruter_nesodden_bk_2022-10-04_hostsingel_individual.pbn"
    ),
    "hostile names": _hostile,
    "mid-session (provisional)": _provisional,
    "real event with auctions and play": _played,
}


def test_the_writers_orders_were_transcribed_as_they_agree_and_differ() -> None:
    """The two writers share the traveller line's order and disagree on EVENT and PAIR: the
    rule has something to hold in both cases."""
    line = "USEBIO/EVENT/BOARD/TRAVELLER_LINE"
    assert COMPSCORE3[line] == NZ_SCORER[line]
    assert disagreements({"USEBIO/EVENT": [NZ_SCORER["USEBIO/EVENT"]]}) == []
    assert disagreements({"USEBIO/EVENT": [COMPSCORE3["USEBIO/EVENT"]]}) == []
    swapped = {line: [["EW_PAIR_NUMBER", "NS_PAIR_NUMBER", "CONTRACT"]]}
    assert disagreements(swapped) == [
        f"{line}: EW_PAIR_NUMBER and NS_PAIR_NUMBER in the other order than every writer",
        f"{line}: follows neither writer (['EW_PAIR_NUMBER', 'NS_PAIR_NUMBER', 'CONTRACT'])",
    ]


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_every_export_variant_keeps_the_real_writers_order_and_rescores(
    data_dir: Path, variant: str
) -> None:
    event = VARIANTS[variant](data_dir)
    report = score_event(event)
    data = write_usebio(event, report)
    assert data.startswith(b'<?xml version="1.0" encoding="UTF-8"?>')
    ours = orders(data)
    assert disagreements(ours) == []
    assert {tuple(board) for board in ours["USEBIO/EVENT/BOARD"]} == {
        ("BOARD_NUMBER", "TRAVELLER_LINE")
    }
    again = read_usebio(data)
    assert again.refused == []
    assert _figures(score_event(again)) == _figures(report)


def test_hand_records_are_written_in_compscores_suit_order(data_dir: Path) -> None:
    event = load(data_dir / "io" / "howell_2_tables.pbn")
    ours = orders(write_usebio(event, score_event(event)))
    assert ours["USEBIO"] == [["CLUB", "EVENT", "HANDSET"]]
    hands = ours["USEBIO/HANDSET/BOARD/HAND"]
    assert len(hands) == 4 * len(event.boards)
    assert all(hand == COMPSCORE3["USEBIO/HANDSET/BOARD/HAND"] for hand in hands)

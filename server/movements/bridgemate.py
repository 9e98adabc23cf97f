"""The Bridgemate RoundData shape: Section, Table, Round, NSPair, EWPair, LowBoard, HighBoard.

Bridgemate scoring programs hold pair numbers only; a sit-out is pair 0. For a Mitchell the
N/S column holds N/S pair numbers and the E/W column E/W numbers, so read such rows with
`mitchell=True`. An arrow-switched round is stored with the pairs in their home columns (the
switch is a per-round setting in those programs), so pass `arrow_switch_rounds` both ways.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from typing import Any

from server.movements.exchange import movement_from_assignments
from server.movements.model import Movement, PairRef, RoundAssignment

ROUND_DATA_FIELDS = ("Section", "Table", "Round", "NSPair", "EWPair", "LowBoard", "HighBoard")


def section_letter(index: int) -> str:
    """Bridgemate sections are letters: 1 -> "A"."""
    return chr(ord("A") + index - 1)


def to_round_data(
    m: Movement, section: str = "A", *, arrow_switch_rounds: Collection[int] = ()
) -> list[dict[str, Any]]:
    """RoundData rows; boards must be a run (LowBoard..HighBoard)."""
    rows = []
    for a in sorted(m.assignments, key=lambda a: (a.round, a.table)):
        if list(a.boards) != list(range(a.boards[0], a.boards[0] + len(a.boards))):
            raise ValueError(f"round {a.round}, table {a.table}: boards {a.boards} are not one run")
        ns, ew = (a.ew, a.ns) if a.round in arrow_switch_rounds else (a.ns, a.ew)
        rows.append(
            {
                "Section": section,
                "Table": a.table,
                "Round": a.round,
                "NSPair": 0 if ns is None else ns.number,
                "EWPair": 0 if ew is None else ew.number,
                "LowBoard": a.boards[0],
                "HighBoard": a.boards[-1],
            }
        )
    return rows


def from_round_data(
    rows: Iterable[Mapping[str, Any]],
    *,
    mitchell: bool = False,
    arrow_switch_rounds: Collection[int] = (),
    name: str = "imported",
) -> dict[str, Movement]:
    """Movements by section from RoundData rows (keys as in ROUND_DATA_FIELDS)."""
    by_section: dict[str, list[RoundAssignment]] = defaultdict(list)
    for row in rows:
        ns_number, ew_number = int(row["NSPair"]), int(row["EWPair"])
        ns = None if ns_number == 0 else PairRef(ns_number, "NS" if mitchell else None)
        ew = None if ew_number == 0 else PairRef(ew_number, "EW" if mitchell else None)
        round_number = int(row["Round"])
        if round_number in arrow_switch_rounds:
            ns, ew = ew, ns
        low, high = int(row["LowBoard"]), int(row["HighBoard"])
        by_section[str(row["Section"])].append(
            RoundAssignment(int(row["Table"]), round_number, ns, ew, tuple(range(low, high + 1)))
        )
    kind = "mitchell" if mitchell else "imported"
    return {
        section: movement_from_assignments(cells, name=name, kind=kind)
        for section, cells in by_section.items()
    }


def numbered_by_direction(rows: Iterable[Mapping[str, Any]]) -> bool:
    """True when RoundData numbers pairs per direction (Mitchell: N/S 1..n and E/W 1..n).

    Howell numbering gives each pair one number, so a number sits at most once per round; a
    Mitchell has the same number at two tables in a round (N/S 3 and E/W 3)."""
    seen: dict[tuple[str, int], set[int]] = defaultdict(set)
    for row in rows:
        key = (str(row["Section"]), int(row["Round"]))
        for number in (int(row["NSPair"]), int(row["EWPair"])):
            if number and number in seen[key]:
                return True
            if number:
                seen[key].add(number)
    return False


def write_round_data_csv(rows: Iterable[Mapping[str, Any]]) -> str:
    """RoundData rows as CSV text with the Bridgemate column names."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=ROUND_DATA_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def read_round_data_csv(text: str) -> list[dict[str, Any]]:
    """RoundData rows from CSV text with the Bridgemate column names."""
    return [dict(row) for row in csv.DictReader(io.StringIO(text))]

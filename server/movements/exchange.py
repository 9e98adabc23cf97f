"""Movements as plain rows (section, table, round, ns, ew, boards) in CSV and JSON."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from server.movements.model import Movement, PairRef, RoundAssignment

ROW_FIELDS = ("section", "table", "round", "ns", "ew", "boards")


def format_boards(boards: Iterable[int]) -> str:
    """Boards as text: "1-4" for a run, "5 6 17 18" otherwise."""
    listed = list(boards)
    if len(listed) > 1 and listed == list(range(listed[0], listed[0] + len(listed))):
        return f"{listed[0]}-{listed[-1]}"
    return " ".join(str(b) for b in listed)


def parse_boards(text: str) -> tuple[int, ...]:
    """Read "1-4", "5 6 17 18", "5,6" or "7" back into board numbers."""
    boards: list[int] = []
    for part in text.replace(",", " ").split():
        if "-" in part:
            low, high = part.split("-", 1)
            boards.extend(range(int(low), int(high) + 1))
        else:
            boards.append(int(part))
    return tuple(boards)


def to_rows(m: Movement, section: str = "A") -> list[dict[str, Any]]:
    """One row per table and round, in round then table order."""
    return [
        {
            "section": section,
            "table": a.table,
            "round": a.round,
            "ns": "" if a.ns is None else str(a.ns),
            "ew": "" if a.ew is None else str(a.ew),
            "boards": format_boards(a.boards),
        }
        for a in sorted(m.assignments, key=lambda a: (a.round, a.table))
    ]


def from_rows(
    rows: Iterable[Mapping[str, Any]], *, name: str = "imported", kind: str = "imported"
) -> dict[str, Movement]:
    """Movements by section from rows; boards may be text ("1-4") or a list of numbers."""
    by_section: dict[str, list[RoundAssignment]] = defaultdict(list)
    for row in rows:
        boards = row["boards"]
        by_section[str(row.get("section") or "A")].append(
            RoundAssignment(
                table=int(row["table"]),
                round=int(row["round"]),
                ns=_pair(row.get("ns")),
                ew=_pair(row.get("ew")),
                boards=parse_boards(boards)
                if isinstance(boards, str)
                else tuple(int(b) for b in boards),
            )
        )
    return {
        section: movement_from_assignments(cells, name=name, kind=kind)
        for section, cells in by_section.items()
    }


def movement_from_assignments(
    cells: Iterable[RoundAssignment],
    *,
    name: str,
    kind: str,
    shared_tables: tuple[tuple[int, ...], ...] = (),
) -> Movement:
    """A Movement sized to fit the given assignments."""
    ordered = tuple(sorted(cells, key=lambda a: (a.round, a.table)))
    return Movement(
        name=name,
        kind=kind,
        tables=max((a.table for a in ordered), default=0),
        rounds=max((a.round for a in ordered), default=0),
        boards_per_round=max((len(a.boards) for a in ordered), default=0),
        assignments=ordered,
        shared_tables=shared_tables,
    )


def _pair(value: Any) -> PairRef | None:
    if value is None or value == "" or value == 0 or value == "0":
        return None
    return PairRef.parse(value if isinstance(value, int) else str(value))


def write_csv(sections: Mapping[str, Movement] | Movement) -> str:
    """CSV text with a header row: section, table, round, ns, ew, boards."""
    if isinstance(sections, Movement):
        sections = {"A": sections}
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=ROW_FIELDS, lineterminator="\n")
    writer.writeheader()
    for section, m in sections.items():
        writer.writerows(to_rows(m, section))
    return out.getvalue()


def read_csv(text: str, *, name: str = "imported", kind: str = "imported") -> dict[str, Movement]:
    """Movements by section from CSV text with a header row (column names in any case)."""
    reader = csv.DictReader(io.StringIO(text))
    rows = [{k.strip().lower(): (v or "").strip() for k, v in row.items() if k} for row in reader]
    return from_rows(rows, name=name, kind=kind)


def write_json(sections: Mapping[str, Movement] | Movement) -> str:
    """JSON text: {"sections": {name: movement}} with every field of the Movement kept."""
    if isinstance(sections, Movement):
        sections = {"A": sections}
    return json.dumps({"sections": {k: m.to_dict() for k, m in sections.items()}}, indent=1)


def read_json(text: str) -> dict[str, Movement]:
    """Read write_json's output, or a plain list of rows."""
    data = json.loads(text)
    if isinstance(data, list):
        return from_rows(data)
    return {k: Movement.from_dict(v) for k, v in data["sections"].items()}

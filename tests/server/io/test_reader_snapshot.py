"""Every committed data file reads exactly as it did before the readers shared one
``fill_play`` (issue 19 item 2): the same lines, the same contract, declarer, tricks and
score on each, the same refusals in the same places.

The expectations in ``snapshots/reader_lines.json`` were generated from main's readers before
the change, by ``python -m tests.server.io.test_reader_snapshot --write``; a reader change that
alters how a committed file reads must show up here, and be regenerated only on purpose.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from server.io.errors import EventFileError
from server.io.formats import load
from server.io.model import EventFile, Line, Refusal, TeamLine
from tests.support.io import DATA

SNAPSHOT = Path(__file__).resolve().parent / "snapshots" / "reader_lines.json"
_NOT_EVENT_FILES = {"README.md", ".gitattributes"}


def _files() -> list[Path]:
    return sorted(
        path for path in DATA.rglob("*") if path.is_file() and path.name not in _NOT_EVENT_FILES
    )


def _refusal(refusal: Refusal) -> dict[str, Any]:
    return {
        "line": refusal.line,
        "element": refusal.element,
        "board": refusal.board,
        "reason": refusal.reason,
    }


def _line(line: Line) -> list[Any]:
    return [
        line.board,
        line.section,
        line.round,
        line.table,
        None if line.ns is None else str(line.ns),
        None if line.ew is None else str(line.ew),
        line.contract,
        line.declarer,
        line.tricks,
        None if line.artificial is None else [str(p) for p in line.artificial],
        line.score,
        line.ns_points(),
        line.published_ns_score,
        line.lead,
        line.auction is not None,
        line.play is not None,
    ]


def _team_line(line: TeamLine) -> list[Any]:
    return [
        line.board,
        line.stage,
        line.room,
        line.table,
        line.ns_team,
        line.ew_team,
        line.contract,
        line.declarer,
        line.tricks,
        line.ns_points(),
        line.published_ns_score,
        line.lead,
        line.element,
        line.source_line,
    ]


def _event(event: EventFile) -> dict[str, Any]:
    return {
        "lines": len(event.lines),
        "refused": len(event.refused),
        "per_line": [_line(line) for line in event.lines],
        "team_lines": None
        if event.teams is None
        else [_team_line(line) for line in event.teams.lines],
        "refusals": [_refusal(r) for r in event.refused],
        "notes": list(event.notes),
    }


def snapshot(path: Path) -> dict[str, Any]:
    """How the file reads: every line and refusal, or the whole file's refusal."""
    try:
        event = load(path)
    except EventFileError as exc:
        return {"refused_whole": {"reason": exc.message, "line": exc.line, "board": exc.board}}
    return _event(event)


def _name(path: Path) -> str:
    return path.relative_to(DATA).as_posix()


def _expected() -> dict[str, Any]:
    expected: dict[str, Any] = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    return expected


def test_the_snapshot_covers_every_committed_data_file() -> None:
    assert sorted(_expected()) == [_name(path) for path in _files()]
    read = [name for name, shot in _expected().items() if "lines" in shot]
    assert len(read) >= 12  # the event files; the rest (hand records, vectors) refused whole


@pytest.mark.parametrize("path", _files(), ids=_name)
def test_a_committed_file_reads_as_before(path: Path) -> None:
    # A JSON round trip so tuples and lists compare alike.
    assert json.loads(json.dumps(snapshot(path))) == _expected()[_name(path)]


if __name__ == "__main__" and "--write" in sys.argv:
    SNAPSHOT.parent.mkdir(exist_ok=True)
    shots = {_name(path): snapshot(path) for path in _files()}
    rows = []  # one file a block, one traveller line a row
    for name, shot in shots.items():
        parts = []
        for key, value in shot.items():
            if isinstance(value, list) and value and isinstance(value[0], list):
                body = ",\n   ".join(json.dumps(row, ensure_ascii=False) for row in value)
                parts.append(f"  {json.dumps(key)}: [\n   {body}\n  ]")
            else:
                parts.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}")
        rows.append(f"{json.dumps(name)}: {{\n" + ",\n".join(parts) + "\n }")
    SNAPSHOT.write_text("{\n" + ",\n".join(rows) + "\n}\n", encoding="utf-8")

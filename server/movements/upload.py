"""A movement file a TD uploads (CSV rows, JSON, Bridgemate RoundData CSV), read into one
validated Movement; a fault names the file's line.

The format is told from the content: JSON starts with ``{`` or ``[``, RoundData has the
NSPair column, anything else is the CSV rows of `exchange.py`. One section per file.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from server.movements.bridgemate import from_round_data, numbered_by_direction
from server.movements.exchange import from_rows, read_json
from server.movements.model import Movement
from server.movements.validate import MovementError, validate

MAX_ROWS = 5000


class MovementFileError(ValueError):
    """A movement file that cannot be played, with the line where it went wrong."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        self.message = message
        self.line = line
        super().__init__(f"line {line}: {message}" if line is not None else message)


def read_movement(text: str) -> Movement:
    """The one movement of an uploaded file, validated (MovementFileError naming the line)."""
    stripped = text.lstrip("\ufeff").strip()
    if not stripped:
        raise MovementFileError("the file is empty")
    if stripped[0] in "{[":
        return _checked(_json(stripped), {})
    rows, lines = _csv_rows(stripped)
    if "nspair" in (rows[0] if rows else {}):
        return _read_rows(rows, lines, _round_data)
    return _read_rows(rows, lines, lambda rs: from_rows(rs))


def _json(text: str) -> Movement:
    try:
        sections = read_json(text)
    except json.JSONDecodeError as exc:
        raise MovementFileError(exc.msg, line=exc.lineno) from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise MovementFileError(f"not a movement ({exc})") from exc
    return _one(sections)


def _csv_rows(text: str) -> tuple[list[dict[str, str]], list[int]]:
    """The rows with lower-case column names, and each row's line in the file."""
    reader = csv.DictReader(io.StringIO(text))
    rows: list[dict[str, str]] = []
    lines: list[int] = []
    for row in reader:
        if len(rows) >= MAX_ROWS:
            raise MovementFileError(f"more than {MAX_ROWS} rows")
        cells = {k.strip().lower(): (v or "").strip() for k, v in row.items() if k}
        if any(cells.values()):
            rows.append(cells)
            lines.append(reader.line_num)
    if not rows:
        raise MovementFileError("no rows under the header line", line=1)
    return rows, lines


def _round_data(rows: Sequence[Mapping[str, Any]]) -> dict[str, Movement]:
    named = [
        {
            "Section": row.get("section") or "A",
            "Table": row["table"],
            "Round": row["round"],
            "NSPair": row["nspair"],
            "EWPair": row["ewpair"],
            "LowBoard": row["lowboard"],
            "HighBoard": row["highboard"],
        }
        for row in rows
    ]
    return from_round_data(named, mitchell=numbered_by_direction(named))


def _read_rows(
    rows: list[dict[str, str]],
    lines: list[int],
    read: Callable[[Sequence[Mapping[str, Any]]], dict[str, Movement]],
) -> Movement:
    """Read row by row first, so a bad cell is named by its line."""
    for row, line in zip(rows, lines, strict=True):
        try:
            read([row])
        except KeyError as exc:
            raise MovementFileError(f"the column {exc} is missing", line=line) from exc
        except ValueError as exc:
            raise MovementFileError(str(exc), line=line) from exc
    where = {
        (row.get("table", ""), row.get("round", "")): line
        for row, line in zip(rows, lines, strict=True)
    }
    return _checked(_one(read(rows)), where)


def _one(sections: Mapping[str, Movement]) -> Movement:
    if len(sections) != 1:
        raise MovementFileError(f"the file holds {len(sections)} sections; upload one at a time")
    return next(iter(sections.values()))


def _checked(m: Movement, where: Mapping[tuple[str, str], int]) -> Movement:
    try:
        validate(m)
    except MovementError as exc:
        line = where.get((str(exc.table), str(exc.round)))
        raise MovementFileError(str(exc), line=line) from exc
    return m

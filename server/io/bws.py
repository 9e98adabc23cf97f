"""Read-only import of a Bridgemate .bws (Access) database: movement, results and players.

Uses the optional pure-Python `access-parser` package (extra "bws"). The mapping from the
tables (Section, RoundData, ReceivedData, PlayerNumbers) to an EventFile is separate from the
Access reader, so it can be tested on plain rows.

The reader's contract: each ReceivedData row is read or put in ``EventFile.refused``
with its place ("ReceivedData row 7 (board 3)") and reason. The tables read do not name the
scoring program that wrote the file, so ``EventFile.program`` stays "".
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from protocol.bridge import Contract, Seat, dealer
from protocol.bridge.auction import Auction
from protocol.bridge.play import Play

from . import spelling
from .assemble import Assembler, RawPair, RawRef, finish
from .errors import EventFileError
from .lines import Cells, fill_play
from .model import EventFile, Line, Refusal
from .played import PlayedError, auction_text, play_text

Rows = list[dict[str, Any]]
TABLES = ("Section", "RoundData", "ReceivedData", "PlayerNumbers", "BiddingData", "PlayData")
"""The tables read; BiddingData and PlayData (the auction and the play keyed at Bridgemate II/3
tables: ID, Section, Table, Round, Board, Counter, Direction, Bid or Card, Erased) are optional."""


@dataclass(frozen=True, slots=True)
class BwsMovement:
    """One RoundData row: who sits where in a round and the boards they play."""

    section: str | None
    table: int
    round: int
    ns: int
    ew: int
    low_board: int
    high_board: int


@dataclass(slots=True)
class BwsData:
    """What a .bws file holds for scoring: the movement, the results and the players."""

    event: EventFile
    movement: list[BwsMovement] = field(default_factory=list)


def rows_of(columns: Mapping[str, Sequence[Any]]) -> Rows:
    """Column-wise data (as access-parser returns it) as a list of row dicts."""
    names = list(columns)
    length = max((len(columns[n]) for n in names), default=0)
    return [
        {name: (columns[name][i] if i < len(columns[name]) else None) for name in names}
        for i in range(length)
    ]


def read_tables(path: Path) -> dict[str, Rows]:
    """The four tables of a .bws file, read with access-parser."""
    try:
        module = importlib.import_module("access_parser")
    except ImportError:
        raise EventFileError(
            "reading .bws files needs the optional access-parser package "
            "(pip install access-parser)",
            path=str(path),
        ) from None
    try:
        database = module.AccessParser(str(path))
    except Exception as exc:  # access-parser raises bare exceptions on foreign files
        raise EventFileError(f"not a Bridgemate (Access) database: {exc}", path=str(path)) from None
    tables: dict[str, Rows] = {}
    for name in TABLES:
        try:
            tables[name] = rows_of(database.parse_table(name))
        except Exception:  # a missing table is reported below, with its name
            tables[name] = []
    if not tables["ReceivedData"] and not tables["RoundData"]:
        raise EventFileError("no RoundData or ReceivedData table", path=str(path))
    return tables


def read_bws(path: Path, reader: Callable[[Path], dict[str, Rows]] = read_tables) -> EventFile:
    """Read a .bws file into an event (results from ReceivedData, names from PlayerNumbers)."""
    return finish(from_tables(reader(path)).event)


def _get(row: Mapping[str, Any], *names: str) -> Any:
    for name in names:
        if name in row and row[name] not in (None, ""):
            return row[name]
    lowered = {k.lower(): v for k, v in row.items()}
    for name in names:
        value = lowered.get(name.lower())
        if value not in (None, ""):
            return value
    return None


def _int(value: Any, what: str) -> int:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        raise EventFileError(f"{value!r} is not a {what}") from None


def from_tables(tables: Mapping[str, Rows]) -> BwsData:
    """Map Bridgemate tables to an event: sections, movement, results and player numbers."""
    letters = {
        _int(_get(row, "ID"), "section id"): str(_get(row, "Letter") or "").strip() or None
        for row in tables.get("Section", [])
        if _get(row, "ID") is not None
    }
    multi = len({v for v in letters.values() if v}) > 1

    def section(value: Any) -> str | None:
        if value is None:
            return None
        letter = letters.get(_int(value, "section id"))
        return letter if multi else None

    data = BwsData(EventFile(source="bws", winners=None))
    for row in tables.get("RoundData", []):
        data.movement.append(
            BwsMovement(
                section(_get(row, "Section")),
                _int(_get(row, "Table"), "table"),
                _int(_get(row, "Round"), "round"),
                _int(_get(row, "NSPair"), "pair"),
                _int(_get(row, "EWPair"), "pair"),
                _int(_get(row, "LowBoard") or 0, "board"),
                _int(_get(row, "HighBoard") or 0, "board"),
            )
        )
    assembler = Assembler(data.event)
    _players(tables.get("PlayerNumbers", []), data, assembler, section)
    for index, row in enumerate(tables.get("ReceivedData", []), start=1):
        if str(_get(row, "Erased") or "").lower() in ("true", "1", "-1", "yes"):
            continue
        try:
            _result(row, section, assembler)
        except EventFileError as exc:
            place = f"ReceivedData row {index}" + (f" (board {exc.board})" if exc.board else "")
            data.event.refused.append(Refusal(exc.message, element=place, board=exc.board))
    mitchell = any(m.ns == m.ew for m in data.movement) or _numbers_overlap(data.movement)
    assembler.directional = mitchell if data.movement else None
    data.event.winners = 2 if mitchell else 1
    data.event = assembler.build()
    _auctions_and_plays(tables, data.event, section)
    return data


Where = tuple[str | None, int, int, int]
"""(section, table, round, board): one table's board."""


def _sequences(
    rows: Rows, column: str, section: Callable[[Any], str | None], event: EventFile, table: str
) -> dict[Where, list[tuple[str, str]]]:
    """Each table's board's (direction, call or card), in Counter order; erased rows left out."""
    found: dict[Where, list[tuple[int, str, str]]] = {}
    for index, row in enumerate(rows, start=1):
        if str(_get(row, "Erased") or "").lower() in ("true", "1", "-1", "yes"):
            continue
        try:
            where = (
                section(_get(row, "Section")),
                _int(_get(row, "Table"), "table"),
                _int(_get(row, "Round"), "round"),
                _int(_get(row, "Board"), "board number"),
            )
            counter = _int(_get(row, "Counter"), "counter")
        except EventFileError as exc:
            event.refused.append(Refusal(exc.message, element=f"{table} row {index}"))
            continue
        value = str(_get(row, column) or "").strip()
        direction = str(_get(row, "Direction") or "").strip().upper()[:1]
        found.setdefault(where, []).append((counter, direction, value))
    return {key: [(d, v) for _, d, v in sorted(items)] for key, items in found.items()}


def _turns(items: list[tuple[str, str]], turn: Seat, what: str) -> None:
    """PlayedError when the next row's Direction is not the seat whose turn it is."""
    seat, value = items[0]
    if seat and Seat.parse(seat) is not turn:
        raise PlayedError(f"the {what} {value} is {seat}'s, but {turn.value} is next")


def _auctions_and_plays(
    tables: Mapping[str, Rows], event: EventFile, section: Callable[[Any], str | None]
) -> None:
    """BiddingData and PlayData onto the result of the same table, round and board, checked
    (``played``) against its contract, declarer and tricks; a broken one is refused with its
    place and the result is kept without it."""
    lines = {(ln.section, ln.table or 0, ln.round or 0, ln.board): ln for ln in event.lines}
    for table, column in (("BiddingData", "Bid"), ("PlayData", "Card")):
        rows = tables.get(table, [])
        for where, items in _sequences(rows, column, section, event, table).items():
            _, number, round_, board = where
            place = f"{table} (table {number}, round {round_}, board {board})"
            line = lines.get(where)
            try:
                if line is None:
                    raise PlayedError("no result in ReceivedData for it: not read")
                if table == "BiddingData":
                    build = partial(_auction, board, items)
                    line.auction = auction_text(build, line.contract, line.declarer)
                else:
                    cards = partial(_play, items=items)
                    line.play = play_text(cards, line.contract, line.declarer, line.tricks)
            except PlayedError as exc:
                event.refused.append(Refusal(str(exc), element=place, board=board))


def _auction(board: int, items: list[tuple[str, str]]) -> Auction:
    """The calls from the board's dealer (Law 2: a .bws does not say otherwise here)."""
    auction = Auction(dealer(board))
    for index in range(len(items)):
        _turns(items[index:], auction.to_call, "call")
        auction.add(items[index][1])
    return auction


def _play(contract: Contract, declarer: str, items: list[tuple[str, str]]) -> Play:
    """The cards in the order played (the hands are not in the tables read)."""
    assert contract.strain is not None
    play = Play(contract.strain, declarer)
    for index in range(len(items)):
        if play.ended:
            raise PlayedError(f"the card {items[index][1]} after the play has ended")
        _turns(items[index:], play.to_play, "card")
        play.play(items[index][1])
    return play


def _numbers_overlap(movement: list[BwsMovement]) -> bool:
    ns = {(m.section, m.ns) for m in movement}
    ew = {(m.section, m.ew) for m in movement}
    stays = all(
        {(m.section, m.ns) for m in movement if m.round == r}
        == {(m.section, m.ns) for m in movement if m.round == 1}
        for r in {m.round for m in movement}
    )
    return bool(ns & ew) and stays


def _players(
    rows: Rows, data: BwsData, assembler: Assembler, section: Callable[[Any], str | None]
) -> None:
    """Names from PlayerNumbers (by table and seat), put on the pairs sitting there in round 1."""
    names: dict[tuple[str | None, int, str], str] = {}
    for row in rows:
        seat = str(_get(row, "Direction") or "").strip().upper()[:1]
        table = _get(row, "Table")
        if seat not in ("N", "E", "S", "W") or table is None:
            continue
        name = str(_get(row, "Name") or _get(row, "Number") or "").strip()
        names[(section(_get(row, "Section")), _int(table, "table"), seat)] = name
    first = {m.round for m in data.movement}
    start = min(first) if first else 1
    for move in data.movement:
        if move.round != start:
            continue
        for seats, number, side in (("NS", move.ns, "NS"), ("EW", move.ew, "EW")):
            pair_names = tuple(names.get((move.section, move.table, s), "") for s in seats)
            assembler.pairs.append(
                RawPair(move.section, number, side, pair_names if any(pair_names) else ())
            )


def _result(
    row: Mapping[str, Any], section: Callable[[Any], str | None], assembler: Assembler
) -> None:
    board = _int(_get(row, "Board"), "board number")
    where = section(_get(row, "Section"))
    line = Line(board, None, None, section=where)
    line.table = _int(_get(row, "Table"), "table") if _get(row, "Table") is not None else None
    line.round = _int(_get(row, "Round"), "round") if _get(row, "Round") is not None else None
    ns = RawRef(where, _int(_get(row, "PairNS"), "pair"), "NS")
    ew = RawRef(where, _int(_get(row, "PairEW"), "pair"), "EW")
    contract = str(_get(row, "Contract") or "").strip()
    result = str(_get(row, "Result") or "").strip()
    seat = str(_get(row, "NS/EW", "NSEW") or "").strip()
    lead = str(_get(row, "LeadCard", "Lead") or "").strip()
    line.lead = lead or None
    # The Result column holds the tricks, or the adjusted score ("A60") of a board not played.
    adjusted = result if result[:1].upper() == "A" else ""
    try:
        fill_play(line, Cells(contract, seat, result, score=adjusted))
    except spelling.SpellingError as exc:
        raise EventFileError(str(exc), board=board) from None
    assembler.add_line(line, ns, ew)

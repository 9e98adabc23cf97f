"""CSV travellers (import and export) and rankings (export).

The reader's contract: each row is read or put in ``EventFile.refused`` with its
line and reason; a row with a score and no contract is scored from its score.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

from protocol.bridge import BridgeError
from protocol.text import neutral
from server.scoring import to_decimal

from . import spelling
from .assemble import UNSEATED, Assembler, RawPair, RawRef, finish, unseated
from .errors import EventFileError
from .limits import check_lines
from .lines import Cells, fill_play
from .model import EventFile, IndividualPlayer, Line, PairKey, Refusal
from .report import ScoreReport, decimal, line_key

TRAVELLER_COLUMNS = (
    "section",
    "board",
    "round",
    "table",
    "ns",
    "ew",
    "contract",
    "declarer",
    "tricks",
    "lead",
    "score",
    "ns_points",
    "ew_points",
    "ns_percentage",
    "ew_percentage",
    "ns_player1",
    "ns_player2",
    "ew_player1",
    "ew_player2",
    "event",
)
SEATS = ("north", "east", "south", "west")
INDIVIDUAL_COLUMNS = tuple(
    column
    for name in TRAVELLER_COLUMNS
    if not name.startswith(("ns_player", "ew_player"))
    for column in (SEATS if name == "ns" else () if name == "ew" else (name,))
) + tuple(f"{seat}_name" for seat in SEATS)
"""The travellers of an individual event: the four players of each line (their numbers,
then their names) instead of the two pairs."""
RANKING_COLUMNS = (
    "place",
    "section",
    "number",
    "direction",
    "names",
    "total",
    "percentage",
    "penalty",  # deducted from the total (§ 211); empty when none
)
#: A handicap pairs event's two more ranking columns: the handicap (percentage points) and
#: the published percentage, raw plus the profile's share (``Profile.handicapped``).
HANDICAP_COLUMNS = ("handicap", "handicapped_percentage")

_ALIASES = {
    "section": ("section", "sect"),
    "board": ("board", "bd", "board no", "board_number"),
    "round": ("round", "rnd", "round_number"),
    "table": ("table", "tbl", "table_number"),
    "ns": ("ns", "ns pair", "ns_pair", "pair ns", "pairns", "pair_ns", "ns_pair_number"),
    "ew": ("ew", "ew pair", "ew_pair", "pair ew", "pairew", "pair_ew", "ew_pair_number"),
    "contract": ("contract", "con"),
    "declarer": ("declarer", "by", "played_by", "decl"),
    "tricks": ("tricks", "result", "res", "made"),
    "lead": ("lead", "lead card", "leadcard"),
    "score": ("score", "ns score", "ns_score", "score_ns"),
    "ns_player1": ("ns_player1",),
    "ns_player2": ("ns_player2",),
    "ew_player1": ("ew_player1",),
    "ew_player2": ("ew_player2",),
    **{seat: (seat,) for seat in SEATS},
    **{f"{seat}_name": (f"{seat}_name",) for seat in SEATS},
}
_FORMULA = ("=", "+", "-", "@", "\t", "\r")
"""What a spreadsheet takes for the start of a formula (OWASP, CSV injection)."""


def text_cell(text: str) -> str:
    """A name as a CSV cell a spreadsheet shows as text: single-line (``neutral``), and with a
    leading apostrophe when it starts like a formula ("=HYPERLINK(...)", "+1", "@SUM(A1)") or
    with an apostrophe itself, so that ``read_text_cell`` gives the name back exactly."""
    text = neutral(text)
    return "'" + text if text.startswith((*_FORMULA, "'")) else text


def read_text_cell(cell: str) -> str:
    """A name from a CSV cell: the apostrophe ``text_cell`` put before it taken off."""
    if cell.startswith("'") and cell[1:].startswith((*_FORMULA, "'")):
        return cell[1:]
    return cell


def _columns(header: list[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for index, name in enumerate(header):
        key = name.strip().lower().replace("-", " ").replace("/", "")
        for field, aliases in _ALIASES.items():
            if key in aliases and field not in found:
                found[field] = index
    seats = ("north", "east", "south", "west") if "north" in found else ("ns", "ew")
    for needed in ("board", *seats, "contract"):
        if needed not in found:
            raise EventFileError(f"the CSV header has no {needed!r} column", line=1)
    return found


def read_travellers_csv(text: str) -> EventFile:
    """Read travellers: one row per table result, columns found by their header names (a
    line of more than ``limits.MAX_LINE`` characters is refused with its number)."""
    check_lines(text)
    reader = csv.reader(io.StringIO(text))
    try:
        rows = list(reader)
    except csv.Error as exc:  # a quoted field running on past the field size limit
        raise EventFileError(f"not a CSV file ({exc})", line=reader.line_num) from None
    if not rows:
        raise EventFileError("the CSV file is empty")
    columns = _columns(rows[0])
    event = EventFile(source="csv")
    assembler = Assembler(event)
    named: set[tuple[str | None, int, str | None]] = set()
    for number, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue

        def cell(name: str, row: list[str] = row) -> str:
            index = columns.get(name)
            return row[index].strip() if index is not None and index < len(row) else ""

        try:
            board = int(cell("board"))
            if not 1 <= board <= 9999:
                raise ValueError
        except ValueError:
            event.refused.append(Refusal(f"{cell('board')!r} is not a board number", number))
            continue
        try:
            line, ns, ew = _row(board, cell)
        except (spelling.SpellingError, BridgeError, ValueError) as exc:
            event.refused.append(Refusal(str(exc), number, board=board))
            continue
        if unseated(line, ns, ew):
            event.refused.append(Refusal(UNSEATED, number, board=board))
            continue
        assembler.add_line(line, ns, ew)
        _names(assembler, named, cell, (("ns", ns), ("ew", ew)))
        _player_names(event, line, cell)
    return finish(assembler.build())


def _names(
    assembler: Assembler,
    named: set[tuple[str | None, int, str | None]],
    cell: Callable[[str], str],
    refs: tuple[tuple[str, RawRef | None], ...],
) -> None:
    """The players' names a Traveller export writes beside each pair (ns_player1 ...)."""
    for side, ref in refs:
        names = tuple(read_text_cell(cell(f"{side}_player{n}")) for n in (1, 2))
        if ref is None or not any(names):
            continue
        key = (ref.section, ref.number, ref.explicit)
        if key not in named:
            named.add(key)
            assembler.pairs.append(
                RawPair(ref.section, ref.number, ref.explicit, names, explicit=bool(ref.explicit))
            )


def _player_names(event: EventFile, line: Line, cell: Callable[[str], str]) -> None:
    """An individual's players, named as a Traveller export writes them beside each line."""
    if line.players is None:
        return
    known = {(p.section, p.number) for p in event.players}
    for seat, number in zip(SEATS, line.players, strict=True):
        if (line.section, number) not in known:
            known.add((line.section, number))
            name = neutral(read_text_cell(cell(f"{seat}_name")))
            event.players.append(IndividualPlayer(line.section, number, name))


def _seated(cell: Callable[[str], str]) -> tuple[int, int, int, int] | None:
    """The row's four players (an individual), None on a pairs row."""
    return spelling.seated_players([(seat, cell(seat)) for seat in SEATS], "row")


def _row(board: int, cell: Callable[[str], str]) -> tuple[Line, RawRef | None, RawRef | None]:
    section = cell("section") or None
    players = _seated(cell)
    if players is not None:
        line = Line(board, None, None, section=section, players=players)
        _fill(line, cell)
        return line, None, None
    refs: list[RawRef | None] = []
    for name, seat in (("ns", "NS"), ("ew", "EW")):
        text = cell(name)
        if not text or text == "-":
            refs.append(None)
            continue
        own, number, side = spelling.pair_number(text)
        refs.append(RawRef(own or section, number, seat, side))
    line = Line(board, None, None, section=section)
    _fill(line, cell)
    return line, refs[0], refs[1]


def _fill(line: Line, cell: Callable[[str], str]) -> None:
    """The row's round, table, lead and result onto its line."""
    for name in ("round", "table"):
        value = cell(name)
        if value:
            setattr(line, name, int(value))
    line.lead = cell("lead") or None
    fill_play(line, Cells(*(cell(c) for c in ("contract", "declarer", "tricks", "score"))))


def _pair(key: object) -> str:
    return "" if key is None else str(key).split(") ", 1)[-1]


def _players(event: EventFile, key: PairKey | None) -> list[str]:
    entry = event.pair(key) if key is not None else None
    names = [*(entry.names if entry else ()), "", ""][:2]
    return [text_cell(name) for name in names]


def write_travellers_csv(
    event: EventFile, report: ScoreReport | None = None, *, section: str | None = None
) -> str:
    """Travellers as CSV, with each side's matchpoints (or IMPs) and % when scored, the
    players of each pair (names made safe for a spreadsheet, ``text_cell``) and the event's
    name; ``section`` fills the section column of lines that name none (one section's file)."""
    values = {}
    if report is not None:
        for board in report.boards:
            for row in board.rows:
                values[report.row_key(board.board, row)] = (
                    decimal(row.ns_value),
                    decimal(row.ew_value),
                    decimal(row.ns_percent),
                    decimal(row.ew_percent),
                )
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    individual = event.individual
    writer.writerow(INDIVIDUAL_COLUMNS if individual else TRAVELLER_COLUMNS)
    names = {(p.section, p.number): p.name for p in event.players}
    for line in sorted(event.lines, key=lambda ln: (ln.section or "", ln.board, ln.table or 0)):
        scored = values.get(line_key(line), (None, None, None, None))
        labels = line.adjusted_labels()
        if line.artificial is not None:
            play = ["", "", "", spelling.artificial_label(*line.artificial)]
        elif labels is not None:
            balanced = line.adjusted is not None and line.adjusted[0] == line.adjusted[1]
            play = ["", "", "", labels[0] if balanced else f"N/S {labels[0]}; E/W {labels[1]}"]
        elif line.contract is None and line.score is not None:
            play = ["", "", "", str(line.score)]
        elif line.contract is None:
            play = ["NP", "", "", ""]
        elif line.contract == "PASS":
            play = ["PASS", "", "", "0"]
        else:
            play = [line.contract, line.declarer or "", str(line.tricks), str(line.ns_points())]
        if individual:
            seated = line.players or (None, None, None, None)
            who = ["" if n is None else str(n) for n in seated]
            named = [text_cell(names.get((line.section, n), "")) for n in seated if n is not None]
        else:
            who, named = [_pair(line.ns), _pair(line.ew)], []
        writer.writerow(
            [
                line.section or section or "",
                line.board,
                "" if line.round is None else line.round,
                "" if line.table is None else line.table,
                *who,
                play[0],
                play[1],
                play[2],
                line.lead or "",
                play[3],
                *("" if v is None else f"{v:.2f}" for v in scored),
                *(
                    [text_cell(event.name), *named]
                    if individual
                    else [
                        *_players(event, line.ns),
                        *_players(event, line.ew),
                        text_cell(event.name),
                    ]
                ),
            ]
        )
    return out.getvalue()


def write_ranking_csv(report: ScoreReport, *, section: str | None = None) -> str:
    """The ranking as CSV: place, section, number, direction, names, total, percentage (and,
    in a handicap event, the handicap and the handicapped percentage); ``section`` fills the
    section column of pairs that name none (one section's file)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    handicaps = any(p.handicap is not None for p in report.pairs)
    writer.writerow(RANKING_COLUMNS + (HANDICAP_COLUMNS if handicaps else ()))
    for pair in report.pairs:
        total = decimal(pair.total)
        percentage = decimal(pair.percentage)
        extra = []
        if handicaps:
            handicapped = decimal(pair.handicapped)
            handicap = None if pair.handicap is None else to_decimal(pair.handicap, 2)
            extra = [
                "" if handicap is None else f"{handicap.normalize():f}",
                "" if handicapped is None else f"{handicapped:.2f}",
            ]
        writer.writerow(
            [
                pair.place,
                pair.key.section or section or "",
                pair.key.number,
                pair.direction or "",
                text_cell(" & ".join(pair.names)),
                "" if total is None else f"{total:.2f}",
                "" if percentage is None else f"{percentage:.2f}",
                f"{decimal(pair.penalty):.2f}" if pair.penalty else "",
                *extra,
            ]
        )
    return out.getvalue()

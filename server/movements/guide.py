"""Guide cards: per table and per pair, round by round, where everyone and every board goes."""

from __future__ import annotations

from dataclasses import dataclass

from server.movements.exchange import format_boards
from server.movements.model import Direction, Movement, PairRef, RoundAssignment

#: The words a guide card writes where there is no table (English; the pages translate them).
END = "end"
SIT_OUT = "sit out"
RELAY = "relay / bye stand"


@dataclass(frozen=True)
class TableCardRow:
    """One round at a table: who sits where, the boards, and where they all go next."""

    round: int
    ns: PairRef | None
    ew: PairRef | None
    boards: tuple[int, ...]
    ns_next: str
    ew_next: str
    boards_next: str


@dataclass(frozen=True)
class PairCardRow:
    """One round for a pair: table, seat, opponents, boards, and the next table."""

    round: int
    table: int | None
    seat: Direction | None
    opponents: PairRef | None
    boards: tuple[int, ...]
    next: str


def _where(m: Movement, pair: PairRef | None, round: int) -> str:
    """Where a pair sits in a round, as a guide card says it ("3 EW", "sit out", "end")."""
    if pair is None:
        return ""
    if round > m.rounds:
        return END
    for a in m.in_round(round):
        seat = a.seat_of(pair)
        if seat is not None:
            return f"{a.table} {seat}"
    return SIT_OUT


def _boards_go(m: Movement, a: RoundAssignment) -> str:
    """The table that has these boards next round, or where they rest."""
    if a.round >= m.rounds or not a.boards:
        return END
    first = a.boards[0]
    circuit = m.circuit_of(a.table)
    tables = [
        x.table
        for x in m.in_round(a.round + 1)
        if first in x.boards and m.circuit_of(x.table) == circuit
    ]
    return ", ".join(str(t) for t in tables) if tables else RELAY


def table_card(m: Movement, table: int) -> list[TableCardRow]:
    """The guide card of one table."""
    return [
        TableCardRow(
            round=a.round,
            ns=a.ns,
            ew=a.ew,
            boards=a.boards,
            ns_next=_where(m, a.ns, a.round + 1),
            ew_next=_where(m, a.ew, a.round + 1),
            boards_next=_boards_go(m, a),
        )
        for a in sorted((a for a in m.assignments if a.table == table), key=lambda a: a.round)
    ]


def pair_card(m: Movement, pair: PairRef) -> list[PairCardRow]:
    """The guide card of one pair (sit-out rounds included)."""
    rows = []
    for r in range(1, m.rounds + 1):
        here = next((a for a in m.in_round(r) if a.seat_of(pair) is not None), None)
        rows.append(
            PairCardRow(
                round=r,
                table=None if here is None else here.table,
                seat=None if here is None else here.seat_of(pair),
                opponents=None if here is None else here.opponent_of(pair),
                boards=() if here is None or not here.played else here.boards,
                next=_where(m, pair, r + 1),
            )
        )
    return rows


def _name(pair: PairRef | None) -> str:
    return "-" if pair is None else str(pair)


def render_table_card(m: Movement, table: int) -> str:
    """A table's guide card as plain text."""
    lines = [
        f"{m.name}: table {table}",
        f"{'Rnd':>3}  {'N/S':>5}  {'E/W':>5}  {'Boards':<10} {'N/S to':<8} {'E/W to':<8} Boards to",
    ]
    for row in table_card(m, table):
        lines.append(
            f"{row.round:>3}  {_name(row.ns):>5}  {_name(row.ew):>5}  "
            f"{format_boards(row.boards):<10} {row.ns_next:<8} {row.ew_next:<8} {row.boards_next}"
        )
    return "\n".join(lines)


def render_pair_card(m: Movement, pair: PairRef) -> str:
    """A pair's guide card as plain text."""
    lines = [
        f"{m.name}: pair {pair}",
        f"{'Rnd':>3}  {'Table':>5}  {'Seat':<4}  {'Opps':>5}  {'Boards':<10} Next",
    ]
    for row in pair_card(m, pair):
        table = "-" if row.table is None else str(row.table)
        lines.append(
            f"{row.round:>3}  {table:>5}  {row.seat or '-':<4}  {_name(row.opponents):>5}  "
            f"{format_boards(row.boards) or SIT_OUT:<10} {row.next}"
        )
    return "\n".join(lines)


def render_grid(m: Movement) -> str:
    """The whole movement: a row per round, a column per table ("NS-EW: boards")."""
    cells = {
        (a.round, a.table): f"{_name(a.ns)}-{_name(a.ew)}: {format_boards(a.boards)}"
        for a in m.assignments
    }
    width = max((len(c) for c in cells.values()), default=5) + 2
    header = "Rnd " + "".join(f"{'Table ' + str(t):<{width}}" for t in range(1, m.tables + 1))
    lines = [m.name, header.rstrip()]
    for r in range(1, m.rounds + 1):
        row = "".join(f"{cells.get((r, t), ''):<{width}}" for t in range(1, m.tables + 1))
        lines.append(f"{r:>3} {row}".rstrip())
    return "\n".join(lines)

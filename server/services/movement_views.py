"""What the TD's movement pages show: the grid, the balance figures and printable guide cards."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from server.models import Section
from server.movements import Movement, PairRef, comparison_balance
from server.movements.balance import player_balance
from server.movements.exchange import format_boards
from server.movements.guide import pair_card, table_card
from server.movements.model import RoundAssignment
from server.services.movement_admin import load_movement

SEATS = ("N", "E", "S", "W")


@dataclass(frozen=True)
class GridCell:
    ns: str
    ew: str
    boards: str
    seats: str  # individual: "N 3 · E 5 · S 7 · W 1"; pairs: ""
    sit_out: bool


@dataclass(frozen=True)
class CardRow:
    round: int
    cells: tuple[str, ...]


@dataclass(frozen=True)
class GuideCard:
    title: str
    headings: tuple[str, ...]
    rows: list[CardRow]


@dataclass(frozen=True)
class MovementView:
    name: str
    kind: str
    tables: int
    rounds: int
    boards: str
    pairs: int
    shared: list[str]
    circuits: list[str]
    balance: float
    field_balance: float | None
    player_balance: float | None
    grid: list[list[GridCell | None]]  # [round][table]


def _name(pair: PairRef | None) -> str:
    return "–" if pair is None else str(pair)


def _seats(a: RoundAssignment) -> str:
    if a.seats is None:
        return ""
    return " · ".join(
        f"{s} {p if p is not None else '–'}" for s, p in zip(SEATS, a.seats, strict=True)
    )


def view(m: Movement) -> MovementView:
    """The grid (rounds x tables) and the balance report of a movement."""
    report = comparison_balance(m)
    individual = any(a.seats for a in m.assignments)
    grid: list[list[GridCell | None]] = []
    for r in range(1, m.rounds + 1):
        row: list[GridCell | None] = []
        for t in range(1, m.tables + 1):
            a = m.at(t, r)
            row.append(
                None
                if a is None
                else GridCell(
                    _name(a.ns), _name(a.ew), format_boards(a.boards), _seats(a), not a.played
                )
            )
        grid.append(row)
    return MovementView(
        name=m.name,
        kind=m.kind,
        tables=m.tables,
        rounds=m.rounds,
        boards=format_boards(m.boards()),
        pairs=len(m.pairs()),
        shared=[", ".join(str(t) for t in g) for g in m.shared_tables],
        circuits=[", ".join(str(t) for t in c) for c in m.circuits],
        balance=round(report.balance, 1),
        field_balance=None if report.field_balance is None else round(report.field_balance, 1),
        player_balance=round(player_balance(m), 1) if individual else None,
        grid=grid,
    )


def table_cards(m: Movement) -> list[GuideCard]:
    """One card per table: round, N/S, E/W, boards, and where pairs and boards go next."""
    headings = ("Round", "N/S", "E/W", "Boards", "N/S to", "E/W to", "Boards to")
    cards = []
    for t in range(1, m.tables + 1):
        rows = [
            CardRow(
                row.round,
                (
                    str(row.round),
                    _name(row.ns),
                    _name(row.ew),
                    format_boards(row.boards) or "–",
                    row.ns_next,
                    row.ew_next,
                    row.boards_next,
                ),
            )
            for row in table_card(m, t)
        ]
        cards.append(GuideCard(f"{m.name} · Table {t}", headings, rows))
    return cards


def pair_cards(m: Movement) -> list[GuideCard]:
    """One card per pair: each round's table, seat, opponents, boards and next table."""
    headings = ("Round", "Table", "Seat", "Opponents", "Boards", "Next")
    cards = []
    for pair in m.pairs():
        rows = [
            CardRow(
                row.round,
                (
                    str(row.round),
                    "–" if row.table is None else str(row.table),
                    row.seat or "–",
                    _name(row.opponents),
                    format_boards(row.boards) or "sit out",
                    row.next,
                ),
            )
            for row in pair_card(m, pair)
        ]
        cards.append(GuideCard(f"{m.name} · Pair {pair}", headings, rows))
    return cards


def player_cards(m: Movement) -> list[GuideCard]:
    """An individual's cards per player: each round's table, seat, partner and boards."""
    headings = ("Round", "Table", "Seat", "Partner", "Boards")
    players = sorted({p for a in m.assignments if a.seats for p in a.seats if p is not None})
    cards = []
    for player in players:
        rows = []
        for r in range(1, m.rounds + 1):
            here = next((a for a in m.in_round(r) if a.seats and player in a.seats), None)
            if here is None or here.seats is None:
                rows.append(CardRow(r, (str(r), "–", "–", "–", "sit out")))
                continue
            seat = here.seats.index(player)
            partner = here.seats[(seat + 2) % 4]
            rows.append(
                CardRow(
                    r,
                    (
                        str(r),
                        str(here.table),
                        SEATS[seat],
                        "–" if partner is None else str(partner),
                        format_boards(here.boards),
                    ),
                )
            )
        cards.append(GuideCard(f"{m.name} · Player {player}", headings, rows))
    return cards


def section_movement(session: Session, section: Section) -> Movement:
    return load_movement(session, section)

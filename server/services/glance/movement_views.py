"""What the TD's movement pages show: the grid, the balance figures and printable guide cards."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from server import i18n
from server.core.models import Section
from server.i18n import N_
from server.movements import Movement, PairRef, comparison_balance
from server.movements.balance import player_balance
from server.movements.exchange import format_boards
from server.movements.guide import END, RELAY, SIT_OUT, pair_card, table_card
from server.movements.model import RoundAssignment
from server.services.event.movement_admin import load_movement

SEATS = ("N", "E", "S", "W")
#: A card's words and headings (English message ids, shown in the page's language).
WORDS = {END: N_("end"), SIT_OUT: N_("sit out"), RELAY: N_("relay / bye stand")}
SIDES = {"NS": N_("N/S"), "EW": N_("E/W")}
TABLE_HEADINGS = (
    N_("Round"),
    N_("N/S"),
    N_("E/W"),
    N_("Boards"),
    N_("N/S to"),
    N_("E/W to"),
    N_("Boards to"),
)
PAIR_HEADINGS = (N_("Round"), N_("Table"), N_("Seat"), N_("Opponents"), N_("Boards"), N_("Next"))
PLAYER_HEADINGS = (N_("Round"), N_("Table"), N_("Seat"), N_("Partner"), N_("Boards"))
TABLE_TITLE = N_("Table %(table)s")
PAIR_TITLE = N_("Pair %(pair)s")
PLAYER_TITLE = N_("Player %(player)s")


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


def _seats(a: RoundAssignment, lang: str) -> str:
    if a.seats is None:
        return ""
    return " · ".join(
        f"{i18n.seat_letter(s, lang)} {p if p is not None else '–'}"
        for s, p in zip(SEATS, a.seats, strict=True)
    )


def _said(text: str, lang: str) -> str:
    """A card's "where next" in ``lang``: a word ("end"), or a table and side ("3 EW")."""
    if text in WORDS:
        return i18n.gettext_for(lang, WORDS[text])
    table, _, side = text.partition(" ")
    if side in SIDES:
        return f"{table} {i18n.gettext_for(lang, SIDES[side])}"
    return text


def _side(side: str | None, lang: str) -> str:
    return "–" if side is None else i18n.gettext_for(lang, SIDES.get(side, side))


def _headings(headings: tuple[str, ...], lang: str) -> tuple[str, ...]:
    return tuple(i18n.gettext_for(lang, h) for h in headings)


def _title(m: Movement, template: str, lang: str, **fields: object) -> str:
    return f"{m.name} · {i18n.gettext_for(lang, template) % fields}"


def view(m: Movement, lang: str = i18n.SOURCE) -> MovementView:
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
                    _name(a.ns), _name(a.ew), format_boards(a.boards), _seats(a, lang), not a.played
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


def table_cards(m: Movement, lang: str = i18n.SOURCE) -> list[GuideCard]:
    """One card per table: round, N/S, E/W, boards, and where pairs and boards go next."""
    headings = _headings(TABLE_HEADINGS, lang)
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
                    _said(row.ns_next, lang),
                    _said(row.ew_next, lang),
                    _said(row.boards_next, lang),
                ),
            )
            for row in table_card(m, t)
        ]
        cards.append(GuideCard(_title(m, TABLE_TITLE, lang, table=t), headings, rows))
    return cards


def pair_cards(m: Movement, lang: str = i18n.SOURCE) -> list[GuideCard]:
    """One card per pair: each round's table, seat, opponents, boards and next table."""
    headings = _headings(PAIR_HEADINGS, lang)
    sit_out = i18n.gettext_for(lang, WORDS[SIT_OUT])
    cards = []
    for pair in m.pairs():
        rows = [
            CardRow(
                row.round,
                (
                    str(row.round),
                    "–" if row.table is None else str(row.table),
                    _side(row.seat, lang),
                    _name(row.opponents),
                    format_boards(row.boards) or sit_out,
                    _said(row.next, lang),
                ),
            )
            for row in pair_card(m, pair)
        ]
        cards.append(GuideCard(_title(m, PAIR_TITLE, lang, pair=pair), headings, rows))
    return cards


def player_cards(m: Movement, lang: str = i18n.SOURCE) -> list[GuideCard]:
    """An individual's cards per player: each round's table, seat, partner and boards."""
    headings = _headings(PLAYER_HEADINGS, lang)
    sit_out = i18n.gettext_for(lang, WORDS[SIT_OUT])
    players = sorted({p for a in m.assignments if a.seats for p in a.seats if p is not None})
    cards = []
    for player in players:
        rows = []
        for r in range(1, m.rounds + 1):
            here = next((a for a in m.in_round(r) if a.seats and player in a.seats), None)
            if here is None or here.seats is None:
                rows.append(CardRow(r, (str(r), "–", "–", "–", sit_out)))
                continue
            seat = here.seats.index(player)
            partner = here.seats[(seat + 2) % 4]
            rows.append(
                CardRow(
                    r,
                    (
                        str(r),
                        str(here.table),
                        i18n.seat_letter(SEATS[seat], lang),
                        "–" if partner is None else str(partner),
                        format_boards(here.boards),
                    ),
                )
            )
        cards.append(GuideCard(_title(m, PLAYER_TITLE, lang, player=player), headings, rows))
    return cards


def section_movement(session: Session, section: Section) -> Movement:
    return load_movement(session, section)

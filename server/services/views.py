"""Read models: turn stored rows into the protocol's views (results, round info)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Literal, cast

from sqlalchemy import bindparam, or_
from sqlmodel import Session, col, select

from protocol import alerts, fair_play
from protocol.bridge import BridgeError, TableResult, describe, format_result
from protocol.messages import (
    COMPLETE_STATES,
    AlertExplanation,
    BoardResultView,
    BoardStatus,
    NextPosition,
    PairInfo,
    RoundInfo,
)
from server.core.models import Board, BridgeTable, Event, MovementAssignment, Pair, Result, Section
from server.movements.model import Direction, parse_seats
from server.services import keyed_deals

SeatLetter = Literal["N", "E", "S", "W"]
SEAT_LETTERS: tuple[SeatLetter, ...] = ("N", "E", "S", "W")


def alert_explanations(text: str | None) -> list[AlertExplanation] | None:
    """A result's stored explanations of its alerted calls as the views carry them."""
    notes = alerts.read_stored(text)
    return [AlertExplanation(call=call, text=note) for call, note in notes.items()] or None


@lru_cache(maxsize=4096)
def _reading(
    board: int, contract: str, declarer: str | None, tricks: int
) -> tuple[str | None, str | None]:
    """A result's description ("4♠ by South, made, N/S +420") and its tricks against the
    contract ("=", "+1"), worked out once for each board and result: a night repeats them
    from table to table, and every acknowledgement, push and round view shows them."""
    try:
        table_result = TableResult.make(contract, declarer, tricks)
        return describe(board, table_result), format_result(
            table_result.contract, table_result.tricks
        )
    except BridgeError:  # pragma: no cover - stored values were validated on the way in
        return None, None


def result_view(result: Result) -> BoardResultView:
    description = relative = None
    if result.contract is not None and result.tricks is not None:
        description, relative = _reading(
            result.board, result.contract, result.declarer, result.tricks
        )
    return BoardResultView(
        board=result.board,
        round=result.round,
        table=result.table_number,
        state=result.state,
        version=result.version,
        contract=result.contract,
        declarer=cast("SeatLetter | None", result.declarer),
        tricks=result.tricks,
        result=relative,
        lead=result.lead,
        auction=result.auction,
        alerts=alert_explanations(result.alerts),
        play=result.play,
        ns_score=result.ns_score,
        description=description,
        ruling_pending=result.ruling_pending,
        adjusted=result.adjusted,
    )


def pair_info(pair: Pair | None) -> PairInfo | None:
    if pair is None:
        return None
    direction = cast("Literal['NS', 'EW'] | None", pair.direction)
    label = f"{pair.number} {direction}" if direction else str(pair.number)
    names = [n for n in (pair.player1, pair.player2) if n]
    return PairInfo(number=pair.number, direction=direction, names=names, label=label)


def pair_number(pairs: Mapping[int, Pair], pair_id: int | None) -> int | None:
    """The number of the pair with ``pair_id`` among ``pairs`` (None: no pair, or unknown)."""
    pair = pairs.get(pair_id) if pair_id is not None else None
    return pair.number if pair is not None else None


_ASSIGNMENT = select(MovementAssignment).where(
    MovementAssignment.section_id == bindparam("section_id"),
    MovementAssignment.table_number == bindparam("table_number"),
    MovementAssignment.round == bindparam("round"),
)


def assignment(
    session: Session, section: Section, table_number: int, round_: int
) -> MovementAssignment | None:
    params = {"section_id": section.id, "table_number": table_number, "round": round_}
    return session.exec(_ASSIGNMENT, params=params).first()


def results_at(session: Session, section: Section, table_number: int, round_: int) -> list[Result]:
    return list(
        session.exec(
            select(Result).where(
                Result.section_id == section.id,
                Result.table_number == table_number,
                Result.round == round_,
            )
        )
    )


def missing_boards(boards: list[int], results: list[Result]) -> list[int]:
    """The boards of a round that are not yet done for § 262C."""
    done = {r.board for r in results if r.state in COMPLETE_STATES}
    return [b for b in boards if b not in done]


def next_positions(
    session: Session,
    section: Section,
    round_: int,
    row: MovementAssignment | None,
    pairs: list[Pair],
) -> list[NextPosition]:
    """Where the table's pairs (in an individual, its players) go after ``round_``."""
    if round_ >= section.rounds or row is None:
        return []
    following = select(MovementAssignment).where(
        MovementAssignment.section_id == section.id, MovementAssignment.round == round_ + 1
    )
    if row.seats is None:
        ids = [p.id for p in pairs]
        if not ids:
            return []
        following = following.where(
            or_(
                col(MovementAssignment.ns_pair_id).in_(ids),
                col(MovementAssignment.ew_pair_id).in_(ids),
            )
        )
    return next_positions_of(row, pairs, list(session.exec(following)))


def next_positions_of(
    row: MovementAssignment, pairs: list[Pair], following: list[MovementAssignment]
) -> list[NextPosition]:
    """Where the pairs (or players) of ``row`` go, among the next round's rows ``following``
    (any superset of those that seat them)."""
    return _positions_in(row, pairs, _seated_in(following))


@dataclass(frozen=True, slots=True)
class RoundSeating:
    """Who plays where in one round of the movement: each pair's row and side, and in an
    individual each player's row and seat. Only rows that play are indexed (a table with
    nobody on one side plays nothing: whoever goes there sits out)."""

    pairs: dict[int, tuple[MovementAssignment, Direction]]
    players: dict[int, tuple[MovementAssignment, SeatLetter]]


def _seated_in(rows: list[MovementAssignment]) -> RoundSeating:
    """The seating of ``rows`` (one round's rows, or any superset of those that matter)."""
    pairs: dict[int, tuple[MovementAssignment, Direction]] = {}
    players: dict[int, tuple[MovementAssignment, SeatLetter]] = {}
    for row in rows:
        if not fair_play.plays_here(row.ns_pair_id, row.ew_pair_id):
            continue
        pairs[row.ns_pair_id or 0] = (row, "NS")
        pairs[row.ew_pair_id or 0] = (row, "EW")
        if row.seats:
            for letter, player in zip(SEAT_LETTERS, parse_seats(row.seats), strict=True):
                if player is not None:
                    players[player] = (row, letter)
    return RoundSeating(pairs, players)


NO_SEATING = RoundSeating({}, {})

#: Where a table's pairs or players go next, from its movement row and its pairs.
Positions = Callable[[MovementAssignment, list[Pair]], list[NextPosition]]


def _positions_in(
    row: MovementAssignment, pairs: list[Pair], seated: RoundSeating
) -> list[NextPosition]:
    """Where each of the table's pairs goes next; in an individual, where each of its players
    goes (its partnerships last one round: "sits out" would be false of every one)."""
    if row.seats:
        return [
            _position(str(player), seated.players.get(player), player=True)
            for player in parse_seats(row.seats)
            if player is not None
        ]
    out = []
    for pair in pairs:
        info = pair_info(pair)
        assert info is not None
        out.append(_position(info.label, seated.pairs.get(pair.id or 0), player=False))
    return out


def _position(
    label: str, found: tuple[MovementAssignment, str] | None, *, player: bool
) -> NextPosition:
    if found is None:
        return NextPosition(pair=label, table=None, player=player)
    row, seat = found
    return NextPosition(
        pair=label,
        table=row.table_number,
        seat=cast("Direction | SeatLetter", seat),
        boards=row.board_numbers(),
        player=player,
    )


#: A round's boards' dealer and vulnerability, and whether the deal is unknown (never the deal
#: itself: the terminal's view).
_BOARD_FACTS = select(
    Board.number, Board.dealer, Board.vulnerability, col(Board.deal).is_(None)
).where(
    Board.section_id == bindparam("section_id"),
    col(Board.number).in_(bindparam("numbers", expanding=True)),
)


Facts = dict[int, tuple[str, str, bool]]
"""A section's boards: number -> (dealer, vulnerability, deal unknown)."""


def board_facts(session: Session, section_id: int, boards: list[int]) -> Facts:
    """The boards' dealer, vulnerability and whether the deal is unknown (never the deal)."""
    if not boards:
        return {}
    params = {"section_id": section_id, "numbers": boards}
    return {
        number: (dealer, vulnerability, unknown)
        for number, dealer, vulnerability, unknown in session.exec(_BOARD_FACTS, params=params)
    }


def round_info(session: Session, event: Event, section: Section, table: BridgeTable) -> RoundInfo:
    """What the table's terminal shows: its round, the pairs, the boards and their states."""
    round_ = table.round
    row = assignment(session, section, table.number, round_) if round_ else None
    ns = session.get(Pair, row.ns_pair_id) if row and row.ns_pair_id else None
    ew = session.get(Pair, row.ew_pair_id) if row and row.ew_pair_id else None
    boards = row.board_numbers() if row else []
    results = {r.board: r for r in results_at(session, section, table.number, round_)}
    facts = board_facts(session, section.id or 0, boards)
    positions = partial(next_positions, session, section, round_)
    return round_view(session, event, section, table, row, (ns, ew), results, facts, positions)


def round_infos(
    session: Session, event: Event, section: Section, tables: list[BridgeTable]
) -> dict[int, RoundInfo]:
    """:func:`round_info` of many tables of a section (by table number), read for all of them
    at once: one statement for the movement's rows, the pairs, the results, the boards and the
    next round's rows, instead of those statements a table (the TD's round start)."""
    numbers = [t.number for t in tables]
    rounds = sorted({t.round for t in tables if t.round})
    rows: dict[tuple[int, int], MovementAssignment] = {}
    if rounds:
        for seat_row in session.exec(
            select(MovementAssignment).where(
                MovementAssignment.section_id == section.id,
                col(MovementAssignment.round).in_(rounds),
                col(MovementAssignment.table_number).in_(numbers),
            )
        ):
            rows[(seat_row.table_number, seat_row.round)] = seat_row
    pair_ids = {i for r in rows.values() for i in (r.ns_pair_id, r.ew_pair_id) if i}
    pairs = (
        {p.id: p for p in session.exec(select(Pair).where(col(Pair.id).in_(pair_ids)))}
        if pair_ids
        else {}
    )
    results: dict[tuple[int, int], dict[int, Result]] = {}
    if rounds:
        for result in session.exec(
            select(Result).where(
                Result.section_id == section.id,
                col(Result.round).in_(rounds),
                col(Result.table_number).in_(numbers),
            )
        ):
            results.setdefault((result.table_number, result.round), {})[result.board] = result
    boards = sorted({b for r in rows.values() for b in r.board_numbers()})
    facts = board_facts(session, section.id or 0, boards)
    following = [r + 1 for r in rounds if r < section.rounds]
    next_rows = (
        list(
            session.exec(
                select(MovementAssignment).where(
                    MovementAssignment.section_id == section.id,
                    col(MovementAssignment.round).in_(following),
                )
            )
        )
        if following
        else []
    )
    by_round: dict[int, list[MovementAssignment]] = defaultdict(list)
    for next_row in next_rows:
        by_round[next_row.round].append(next_row)
    seated = {round_: _seated_in(rows_) for round_, rows_ in by_round.items()}
    out: dict[int, RoundInfo] = {}
    for table in tables:
        row = rows.get((table.number, table.round)) if table.round else None
        ns = pairs.get(row.ns_pair_id) if row and row.ns_pair_id else None
        ew = pairs.get(row.ew_pair_id) if row and row.ew_pair_id else None
        positions: Positions = (
            _no_positions
            if table.round >= section.rounds
            else partial(_positions_in, seated=seated.get(table.round + 1, NO_SEATING))
        )
        out[table.number] = round_view(
            session,
            event,
            section,
            table,
            row,
            (ns, ew),
            results.get((table.number, table.round), {}),
            facts,
            positions,
        )
    return out


def _no_positions(_row: MovementAssignment, _pairs: list[Pair]) -> list[NextPosition]:
    return []


def round_view(
    session: Session,
    event: Event,
    section: Section,
    table: BridgeTable,
    row: MovementAssignment | None,
    seated: tuple[Pair | None, Pair | None],
    results: dict[int, Result],
    facts: Facts,
    next_positions: Positions,
) -> RoundInfo:
    """The round view of one table from what was read for it."""
    round_ = table.round
    ns, ew = seated
    boards = row.board_numbers() if row else []
    dealless = [number for number in boards if number in facts and facts[number][2]]
    deal_asks = (
        keyed_deals.asks(session, section.id or 0, table.number, round_, dealless)
        if event.deal_entry and dealless
        else {}
    )
    statuses = []
    for number in boards:
        stored = results.get(number)
        dealer, vulnerability, _unknown = facts[number]
        statuses.append(
            BoardStatus(
                board=number,
                dealer=cast("SeatLetter", dealer),
                vulnerability=cast('Literal["NONE", "NS", "EW", "BOTH"]', vulnerability),
                state=stored.state if stored else "missing",
                result=result_view(stored) if stored else None,
                deal=deal_asks.get(number),
            )
        )
    complete = row is not None and not missing_boards(boards, list(results.values()))
    return RoundInfo(
        event=event.name,
        section=section.letter,
        table=table.number,
        round=round_,
        rounds=section.rounds,
        ns=pair_info(ns),
        ew=pair_info(ew),
        boards=statuses,
        complete=complete,
        round_open=round_ > section.closed_rounds,
        next_round_released=section.current_round > round_,
        next=next_positions(row, [p for p in (ns, ew) if p is not None])
        if complete and row is not None
        else [],
        lead_required=event.lead_required,
        tricks_style=event.tricks_style,
        confirm_pin_required=event.confirm_pin_required,
        language=event.language,
    )

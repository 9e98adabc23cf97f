"""Movements both ways: a SectionDTO's rounds as a Traveller Movement, back, and live updates."""

from __future__ import annotations

from collections import defaultdict
from typing import Any, cast

from sqlmodel import Session, col, select

from protocol.bridge import dealer, vulnerability
from protocol.messages import RoundChanged
from server.dataconnector.dto import RoundDTO, SectionDTO, TableDTO
from server.dataconnector.wire import PROGRAM, DcError, ErrorType
from server.models import Board, BridgeTable, Event, MovementAssignment, Pair, Result, Section
from server.movements import Direction, Movement, MovementError, PairRef, RoundAssignment, validate
from server.services import audit
from server.services.setup import pairs_of, tables_of
from server.services.table_commands import Push
from server.services.tokens import new_pairing_code, new_pin
from server.services.views import round_info


def _ref(number: int, direction: str, two_winners: bool) -> PairRef | None:
    if number <= 0:
        return None
    return PairRef(number, "NS" if direction == "NS" else "EW") if two_winners else PairRef(number)


def _missing(dto: SectionDTO) -> PairRef | None:
    """MissingPair: absent all session (two winners: positive N/S, negative E/W)."""
    if dto.missing_pair == 0:
        return None
    if dto.winners == 2:
        return PairRef(abs(dto.missing_pair), "NS" if dto.missing_pair > 0 else "EW")
    return PairRef(dto.missing_pair)


def _shared(assignments: list[RoundAssignment]) -> tuple[tuple[int, ...], ...]:
    """Tables that have the same boards in play in a round (a relay or shared boards)."""
    parent: dict[int, int] = {}

    def root(table: int) -> int:
        while parent.setdefault(table, table) != table:
            table = parent[table]
        return table

    in_play: dict[tuple[int, int], int] = {}
    for a in assignments:
        if not a.played:
            continue
        for board in a.boards:
            other = in_play.setdefault((a.round, board), a.table)
            parent[root(a.table)] = root(other)
    groups: dict[int, set[int]] = defaultdict(set)
    for table in parent:
        groups[root(table)].add(table)
    return tuple(tuple(sorted(g)) for g in groups.values() if len(g) > 1)


def to_movement(dto: SectionDTO) -> Movement:
    """Traveller's movement for the section exactly as the scoring program seats it."""
    two_winners = dto.winners == 2
    missing = _missing(dto)
    assignments = []
    for table in dto.tables:
        for r in table.rounds:
            ns = _ref(r.pair_ns, "NS", two_winners)
            ew = _ref(r.pair_ew, "EW", two_winners)
            ns, ew = (None if p == missing else p for p in (ns, ew))
            played = ns is not None and ew is not None and r.low_board_number > 0
            boards = tuple(range(r.low_board_number, r.high_board_number + 1)) if played else ()
            assignments.append(RoundAssignment(table.table_number, r.round_number, ns, ew, boards))
    if not assignments:
        raise DcError(ErrorType.MOVEMENT, f"Section {dto.letters} has no tables with rounds.")
    return Movement(
        name=(dto.name or f"Data Connector section {dto.letters}")[:100],
        kind="mitchell" if two_winners else "howell",
        tables=max(a.table for a in assignments),
        rounds=max(a.round for a in assignments),
        boards_per_round=max(1, *(len(a.boards) for a in assignments)),
        assignments=tuple(sorted(assignments, key=lambda a: (a.round, a.table))),
        shared_tables=_shared(assignments),
    )


def section_dto(session: Session, section: Section, session_guid: str, group: int) -> SectionDTO:
    """The section's movement as Traveller holds it now, for GetMovement."""
    numbers = {p.id: p.number for p in pairs_of(session, section)}
    rows = session.exec(
        select(MovementAssignment)
        .where(MovementAssignment.section_id == section.id)
        .order_by(col(MovementAssignment.table_number), col(MovementAssignment.round))
    ).all()
    rounds: dict[int, list[RoundDTO]] = defaultdict(list)
    for row in rows:
        boards = row.board_numbers()
        rounds[row.table_number].append(
            RoundDTO(
                session_guid=session_guid,
                section_letters=section.letter,
                table_number=row.table_number,
                round_number=row.round,
                low_board_number=min(boards, default=0),
                high_board_number=max(boards, default=0),
                pair_ns=numbers.get(row.ns_pair_id, 0),
                pair_ew=numbers.get(row.ew_pair_id, 0),
            )
        )
    tables = [
        TableDTO(
            session_guid=session_guid,
            section_letters=section.letter,
            table_number=t.number,
            rounds=rounds.get(t.number, []),
        )
        for t in tables_of(session, section)
    ]
    return SectionDTO(
        session_guid=session_guid,
        scoring_group_number=group,
        letters=section.letter,
        name=section.movement_name,
        winners=2 if section.movement_kind == "mitchell" else 1,
        game_type=10,
        tables=tables,
    )


def _ensure_rows(session: Session, section: Section, movement: Movement) -> dict[PairRef, int]:
    """Add the pairs, tables and boards the new movement needs; the pair ids by reference."""
    sid = section.id or 0
    pairs = {
        PairRef(p.number, cast(Direction | None, p.direction)): p.id or 0
        for p in pairs_of(session, section)
    }
    for ref in movement.pairs():
        if ref not in pairs:
            pair = Pair(section_id=sid, number=ref.number, direction=ref.direction, pin=new_pin())
            session.add(pair)
            session.flush()
            pairs[ref] = pair.id or 0
    have = {t.number for t in tables_of(session, section)}
    for number in range(1, movement.tables + 1):
        if number not in have:
            code = new_pairing_code(session)
            session.add(BridgeTable(section_id=sid, number=number, pairing_code=code))
            session.flush()
    boards = {b.number for b in session.exec(select(Board).where(Board.section_id == sid))}
    for number in movement.boards():
        if number not in boards:
            session.add(
                Board(
                    section_id=sid,
                    number=number,
                    dealer=dealer(number).value,
                    vulnerability=vulnerability(number).value,
                )
            )
    return pairs


def update(session: Session, section: Section, movement: Movement) -> list[Push]:
    """Change a running section's movement; rounds that have results keep their seating."""
    try:
        validate(movement)
    except MovementError as exc:
        raise DcError(ErrorType.MOVEMENT, f"Section {section.letter}: {exc}") from exc
    if movement.rounds < section.current_round:
        raise DcError(
            ErrorType.MOVEMENT,
            f"Section {section.letter} is playing round {section.current_round}: "
            f"the movement cannot end after round {movement.rounds}.",
        )
    pairs = _ensure_rows(session, section, movement)
    sid = section.id or 0
    existing = {
        (a.table_number, a.round): a
        for a in session.exec(
            select(MovementAssignment).where(MovementAssignment.section_id == sid)
        )
    }
    played = {
        (r.table_number, r.round)
        for r in session.exec(select(Result).where(Result.section_id == sid))
    }
    wanted: dict[tuple[int, int], tuple[Any, ...]] = {
        (a.table, a.round): (
            pairs[a.ns] if a.ns is not None else None,
            pairs[a.ew] if a.ew is not None else None,
            ",".join(str(b) for b in a.boards),
        )
        for a in movement.assignments
    }
    changed: set[int] = set()
    for key in sorted(set(existing) | set(wanted)):
        row, values = existing.get(key), wanted.get(key)
        if row is not None and values == (row.ns_pair_id, row.ew_pair_id, row.boards):
            continue
        if key in played:
            raise DcError(
                ErrorType.MOVEMENT,
                f"Section {section.letter}: table {key[0]} already has results in round "
                f"{key[1]}, so its pairs and boards cannot change.",
            )
        changed.add(key[0])
        if values is None:
            session.delete(row)
            continue
        row = row or MovementAssignment(
            section_id=sid, table_number=key[0], round=key[1], boards=""
        )
        row.ns_pair_id, row.ew_pair_id, row.boards = values
        session.add(row)
    section.tables = max(section.tables, movement.tables)
    section.rounds = movement.rounds
    section.boards_per_round = movement.boards_per_round
    session.add(section)
    session.flush()
    audit.record(
        session,
        actor=PROGRAM,
        action="movement_updated",
        section_id=sid,
        new={"tables": sorted(changed), "rounds": movement.rounds},
    )
    return round_pushes(session, section)


def round_pushes(session: Session, section: Section) -> list[Push]:
    """Every table of the section is told its round again (seating or settings changed)."""
    event = session.get(Event, section.event_id)
    assert event is not None
    return [
        Push(section.id or 0, t.number, RoundChanged(round=round_info(session, event, section, t)))
        for t in tables_of(session, section)
    ]

"""Movements both ways: a SectionDTO's rounds as a Traveller Movement, back, and live updates."""

from __future__ import annotations

from collections import defaultdict

from sqlmodel import Session, col, select

from protocol.messages import RoundChanged
from server.core.models import Event, MovementAssignment, Result, Section
from server.dataconnector.dto import RoundDTO, SectionDTO, TableDTO
from server.dataconnector.wire import PROGRAM, DcError, ErrorType
from server.movements import Movement, MovementError, PairRef, RoundAssignment, validate
from server.services import audit
from server.services.event.movement_admin import load_movement, store
from server.services.event.setup import pairs_of, tables_of
from server.services.table.table_commands import Push
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


def update(session: Session, section: Section, movement: Movement) -> list[Push]:
    """Change a running section's movement; a table and round that has results keeps its
    seating and boards (the results stay where they were entered)."""
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
    before = {(a.table, a.round): a for a in load_movement(session, section).assignments}
    after = {(a.table, a.round): a for a in movement.assignments}
    changed = {key for key in set(before) | set(after) if before.get(key) != after.get(key)}
    sid = section.id or 0
    played = {
        (r.table_number, r.round)
        for r in session.exec(select(Result).where(Result.section_id == sid))
    }
    clashes = sorted(changed & played)
    if clashes:
        table, round_ = clashes[0]
        raise DcError(
            ErrorType.MOVEMENT,
            f"Section {section.letter}: table {table} already has results in round {round_}, "
            "so its pairs and boards cannot change.",
        )
    if changed:
        store(session, section, movement, from_round=min(r for _t, r in changed))
    audit.record(
        session,
        actor=PROGRAM,
        action="movement_updated",
        section_id=sid,
        new={"tables": sorted({t for t, _r in changed}), "rounds": movement.rounds},
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

"""Board results both ways: Traveller's results as ResultDTOs, and the scoring program's in.

A **switched seating** (the pairs sat the wrong way round) is what the Data Connector's
ResultDTO calls a result whose declarer sits N/S while its DeclaringPair is the E/W pair of the
movement, or the other way round. The pair that declared sat where the declarer sat: it is
scored in that direction. Traveller stores such a result with its pairs the way they really
sat (the result's N/S pair is the movement's E/W pair), audited, and reports it back the same
way: the movement's pairs, the declarer's seat, and the pair that declared.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, cast

from pydantic import ValidationError
from sqlmodel import Session, col, select

from protocol.messages import COMPLETE_STATES, EntryValues, ResultState
from server.core.models import Audit, DcSession, MovementAssignment, Pair, Result, utcnow
from server.dataconnector import checks
from server.dataconnector.dto import ResultDTO
from server.dataconnector.store import same_session, section_of, sections_of
from server.dataconnector.wire import PROGRAM, DcError, ErrorType
from server.services import audit, generations
from server.services.results import adjusted
from server.services.table.table_commands import Push, changed
from server.services.td import actions as td
from server.services.views import assignment

#: Result states the scoring program hears about: agreed at the table or settled by the TD
#: (the complete states of § 262C).
REPORTED = COMPLETE_STATES
REASON = "from the scoring program (Data Connector)"
NOT_PLAYED = -10
BOTH = 3  # ScoringDirection N/S and E/W
STRAINS = {"C": 1, "D": 2, "H": 3, "S": 4, "NT": 5}
SEATS = {"N": 1, "E": 2, "S": 3, "W": 4}
SUITS = {"C": 1, "D": 2, "H": 3, "S": 4}
RANKS = "23456789TJQKA"
CONTRACT = re.compile(r"^([1-7])(C|D|H|S|NT)(X{0,2})$")
PERCENT = (40, 50, 60)  # Average minus, Average, Average plus


def _grade(percent: int | Fraction) -> int:
    """0 Average minus, 1 Average, 2 Average plus."""
    return 2 if percent >= 60 else 0 if percent <= 40 else 1


def artificial_level(ns_percent: int | Fraction, ew_percent: int | Fraction) -> int:
    """The Level code -1..-9 of an artificial score (N/S grade first)."""
    return -(3 * _grade(ns_percent) + _grade(ew_percent) + 1)


def artificial_percent(level: int, scoring_direction: int) -> tuple[int, int]:
    """N/S and E/W percentages of Level -1..-9 (E/W scoring direction reverses them)."""
    ns, ew = divmod(-level - 1, 3)
    pair = (PERCENT[ns], PERCENT[ew])
    return (pair[1], pair[0]) if scoring_direction == 2 else pair


@dataclass(frozen=True)
class Position:
    """Where a result belongs, with the movement's pair numbers; ``switched``: the pairs sat
    the wrong way round (the result's N/S pair is the movement's E/W pair)."""

    session_guid: str
    letters: str
    result: Result
    ns: int
    ew: int
    switched: bool = False

    def declaring(self, declarer: str) -> int:
        """The number of the pair that declared from ``declarer``'s seat."""
        at_ns = declarer in "NS"
        return self.ns if at_ns != self.switched else self.ew


def to_dto(at: Position, snap: dict[str, Any], deleted: bool) -> ResultDTO:
    """The ResultDTO of a result as the audit snapshot ``snap`` has it."""
    r = at.result
    dto = ResultDTO(
        session_guid=at.session_guid,
        section_letters=at.letters,
        table_number=r.table_number,
        round_number=r.round,
        board_number=r.board,
        scoring_direction=BOTH,
        pair_north_south=at.ns,
        pair_east_west=at.ew,
        declaring_pair=at.ns,
        is_deleted=deleted,
    )
    if deleted:
        return dto
    if snap.get("state") == "not_played":
        dto.level = NOT_PLAYED
    elif snap.get("state") == "adjusted" and snap.get("adjusted"):
        _adjusted(dto, snap["adjusted"], at)
    else:
        _contract(dto, snap, at)
    return dto


def _adjusted(dto: ResultDTO, text: str, at: Position) -> None:
    """An adjusted score as the protocol can carry it: an artificial score as its Level code,
    an assigned score as the contract result it assigns. A weighted or unbalanced score has no
    form in the protocol (BCS leaves those to the scoring program), so it is reported as
    deleted: the scoring program shows the board as missing and the TD enters the ruling there,
    rather than it scoring the table's original contract."""
    try:
        adjustment = adjusted.parse(text)
    except ValueError:
        dto.is_deleted = True
        return
    if adjustment.kind == "artificial":
        assert adjustment.ns.percent is not None
        assert adjustment.ew.percent is not None
        dto.level = artificial_level(adjustment.ns.percent, adjustment.ew.percent)
    elif adjustment.kind == "assigned":
        part = adjustment.ns.parts[0]
        snap = {"contract": part.contract, "declarer": part.declarer, "tricks": part.tricks}
        _contract(dto, snap, at)
    else:
        dto.is_deleted = True


def _contract(dto: ResultDTO, snap: dict[str, Any], at: Position) -> None:
    match = CONTRACT.match(snap.get("contract") or "")
    if match is None:  # a passed-out board: Level 0
        return
    declarer = snap.get("declarer") or "N"
    dto.level, dto.denomination = int(match[1]), STRAINS[match[2]]
    dto.stake = len(match[3])
    dto.declarer_direction = SEATS[declarer]
    dto.declaring_pair = at.declaring(declarer)
    dto.total_tricks = int(snap.get("tricks") or 0)
    lead = snap.get("lead") or ""
    if len(lead) == 2:
        dto.lead_card_suit, dto.lead_card_rank = SUITS[lead[0]], RANKS.index(lead[1]) + 2


@dataclass(frozen=True)
class ResultItem:
    """A result's latest change the scoring program should know of: one queue item."""

    item_id: int
    dto: ResultDTO
    from_program: bool


def result_items(session: Session, dcs: DcSession) -> list[ResultItem]:
    """The latest reportable change of every result of the session (the queue is the audit
    trail: a confirmation or a TD decision reports the result, a later un-confirming change
    reports its deletion)."""
    sections = {s.id: s for s in sections_of(session, dcs)}
    ids = list(sections)
    results = {r.id: r for r in session.exec(select(Result).where(col(Result.section_id).in_(ids)))}
    numbers = {
        p.id: p.number for p in session.exec(select(Pair).where(col(Pair.section_id).in_(ids)))
    }
    seats = {
        (a.section_id, a.table_number, a.round): (a.ns_pair_id, a.ew_pair_id)
        for a in session.exec(
            select(MovementAssignment).where(col(MovementAssignment.section_id).in_(ids))
        )
    }
    rows = session.exec(
        select(Audit)
        .where(col(Audit.section_id).in_(ids), col(Audit.result_id).is_not(None))
        .order_by(col(Audit.id))
    ).all()
    latest: dict[int, tuple[Audit, dict[str, Any], bool]] = {}
    for row in rows:
        snap = json.loads(row.new or "null")
        rid = row.result_id or 0
        if not isinstance(snap, dict) or "state" not in snap or rid not in results:
            continue
        if snap["state"] in REPORTED:
            latest[rid] = (row, snap, False)
        elif rid in latest and not latest[rid][2]:
            latest[rid] = (row, snap, True)
    items = []
    for rid, (row, snap, deleted) in latest.items():
        result = results[rid]
        movement = seats.get((result.section_id, result.table_number, result.round))
        played = (result.ns_pair_id, result.ew_pair_id)
        switched = movement is not None and played != movement and played == movement[::-1]
        ns, ew = movement if switched and movement is not None else played
        at = Position(
            dcs.session_guid,
            sections[result.section_id].letter,
            result,
            numbers.get(ns, 0),
            numbers.get(ew, 0),
            switched,
        )
        items.append(ResultItem(row.id or 0, to_dto(at, snap, deleted), row.actor == PROGRAM))
    return sorted(items, key=lambda i: i.item_id)


def _values(dto: ResultDTO) -> EntryValues:
    """The entry the program's result stands for, as sent: a correction replaces the result.
    The lead is optional (ResultDTO: LeadCardRank 0 is "not specified"): a result sent without
    one has none, so the program's next poll gives back what it sent (the audit trail keeps
    the table's lead)."""
    lead = None
    if dto.level == 0:
        return EntryValues(contract="PASS", declarer=None, tricks=0)
    strain = next(s for s, n in STRAINS.items() if n == dto.denomination)
    declarer = cast(Literal["N", "E", "S", "W"], "NESW"[dto.declarer_direction - 1])
    if dto.lead_card_rank:
        suit = "CDHS"[dto.lead_card_suit - 1]
        lead = f"{suit}{RANKS[dto.lead_card_rank - 2]}"
    contract = f"{dto.level}{strain}{'X' * dto.stake}"
    try:
        return EntryValues(contract=contract, declarer=declarer, tricks=dto.total_tricks, lead=lead)
    except ValidationError as exc:  # pragma: no cover - the checks above keep values in range
        raise DcError(ErrorType.VALIDATION, str(exc)) from exc


def _delete(session: Session, result: Result) -> list[Push]:
    """The scoring program deleted the result: the table must enter the board again."""
    if result.state == ResultState.REJECTED:
        return []
    old = audit.snapshot(result)
    result.state, result.conflict_entry_id = ResultState.REJECTED, None
    result.confirmed_by, result.confirmed_at = None, None
    result.version += 1
    result.updated_at = utcnow()
    session.add(result)
    session.flush()
    audit.record(
        session,
        actor=PROGRAM,
        action="dc_deleted",
        section_id=result.section_id,
        result=result,
        old=old,
        new=audit.snapshot(result),
        reason=REASON,
    )
    return changed(result)


def switched_seating(dto: ResultDTO) -> bool:
    """Whether the program's result is a switched seating: a contract whose declarer sits N/S
    while the DeclaringPair is the E/W pair, or the other way round (ResultDTO, DeclarerDirection
    note). With the same number on both sides (pair 1 N/S against pair 1 E/W) it cannot be."""
    if dto.level < 1 or dto.pair_north_south == dto.pair_east_west:
        return False
    declarer_ns = dto.declarer_direction in (SEATS["N"], SEATS["S"])
    return declarer_ns != (dto.declaring_pair == dto.pair_north_south)


def _seat(
    session: Session, result: Result, movement: tuple[Pair | None, Pair | None], switched: bool
) -> None:
    """Seat the result's pairs as they played: the movement's way, or switched (audited)."""
    ns, ew = movement[::-1] if switched else movement
    ids = (ns.id if ns else None, ew.id if ew else None)
    if (result.ns_pair_id, result.ew_pair_id) == ids:
        return

    def numbers(pair_ids: tuple[int | None, int | None]) -> dict[str, int | None]:
        found = [session.get(Pair, i) if i else None for i in pair_ids]
        return {
            "ns_pair": found[0].number if found[0] else None,
            "ew_pair": found[1].number if found[1] else None,
        }

    old = numbers((result.ns_pair_id, result.ew_pair_id))
    result.ns_pair_id, result.ew_pair_id = ids
    session.add(result)
    session.flush()
    audit.record(
        session,
        actor=PROGRAM,
        action="dc_seating",
        section_id=result.section_id,
        result=result,
        old=old,
        new={**numbers(ids), "switched": switched},
        reason=f"{REASON}: " + ("switched seating" if switched else "seated as the movement"),
    )


def _stored(session: Session, section_id: int, dto: ResultDTO) -> Result | None:
    return session.exec(
        select(Result).where(
            Result.section_id == section_id,
            Result.table_number == dto.table_number,
            Result.round == dto.round_number,
            Result.board == dto.board_number,
        )
    ).first()


def put_results(session: Session, dcs: DcSession, dtos: Sequence[ResultDTO]) -> list[Push]:
    """Store the scoring program's results (new or corrected) as TD changes, all or none."""
    checks.require([p for dto in dtos for p in checks.result(dto)], "ResultDTO")
    same_session([dto.session_guid for dto in dtos], dcs)
    sections = [section_of(session, dcs, dto.section_letters) for dto in dtos]
    # Every table's lock first, in one go (in the order table commands take them).
    generations.lock_tables(
        session, [(s.id or 0, dto.table_number) for s, dto in zip(sections, dtos, strict=True)]
    )
    pushes: list[Push] = []
    for section, dto in zip(sections, dtos, strict=True):
        row = assignment(session, section, dto.table_number, dto.round_number)
        where = f"table {section.letter}{dto.table_number} round {dto.round_number}"
        if row is None or dto.board_number not in row.board_numbers():
            raise DcError(ErrorType.MOVEMENT, f"Board {dto.board_number} is not played at {where}.")
        pairs = [session.get(Pair, i) if i else None for i in (row.ns_pair_id, row.ew_pair_id)]
        numbers = [p.number if p else 0 for p in pairs]
        if [dto.pair_north_south, dto.pair_east_west] != numbers and not dto.is_deleted:
            raise DcError(
                ErrorType.MOVEMENT,
                f"At {where} pair {numbers[0]} plays pair {numbers[1]}, "
                f"not {dto.pair_north_south} and {dto.pair_east_west}.",
            )
        if dto.is_deleted:
            stored = _stored(session, section.id or 0, dto)
            pushes += _delete(session, stored) if stored is not None else []
            continue
        result = td.board_result(
            session, section, dto.table_number, dto.round_number, dto.board_number
        )
        _seat(session, result, (pairs[0], pairs[1]), switched_seating(dto))
        if dto.level == NOT_PLAYED:
            pushes += td.mark_not_played(session, result=result, reason=REASON, actor=PROGRAM)
        elif dto.level < 0:
            ns, ew = artificial_percent(dto.level, dto.scoring_direction)
            pushes += td.adjust(
                session, result=result, ns_percent=ns, ew_percent=ew, reason=REASON, actor=PROGRAM
            )
        else:
            pushes += td.set_result(
                session,
                result=result,
                values=_values(dto),
                reason=REASON,
                actor=PROGRAM,
                lead_optional=True,
            )
    return pushes

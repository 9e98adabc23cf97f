"""TD calls both ways: calls from Traveller's tables as TdCallDTOs, statuses from the program.

The TD-call queue carries status updates (TdCallDTO.Status: 1 launched, 2 in progress, 3
resolved, 4 deferred): a call is queued when a table makes it (Launched) and again when the TD
resolves it in Traveller (Resolved), also when the program had accepted the launch already.
Each status of a call is its own queue item, so its id is the call's id and its status:
``2 * id`` launched, ``2 * id + 1`` resolved. A status the program sent itself is not sent back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, select

from server.core.models import DcDelivery, DcSession, TDCall, utcnow
from server.dataconnector import checks
from server.dataconnector.dto import TdCallDTO
from server.dataconnector.store import same_session, section_of, sections_of

LAUNCHED, IN_PROGRESS, RESOLVED, DEFERRED = 1, 2, 3, 4
#: Marks the calls the scoring program made, so they are not sent back to it as new.
FROM_PROGRAM = "[scoring program] "
#: The queue's name in dc_delivery (a new name for the status items: the rows of the old
#: one-item-per-call queue do not count for them).
KIND = "td_call_status"


def item_id(call: TDCall) -> int:
    """The queue item of the call's current status."""
    return 2 * (call.id or 0) + (1 if call.acknowledged_at else 0)


@dataclass(frozen=True)
class CallItem:
    """A TD call: one queue item."""

    item_id: int
    dto: TdCallDTO
    from_program: bool


def call_items(session: Session, dcs: DcSession) -> list[CallItem]:
    """Every TD call of the session at its current status: Launched until the TD (in
    Traveller, or the program) acknowledges it, then Resolved."""
    sections = {s.id: s for s in sections_of(session, dcs)}
    calls = session.exec(
        select(TDCall).where(col(TDCall.section_id).in_(list(sections))).order_by(col(TDCall.id))
    ).all()
    out = []
    for call in calls:
        local = call.created_at.astimezone()  # the club's clock, as the TD reads it
        dto = TdCallDTO(
            session_guid=dcs.session_guid,
            section_letters=sections[call.section_id].letter,
            table_number=call.table_number,
            round_number=call.round,
            hour=local.hour,
            minute=local.minute,
            status=RESOLVED if call.acknowledged_at else LAUNCHED,
        )
        launched_by_program = call.reason.startswith(FROM_PROGRAM) and not call.acknowledged_at
        out.append(CallItem(item_id(call), dto, launched_by_program))
    return out


def put_td_calls(session: Session, dcs: DcSession, dtos: Sequence[TdCallDTO]) -> str:
    """Launched: open a call at the table (if none is open); in progress, resolved or
    deferred: the TD has it in hand, so the table's open calls are acknowledged."""
    checks.require([p for dto in dtos for p in checks.td_call(dto)], "TdCallDTO")
    same_session([dto.session_guid for dto in dtos], dcs)
    opened = acknowledged = 0
    for dto in dtos:
        section = section_of(session, dcs, dto.section_letters)
        open_calls = session.exec(
            select(TDCall).where(
                TDCall.section_id == section.id,
                TDCall.table_number == dto.table_number,
                TDCall.acknowledged_at == None,  # noqa: E711
            )
        ).all()
        if dto.status == LAUNCHED:
            if not open_calls:
                session.add(
                    TDCall(
                        section_id=section.id or 0,
                        table_number=dto.table_number,
                        round=dto.round_number,
                        reason=f"{FROM_PROGRAM}called from the scoring program",
                    )
                )
                opened += 1
            continue
        for call in open_calls:
            call.acknowledged_at = utcnow()
            session.add(call)
            # The program's own status: counted as sent and accepted, never echoed to it.
            session.add(
                DcDelivery(
                    dc_session_id=dcs.id or 0, kind=KIND, item_id=item_id(call), accepted=True
                )
            )
            acknowledged += 1
    return f"TD calls: {opened} opened, {acknowledged} acknowledged."

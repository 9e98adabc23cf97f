"""TD calls both ways: calls from Traveller's tables as TdCallDTOs, statuses from the program."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, select

from server.dataconnector import checks
from server.dataconnector.dto import TdCallDTO
from server.dataconnector.store import same_session, section_of, sections_of
from server.models import DcSession, TDCall, utcnow

LAUNCHED, IN_PROGRESS, RESOLVED, DEFERRED = 1, 2, 3, 4
#: Marks the calls the scoring program made, so they are not sent back to it as new.
FROM_PROGRAM = "[scoring program] "


@dataclass(frozen=True)
class CallItem:
    """A TD call: one queue item."""

    item_id: int
    dto: TdCallDTO
    from_program: bool


def call_items(session: Session, dcs: DcSession) -> list[CallItem]:
    """Every TD call of the session (status Launched until the TD acknowledges it)."""
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
        out.append(CallItem(call.id or 0, dto, call.reason.startswith(FROM_PROGRAM)))
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
            acknowledged += 1
    return f"TD calls: {opened} opened, {acknowledged} acknowledged."

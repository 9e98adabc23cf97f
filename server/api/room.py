"""The TD running the room as JSON: reopen a round, the round time, release a table held
at the end of its round (§ 262C), the terminals (a new device, withdrawing one) and pairing
a Swiss round. Each route calls the service the console's form calls."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Depends
from pydantic import BaseModel, ConfigDict, Field
from sqlmodel import Session

from protocol.text import MAX_TEXT, SingleLine
from server.api import schemas
from server.api.deps import RuntimeDep, require_td
from server.api.openapi import ERRORS, operation_id
from server.api.td import get_section
from server.services.event import setup
from server.services.glance import dashboard
from server.services.results import team_matches
from server.services.td import actions as td
from server.services.td import round_control
from server.services.td.round_control import MAX_ROUND_MINUTES

router = APIRouter(
    prefix="/api/v1/sections/{section_id}",
    tags=["td"],
    dependencies=[Depends(require_td)],
    responses=ERRORS,
    generate_unique_id_function=operation_id,
)


@router.post("/rounds/{round_}/reopen", response_model=schemas.SectionPublic)
async def reopen_round(runtime: RuntimeDep, section_id: int, round_: int) -> schemas.SectionPublic:
    """Undo closing a round (the last one closed): its tables may enter results again."""
    pushes = await runtime.run(
        lambda s: round_control.reopen_round(s, setup.get_section(s, section_id), round_),
        rounds_of=section_id,
    )
    runtime.publish(pushes)
    return await get_section(runtime, section_id)


class RoundTimeIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    minutes: int | None = Field(
        description=f"1 to {MAX_ROUND_MINUTES}; null clears it", examples=[21]
    )


class RoundTimePublic(BaseModel):
    section_id: int
    round_minutes: int | None


@router.put("/round-time", response_model=RoundTimePublic)
async def set_round_time(
    runtime: RuntimeDep, section_id: int, body: RoundTimeIn
) -> RoundTimePublic:
    """Set (or clear) the time a round takes; tables slower than it show as late. Audited."""

    def work(s: Session) -> RoundTimePublic:
        section = setup.get_section(s, section_id)
        round_control.set_round_time(s, section, body.minutes)
        return RoundTimePublic(section_id=section_id, round_minutes=section.round_minutes)

    return await runtime.run(work)


class ReasonIn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reason: SingleLine = Field("", max_length=MAX_TEXT, examples=["Slow play: boards later"])


@router.post("/tables/{table}/release", response_model=schemas.TableStatePublic)
async def release_table(
    runtime: RuntimeDep, section_id: int, table: int, body: ReasonIn
) -> schemas.TableStatePublic:
    """Override the end-of-round gate (§ 262C): move the table to the next round although
    boards are missing (they stay on the TD's list). Audited with the reason."""
    pushes = await runtime.run(
        lambda s: round_control.release_table(
            s, setup.get_section(s, section_id), table, body.reason
        )
    )
    runtime.publish(pushes)
    connected = runtime.bus.terminals(section_id)
    states = await runtime.read(
        lambda s: td.section_state(s, setup.get_section(s, section_id), connected=connected)
    )
    state = next(x for x in states if x.table == table)
    return schemas.TableStatePublic.model_validate(state, from_attributes=True)


class NewDevicePublic(BaseModel):
    table: int
    pairing_code: str = Field(description="the table's fresh code: it works once")


@router.post("/tables/{table}/new-device", response_model=NewDevicePublic)
async def new_device(runtime: RuntimeDep, section_id: int, table: int) -> NewDevicePublic:
    """Withdraw the table's terminals and give it a fresh pairing code. Audited."""
    code = await runtime.run(
        lambda s: round_control.move_to_new_device(s, setup.get_section(s, section_id), table)
    )
    return NewDevicePublic(table=table, pairing_code=code)


class TerminalPublic(BaseModel):
    id: int
    table: int
    device: str
    created_at: datetime
    last_seen: datetime | None
    revoked_at: datetime | None
    online: bool
    queued: int | None = Field(description="commands in its outbox when it last said")


@router.get("/terminals", response_model=list[TerminalPublic])
async def terminals(runtime: RuntimeDep, section_id: int) -> list[TerminalPublic]:
    """Every terminal paired in the section, withdrawn ones included (``revoked_at``)."""
    connected = runtime.bus.terminals(section_id)
    rows = await runtime.read(
        lambda s: dashboard.pairing(s, setup.get_section(s, section_id), connected=connected)
    )
    return [
        TerminalPublic(
            id=t.id,
            table=row.table,
            device=t.device,
            created_at=t.created_at,
            last_seen=t.last_seen,
            revoked_at=t.revoked_at,
            online=t.online,
            queued=t.queued,
        )
        for row in rows
        for t in row.terminals
    ]


@router.post("/terminals/{token_id}/revoke", status_code=204)
async def revoke_terminal(runtime: RuntimeDep, section_id: int, token_id: int) -> None:
    """Withdraw one terminal (a lost or misbehaving device): it can no longer enter results.
    Audited; ``unknown_terminal`` for a terminal of another section."""
    await runtime.run(
        lambda s: round_control.revoke_terminal(s, setup.get_section(s, section_id), token_id)
    )


class MatchPublic(BaseModel):
    round: int
    home: int = Field(description="the home team sits N/S in the open room")
    away: int


@router.post("/teams/pair-next-round", response_model=list[MatchPublic])
async def pair_next_round(runtime: RuntimeDep, section_id: int) -> list[MatchPublic]:
    """Swiss teams: pair the next round from the standings (audited)."""
    matches = await runtime.run(
        lambda s: team_matches.pair_next_round(s, setup.get_section(s, section_id))
    )
    return [MatchPublic(round=m.round, home=m.home, away=m.away) for m in matches]

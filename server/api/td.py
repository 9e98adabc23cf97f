"""TD side: log in, set up events and sections, run rounds, watch tables, settle results."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated

from fastapi import APIRouter, Depends, Header, Request
from sqlmodel import Session

from protocol.messages import BoardResultView, Error, ResultChanged
from server.api import schemas
from server.api.deps import RuntimeDep, bearer, require_td
from server.api.movements import build_movement
from server.api.openapi import ERRORS, operation_id
from server.core.errors import InvalidError
from server.core.models import Event, Result, Section, SectionBase
from server.limits import ratelimit
from server.live.runtime import Runtime
from server.movements import PairRef
from server.services import audit, tokens
from server.services.event import event_settings, handicaps, setup
from server.services.glance import dashboard
from server.services.outcomes import Push
from server.services.results import adjusted
from server.services.td import actions as td
from server.services.td import round_control
from server.services.views import result_view

router = APIRouter(
    prefix="/api/v1", tags=["td"], responses=ERRORS, generate_unique_id_function=operation_id
)
guarded = APIRouter(
    prefix="/api/v1",
    tags=["td"],
    dependencies=[Depends(require_td)],
    responses=ERRORS,
    generate_unique_id_function=operation_id,
)


@router.post(
    "/td/login",
    response_model=schemas.TDToken,
    responses={
        401: {"model": Error, "description": "Wrong TD password."},
        429: {"model": Error, "description": "Too many wrong passwords: wait and try again."},
    },
)
async def login(runtime: RuntimeDep, body: schemas.TDLogin, request: Request) -> schemas.TDToken:
    """Exchange the TD password for a bearer token. Wrong passwords count with the web login
    page's: five free per address, then exponential back-off
    (server.limits.ratelimit.LoginLimiter)."""
    hours = runtime.settings.td_session_hours
    with ratelimit.attempt(request, "td_login"):
        token = await runtime.run(
            lambda s: tokens.td_login(
                s, password=body.password, expected=runtime.settings.td_password, hours=hours
            )
        )
    return schemas.TDToken(token=token, expires_in_hours=hours)


def _event_public(event: Event) -> schemas.EventPublic:
    return schemas.EventPublic.model_validate(event, from_attributes=True)


@guarded.post("/td/logout", status_code=204)
async def logout(
    runtime: RuntimeDep, authorization: Annotated[str | None, Header()] = None
) -> None:
    """End the TD session of the bearer token, as the console's log-out does: the token
    works no more."""
    token = bearer(authorization)
    await runtime.run(lambda s: tokens.td_logout(s, token))


@guarded.post("/events", response_model=schemas.EventPublic, status_code=201)
async def create_event(runtime: RuntimeDep, body: schemas.EventCreate) -> schemas.EventPublic:
    event = await runtime.run(lambda s: setup.create_event(s, **body.model_dump()))
    return _event_public(event)


@guarded.get("/events/{event_id}", response_model=schemas.EventPublic)
async def get_event(runtime: RuntimeDep, event_id: int) -> schemas.EventPublic:
    return _event_public(await runtime.read(lambda s: setup.get_event(s, event_id)))


@guarded.patch("/events/{event_id}", response_model=schemas.EventPublic)
async def patch_event(
    runtime: RuntimeDep, event_id: int, body: schemas.EventPatch
) -> schemas.EventPublic:
    """Change an event's settings; the terminals hear of it at once. Audited."""
    changes = body.model_dump(exclude_none=True)

    def work(s: Session) -> tuple[Event, list[Push]]:
        return event_settings.update_event(s, setup.get_event(s, event_id), changes)

    event, pushes = await runtime.run(work)
    runtime.publish(pushes)
    return _event_public(event)


def _section_public(session: Session, section: Section) -> schemas.SectionPublic:
    return schemas.SectionPublic(
        **section.model_dump(include=set(SectionBase.model_fields) | {"id", "event_id"}),
        pairing_codes=td.pairing_codes(session, section),
    )


@guarded.post("/events/{event_id}/sections", response_model=schemas.SectionPublic, status_code=201)
async def create_section(
    runtime: RuntimeDep, event_id: int, body: schemas.SectionCreate
) -> schemas.SectionPublic:
    """Create a section from a generated movement: tables, pairing codes, pairs and boards."""
    movement = build_movement(body.movement)

    def work(s: Session) -> schemas.SectionPublic:
        event = setup.get_event(s, event_id)
        section = setup.create_section(s, event=event, letter=body.letter, movement=movement)
        return _section_public(s, section)

    return await runtime.run(work)


@guarded.get("/sections/{section_id}", response_model=schemas.SectionPublic)
async def get_section(runtime: RuntimeDep, section_id: int) -> schemas.SectionPublic:
    return await runtime.read(lambda s: _section_public(s, setup.get_section(s, section_id)))


@guarded.put("/sections/{section_id}/pairs/{pair}", response_model=schemas.PairPublic)
async def set_pair_names(
    runtime: RuntimeDep, section_id: int, pair: str, body: schemas.PairNamesIn
) -> schemas.PairPublic:
    """Name a pair: ``pair`` is "7" (Howell) or "3NS" / "3EW" (Mitchell); with
    ``handicap``, set its handicap too (in the same transaction: a bad one changes nothing)."""
    number, direction = _pair_key(pair)

    def work(s: Session) -> schemas.PairPublic:
        section = setup.get_section(s, section_id)
        row = setup.set_pair_names(
            s,
            section=section,
            number=number,
            direction=direction,
            names=setup.PairNames(**body.model_dump(exclude={"handicap"})),
        )
        if "handicap" in body.model_fields_set:
            handicaps.set_handicap(s, section, row, body.handicap)
        return schemas.PairPublic.model_validate(row, from_attributes=True)

    return await runtime.run(work)


@guarded.get("/sections/{section_id}/pairs", response_model=list[schemas.PairPublic])
async def pairs(runtime: RuntimeDep, section_id: int) -> list[schemas.PairPublic]:
    """The section's pairs with names, membership numbers and PINs."""
    rows = await runtime.read(lambda s: setup.pairs_of(s, setup.get_section(s, section_id)))
    return [schemas.PairPublic.model_validate(p, from_attributes=True) for p in rows]


def _pair_key(text: str) -> tuple[int, str | None]:
    try:
        ref = PairRef.parse(text)
    except ValueError as exc:
        raise InvalidError(
            "invalid_pair", "{text} is not a pair: use 7, 3NS or 3EW.", text=repr(text)
        ) from exc
    return ref.number, ref.direction


async def _with_pushes(
    runtime: Runtime, work: Callable[[Session], list[Push]], *, rounds_of: int | None = None
) -> list[Push]:
    pushes: list[Push] = await runtime.run(work, rounds_of=rounds_of)
    runtime.publish(pushes)
    return pushes


@guarded.post("/sections/{section_id}/rounds/{round_}/start", response_model=schemas.SectionPublic)
async def start_round(runtime: RuntimeDep, section_id: int, round_: int) -> schemas.SectionPublic:
    """Start (release) the next round; the same request again is refused
    (``round_already_started``) and never starts the round after."""
    await _with_pushes(
        runtime,
        lambda s: round_control.start_round_once(s, setup.get_section(s, section_id), round_),
        rounds_of=section_id,
    )
    return await get_section(runtime, section_id)


@guarded.post("/sections/{section_id}/rounds/{round_}/close", response_model=schemas.SectionPublic)
async def close_round(runtime: RuntimeDep, section_id: int, round_: int) -> schemas.SectionPublic:
    """Close a round to table entries (the TD can still change its results)."""
    await _with_pushes(
        runtime,
        lambda s: td.close_round(s, setup.get_section(s, section_id), round_),
        rounds_of=section_id,
    )
    return await get_section(runtime, section_id)


@guarded.get("/sections/{section_id}/tables", response_model=list[schemas.TableStatePublic])
async def table_states(runtime: RuntimeDep, section_id: int) -> list[schemas.TableStatePublic]:
    """Every table at a glance: round, boards missing / entered / confirmed / in conflict."""
    connected = runtime.bus.terminals(section_id)
    states = await runtime.read(
        lambda s: td.section_state(s, setup.get_section(s, section_id), connected=connected)
    )
    return [schemas.TableStatePublic.model_validate(x, from_attributes=True) for x in states]


@guarded.get("/sections/{section_id}/calls", response_model=list[schemas.TDCallPublic])
async def calls(runtime: RuntimeDep, section_id: int) -> list[schemas.TDCallPublic]:
    rows = await runtime.read(lambda s: td.open_calls(s, setup.get_section(s, section_id)))
    return [
        schemas.TDCallPublic(
            id=c.id or 0,
            table=c.table_number,
            round=c.round,
            reason=c.reason,
            created_at=c.created_at,
        )
        for c in rows
    ]


@guarded.post("/calls/{call_id}/acknowledge", status_code=204)
async def acknowledge(runtime: RuntimeDep, call_id: int) -> None:
    await runtime.run(lambda s: td.acknowledge_call(s, call_id))


async def _settle(
    runtime: Runtime,
    section_id: int,
    at: schemas.ResultRef,
    action: Callable[[Session, Result], list[Push]],
) -> list[BoardResultView]:
    """The TD's ``action`` on the board's result at ``at`` (made empty if it has none),
    published; the answer is the results it changed."""
    pushes = await _with_pushes(
        runtime, td.settle(section_id, at.table, at.round, at.board, action)
    )
    return [p.message.result for p in pushes if isinstance(p.message, ResultChanged)]


@guarded.post("/sections/{section_id}/results/set", response_model=list[BoardResultView])
async def td_set_result(
    runtime: RuntimeDep, section_id: int, body: schemas.TDSetResult
) -> list[BoardResultView]:
    """Enter or change a result as TD (also resolves a conflict). Audited with the reason."""
    return await _settle(
        runtime,
        section_id,
        body,
        lambda s, r: td.set_result(
            s,
            result=r,
            values=body.values,
            reason=body.reason,
            ruling_in_time=body.ruling_in_time,
        ),
    )


@guarded.post("/sections/{section_id}/results/adjust", response_model=list[BoardResultView])
async def td_adjust(
    runtime: RuntimeDep, section_id: int, body: schemas.TDAdjust
) -> list[BoardResultView]:
    """Give an artificial adjusted score (e.g. 60/40 for Ave+/Ave-)."""
    return await _settle(
        runtime,
        section_id,
        body,
        lambda s, r: td.adjust(
            s,
            result=r,
            ns_percent=body.ns_percent,
            ew_percent=body.ew_percent,
            reason=body.reason,
            ruling_in_time=body.ruling_in_time,
        ),
    )


def _parts(rows: list[schemas.ScorePartIn]) -> list[adjusted.PartIn]:
    return [adjusted.PartIn(r.weight, r.contract, r.declarer, r.tricks) for r in rows]


@guarded.post("/sections/{section_id}/results/score", response_model=list[BoardResultView])
async def td_score(
    runtime: RuntimeDep, section_id: int, body: schemas.TDScore
) -> list[BoardResultView]:
    """Give an assigned, weighted (§ X78A1) or unbalanced (§ X78A2) adjusted score. Weights
    must add up to exactly 100 % (or 1); each result is checked. Audited with the reason."""
    made = adjusted.from_rows(
        body.board,
        _parts(body.ns),
        ew=_parts(body.ew) if body.ew is not None else None,
        ew_percent=body.ew_percent,
    )
    return await _settle(
        runtime,
        section_id,
        body,
        lambda s, r: td.adjust_score(
            s,
            result=r,
            adjustment=made,
            reason=body.reason,
            ruling_in_time=body.ruling_in_time,
        ),
    )


@guarded.post("/sections/{section_id}/results/not-played", response_model=list[BoardResultView])
async def td_not_played(
    runtime: RuntimeDep, section_id: int, body: schemas.TDNotPlayed
) -> list[BoardResultView]:
    return await _settle(
        runtime,
        section_id,
        body,
        lambda s, r: td.mark_not_played(
            s, result=r, reason=body.reason, ruling_in_time=body.ruling_in_time
        ),
    )


@guarded.get("/sections/{section_id}/results/entries", response_model=list[schemas.EntryPublic])
async def entries(
    runtime: RuntimeDep, section_id: int, table: int, round: int, board: int
) -> list[schemas.EntryPublic]:
    """The entries a table sent for a board (to choose one when they conflict), oldest first;
    ``in_force`` marks the one the result holds."""

    def work(s: Session) -> list[schemas.EntryPublic]:
        desk = dashboard.board_desk(s, setup.get_section(s, section_id), table, round, board)
        return [schemas.EntryPublic.model_validate(e, from_attributes=True) for e in desk.entries]

    return await runtime.read(work)


@guarded.post("/sections/{section_id}/results/choose", response_model=list[BoardResultView])
async def td_choose_entry(
    runtime: RuntimeDep, section_id: int, body: schemas.TDChooseEntry
) -> list[BoardResultView]:
    """Resolve a conflict by choosing one of the entries the table sent (``entry_id`` from
    ``results/entries``). Audited with the reason."""
    return await _settle(
        runtime,
        section_id,
        body,
        lambda s, r: td.choose_entry(s, result=r, entry_id=body.entry_id, reason=body.reason),
    )


@guarded.get("/sections/{section_id}/results", response_model=list[BoardResultView])
async def results(runtime: RuntimeDep, section_id: int) -> list[BoardResultView]:
    """Every stored result of the section."""
    return await runtime.read(
        lambda s: [result_view(r) for r in td.all_results(s, setup.get_section(s, section_id))]
    )


@guarded.get("/results/{result_id}/audit", response_model=list[schemas.AuditPublic])
async def result_audit(runtime: RuntimeDep, result_id: int) -> list[schemas.AuditPublic]:
    """Who changed this result, when, from what to what, and why."""
    rows = await runtime.read(lambda s: audit.trail(s, result_id))
    return [
        schemas.AuditPublic(
            at=a.at,
            actor=a.actor,
            action=a.action,
            reason=a.reason,
            old=json.loads(a.old) if a.old else None,
            new=json.loads(a.new) if a.new else None,
        )
        for a in rows
    ]

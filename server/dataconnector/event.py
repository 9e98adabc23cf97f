"""A scoring program's event: InitializeEvent, AddSession and ContinueEvent onto Traveller's
events (one Traveller event, its sessions numbered 1, 2, ... in the order they came)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from sqlmodel import Session, select

from server.core.models import DcSession, Event
from server.dataconnector import checks, people
from server.dataconnector.bm_settings import put_settings
from server.dataconnector.deals import put_handrecords
from server.dataconnector.dto import (
    AddSessionDTO,
    ContinueDTO,
    InitDTO,
    ScoringGroupDTO,
    SessionDTO,
)
from server.dataconnector.manage import opened
from server.dataconnector.movement import round_pushes
from server.dataconnector.queues import clear
from server.dataconnector.sections import TEAMS, add_section, meta, traveller_scoring, unsupported
from server.dataconnector.store import event_of, load, save, sections_of
from server.dataconnector.wire import DcError, ErrorType
from server.services.event.setup import create_event
from server.services.table.table_commands import Push

CLEAR_DATA = 128
#: ContinueEvent may not ask for a reset (2) or an upload to the app (8).
CONTINUE_FORBIDDEN = 2 | 8


def groups_of(init: InitDTO) -> list[ScoringGroupDTO]:
    """Every scoring group of every session of the InitDTO."""
    return [g for s in init.sessions for g in s.scoring_groups]


def _init_problems(init: InitDTO) -> list[str]:
    out = [] if 0 <= init.commands <= 255 else [f"Commands ({init.commands}) must be 0-255"]
    if not init.sessions:
        return [*out, "at least one session is required"]
    if init.event_guid:
        out += checks.guid(init.event_guid, "EventGuid")
    if len(init.sessions) > 1 and any(s.event_guid != init.event_guid for s in init.sessions):
        out.append("several sessions need one EventGuid, the same in every session")
    for s in init.sessions:
        out += checks.session(s)
    groups = groups_of(init)
    letters = Counter(x.letters for g in groups for x in g.sections)
    out += [f"section {x} appears {n} times" for x, n in letters.items() if n > 1]
    numbers = Counter(g.scoring_group_number for g in groups)
    out += [f"scoring group {x} appears {n} times" for x, n in numbers.items() if n > 1]
    guids = {s.session_guid for s in init.sessions}
    for p in init.player_data:
        out += checks.player(p) + ([] if p.session_guid in guids else ["player data of no session"])
    players = Counter(p.player_number for p in init.player_data)
    out += [f"player {x} appears {n} times" for x, n in players.items() if n > 1]
    for part in init.participations:
        out += checks.participation(part)
    for h in init.handrecords:
        out += checks.handrecord(h)
    for raw in init.bridgemate2_settings:
        out += checks.bridgemate2(raw)
    for raw in init.bridgemate3_settings:
        out += checks.bridgemate3(raw)
    others = [
        *(p.session_guid for p in init.participations),
        *(h.session_guid for h in init.handrecords),
        *(str(raw.get("SessionGuid")) for raw in init.bridgemate2_settings),
        *(str(raw.get("SessionGuid")) for raw in init.bridgemate3_settings),
    ]
    out += [f"data for {g}, which is none of the sessions" for g in sorted(set(others) - guids)]
    return out


def initialize(session: Session, init: InitDTO) -> tuple[str, str, list[Push]]:
    """A new Traveller event from an InitDTO: (first session guid, report, pushes)."""
    checks.require(_init_problems(init), "InitDTO")
    for s in init.sessions:
        if session.exec(select(DcSession).where(DcSession.session_guid == s.session_guid)).first():
            raise DcError(
                ErrorType.NO_UPDATES,
                f"Session {s.session_guid} exists already: use ContinueEvent to carry on with "
                "it, UpdateMovement to change it, or a new session guid for a new event.",
            )
    for g in groups_of(init):
        for dto in g.sections:
            unsupported(dto)
    first = init.sessions[0]
    event = create_event(
        session,
        name=", ".join(s.name.strip() for s in init.sessions)[:200],
        scoring=traveller_scoring(first.scoring_groups[0].scoring_method),
    )
    by_guid = {
        s.session_guid: _open_session(
            session, event, s, init.event_guid or s.event_guid, number, init.commands
        )
        for number, s in enumerate(init.sessions, start=1)
    }
    session.flush()
    notes = [f"Initialized event {event.name!r} (Traveller event {event.id})."]
    notes += _load_people_and_deals(session, init, by_guid)
    notes += _scoring_notes(session, first.session_guid)
    if any(dto.game_type == TEAMS for g in groups_of(init) for dto in g.sections):
        notes.append("Teams sections are played as pairs movements; the team numbers are kept.")
    pushes = [
        p
        for dcs in by_guid.values()
        for s in sections_of(session, dcs)
        for p in round_pushes(session, s)
    ]
    return first.session_guid, " ".join(notes), pushes


def _open_session(
    session: Session, event: Event, s: SessionDTO, event_guid: str, number: int, commands: int = 0
) -> DcSession:
    """The scoring program's session as session ``number`` of the Traveller event, with its
    sections; it becomes the running one (ManageBCS)."""
    dcs = DcSession(
        session_guid=s.session_guid,
        event_guid=event_guid,
        event_id=event.id or 0,
        session_number=number,
        name=s.name[:200],
    )
    session.add(dcs)
    session.flush()
    data = load(dcs)
    data["session"] = {
        "date": f"{s.year:04d}-{s.month:02d}-{s.day:02d}",
        "time": f"{s.hour:02d}:{s.minute:02d}",
        "commands": commands,
    }
    for g in s.scoring_groups:
        data["groups"][str(g.scoring_group_number)] = {"method": g.scoring_method, "name": g.name}
        for dto in g.sections:
            add_section(session, event, dcs, dto)
            data["sections"][dto.letters] = meta(dto, g.scoring_group_number)
    save(session, dcs, data)
    opened(session, dcs)
    return dcs


def _by_session(items: Sequence[Any], guid: str) -> list[Any]:
    return [
        i
        for i in items
        if (i.get("SessionGuid") if isinstance(i, dict) else i.session_guid) == guid
    ]


def _load_people_and_deals(
    session: Session, init: InitDTO, by_guid: dict[str, DcSession]
) -> list[str]:
    notes = []
    for guid, dcs in by_guid.items():
        people.store_players(session, dcs, _by_session(init.player_data, guid))
        people.seat_players(session, dcs, _by_session(init.participations, guid))
        handrecords = _by_session(init.handrecords, guid)
        if handrecords:
            notes.append(put_handrecords(session, dcs, handrecords))
        for model, raws in (("bm2", init.bridgemate2_settings), ("bm3", init.bridgemate3_settings)):
            mine = _by_session(raws, guid)
            if mine:
                notes.append(put_settings(session, dcs, model, mine))
    return notes


def _scoring_notes(session: Session, guid: str) -> list[str]:
    """Traveller scores per event: say so when the scoring groups ask for more."""
    dcs = session.exec(select(DcSession).where(DcSession.session_guid == guid)).one()
    methods = {g["method"] for g in load(dcs)["groups"].values()}
    event = event_of(session, dcs)
    if len({traveller_scoring(m) for m in methods}) > 1:
        return [f"The scoring groups use several methods: Traveller scores {event.scoring!r}."]
    return []


def continue_event(session: Session, dto: ContinueDTO) -> tuple[str, str]:
    """Carry on with a known event: (first session guid, report)."""
    if dto.commands & CONTINUE_FORBIDDEN or not 0 <= dto.commands <= 255:
        raise DcError(
            ErrorType.VALIDATION,
            f"ContinueDTO Commands ({dto.commands}) may only combine 1, 4, 16, 32, 64 and 128.",
        )
    rows = _event_rows(session, dto.event_guid) if dto.event_guid else []
    if not rows:
        raise DcError(ErrorType.ENTRY_UNKNOWN, f"There is no event {dto.event_guid!r}.")
    for dcs in rows:
        if dto.commands & CLEAR_DATA:
            clear(session, dcs)
        opened(session, dcs)
    guids = ", ".join(r.session_guid for r in rows)
    return rows[0].session_guid, f"Continued with sessions {guids}."


def _event_rows(session: Session, guid: str) -> list[DcSession]:
    """The sessions of the event with this guid (a single session's guid is its event's)."""
    return list(
        session.exec(
            select(DcSession).where(
                (DcSession.event_guid == guid) | (DcSession.session_guid == guid)
            )
        )
    )


def add_session(
    session: Session, request_guid: str, dto: AddSessionDTO
) -> tuple[str, str, list[Push]]:
    """One more session for a known event (AddSessionDTO): (its guid, report, pushes). Its
    section letters and scoring group numbers must be new in the event: Traveller keeps each
    section of an event under its own letters, and added sections cannot join the event's
    scoring groups (as in BCS)."""
    init = InitDTO(
        event_guid=dto.event_guid,
        sessions=[dto.session] if dto.session else [],
        player_data=dto.player_data,
        participations=dto.participations,
        handrecords=dto.handrecords,
        bridgemate2_settings=dto.bridgemate2_settings,
        bridgemate3_settings=dto.bridgemate3_settings,
    )
    problems = checks.guid(dto.event_guid, "EventGuid") + _init_problems(init)
    if dto.session is not None and dto.session.event_guid != dto.event_guid:
        problems.append(f"the Session's EventGuid must be {dto.event_guid!r}")
    if request_guid and request_guid != dto.event_guid:
        problems.append("the request's SessionGuid must be the EventGuid")
    checks.require(problems, "AddSessionDTO")
    assert dto.session is not None  # _init_problems requires one session
    rows = _event_rows(session, dto.event_guid)
    if not rows:
        raise DcError(ErrorType.ENTRY_UNKNOWN, f"There is no event {dto.event_guid!r}.")
    new = dto.session
    if session.exec(select(DcSession).where(DcSession.session_guid == new.session_guid)).first():
        raise DcError(ErrorType.NO_UPDATES, f"Session {new.session_guid} exists already.")
    letters = {x for r in rows for x in load(r)["sections"]}
    numbers = {int(n) for r in rows for n in load(r)["groups"]}
    clashes = [
        f"section {x.letters} exists in the event already"
        for g in new.scoring_groups
        for x in g.sections
        if x.letters in letters
    ] + [
        f"scoring group {g.scoring_group_number} exists in the event already"
        for g in new.scoring_groups
        if g.scoring_group_number in numbers
    ]
    checks.require(clashes, "AddSessionDTO")
    for g in new.scoring_groups:
        for section_dto in g.sections:
            unsupported(section_dto)
    event = session.get(Event, rows[0].event_id)
    assert event is not None
    number = max(r.session_number for r in rows) + 1
    dcs = _open_session(session, event, new, dto.event_guid, number)
    session.flush()
    notes = [f"Added session {number} to event {event.name!r} (Traveller event {event.id})."]
    notes += _load_people_and_deals(session, init, {new.session_guid: dcs})
    methods = {traveller_scoring(g.scoring_method) for g in new.scoring_groups}
    if methods - {event.scoring}:
        notes.append(f"Traveller scores the event {event.scoring!r}: the session's groups differ.")
    pushes = [p for s in sections_of(session, dcs) for p in round_pushes(session, s)]
    return new.session_guid, " ".join(notes), pushes

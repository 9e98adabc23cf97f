"""Event set-up from a scoring program: InitializeEvent, ContinueEvent, UpdateMovement and
UpdateScoringGroups onto Traveller's events, sections and movements."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from sqlmodel import Session, select

from server.dataconnector import checks, people
from server.dataconnector.bm_settings import put_settings
from server.dataconnector.deals import put_handrecords
from server.dataconnector.dto import (
    ContinueDTO,
    InitDTO,
    ScoringGroupDTO,
    SectionDTO,
    SectionUpdateDTO,
)
from server.dataconnector.movement import round_pushes, to_movement, update
from server.dataconnector.queues import clear
from server.dataconnector.store import event_of, load, save, section_of, sections_of
from server.dataconnector.wire import DcError, ErrorType
from server.errors import TravellerError
from server.models import DcSession, Event, Section
from server.services.setup import create_event, create_section
from server.services.table_commands import Push

CLEAR_DATA = 128
#: ContinueEvent may not ask for a reset (2) or an upload to the app (8).
CONTINUE_FORBIDDEN = 2 | 8
INDIVIDUAL, TEAMS = 20, 30


def traveller_scoring(method: int) -> str:
    """Traveller's scoring for a Data Connector scoring method (the method itself is kept)."""
    if method == 10:
        return "mp"
    if 20 <= method < 30:
        return "butler"
    return "imps" if method != 60 else "mp"


def _unsupported(dto: SectionDTO) -> None:
    """Section kinds Traveller's table side cannot play: the protocol's NotImplemented."""
    reasons = [
        ("individual sections (game type 20)", dto.game_type == INDIVIDUAL),
        ("combi sections", dto.is_combi_section),
        ("explicit per-round participations", dto.has_explicit_participations),
    ]
    for what, applies in reasons:
        if applies:
            raise DcError(
                ErrorType.NOT_IMPLEMENTED,
                f"Section {dto.letters}: Traveller does not support {what} yet.",
            )


def _meta(dto: SectionDTO, group: int) -> dict[str, Any]:
    return {
        "group": group,
        "name": dto.name,
        "winners": dto.winners,
        "game_type": dto.game_type,
        "missing_pair": dto.missing_pair,
        "ew_move_before_play": dto.ew_move_before_play,
        "keep_bridgemates_alive": dto.keep_bridgemates_alive,
        "teams": {
            f"{r.table_number}-{r.round_number}": [r.team_ns, r.team_ew]
            for t in dto.tables
            for r in t.rounds
            if r.team_ns or r.team_ew
        },
    }


def _add_section(session: Session, event: Event, dcs: DcSession, dto: SectionDTO) -> Section:
    _unsupported(dto)
    try:
        section = create_section(
            session, event=event, letter=dto.letters, movement=to_movement(dto)
        )
    except TravellerError as exc:
        raise DcError(ErrorType.MOVEMENT, f"Section {dto.letters}: {exc.message}") from exc
    section.session_number = dcs.session_number
    session.add(section)
    return section


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
    groups = [g for s in init.sessions for g in s.scoring_groups]
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
    for g in (g for s in init.sessions for g in s.scoring_groups):
        for dto in g.sections:
            _unsupported(dto)
    first = init.sessions[0]
    event = create_event(
        session,
        name=", ".join(s.name.strip() for s in init.sessions)[:200],
        scoring=traveller_scoring(first.scoring_groups[0].scoring_method),
    )
    by_guid: dict[str, DcSession] = {}
    for number, s in enumerate(init.sessions, start=1):
        dcs = DcSession(
            session_guid=s.session_guid,
            event_guid=init.event_guid or s.event_guid,
            event_id=event.id or 0,
            session_number=number,
            name=s.name[:200],
        )
        session.add(dcs)
        session.flush()
        by_guid[s.session_guid] = dcs
        data = load(dcs)
        data["session"] = {
            "date": f"{s.year:04d}-{s.month:02d}-{s.day:02d}",
            "time": f"{s.hour:02d}:{s.minute:02d}",
            "commands": init.commands,
        }
        for g in s.scoring_groups:
            data["groups"][str(g.scoring_group_number)] = {
                "method": g.scoring_method,
                "name": g.name,
            }
            for dto in g.sections:
                _add_section(session, event, dcs, dto)
                data["sections"][dto.letters] = _meta(dto, g.scoring_group_number)
        save(session, dcs, data)
    session.flush()
    notes = [f"Initialized event {event.name!r} (Traveller event {event.id})."]
    notes += _load_people_and_deals(session, init, by_guid)
    notes += _scoring_notes(session, first.session_guid)
    pushes = [
        p
        for dcs in by_guid.values()
        for s in sections_of(session, dcs)
        for p in round_pushes(session, s)
    ]
    return first.session_guid, " ".join(notes), pushes


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
    rows = session.exec(
        select(DcSession).where(
            (DcSession.event_guid == dto.event_guid) | (DcSession.session_guid == dto.event_guid)
        )
    ).all()
    if not dto.event_guid or not rows:
        raise DcError(ErrorType.ENTRY_UNKNOWN, f"There is no event {dto.event_guid!r}.")
    for dcs in rows:
        if dto.commands & CLEAR_DATA:
            clear(session, dcs)
    guids = ", ".join(r.session_guid for r in rows)
    return rows[0].session_guid, f"Continued with sessions {guids}."


def update_movement(
    session: Session, dcs: DcSession, dto: SectionUpdateDTO
) -> tuple[str, list[Push]]:
    """Add a section or change a section's movement (a late pair, a new table)."""
    problems = checks.guid(dto.session_guid) + checks.letters(dto.letters, "Letters")
    if dto.session_guid != dcs.session_guid:
        problems.append("the section belongs to another session")
    if not dto.is_deleted:
        problems += [p for p in checks.section(dto, dcs.session_guid) if p not in problems]
        if dto.scoring_group_scoring_method not in checks.SCORING_METHODS:
            problems.append(
                f"ScoringGroupScoringMethod {dto.scoring_group_scoring_method} is unknown"
            )
    checks.require(problems, "SectionUpdateDTO")
    if dto.is_deleted:
        raise DcError(
            ErrorType.NOT_IMPLEMENTED,
            f"Traveller keeps section {dto.letters} with its results and audit trail; "
            "it cannot be deleted over the Data Connector (leave it unused).",
        )
    _unsupported(dto)
    data_json = load(dcs)
    group = str(dto.scoring_group_number)
    data_json["groups"].setdefault(group, {"method": dto.scoring_group_scoring_method, "name": ""})
    known = {s.letter: s for s in sections_of(session, dcs)}
    if dto.letters in known:
        section = known[dto.letters]
        pushes = update(session, section, to_movement(dto))
        report = f"Movement of section {dto.letters} updated."
    else:
        section = _add_section(session, event_of(session, dcs), dcs, dto)
        session.flush()
        pushes = round_pushes(session, section)
        report = f"Section {dto.letters} added."
    data_json["sections"][dto.letters] = _meta(dto, dto.scoring_group_number)
    save(session, dcs, data_json)
    if dto.added_players:
        people.store_players(session, dcs, dto.added_players)
    if dto.participations:
        people.seat_players(session, dcs, dto.participations)
    return report, pushes


def update_scoring_groups(session: Session, dcs: DcSession, groups: list[ScoringGroupDTO]) -> str:
    """Change the scoring groups' methods and which sections each one scores."""
    checks.require(
        [p for g in groups for p in checks.group(g, dcs.session_guid, in_init=False)],
        "ScoringGroupDTO",
    )
    stored = load(dcs)
    for g in groups:
        key = str(g.scoring_group_number)
        if g.is_deleted:
            users = [x for x, meta in stored["sections"].items() if str(meta.get("group")) == key]
            if users:
                raise DcError(
                    ErrorType.VALIDATION,
                    f"Scoring group {key} still scores section {users[0]}: move it first.",
                )
            stored["groups"].pop(key, None)
            continue
        stored["groups"][key] = {"method": g.scoring_method, "name": g.name}
        for s in g.sections:
            section = section_of(session, dcs, s.letters)
            stored["sections"].setdefault(section.letter, {})["group"] = g.scoring_group_number
    methods = {g["method"] for g in stored["groups"].values()}
    event = event_of(session, dcs)
    note = ""
    if len({traveller_scoring(m) for m in methods}) == 1:
        event.scoring = traveller_scoring(methods.pop())
        session.add(event)
    else:
        note = f" The groups use several methods: Traveller keeps scoring {event.scoring!r}."
    save(session, dcs, stored)
    return f"Scoring groups updated.{note}"

"""Sections from a scoring program: adding them, UpdateMovement and UpdateScoringGroups."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from server.core.errors import TravellerError
from server.core.models import DcSession, Event, Section
from server.dataconnector import checks, people
from server.dataconnector.dto import ScoringGroupDTO, SectionDTO, SectionUpdateDTO
from server.dataconnector.movement import round_pushes, to_movement, update
from server.dataconnector.store import event_of, load, save, section_of, sections_of
from server.dataconnector.wire import DcError, ErrorType
from server.scoring import methods
from server.scoring.methods import Method
from server.services.event.setup import create_section
from server.services.table.table_commands import Push

INDIVIDUAL, TEAMS = 20, 30


def traveller_scoring(method: int) -> Method:
    """Traveller's scoring for a Data Connector scoring method (the method itself is kept)."""
    return methods.from_data_connector(method)


def unsupported(dto: SectionDTO) -> None:
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


def meta(dto: SectionDTO, group: int) -> dict[str, Any]:
    """What the section keeps beyond Traveller's columns (group, winners, teams...)."""
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


def add_section(session: Session, event: Event, dcs: DcSession, dto: SectionDTO) -> Section:
    """A new Traveller section playing the program's movement for this section."""
    unsupported(dto)
    try:
        section = create_section(
            session, event=event, letter=dto.letters, movement=to_movement(dto)
        )
    except TravellerError as exc:
        raise DcError(ErrorType.MOVEMENT, f"Section {dto.letters}: {exc.message}") from exc
    section.session_number = dcs.session_number
    session.add(section)
    return section


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
    unsupported(dto)
    data_json = load(dcs)
    group = str(dto.scoring_group_number)
    data_json["groups"].setdefault(group, {"method": dto.scoring_group_scoring_method, "name": ""})
    known = {s.letter: s for s in sections_of(session, dcs)}
    if dto.letters in known:
        section = known[dto.letters]
        pushes = update(session, section, to_movement(dto))
        report = f"Movement of section {dto.letters} updated."
    else:
        section = add_section(session, event_of(session, dcs), dcs, dto)
        session.flush()
        pushes = round_pushes(session, section)
        report = f"Section {dto.letters} added."
    data_json["sections"][dto.letters] = meta(dto, dto.scoring_group_number)
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

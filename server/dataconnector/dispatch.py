"""One request, one answer: each Data Connector command mapped onto Traveller's services."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from server.core.errors import ConflictError, InvalidError, NotFoundError, TravellerError
from server.core.models import DcSession
from server.dataconnector import event, people, queues, sections
from server.dataconnector.bm_settings import put_settings, settings_pushes
from server.dataconnector.deals import put_handrecords
from server.dataconnector.dto import (
    AddSessionDTO,
    BCSManagementRequestDTO,
    ContinueDTO,
    HandrecordDTO,
    InitDTO,
    ParticipationDTO,
    PlayerDataDTO,
    ResultDTO,
    ScoringGroupDTO,
    SectionDTO,
    SectionUpdateDTO,
    TdCallDTO,
    read,
    read_list,
)
from server.dataconnector.manage import manage
from server.dataconnector.movement import round_pushes, section_dto
from server.dataconnector.results import put_results
from server.dataconnector.store import find_session, load, section_of, sections_of
from server.dataconnector.tdcalls import KIND as TD_CALLS
from server.dataconnector.tdcalls import put_td_calls
from server.dataconnector.wire import Command, DataType, DcError, ErrorType, Request, Response, ok
from server.services.table.table_commands import Push

POLLS = {
    Command.POLL_NEW_RESULTS: ("results", False),
    Command.POLL_ALL_RESULTS: ("results", True),
    Command.POLL_NEW_PLAYER_DATA: ("player_data", False),
    Command.POLL_ALL_PLAYER_DATA: ("player_data", True),
    Command.POLL_NEW_PARTICIPATIONS: ("participations", False),
    Command.POLL_ALL_PARTICIPATIONS: ("participations", True),
    Command.POLL_NEW_HANDRECORDS: ("handrecords", False),
    Command.POLL_ALL_HANDRECORDS: ("handrecords", True),
    Command.POLL_NEW_TD_CALLS: (TD_CALLS, False),
    Command.POLL_ALL_TD_CALLS: (TD_CALLS, True),
}
ACCEPTS = {
    Command.ACCEPT_RESULTS: "results",
    Command.ACCEPT_PLAYER_DATA: "player_data",
    Command.ACCEPT_PARTICIPATIONS: "participations",
    Command.ACCEPT_HANDRECORDS: "handrecords",
    Command.ACCEPT_TD_CALLS: TD_CALLS,
}
#: Commands Traveller answers with NotImplemented, and why.
NOT_IMPLEMENTED = {
    Command.NONE: "Command 0 is not a command.",
    Command.STOP_BCS: "There is no BCS to stop: Traveller is the server.",
    Command.PUT_TABLE_GRAPH: "Table graphs are not supported.",
    Command.UPDATE_SESSION: "UpdateSession is not supported (not supported by BCS either).",
    Command.UPDATE_SECTION: "Use UpdateMovement to change a section.",
    Command.UPDATE_TABLE: "Use UpdateMovement to change a table's rounds.",
    Command.TEST_DATA: "Test data is not supported.",
}


@dataclass
class DcAnswer:
    """The answer, and what to push to the terminals once the transaction has committed."""

    response: Response
    pushes: list[Push] = field(default_factory=list)


def as_dc_error(exc: TravellerError) -> DcError:
    """A refusal from Traveller's services as the protocol's error answer."""
    if exc.code in ("invalid_movement", "board_not_in_round", "unknown_table", "unknown_pair"):
        return DcError(ErrorType.MOVEMENT, exc.message)
    if isinstance(exc, InvalidError):
        return DcError(ErrorType.VALIDATION, exc.message)
    if isinstance(exc, NotFoundError):
        return DcError(ErrorType.ENTRY_UNKNOWN, exc.message)
    if isinstance(exc, ConflictError):
        return DcError(ErrorType.NO_UPDATES, exc.message)
    return DcError(ErrorType.EXCEPTION, exc.message)


def _settings(data: Any) -> list[dict[str, Any]]:
    if not data:
        raise DcError(ErrorType.NO_DATA, "The request carries no settings.")
    if not isinstance(data, list) or not all(isinstance(d, dict) for d in data):
        raise DcError(ErrorType.VALIDATION, "Send the settings as an array of settings objects.")
    return data


def _all_tables(session: Session, dcs: DcSession) -> list[Push]:
    return [p for s in sections_of(session, dcs) for p in round_pushes(session, s)]


def _group_of(dcs: DcSession, letters: str) -> int:
    return int(load(dcs)["sections"].get(letters, {}).get("group", 1))


def _movements(session: Session, dcs: DcSession, req: Request) -> Response:
    if req.command == Command.GET_MOVEMENT:
        wanted = read(SectionDTO, req.data())
        section = section_of(session, dcs, wanted.letters)
        dto = section_dto(session, section, dcs.session_guid, _group_of(dcs, section.letter))
        return Response(req.command, DataType.MOVEMENT, dto.wire(), dcs.session_guid)
    dtos = [
        section_dto(session, s, dcs.session_guid, _group_of(dcs, s.letter)).wire()
        for s in sections_of(session, dcs)
    ]
    return Response(req.command, DataType.MOVEMENT, dtos, dcs.session_guid)


def _session_command(session: Session, dcs: DcSession, req: Request) -> DcAnswer:
    cmd, guid, data = req.command, dcs.session_guid, req.data()
    if cmd in POLLS:
        kind, everything = POLLS[cmd]
        return DcAnswer(queues.poll(session, dcs, cmd, kind, everything))
    if cmd in ACCEPTS:
        count = queues.accept(session, dcs, ACCEPTS[cmd], data)
        return DcAnswer(ok(cmd, f"Accepted {count} queue items.", guid))
    if cmd == Command.CLEAR_DATA:
        queues.clear(session, dcs)
        return DcAnswer(ok(cmd, "Queues cleared.", guid))
    if cmd in (Command.GET_MOVEMENT, Command.GET_ALL_MOVEMENTS):
        return DcAnswer(_movements(session, dcs, req))
    if cmd == Command.UPDATE_MOVEMENT:
        report, pushes = sections.update_movement(session, dcs, read(SectionUpdateDTO, data))
        return DcAnswer(ok(cmd, report, guid), pushes)
    if cmd == Command.UPDATE_SCORING_GROUPS:
        groups = read_list(ScoringGroupDTO, data)
        return DcAnswer(ok(cmd, sections.update_scoring_groups(session, dcs, groups), guid))
    if cmd == Command.PUT_RESULTS:
        results = read_list(ResultDTO, data)
        pushes = put_results(session, dcs, results)
        return DcAnswer(ok(cmd, f"{len(results)} results stored.", guid), pushes)
    if cmd == Command.PUT_PLAYER_DATA:
        players = read_list(PlayerDataDTO, data)
        people.store_players(session, dcs, players)
        return DcAnswer(ok(cmd, f"{len(players)} players stored.", guid), _all_tables(session, dcs))
    if cmd == Command.PUT_PARTICIPATIONS:
        seats = read_list(ParticipationDTO, data)
        people.seat_players(session, dcs, seats)
        return DcAnswer(ok(cmd, f"{len(seats)} seats stored.", guid), _all_tables(session, dcs))
    if cmd == Command.PUT_HANDRECORDS:
        return DcAnswer(
            ok(cmd, put_handrecords(session, dcs, read_list(HandrecordDTO, data)), guid)
        )
    if cmd == Command.PUT_TD_CALLS:
        return DcAnswer(ok(cmd, put_td_calls(session, dcs, read_list(TdCallDTO, data)), guid))
    if cmd in (Command.PUT_BRIDGEMATE2_SETTINGS, Command.PUT_BRIDGEMATE3_SETTINGS):
        model = "bm2" if cmd == Command.PUT_BRIDGEMATE2_SETTINGS else "bm3"
        report = put_settings(session, dcs, model, _settings(data))
        return DcAnswer(ok(cmd, report, guid), settings_pushes(session, dcs))
    raise DcError(
        ErrorType.NOT_IMPLEMENTED, NOT_IMPLEMENTED.get(cmd, f"{cmd.name} is not supported.")
    )


def handle(session: Session, req: Request) -> DcAnswer:
    """Answer one request inside one transaction (an error rolls everything back)."""
    cmd = req.command
    if cmd in NOT_IMPLEMENTED:
        raise DcError(ErrorType.NOT_IMPLEMENTED, NOT_IMPLEMENTED[cmd])
    if cmd == Command.INITIALIZE_EVENT:
        guid, report, pushes = event.initialize(session, read(InitDTO, req.data()))
        return DcAnswer(ok(cmd, report, guid), pushes)
    if cmd == Command.CONTINUE_EVENT:
        guid, report = event.continue_event(session, read(ContinueDTO, req.data()))
        return DcAnswer(ok(cmd, report, guid))
    if cmd == Command.ADD_SESSION:
        dto = read(AddSessionDTO, req.data())
        guid, report, pushes = event.add_session(session, req.session_guid, dto)
        return DcAnswer(ok(cmd, report, guid), pushes)
    if cmd == Command.MANAGE_BCS:
        return DcAnswer(manage(session, read(BCSManagementRequestDTO, req.data())))
    return _session_command(session, find_session(session, req.session_guid), req)

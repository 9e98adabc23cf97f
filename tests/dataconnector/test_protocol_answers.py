"""The protocol's answers for what goes wrong: credentials, garbage, unknown sessions, commands
Traveller does not support, movement changes that would rewrite played rounds; and the rest
of the command set (deletion, ContinueEvent, scoring groups, movements, ClearData)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from bridgemate_dataconnector import DataConnectorClient
from bridgemate_dataconnector.dto import (
    ContinueDTO,
    DataConnectorResponseData,
    ErrorType,
    ParticipationDTO,
    ScoringGroupDTO,
    ScoringProgramDataConnectorCommands,
    ScoringProgramRequest,
    ScoringProgramResponse,
    TableDirection,
)
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from server.app import create_app
from server.core.config import Settings
from server.core.models import Event, Result
from tests.dataconnector import scenario
from tests.support.dataconnector import CLUB_ID, LICENCE, TD, Served, new_guid

Commands = ScoringProgramDataConnectorCommands
ERROR = DataConnectorResponseData.Error


@pytest.fixture
def db_url(tmp_path: Any) -> str:
    """Protocol answers do not depend on the database: SQLite only."""
    return f"sqlite:///{tmp_path / 'traveller.db'}"


@pytest.fixture
def guid(dc: DataConnectorClient) -> str:
    session_guid = new_guid()
    response = dc.initialize(scenario.init(session_guid, new_guid()))
    assert response.data_type == DataConnectorResponseData.OK, response.serialized_data
    return session_guid


def refused(response: ScoringProgramResponse, error_type: ErrorType) -> str:
    assert (response.data_type, response.error_type) == (ERROR, error_type), (
        response.serialized_data
    )
    message: str = json.loads(response.serialized_data or '""')
    return message


def send(dc: DataConnectorClient, command: Any, guid: str, data: Any) -> ScoringProgramResponse:
    request = ScoringProgramRequest()
    request.command, request.session_guid = command, guid
    request.serialized_data = data if isinstance(data, str) else json.dumps(data)
    return dc.send_request(request)


def test_unknown_club_or_licence_gets_the_protocols_answer(served: Served) -> None:
    for club, licence in ((CLUB_ID, "wrong"), ("other-club", LICENCE), ("", "")):
        client = DataConnectorClient(club, licence, base_address=served.dc_url)
        assert client.connect().data_type == DataConnectorResponseData.OK  # the GET ping is open
        message = refused(client.ping(), ErrorType.Validation)
        assert "club id or licence key" in message
        assert client.poll_for_results(new_guid()) == []


def test_a_server_without_credentials_refuses_every_request(tmp_path: Any) -> None:
    settings = Settings(td_password="secret-td", database_url=f"sqlite:///{tmp_path / 'x.db'}")
    with TestClient(create_app(settings)) as http:
        assert "Bridgemate dataconnector service version" in http.get("/dc/").text
        body = {"Command": 4, "ClubId": "", "LicenceKey": "", "SerializedData": '"1"'}
        answer = http.post("/dc/dc-scoringprogram", json=body)
    assert answer.status_code == 200
    assert answer.json()["DataType"] == 4
    assert answer.json()["ErrorType"] == 5
    assert "TRAVELLER_DC_CLUB_ID" in json.loads(answer.json()["SerializedData"])


@pytest.mark.parametrize(
    "body",
    [
        b"not json",
        b"[1, 2]",
        b'{"Command": "five"}',
        b'{"Command": 99}',
        json.dumps({"Command": 19, "ClubId": CLUB_ID, "LicenceKey": LICENCE, "SessionGuid": 5}),
    ],
)
def test_garbage_gets_a_validation_answer_never_a_500(served: Served, body: bytes | str) -> None:
    r = httpx.post(f"{served.dc_url}/dc-scoringprogram", content=body, timeout=10)
    assert r.status_code == 200
    assert (r.json()["DataType"], r.json()["ErrorType"]) == (4, 5)


def test_invalid_serialized_data_and_unknown_sessions(dc: DataConnectorClient, guid: str) -> None:
    refused(send(dc, Commands.PutResults, guid, "{not json"), ErrorType.Validation)
    refused(send(dc, Commands.PutResults, guid, {"not": "a list"}), ErrorType.Validation)
    refused(send(dc, Commands.PutResults, guid, [{"TableNumber": "x"}]), ErrorType.Validation)
    refused(send(dc, Commands.PutResults, guid, []), ErrorType.NoData)
    refused(send(dc, Commands.AcceptResultQueueItems, guid, '"7"'), ErrorType.Validation)
    refused(send(dc, Commands.PollQueueForNewResults, new_guid(), ""), ErrorType.EntryUnknown)
    other = scenario.result(new_guid(), 1, 1, 1)
    refused(send(dc, Commands.PutResults, guid, [other.to_dict()]), ErrorType.Validation)


@pytest.mark.parametrize(
    "command",
    [Commands.StopBCS, Commands.UpdateSession, Commands.UpdateSection, Commands.UpdateTable],
)
def test_commands_traveller_does_not_support(
    dc: DataConnectorClient, guid: str, command: Any
) -> None:
    assert refused(send(dc, command, guid, ""), ErrorType.NotImplemented)


def test_initializing_a_session_twice_is_refused(dc: DataConnectorClient, guid: str) -> None:
    again = scenario.init(guid, new_guid())
    assert "ContinueEvent" in refused(dc.initialize(again), ErrorType.NoUpdates)


def test_individual_sections_are_not_supported_yet(dc: DataConnectorClient) -> None:
    init = scenario.init(new_guid(), new_guid())
    init.sessions[0].scoring_groups[0].sections[0].game_type = 20
    assert "individual" in refused(dc.initialize(init), ErrorType.NotImplemented)


def test_continue_event(dc: DataConnectorClient, guid: str, served: Served) -> None:
    td = TD(served.url)
    cont = ContinueDTO()
    cont.event_guid, cont.commands = new_guid(), 5
    refused(dc.continue_event(cont), ErrorType.EntryUnknown)
    cont.event_guid = guid  # a single session's event guid may be its session guid
    cont.commands = 2
    refused(dc.continue_event(cont), ErrorType.Validation)
    td.start_round(1, 1)  # the first section of a fresh database
    td.terminal(1, 1).play(1, "1NT", "N", 7)
    cont.commands = 5 | 128  # start reading and clear the queues
    response = dc.continue_event(cont)
    assert response.data_type == DataConnectorResponseData.OK
    assert response.session_guid == guid
    assert dc.poll_for_results(guid) == []
    assert len(dc.poll_for_results(guid, all=True)) == 1


def test_deleting_a_result_asks_the_table_again(
    dc: DataConnectorClient, guid: str, served: Served
) -> None:
    td = TD(served.url)
    td.start_round(1, 1)
    table = td.terminal(1, 1)
    table.play(1, "1NT", "N", 7)
    deleted = scenario.result(guid, 1, 1, 1, is_deleted=True)
    assert dc.send_results(guid, [deleted]).data_type == DataConnectorResponseData.OK
    with Session(served.engine) as s:
        assert s.exec(select(Result)).one().state == "rejected"
    assert dc.poll_for_results(guid) == []
    table.play(1, "1NT", "N", 8)
    (again,) = dc.poll_for_results(guid)
    assert (again.level, again.total_tricks, again.is_deleted) == (1, 8, False)


def test_a_confirmed_result_corrected_at_the_table_is_reported_deleted(
    dc: DataConnectorClient, guid: str, served: Served
) -> None:
    td = TD(served.url)
    td.start_round(1, 1)
    table = td.terminal(1, 1)
    confirmed = table.play(1, "1NT", "N", 7)["result"]
    assert len(dc.poll_for_results(guid)) == 1
    assert dc.accept_queue_data(guid, DataConnectorResponseData.Results).data_type == 1
    table.send(
        {
            "type": "correct_result",
            "entry_id": new_guid(),
            "board": 1,
            "version": confirmed["version"],
            "values": {"contract": "1NT", "declarer": "N", "tricks": 6},
        }
    )
    (gone,) = dc.poll_for_results(guid)
    assert gone.is_deleted


def test_a_movement_change_may_not_rewrite_a_played_round(
    dc: DataConnectorClient, guid: str, served: Served
) -> None:
    td = TD(served.url)
    td.start_round(1, 1)
    td.terminal(1, 1).play(1, "PASS", None, 0)
    update = scenario.late_pair_update(guid)
    swapped = update.tables[0].rounds[0]
    swapped.pair_ns, swapped.pair_ew = swapped.pair_ew, swapped.pair_ns
    message = refused(dc.update_movement(update), ErrorType.Movement)
    assert "already has results" in message
    wrong_pairs = scenario.result(guid, 1, 1, 2, pair_north_south=2, pair_east_west=1)
    wrong_pairs.declaring_pair = 2
    refused(dc.send_results(guid, [wrong_pairs]), ErrorType.Movement)
    nobody = ParticipationDTO()
    nobody.session_guid, nobody.section_letters, nobody.table_number = guid, "A", 2
    nobody.direction, nobody.round_number, nobody.last_name = TableDirection.East, 1, "Ghost"
    refused(dc.send_participations(guid, [nobody]), ErrorType.Movement)
    nobody.round_number = 2
    refused(dc.send_participations(guid, [nobody]), ErrorType.Validation)


def test_scoring_groups_movements_and_clear_data(
    dc: DataConnectorClient, guid: str, served: Served
) -> None:
    group = ScoringGroupDTO()
    group.session_guid, group.scoring_group_number = guid, 1
    group.scoring_method = ScoringGroupDTO.ScoringType_Imp2_Weighted
    assert dc.update_scoring_groups([group]).data_type == DataConnectorResponseData.OK
    with Session(served.engine) as s:
        assert s.exec(select(Event)).one().scoring == "butler"
    group.scoring_method = 11
    refused(dc.update_scoring_groups([group]), ErrorType.Validation)
    everything = send(dc, Commands.GetAllMovements, guid, "")
    (section,) = json.loads(everything.serialized_data or "[]")
    assert section["Letters"] == "A"
    assert len(section["Tables"]) == 2
    cleared = send(dc, Commands.ClearData, guid, "")
    assert cleared.data_type == DataConnectorResponseData.OK

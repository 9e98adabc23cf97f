"""The client's validate_*_dto helpers and the server agree: what the client calls valid the
server accepts, what it calls invalid the server refuses with ErrorType Validation."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from bridgemate_dataconnector import (
    DataConnectorClient,
    validate_bridgemate2_settings_dto,
    validate_bridgemate3_settings_dto,
    validate_handrecord_dto,
    validate_init_dto,
    validate_participation_dto,
    validate_player_data_dto,
    validate_result_dto,
    validate_section_update_dto,
    validate_td_call_dto,
)
from bridgemate_dataconnector.dto import (
    Bridgemate2SettingsDTO,
    DataConnectorResponseData,
    ErrorType,
    ParticipationDTO,
    PlayerDataDTO,
    ResultDTO,
    ScoringProgramResponse,
    TableDirection,
    TdCallDTO,
)

from tests.dataconnector import scenario
from tests.support.dataconnector import new_guid


@pytest.fixture
def db_url(tmp_path: Any) -> str:
    """These checks do not depend on the database: SQLite only."""
    return f"sqlite:///{tmp_path / 'traveller.db'}"


@pytest.fixture
def guid(dc: DataConnectorClient) -> str:
    session_guid = new_guid()
    response = dc.initialize(scenario.init(session_guid, new_guid()))
    assert response.data_type == DataConnectorResponseData.OK, response.serialized_data
    return session_guid


def changed(dto: Any, **fields: Any) -> Any:
    other = copy.deepcopy(dto)
    for name, value in fields.items():
        setattr(other, name, value)
    return other


def result_cases(guid: str) -> list[ResultDTO]:
    passed = scenario.result(guid, 1, 1, 1)  # a pass-out at table 1, round 1, board 1
    made = scenario.result(
        guid, 1, 1, 2, level=3, denomination=5, declarer_direction=1, total_tricks=9
    )
    return [
        passed,
        made,
        changed(made, lead_card_rank=14, lead_card_suit=4),
        changed(made, level=8),
        changed(made, stake=3),
        changed(made, total_tricks=14),
        changed(made, lead_card_rank=15, lead_card_suit=1),
        changed(made, lead_card_rank=14, lead_card_suit=0),
        changed(made, declaring_pair=7),
        changed(made, declarer_direction=0),
        changed(made, denomination=6),
        changed(made, scoring_direction=0),
        changed(made, section_letters="AB"),
        changed(made, board_number=0),
        changed(made, level=-11),
    ]


def player_cases(guid: str) -> list[PlayerDataDTO]:
    good = PlayerDataDTO()
    good.session_guid, good.player_number, good.first_name, good.last_name = guid, "P300", "K", "L"
    return [
        good,
        changed(good, last_name=""),
        changed(good, player_number=" "),
        changed(good, last_name="  "),
    ]


def participation_cases(guid: str) -> list[ParticipationDTO]:
    good = ParticipationDTO()
    good.session_guid, good.section_letters, good.table_number = guid, "A", 1
    good.direction, good.round_number, good.player_number = TableDirection.North, 1, "P101"
    return [
        good,
        changed(good, player_number="", last_name="Named"),
        changed(good, last_name="Both"),
        changed(good, direction=TableDirection.None_),
        changed(good, table_number=0),
        changed(good, round_number=-1),
        changed(good, player_number="", is_removal=True),
        changed(good, is_removal=True),
    ]


def td_call_cases(guid: str) -> list[TdCallDTO]:
    good = TdCallDTO()
    good.session_guid, good.section_letters = guid, "A"
    good.table_number, good.round_number, good.status = 1, 1, TdCallDTO.TdCallStatus_Launched
    return [good, changed(good, status=5), changed(good, status=0), changed(good, round_number=0)]


def handrecord_cases(guid: str) -> list[Any]:
    good = scenario.handrecord(guid, 3)
    short = changed(good, north_spades=good.north_spades[1:])
    return [
        good,
        short,
        changed(good, north_hearts=None),
        changed(good, east_clubs=(good.east_clubs or "") + "X"),
        changed(good, board_number=0),
    ]


def bm3_cases(guid: str) -> list[Any]:
    good = scenario.bm3_settings(guid, lead=False)
    return [
        good,
        changed(good, bm3_screen_brightness=0),
        changed(good, bm3_pi_ncode="12a4"),
        changed(good, bm3_pi_ncode=None),
        changed(good, bm3_sleep_mode=121),
        changed(good, section_letters="a"),
    ]


def bm2_cases(guid: str) -> list[Any]:
    good = Bridgemate2SettingsDTO()
    good.session_guid, good.section_letters, good.bm2_pi_ncode = guid, "A", "0000"
    good.lead_card = True
    return [good, changed(good, bm2_pi_ncode=None), changed(good, bm2_pi_ncode="123")]


def movement_cases(guid: str) -> list[Any]:
    good = scenario.late_pair_update(guid)
    sit_out_with_boards = copy.deepcopy(good)
    sit_out_with_boards.tables[1].rounds[0].low_board_number = 1
    gap = copy.deepcopy(good)
    gap.tables[0].rounds[2].round_number = 5
    twice = copy.deepcopy(good)
    twice.tables[1].table_number = 1
    for r in twice.tables[1].rounds:
        r.table_number = 1
    return [
        good,
        changed(good, winners=3),
        changed(good, scoring_group_scoring_method=11),
        changed(good, game_type=15),
        sit_out_with_boards,
        gap,
        twice,
    ]


Sender = Callable[[DataConnectorClient, str, Any], ScoringProgramResponse]


def results(c: DataConnectorClient, g: str, d: Any) -> ScoringProgramResponse:
    return c.send_results(g, [d])


def player_data(c: DataConnectorClient, g: str, d: Any) -> ScoringProgramResponse:
    return c.send_player_data(g, [d])


def participations(c: DataConnectorClient, g: str, d: Any) -> ScoringProgramResponse:
    return c.send_participations(g, [d])


def td_calls(c: DataConnectorClient, g: str, d: Any) -> ScoringProgramResponse:
    return c.send_td_calls(g, [d])


def handrecords(c: DataConnectorClient, g: str, d: Any) -> ScoringProgramResponse:
    return c.send_handrecords(g, [d])


def bm3(c: DataConnectorClient, g: str, d: Any) -> ScoringProgramResponse:
    return c.send_bridgemate3_settings(g, [d])


def bm2(c: DataConnectorClient, g: str, d: Any) -> ScoringProgramResponse:
    return c.send_bridgemate2_settings(g, [d])


def movement(c: DataConnectorClient, g: str, d: Any) -> ScoringProgramResponse:
    return c.update_movement(d)


CASES: list[tuple[str, Callable[[str], list[Any]], Callable[[Any], bool], Sender]] = [
    ("ResultDTO", result_cases, validate_result_dto, results),
    ("PlayerDataDTO", player_cases, validate_player_data_dto, player_data),
    ("ParticipationDTO", participation_cases, validate_participation_dto, participations),
    ("TdCallDTO", td_call_cases, validate_td_call_dto, td_calls),
    ("HandrecordDTO", handrecord_cases, validate_handrecord_dto, handrecords),
    ("Bridgemate3SettingsDTO", bm3_cases, validate_bridgemate3_settings_dto, bm3),
    ("Bridgemate2SettingsDTO", bm2_cases, validate_bridgemate2_settings_dto, bm2),
    ("SectionUpdateDTO", movement_cases, validate_section_update_dto, movement),
]


@pytest.mark.parametrize(("name", "cases", "validate", "send"), CASES, ids=[c[0] for c in CASES])
def test_client_validation_and_server_agree(
    dc: DataConnectorClient,
    guid: str,
    name: str,
    cases: Callable[[str], list[Any]],
    validate: Callable[[Any], bool],
    send: Sender,
) -> None:
    verdicts = []
    for dto in cases(guid):
        client_ok = validate(copy.deepcopy(dto))
        response = send(dc, guid, dto)
        server_ok = response.data_type == DataConnectorResponseData.OK
        verdicts.append((client_ok, server_ok, response.serialized_data))
        if not server_ok:
            assert response.error_type == ErrorType.Validation, (name, response.serialized_data)
    assert [v[0] for v in verdicts] == [v[1] for v in verdicts], verdicts
    assert verdicts[0][0], "the first case of each kind is the valid one"


def test_invalid_init_dtos_are_refused_as_the_client_predicts(dc: DataConnectorClient) -> None:
    good = scenario.init(new_guid(), new_guid())
    no_sessions = changed(good, sessions=[])
    no_name = copy.deepcopy(good)
    no_name.sessions[0].name = ""
    bad_date = copy.deepcopy(good)
    bad_date.sessions[0].month = 13
    twice = copy.deepcopy(good)
    twice.player_data = [*good.player_data, good.player_data[0]]
    for dto in (no_sessions, no_name, bad_date, twice):
        assert not validate_init_dto(copy.deepcopy(dto))
        response = dc.initialize(dto)
        assert (response.data_type, response.error_type) == (
            DataConnectorResponseData.Error,
            ErrorType.Validation,
        ), response.serialized_data
    assert validate_init_dto(copy.deepcopy(good))
    assert dc.initialize(good).data_type == DataConnectorResponseData.OK

"""A whole club session driven by the official Python client, as a scoring program runs it:
set-up, live results from Traveller's terminals and TD, a late pair, a correction from the
scoring program, names both ways, TD calls, settings, and the final poll."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bridgemate_dataconnector import (
    DataConnectorClient,
    validate_init_dto,
    validate_participation_dto,
    validate_player_data_dto,
    validate_result_dto,
    validate_section_update_dto,
    validate_td_call_dto,
)
from bridgemate_dataconnector.dto import (
    DataConnectorResponseData,
    ErrorType,
    ParticipationDTO,
    PlayerDataDTO,
    ResultDTO,
    ScoringProgramDataConnectorCommands,
    ScoringProgramRequest,
    ScoringProgramResponse,
    TableDirection,
    TdCallDTO,
)
from sqlmodel import Session, col, select

from server.core.models import (
    Audit,
    Board,
    Event,
    MovementAssignment,
    Pair,
    Result,
    Section,
    TDCall,
)
from tests.dataconnector import scenario
from tests.support.dataconnector import CLUB_ID, LICENCE, TD, Served, Terminal, new_guid

OK = DataConnectorResponseData.OK
RESULTS = DataConnectorResponseData.Results


def assert_ok(response: ScoringProgramResponse) -> str:
    assert response.data_type == OK, (response.error_type, response.serialized_data)
    assert response.error_type == ErrorType.None_
    message: str = json.loads(response.serialized_data or '""')
    return message


def by_board(results: list[ResultDTO]) -> dict[tuple[int, int, int], ResultDTO]:
    return {(r.table_number, r.round_number, r.board_number): r for r in results}


def section_of(served: Served) -> Section:
    with Session(served.engine) as s:
        return s.exec(select(Section)).one()


def movement_of(served: Served, section_id: int) -> dict[tuple[int, int], tuple[int, int, str]]:
    with Session(served.engine) as s:
        numbers = {p.id: p.number for p in s.exec(select(Pair))}
        rows = s.exec(select(MovementAssignment).where(MovementAssignment.section_id == section_id))
        return {
            (a.table_number, a.round): (
                numbers.get(a.ns_pair_id, 0),
                numbers.get(a.ew_pair_id, 0),
                a.boards,
            )
            for a in rows
        }


def get_movement(dc: DataConnectorClient, guid: str) -> dict[str, Any]:
    request = ScoringProgramRequest()
    request.command = ScoringProgramDataConnectorCommands.GetMovement
    request.session_guid = guid
    request.serialized_data = json.dumps({"SessionGuid": guid, "Letters": "A"})
    response = dc.send_request(request)
    assert response.data_type == DataConnectorResponseData.Movement, response.serialized_data
    data: dict[str, Any] = json.loads(response.serialized_data or "{}")
    return data


def expected(missing: int | None, *, late_round_1: bool = False) -> dict[Any, Any]:
    out = {}
    for (table, round_), (ns, ew, low) in scenario.FULL.items():
        absent = missing if missing is not None else (scenario.LATE_PAIR if round_ == 1 else None)
        ns, ew = (0 if p == absent else p for p in (ns, ew))
        out[table, round_] = (ns, ew, f"{low},{low + 1}" if ns and ew else "")
    return out


def set_up(dc: DataConnectorClient, served: Served) -> tuple[str, Section]:
    """1. connect, ping, InitializeEvent; Traveller's event and movement match."""
    assert_ok(dc.connect())
    assert_ok(dc.ping())
    guid, event_guid = new_guid(), new_guid()
    init = scenario.init(guid, event_guid)
    assert validate_init_dto(init), init.validation_messages
    response = dc.initialize(init)
    report = assert_ok(response)
    assert response.session_guid == guid
    assert "BM3Ranking=2" in report  # a Bridgemate setting Traveller does not use: reported
    section = section_of(served)
    assert (section.letter, section.tables, section.rounds, section.boards_per_round) == (
        "A",
        2,
        3,
        2,
    )
    assert movement_of(served, section.id or 0) == expected(scenario.LATE_PAIR)
    with Session(served.engine) as s:
        event = s.get(Event, section.event_id)
        assert event is not None
        assert (event.name, event.scoring, event.tricks_style) == ("Monday pairs", "mp", "absolute")
        assert not event.lead_required
        names = {
            (p.number, p.player1, p.member1, p.player2, p.member2) for p in s.exec(select(Pair))
        }
        assert (1, "Anna North", "P101", "Bo South", "P102") in names
        assert (2, "Cai East", "P103", "Dag West", "P104") in names
        deals = {b.number: b.deal for b in s.exec(select(Board))}
        assert sorted(deals) == [1, 2, 3, 4, 5, 6]
        north = scenario.deal(1)[0]
        assert deals[1] == "N:" + ".".join(north) + " " + deals[1].split(" ", 1)[1]
    movement = get_movement(dc, guid)
    rounds = {
        (r["TableNumber"], r["RoundNumber"]): (r["PairNS"], r["PairEW"], r["LowBoardNumber"])
        for t in movement["Tables"]
        for r in t["Rounds"]
    }
    assert rounds[1, 1] == (1, 2, 1)
    assert rounds[2, 1] == (3, 0, 0)
    return guid, section


def play_round_1(served: Served, td: TD, section_id: int) -> Terminal:
    """2. Table 1 enters and confirms a pass-out and a doubled contract."""
    td.start_round(section_id, 1)
    table1 = td.terminal(section_id, 1)
    assert table1.play(1, "PASS", None, 0)["result"]["state"] == "confirmed"
    assert table1.play(2, "4SX", "S", 8, lead="HA")["result"]["ns_score"] == -500
    return table1


def check_first_poll(dc: DataConnectorClient, guid: str) -> None:
    """3. poll, accept, poll again: nothing new; poll all: everything."""
    results = by_board(dc.poll_for_results(guid))
    assert sorted(results) == [(1, 1, 1), (1, 1, 2)]
    passed, doubled = results[1, 1, 1], results[1, 1, 2]
    assert (passed.level, passed.denomination, passed.total_tricks) == (0, 0, 0)
    assert (passed.pair_north_south, passed.pair_east_west, passed.declaring_pair) == (1, 2, 1)
    assert passed.scoring_direction == ResultDTO.ScoringDirection_NSEW
    assert (doubled.level, doubled.denomination, doubled.stake) == (4, 4, ResultDTO.Stake_Doubled)
    assert (doubled.declarer_direction, doubled.declaring_pair) == (ResultDTO.Direction_South, 1)
    assert (doubled.total_tricks, doubled.lead_card_suit, doubled.lead_card_rank) == (8, 3, 14)
    assert all(validate_result_dto(r) for r in results.values())
    assert dc.get_last_queue_item_id(RESULTS) > 0
    assert_ok(dc.accept_queue_data(guid, RESULTS))
    assert dc.poll_for_results(guid) == []
    assert sorted(by_board(dc.poll_for_results(guid, all=True))) == [(1, 1, 1), (1, 1, 2)]


def late_pair_and_round_2(
    dc: DataConnectorClient, served: Served, td: TD, section: Section, guid: str, table1: Terminal
) -> Terminal:
    """4a. The late pair joins (UpdateMovement); round 2 brings a Not Played and a TD score."""
    update = scenario.late_pair_update(guid)
    assert validate_section_update_dto(update), update.validation_messages
    assert_ok(dc.update_movement(update))
    sid = section.id or 0
    assert movement_of(served, sid) == expected(None)
    td.start_round(sid, 2)
    assert table1.next_round()["round"] == 2
    table2 = td.terminal(sid, 2)
    assert table2.next_round()["round"] == 2  # its first round was a sit-out: nothing to enter
    reason = {"reason": "late arrival", "table": 1, "round": 2}
    td.call("POST", f"/api/v1/sections/{sid}/results/not-played", json={**reason, "board": 3})
    td.call(
        "POST",
        f"/api/v1/sections/{sid}/results/adjust",
        json={**reason, "board": 4, "ns_percent": 60, "ew_percent": 40},
    )
    table2.play(3, "3NT", "N", 9)
    table2.play(4, "2HXX", "W", 8)
    results = by_board(dc.poll_for_results(guid))
    assert sorted(results) == [(1, 2, 3), (1, 2, 4), (2, 2, 3), (2, 2, 4)]
    assert results[1, 2, 3].level == ResultDTO.ContractLevel_NoPLay
    assert results[1, 2, 4].level == ResultDTO.AvgPlusMin
    assert (results[2, 2, 3].pair_north_south, results[2, 2, 3].pair_east_west) == (4, 2)
    redoubled = results[2, 2, 4]
    assert (redoubled.stake, redoubled.declarer_direction, redoubled.declaring_pair) == (2, 4, 2)
    assert all(validate_result_dto(r) for r in results.values())
    assert_ok(dc.accept_queue_data(guid, RESULTS))
    assert dc.poll_for_results(guid) == []
    assert len(dc.poll_for_results(guid, all=True)) == 6
    return table2


def correction_from_the_program(
    dc: DataConnectorClient, served: Served, td: TD, section: Section, guid: str
) -> None:
    """4b. The scoring program corrects a result; a TD change at Traveller is queued again."""
    fix = scenario.result(
        guid, 1, 1, 2, level=4, denomination=4, stake=1, declarer_direction=3, total_tricks=9
    )
    assert validate_result_dto(fix)
    assert_ok(dc.send_results(guid, [fix]))
    with Session(served.engine) as s:
        stored = s.exec(select(Result).where(Result.board == 2)).one()
        assert (stored.contract, stored.tricks, stored.ns_score) == ("4SX", 9, -200)
        trail = s.exec(select(Audit).where(Audit.result_id == stored.id)).all()
        assert trail[-1].actor == "scoring program"
    assert dc.poll_for_results(guid) == []  # the program's own change is not sent back
    everything = by_board(dc.poll_for_results(guid, all=True))
    assert everything[1, 1, 2].total_tricks == 9
    td.call(
        "POST",
        f"/api/v1/sections/{section.id}/results/set",
        json={
            "table": 2,
            "round": 2,
            "board": 3,
            "values": {"contract": "3NT", "declarer": "N", "tricks": 10},
            "reason": "wrong tricks",
        },
    )
    again = dc.poll_for_results(guid)
    assert [(r.board_number, r.total_tricks) for r in again] == [(3, 10)]
    assert_ok(dc.accept_queue_data(guid, RESULTS))


def names_both_ways(
    dc: DataConnectorClient, served: Served, td: TD, section: Section, guid: str
) -> None:
    """4c. Player data and participations from the program, and from Traveller's TD."""
    sub = PlayerDataDTO()
    sub.session_guid, sub.player_number, sub.first_name, sub.last_name = guid, "P109", "Sam", "Sub"
    assert validate_player_data_dto(sub)
    assert_ok(dc.send_player_data(guid, [sub]))
    seat = ParticipationDTO()
    seat.session_guid, seat.section_letters, seat.table_number = guid, "A", 1
    seat.direction, seat.round_number, seat.player_number = TableDirection.South, 1, "P109"
    assert validate_participation_dto(seat)
    assert_ok(dc.send_participations(guid, [seat]))
    with Session(served.engine) as s:
        pair1 = s.exec(select(Pair).where(Pair.number == 1)).one()
        assert (pair1.player1, pair1.player2, pair1.member2) == ("Anna North", "Sam Sub", "P109")
    assert dc.poll_for_player_data(guid) == []  # the program's own names are not sent back
    td.call(
        "PUT",
        f"/api/v1/sections/{section.id}/pairs/4",
        json={"player1": "Ida Late", "player2": "Jon Late", "member1": "P201", "member2": "P202"},
    )
    players = dc.poll_for_player_data(guid)
    assert [(p.player_number, p.first_name, p.last_name) for p in players] == [
        ("P201", "Ida", "Late"),
        ("P202", "Jon", "Late"),
    ]
    assert all(validate_player_data_dto(p) for p in players)
    seats = dc.poll_for_participations(guid)
    assert [(p.table_number, p.direction, p.player_number, p.round_number) for p in seats] == [
        (2, TableDirection.North, "P201", 2),
        (2, TableDirection.South, "P202", 2),
    ]
    assert_ok(dc.accept_queue_data(guid, DataConnectorResponseData.PlayerData))
    assert_ok(dc.accept_queue_data(guid, DataConnectorResponseData.Participations))
    assert dc.poll_for_player_data(guid) == []
    assert dc.poll_for_participations(guid) == []
    everyone = {p.player_number for p in dc.poll_for_participations(guid, all=True)}
    assert {"P101", "P109", "P201", "P202"} <= everyone


def td_calls_and_settings(
    dc: DataConnectorClient, served: Served, guid: str, table2: Terminal
) -> None:
    """TD calls from a table reach the program, its status comes back; settings apply."""
    table2.call_td("revoke on board 4")
    calls = dc.poll_for_td_calls(guid)
    assert [(c.table_number, c.round_number, c.status) for c in calls] == [
        (2, 2, TdCallDTO.TdCallStatus_Launched)
    ]
    assert all(validate_td_call_dto(c) for c in calls)
    resolved = calls[0]
    resolved.status = TdCallDTO.TdCallStatus_Resolved
    assert_ok(dc.send_td_calls(guid, [resolved]))
    with Session(served.engine) as s:
        assert s.exec(select(TDCall)).one().acknowledged_at is not None
    assert dc.poll_for_td_calls(guid, all=True)[0].status == TdCallDTO.TdCallStatus_Resolved
    report = assert_ok(dc.send_bridgemate3_settings(guid, [scenario.bm3_settings(guid, lead=True)]))
    assert "lead_required=True" in report
    assert "BM3Ranking" in report
    with Session(served.engine) as s:
        assert s.exec(select(Event)).one().lead_required
        kept = s.exec(select(Audit).where(Audit.action == "dc_settings")).all()
        assert json.loads(kept[-1].new or "{}")["kept_unused"]["BM3Ranking"] == 2
    assert dc.poll_for_handrecords(guid) == []
    assert dc.poll_for_handrecords(guid, all=True) == []


def final_poll(dc: DataConnectorClient, guid: str) -> None:
    """At the end the program asks for everything once more: one result per board and table."""
    everything = by_board(dc.poll_for_results(guid, all=True))
    assert len(everything) == 6
    assert everything[2, 2, 3].total_tricks == 10
    assert everything[1, 1, 2].total_tricks == 9


@pytest.mark.slow
def test_a_scoring_program_runs_a_club_session(served: Served, dc: DataConnectorClient) -> None:
    guid, section = set_up(dc, served)
    td = TD(served.url)
    table1 = play_round_1(served, td, section.id or 0)
    check_first_poll(dc, guid)
    table2 = late_pair_and_round_2(dc, served, td, section, guid, table1)
    correction_from_the_program(dc, served, td, section, guid)
    names_both_ways(dc, served, td, section, guid)
    td_calls_and_settings(dc, served, guid, table2)
    final_poll(dc, guid)
    with Session(served.engine) as s:
        actions = {a.action for a in s.exec(select(Audit).order_by(col(Audit.id)))}
    assert {"movement_updated", "pair_names", "td_set_result", "dc_settings"} <= actions


def test_the_connector_is_also_at_dc_on_the_main_port(served: Served) -> None:
    client = DataConnectorClient(CLUB_ID, LICENCE, base_address=f"{served.url}/dc")
    assert client.connect().data_type == OK
    assert client.ping().data_type == OK
    assert client.poll_for_results(new_guid()) == []
    response = client.accept_queue_data(new_guid(), RESULTS)
    assert (response.data_type, response.error_type) == (
        DataConnectorResponseData.Error,
        ErrorType.EntryUnknown,
    )

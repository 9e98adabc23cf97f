"""The Data Connector's edge cases a scoring program hits (issue 16, item 5, a-h), each through
the official Python client and Traveller's own table and TD APIs, as in a club:

a. a correction with a switched seating is scored to the pair that really declared;
b. the program's player number entry setting (BM3PlayerNumberEntry) is honoured;
c. player numbers the program sent are known at the table;
d. a correction without a lead is taken with lead entry on (the lead is optional), and it
   replaces the result as sent: the table's lead does not stay;
e. lead entry "without validation" takes a lead the leader does not hold;
f. a TD call resolved in Traveller is queued again, with status Resolved;
h. ManageBCS and AddSession.

(g, the main server's access log with the connector's port open, is
tests/security/test_floods.py::test_the_access_log_stays_on_with_the_data_connectors_port.)
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from bridgemate_dataconnector import DataConnectorClient, validate_result_dto
from bridgemate_dataconnector.dto import (
    DataConnectorResponseData,
    ErrorType,
    PlayerDataDTO,
    ScoringProgramDataConnectorCommands,
    ScoringProgramRequest,
    ScoringProgramResponse,
    TdCallDTO,
)
from bridgemate_dataconnector.dto.bm3_lead_card_entry_option import Bm3LeadCardEntryOption
from bridgemate_dataconnector.dto.bm3_player_registration_option import (
    Bm3PlayerRegistrationOption,
)
from sqlmodel import Session, col, select

from server.core.models import Audit, Event, Pair, Result, Section
from server.dataconnector.dto import ResultDTO as Dto
from server.dataconnector.results import switched_seating
from tests.dataconnector import scenario
from tests.dataconnector.deals import deal
from tests.support.dataconnector import TD, Served, Terminal, new_guid

Commands = ScoringProgramDataConnectorCommands
Data = DataConnectorResponseData
NORTH, EAST, SOUTH, WEST = 1, 2, 3, 4


def assert_ok(response: ScoringProgramResponse) -> Any:
    assert response.data_type == Data.OK, (response.error_type, response.serialized_data)
    return json.loads(response.serialized_data or '""')


def refused(response: ScoringProgramResponse, error_type: ErrorType) -> str:
    assert (response.data_type, response.error_type) == (Data.Error, error_type), (
        response.serialized_data
    )
    message: str = json.loads(response.serialized_data or '""')
    return message


def send(dc: DataConnectorClient, command: Any, guid: str | None, data: Any) -> Any:
    """A request as the client sends it (the commands it has no helper for)."""
    request = ScoringProgramRequest()
    request.command, request.session_guid = command, guid
    request.serialized_data = json.dumps(data)
    return dc.send_request(request)


def started(dc: DataConnectorClient, served: Served) -> tuple[str, str, TD, int]:
    """The scenario's club night initialized; round 1 started. (session, event, TD, section)"""
    guid, event_guid = new_guid(), new_guid()
    assert_ok(dc.initialize(scenario.init(guid, event_guid)))
    td = TD(served.url)
    with Session(served.engine) as s:
        section_id = s.exec(select(Section)).one().id or 0
    td.start_round(section_id, 1)
    return guid, event_guid, td, section_id


def attempt(table: Terminal, command: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """A table command that may be refused: (HTTP status, body)."""
    r = table.http.post("/api/v1/table/commands", json=command)
    body: dict[str, Any] = r.json()
    return r.status_code, body


def code_of(body: dict[str, Any]) -> str:
    found = body.get("code") or (body.get("detail") or {}).get("code") or body.get("type")
    return str(found)


def pair_ids(served: Served) -> dict[int, int]:
    with Session(served.engine) as s:
        return {p.number: p.id or 0 for p in s.exec(select(Pair))}


def card(td: TD, section_id: int, pair: int, board: int) -> dict[str, Any]:
    lines = td.call("GET", f"/api/v1/sections/{section_id}/pairs/{pair}/card")["lines"]
    (line,) = [x for x in lines if x["board"] == board]
    return dict(line)


def bm3(guid: str, **settings: Any) -> Any:
    dto = scenario.bm3_settings(guid, lead=False)
    for name, value in settings.items():
        setattr(dto, name, value)
    return dto


# ---------------------------------------------------------------- a. switched seating


def test_a_switched_seating_is_scored_to_the_pair_that_declared(
    dc: DataConnectorClient, served: Served
) -> None:
    """Table 1, round 1: pair 1 N/S against pair 2 E/W by the movement. The program corrects
    board 1 to "4S by North, 10 tricks, DeclaringPair 2": pair 2 sat N/S and declared from
    North, so pair 2 has the N/S score (+420, board 1 all non-vulnerable)."""
    guid, _event, td, section_id = started(dc, served)
    td.terminal(section_id, 1).play(1, "4S", "N", 10)  # as the table entered it
    ids = pair_ids(served)
    fix = scenario.result(
        guid, 1, 1, 1, level=4, denomination=4, declarer_direction=NORTH, total_tricks=10
    )
    fix.declaring_pair = 2  # the E/W pair of the movement declared from North
    assert validate_result_dto(fix)
    assert_ok(dc.send_results(guid, [fix]))
    with Session(served.engine) as s:
        stored = s.exec(select(Result).where(Result.board == 1)).one()
        assert (stored.ns_pair_id, stored.ew_pair_id) == (ids[2], ids[1])
        assert (stored.contract, stored.declarer, stored.ns_score) == ("4S", "N", 420)
        seating = s.exec(select(Audit).where(Audit.action == "dc_seating")).one()
        assert seating.actor == "scoring program"
        assert json.loads(seating.old or "{}") == {"ns_pair": 1, "ew_pair": 2}
        assert json.loads(seating.new or "{}") == {"ns_pair": 2, "ew_pair": 1, "switched": True}
    two, one = card(td, section_id, 2, 1), card(td, section_id, 1, 1)
    assert (two["direction"], two["score"].lstrip("+")) == ("NS", "420")
    assert (one["direction"], one["score"]) == ("EW", "-420")
    # The program reads it back as it sent it: the movement's pairs, North, DeclaringPair 2.
    (back,) = dc.poll_for_results(guid, all=True)
    assert (back.pair_north_south, back.pair_east_west) == (1, 2)
    assert (back.declarer_direction, back.declaring_pair, back.level) == (NORTH, 2, 4)
    assert validate_result_dto(back)
    # A later correction with the pairs the right way round seats them back, audited again.
    fix.declaring_pair, fix.total_tricks = 1, 9
    assert_ok(dc.send_results(guid, [fix]))
    with Session(served.engine) as s:
        stored = s.exec(select(Result).where(Result.board == 1)).one()
        assert (stored.ns_pair_id, stored.ew_pair_id, stored.ns_score) == (ids[1], ids[2], -50)
        rows = s.exec(select(Audit).where(Audit.action == "dc_seating")).all()
        assert [json.loads(r.new or "{}")["switched"] for r in rows] == [True, False]
    assert card(td, section_id, 1, 1)["direction"] == "NS"


def test_the_same_number_on_both_sides_is_never_a_switched_seating() -> None:
    def dto(ns: int, ew: int, declaring: int, declarer: int, level: int = 3) -> Dto:
        return Dto(
            pair_north_south=ns,
            pair_east_west=ew,
            declaring_pair=declaring,
            declarer_direction=declarer,
            level=level,
        )

    assert switched_seating(dto(1, 2, 2, NORTH))
    assert switched_seating(dto(1, 2, 1, WEST))
    assert not switched_seating(dto(1, 2, 1, SOUTH))
    assert not switched_seating(dto(1, 2, 2, EAST))
    assert not switched_seating(dto(1, 1, 1, EAST))  # 1 N/S against 1 E/W: cannot tell
    assert not switched_seating(dto(1, 2, 2, NORTH, level=-5))  # an artificial score


# ---------------------------------------------------------------- b, c. player numbers


def test_player_number_entry_follows_the_program(dc: DataConnectorClient, served: Served) -> None:
    guid, _event, td, section_id = started(dc, served)
    table = td.terminal(section_id, 1)
    lookup = {"type": "lookup_member", "number": "P101"}
    _status, body = attempt(table, lookup)
    assert code_of(body) == "player_numbers_off", body  # BM3PlayerNumberEntry 0: off
    report = assert_ok(
        dc.send_bridgemate3_settings(
            guid,
            [bm3(guid, bm3_player_number_entry=Bm3PlayerRegistrationOption.FirstRoundOnly)],
        )
    )
    assert "player_numbers='first_round'" in report
    with Session(served.engine) as s:
        assert s.exec(select(Event)).one().player_numbers == "first_round"
    assert_ok(
        dc.send_bridgemate3_settings(
            guid, [bm3(guid, bm3_player_number_entry=Bm3PlayerRegistrationOption.AllRounds)]
        )
    )
    with Session(served.engine) as s:
        assert s.exec(select(Event)).one().player_numbers == "every_round"
    assert_ok(dc.send_bridgemate3_settings(guid, [bm3(guid)]))
    with Session(served.engine) as s:
        assert s.exec(select(Event)).one().player_numbers == "off"


def test_the_programs_players_are_known_at_the_table(
    dc: DataConnectorClient, served: Served
) -> None:
    guid, _event, td, section_id = started(dc, served)
    table = td.terminal(section_id, 1)
    numbers_on = bm3(guid, bm3_player_number_entry=Bm3PlayerRegistrationOption.FirstRoundOnly)
    assert_ok(dc.send_bridgemate3_settings(guid, [numbers_on]))
    lookup = {"type": "lookup_member", "number": "P101"}
    # P101 is in the program's player data (the InitDTO), not in Traveller's member list.
    found = table.send(lookup)
    assert (found["type"], found["number"], found["name"]) == ("member_found", "P101", "Anna North")
    late = PlayerDataDTO()
    late.session_guid, late.player_number, late.first_name, late.last_name = (
        guid,
        "P300",
        "Ulla",
        "Sent-Later",
    )
    assert_ok(dc.send_player_data(guid, [late]))
    players = [{"member": "P300"}, {"member": "P102"}]
    entry = {"type": "set_players", "entry_id": str(uuid.uuid4()), "seat": "NS"}
    table.send({**entry, "players": players})
    with Session(served.engine) as s:
        one = s.exec(select(Pair).where(Pair.number == 1)).one()
        assert (one.player1, one.member1, one.player2) == ("Ulla Sent-Later", "P300", "Bo South")
    _status, body = attempt(table, {"type": "lookup_member", "number": "P999"})
    assert code_of(body) == "unknown_member", body  # a number nobody sent is still unknown
    numbers = {p.player_number for p in dc.poll_for_player_data(guid)}
    assert "P300" in numbers  # named at the table: the program hears of it


# ---------------------------------------------------------------- d, e. the lead


def not_held_by_leader(board: int, declarer: str) -> str:
    """A card the opening leader (declarer's left) does not hold, as "HA"."""
    hands = dict(zip("NESW", deal(board), strict=True))
    leader = {"N": "E", "E": "S", "S": "W", "W": "N"}[declarer]
    held = {s + c for s, cards in zip("SHDC", hands[leader], strict=True) for c in cards}
    return next(s + r for s in "SHDC" for r in "AKQJT98765432" if s + r not in held)


def held_by_leader(board: int, declarer: str) -> str:
    """A card the opening leader holds."""
    hands = dict(zip("NESW", deal(board), strict=True))
    leader = {"N": "E", "E": "S", "S": "W", "W": "N"}[declarer]
    return next(s + cards[0] for s, cards in zip("SHDC", hands[leader], strict=True) if cards)


def test_a_correction_without_a_lead_is_taken_with_lead_entry_on(
    dc: DataConnectorClient, served: Served
) -> None:
    guid, _event, td, section_id = started(dc, served)
    assert_ok(dc.send_bridgemate3_settings(guid, [scenario.bm3_settings(guid, lead=True)]))
    lead = held_by_leader(1, "S")
    td.terminal(section_id, 1).play(1, "3NT", "S", 9, lead=lead)
    no_lead = scenario.result(
        guid, 1, 1, 1, level=3, denomination=5, declarer_direction=SOUTH, total_tricks=10
    )
    assert (no_lead.lead_card_rank, no_lead.lead_card_suit) == (0, 0)
    assert_ok(dc.send_results(guid, [no_lead]))
    other = scenario.result(
        guid, 1, 1, 2, level=2, denomination=3, declarer_direction=NORTH, total_tricks=8
    )
    assert_ok(dc.send_results(guid, [other]))  # a board no table entered yet, no lead
    # A correction replaces the result as sent: without a lead it has none, even with the
    # same declarer (the audit trail keeps the table's lead).
    with Session(served.engine) as s:
        one = s.exec(select(Result).where(Result.board == 1)).one()
        assert (one.contract, one.declarer, one.tricks, one.lead) == ("3NT", "S", 10, None)
        two = s.exec(select(Result).where(Result.board == 2)).one()
        assert (two.contract, two.tricks, two.lead, two.state) == ("2H", 8, None, "confirmed")
        trail = s.exec(select(Audit).where(Audit.result_id == one.id).order_by(col(Audit.id))).all()
        assert trail[-1].actor == "scoring program"
        assert json.loads(trail[-1].old or "{}")["tricks"] == 9
        assert json.loads(trail[-1].old or "{}")["lead"] == lead
    # A correction with a lead takes it, and one with a new declarer and none has none.
    with_lead = held_by_leader(1, "E")
    no_lead.declarer_direction, no_lead.declaring_pair = EAST, 2
    no_lead.lead_card_suit, no_lead.lead_card_rank = (
        "CDHS".index(with_lead[0]) + 1,
        ("23456789TJQKA".index(with_lead[1]) + 2),
    )
    assert_ok(dc.send_results(guid, [no_lead]))
    no_lead.lead_card_suit = no_lead.lead_card_rank = 0
    no_lead.declarer_direction, no_lead.declaring_pair = SOUTH, 1
    assert_ok(dc.send_results(guid, [no_lead]))
    with Session(served.engine) as s:
        one = s.exec(select(Result).where(Result.board == 1)).one()
        assert (one.declarer, one.lead) == ("S", None)
        last = s.exec(
            select(Audit).where(Audit.result_id == one.id).order_by(col(Audit.id).desc())
        ).first()
        assert last is not None
        assert json.loads(last.old or "{}")["lead"] == with_lead


@pytest.mark.parametrize(
    ("option", "taken"),
    [
        (Bm3LeadCardEntryOption.EnabledNoValidation, True),
        (Bm3LeadCardEntryOption.EnabledWithValidationMustComply, False),
        (Bm3LeadCardEntryOption.EnabledWithValidationAllowNonCompliance, False),
    ],
)
def test_lead_entry_without_validation_takes_a_lead_not_in_hand(
    dc: DataConnectorClient, served: Served, option: Bm3LeadCardEntryOption, taken: bool
) -> None:
    guid, _event, td, section_id = started(dc, served)
    assert_ok(dc.send_bridgemate3_settings(guid, [bm3(guid, bm3_lead_card_entry=option)]))
    with Session(served.engine) as s:
        assert s.exec(select(Event)).one().lead_required
    table = td.terminal(section_id, 1)
    wrong = not_held_by_leader(1, "N")
    values = {"contract": "1NT", "declarer": "N", "tricks": 7, "lead": wrong}
    entry = {"type": "enter_result", "entry_id": str(uuid.uuid4()), "board": 1, "values": values}
    status, body = attempt(table, entry)
    if taken:
        assert status == 200, body
        assert body["result"]["lead"] == wrong
    else:  # Traveller's lead check (refused, counted and audited; rules.md § 11)
        assert code_of(body) == "lead_not_in_hand", body
    with Session(served.engine) as s:
        refusals = s.exec(select(Audit).where(Audit.action == "lead_refused")).all()
        assert len(refusals) == (0 if taken else 1)
    missing = {**entry, "entry_id": str(uuid.uuid4()), "board": 2}
    missing["values"] = {"contract": "1NT", "declarer": "N", "tricks": 7, "lead": None}
    assert code_of(attempt(table, missing)[1]) == "lead_required"  # still asked for


# ---------------------------------------------------------------- f. TD calls


def test_a_call_resolved_in_traveller_is_queued_again_as_resolved(
    dc: DataConnectorClient, served: Served
) -> None:
    guid, _event, td, section_id = started(dc, served)
    table = td.terminal(section_id, 1)
    table.call_td("revoke on board 1")
    calls = dc.poll_for_td_calls(guid)
    assert [(c.table_number, c.status) for c in calls] == [(1, TdCallDTO.TdCallStatus_Launched)]
    assert_ok(dc.accept_queue_data(guid, Data.TdCalls))
    assert dc.poll_for_td_calls(guid) == []
    (call,) = td.call("GET", f"/api/v1/sections/{section_id}/calls")
    td.call("POST", f"/api/v1/calls/{call['id']}/acknowledge")
    again = dc.poll_for_td_calls(guid)
    assert [(c.table_number, c.round_number, c.status) for c in again] == [
        (1, 1, TdCallDTO.TdCallStatus_Resolved)
    ]
    assert_ok(dc.accept_queue_data(guid, Data.TdCalls))
    assert dc.poll_for_td_calls(guid) == []
    assert [c.status for c in dc.poll_for_td_calls(guid, all=True)] == [3]
    # A call the program resolves itself is not sent back to it.
    table.call_td("claim on board 2")
    (second,) = dc.poll_for_td_calls(guid)
    assert second.status == TdCallDTO.TdCallStatus_Launched
    second.status = TdCallDTO.TdCallStatus_Resolved
    assert_ok(dc.send_td_calls(guid, [second]))
    assert dc.poll_for_td_calls(guid) == []
    assert [c.status for c in dc.poll_for_td_calls(guid, all=True)] == [3, 3]


# ---------------------------------------------------------------- h. ManageBCS, AddSession


def manage(dc: DataConnectorClient, command: int) -> ScoringProgramResponse:
    return send(dc, Commands.ManageBCS, None, {"Command": command})


def test_manage_bcs_tells_the_program_which_event_is_running(
    dc: DataConnectorClient, served: Served
) -> None:
    nothing = manage(dc, 2)
    assert nothing.data_type == Data.EventInfo, nothing.serialized_data
    empty = json.loads(nothing.serialized_data or "{}")
    assert (empty["EventGuid"], empty["SessionInformation"], empty["IsRunning"]) == ("", [], True)
    # The program's start-up: nothing of ours is running, so InitializeEvent.
    first, first_event = new_guid(), new_guid()
    assert_ok(dc.initialize(scenario.init(first, first_event)))
    second, second_event = new_guid(), new_guid()
    init = scenario.init(second, second_event)
    init.sessions[0].scoring_groups[0].sections[0].letters = "A"
    init.sessions[0].name = "Thursday pairs"
    assert_ok(dc.initialize(init))
    running = json.loads(manage(dc, 2).serialized_data or "{}")
    assert running["EventGuid"] == second_event
    (info,) = running["SessionInformation"]
    assert (info["SessionGuid"], info["EventGuid"], info["SessionName"]) == (
        second,
        second_event,
        "Thursday pairs",
    )
    assert info["SessionDateTime"].endswith("T19:00:00")
    # ContinueEvent makes the first event the running one again (as BCS loads it).
    cont = {"EventGuid": first_event, "Commands": 5}
    assert_ok(send(dc, Commands.ContinueEvent, "", cont))
    assert json.loads(manage(dc, 6).serialized_data or "{}")["EventGuid"] == first_event
    everything = manage(dc, 8)
    assert everything.data_type == Data.AllSessionsInfo
    known = json.loads(everything.serialized_data or "{}")
    assert known["EventGuid"] == ""
    assert [s["SessionGuid"] for s in known["SessionInformation"]] == [first, second]
    location = manage(dc, 4)
    assert location.data_type == Data.ScoringFileLocation
    assert json.loads(location.serialized_data or "{}")["ScoringFilePath"] == ""
    assert "keeps running" in assert_ok(manage(dc, 1))
    refused(manage(dc, 3), ErrorType.Validation)
    refused(send(dc, Commands.ManageBCS, None, "6"), ErrorType.Validation)
    empty_request = ScoringProgramRequest()
    empty_request.command, empty_request.serialized_data = Commands.ManageBCS, ""
    refused(dc.send_request(empty_request), ErrorType.NoData)


def added_session(guid: str, event_guid: str, letters: str, group: int) -> dict[str, Any]:
    """An AddSessionDTO as the client serializes it: one session, one section."""
    init = scenario.init(guid, event_guid)
    session = init.sessions[0]
    session.name = "Monday pairs, second session"
    session.scoring_groups[0].scoring_group_number = group
    section = session.scoring_groups[0].sections[0]
    section.letters, section.scoring_group_number = letters, group
    for table in section.tables:
        table.section_letters = letters
        for r in table.rounds:
            r.section_letters = letters
    seats = scenario.seats(guid)
    for seat in seats:
        seat.section_letters = letters
    return {
        "EventGuid": event_guid,
        "ClubId": "",
        "Session": session.to_dict(),
        "PlayerData": [p.to_dict() for p in scenario.players(guid)],
        "Participations": [p.to_dict() for p in seats],
        "Handrecords": [],
        "Bridgemate2Settings": None,
        "Bridgemate3Settings": None,
    }


def test_add_session_adds_a_session_to_a_known_event(
    dc: DataConnectorClient, served: Served
) -> None:
    first, event_guid = new_guid(), new_guid()
    assert_ok(dc.initialize(scenario.init(first, event_guid)))
    second = new_guid()
    dto = added_session(second, event_guid, "B", 2)
    response = send(dc, Commands.AddSession, event_guid, dto)
    report = assert_ok(response)
    assert response.session_guid == second
    assert "Added session 2" in report
    with Session(served.engine) as s:
        sections = {x.letter: x.session_number for x in s.exec(select(Section))}
        assert sections == {"A": 1, "B": 2}
        events = s.exec(select(Event)).all()
        assert len(events) == 1
        b = s.exec(select(Section).where(Section.letter == "B")).one()
        names = {p.number: p.player1 for p in s.exec(select(Pair).where(Pair.section_id == b.id))}
        assert names[1] == "Anna North"
    movements = json.loads(send(dc, Commands.GetAllMovements, second, "").serialized_data)
    assert [m["Letters"] for m in movements] == ["B"]
    td = TD(served.url)
    td.start_round(b.id or 0, 1)
    td.terminal(b.id or 0, 1).play(1, "2S", "N", 8)
    assert [r.section_letters for r in dc.poll_for_results(second)] == ["B"]
    assert dc.poll_for_results(first) == []
    sessions = json.loads(manage(dc, 2).serialized_data or "{}")["SessionInformation"]
    assert [x["SessionGuid"] for x in sessions] == [first, second]
    continued = assert_ok(send(dc, Commands.ContinueEvent, "", {"EventGuid": event_guid}))
    assert second in continued
    # Refused: the same letters again, an unknown event, a session that exists.
    again = added_session(new_guid(), event_guid, "A", 3)
    assert "section A exists" in refused(
        send(dc, Commands.AddSession, event_guid, again), ErrorType.Validation
    )
    clash = added_session(new_guid(), event_guid, "C", 1)
    assert "scoring group 1 exists" in refused(
        send(dc, Commands.AddSession, event_guid, clash), ErrorType.Validation
    )
    stranger = new_guid()
    unknown = added_session(new_guid(), stranger, "D", 4)
    refused(send(dc, Commands.AddSession, stranger, unknown), ErrorType.EntryUnknown)
    refused(send(dc, Commands.AddSession, event_guid, dto), ErrorType.NoUpdates)
    with Session(served.engine) as s:
        assert sorted(x.letter for x in s.exec(select(Section))) == ["A", "B"]


def test_a_single_sessions_guid_is_its_events_guid_for_add_session(
    dc: DataConnectorClient, served: Served
) -> None:
    first = new_guid()
    init = scenario.init(first, "")
    init.event_guid = ""
    init.sessions[0].event_guid = ""
    assert_ok(dc.initialize(init))
    dto = added_session(new_guid(), first, "B", 2)
    assert_ok(send(dc, Commands.AddSession, first, dto))
    sessions = json.loads(manage(dc, 2).serialized_data or "{}")["SessionInformation"]
    assert len(sessions) == 2
    assert {x["EventGuid"] for x in sessions} == {first}

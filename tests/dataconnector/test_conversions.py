"""The pure conversions: artificial score codes, movements from RoundDTOs, deals as PBN,
scoring methods, and envelopes that are not what they should be."""

from __future__ import annotations

from typing import Any

import pytest

from server.core.models import Result
from server.dataconnector import checks
from server.dataconnector.deals import pbn
from server.dataconnector.dto import HandrecordDTO, RoundDTO, SectionDTO, TableDTO
from server.dataconnector.movement import to_movement
from server.dataconnector.results import Position, artificial_level, artificial_percent, to_dto
from server.dataconnector.sections import traveller_scoring
from server.dataconnector.wire import Command, DcError, ErrorType, parse_request
from server.movements import PairRef
from tests.dataconnector.deals import deal

GUID = "A1B2C3D4E5F60718293A4B5C6D7E8F90"


@pytest.mark.parametrize(
    ("ns", "ew", "level"),
    [
        (40, 40, -1),
        (40, 50, -2),
        (40, 60, -3),
        (50, 40, -4),
        (50, 50, -5),
        (60, 40, -7),
        (60, 60, -9),
    ],
)
def test_artificial_scores_both_ways(ns: int, ew: int, level: int) -> None:
    assert artificial_level(ns, ew) == level
    assert artificial_percent(level, 3) == (ns, ew)
    assert artificial_percent(level, 2) == (ew, ns)  # E/W scoring direction: reversed


def test_artificial_splits_round_to_the_nearest_grade() -> None:
    assert artificial_level(70, 30) == -7
    assert artificial_level(55, 45) == -5


def section(
    winners: int, missing: int, rounds: dict[tuple[int, int], tuple[int, int, int]]
) -> SectionDTO:
    tables = []
    for table in sorted({t for t, _r in rounds}):
        dtos = [
            RoundDTO(
                session_guid=GUID,
                section_letters="A",
                table_number=table,
                round_number=r,
                pair_ns=ns,
                pair_ew=ew,
                low_board_number=low,
                high_board_number=low + 1 if low else 0,
            )
            for (t, r), (ns, ew, low) in sorted(rounds.items())
            if t == table
        ]
        tables.append(
            TableDTO(session_guid=GUID, section_letters="A", table_number=table, rounds=dtos)
        )
    return SectionDTO(
        session_guid=GUID,
        letters="A",
        scoring_group_number=1,
        winners=winners,
        game_type=10,
        missing_pair=missing,
        tables=tables,
    )


HOWELL = {(1, 1): (1, 2, 1), (2, 1): (3, 4, 1), (1, 2): (1, 3, 3), (2, 2): (4, 2, 3)}


def test_a_howell_whose_tables_share_the_boards() -> None:
    m = to_movement(section(1, 0, HOWELL))
    assert (m.kind, m.tables, m.rounds, m.boards_per_round) == ("howell", 2, 2, 2)
    assert m.shared_tables == ((1, 2),)


def test_a_missing_pair_leaves_its_opponents_a_sit_out() -> None:
    m = to_movement(section(1, 4, HOWELL))
    t2r1 = m.at(2, 1)
    assert t2r1 is not None
    assert (t2r1.ns, t2r1.ew, t2r1.boards) == (PairRef(3), None, ())
    assert m.shared_tables == ()


def test_a_two_winner_mitchell_keeps_directions() -> None:
    m = to_movement(section(2, -2, {(1, 1): (1, 1, 1), (2, 1): (2, 2, 3), (1, 2): (1, 2, 3)}))
    assert m.kind == "mitchell"
    a = m.at(1, 1)
    assert a is not None
    assert (a.ns, a.ew) == (PairRef(1, "NS"), PairRef(1, "EW"))
    b = m.at(2, 1)
    assert b is not None
    assert b.ew is None  # MissingPair -2: E/W pair 2 is absent
    assert m.shared_tables == ()


def test_a_deal_becomes_pbn_and_passes_the_checks() -> None:
    hands = deal(7)
    fields = {
        f"{seat}{suit}": cards
        for seat, hand in zip(checks.SEATS, hands, strict=True)
        for suit, cards in zip(checks.SUITS, hand, strict=True)
    }
    dto = HandrecordDTO.model_validate(
        {"SessionGuid": GUID, "ScoringGroupNumber": 1, "SectionLetters": "A", "BoardNumber": 7}
        | fields
    )
    assert checks.handrecord(dto) == []
    assert pbn(dto) == "N:" + " ".join(".".join(hand) for hand in hands)
    fields["NorthSpades"] = None  # type: ignore[assignment]
    broken = HandrecordDTO.model_validate({"SessionGuid": GUID, "BoardNumber": 7} | fields)
    assert any("NorthSpades" in p for p in checks.handrecord(broken))


def test_scoring_methods() -> None:
    assert [traveller_scoring(m) for m in (10, 20, 27, 30, 36, 40, 51, 60)] == [
        "mp",
        "butler",
        "butler",
        "imps",
        "imps",
        "imps",
        "imps",
        "mp",
    ]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", "not JSON"),
        (b"null", "ScoringProgramRequest"),
        (b'{"Command": true}', "command number"),
        (b'{"Command": 41}', "Unknown command 41"),
        (b'{"Command": 19, "ClubId": 7}', "ClubId"),
    ],
)
def test_envelopes_that_are_not_requests(body: bytes, message: str) -> None:
    with pytest.raises(DcError) as caught:
        parse_request(body)
    assert caught.value.error_type == ErrorType.VALIDATION
    assert message in caught.value.message


def test_a_request_envelope() -> None:
    req = parse_request(b'{"Command": 4, "ClubId": "c", "SerializedData": "\\"638\\""}')
    assert (req.command, req.club_id, req.licence_key, req.data()) == (Command.PING, "c", "", "638")


def _adjusted_dto(text: str) -> Any:
    result = Result(
        section_id=1, table_number=2, round=1, board=5, ns_pair_id=1, ew_pair_id=2, state="adjusted"
    )
    at = Position(GUID, "A", result, ns=3, ew=13)
    return to_dto(at, {"state": "adjusted", "adjusted": text}, deleted=False)


def test_an_assigned_score_goes_to_the_program_as_the_contract_it_assigns() -> None:
    dto = _adjusted_dto("4S W -1")
    assert (dto.level, dto.denomination, dto.declarer_direction, dto.total_tricks) == (4, 4, 4, 9)
    assert (dto.declaring_pair, dto.is_deleted) == (13, False)  # West: the E/W pair declares


def test_an_artificial_score_goes_as_its_level_code() -> None:
    assert _adjusted_dto("A60/40").level == -7
    assert _adjusted_dto("NS: A40 | EW: A60").level == -3


@pytest.mark.parametrize("text", ["60% 4S S = + 40% 4S S -1", "NS: 4S S = | EW: 4S S -1"])
def test_a_weighted_or_unbalanced_score_is_not_sent_as_the_played_contract(text: str) -> None:
    # The protocol cannot carry it: the program hears the result is gone, so the board shows
    # as missing there, never the table's own contract.
    dto = _adjusted_dto(text)
    assert dto.is_deleted is True
    assert dto.level == 0

"""The hand-record queue (issue 20): a deal that becomes known in Traveller during the session
(the TD's upload; a deal keyed at the tables is stored the same way) reaches the scoring
program, through the official client; the program's own deals are not echoed."""

from __future__ import annotations

from bridgemate_dataconnector import DataConnectorClient
from bridgemate_dataconnector.dto import DataConnectorResponseData, ScoringProgramResponse
from sqlmodel import Session, select

from server.core.models import Board, Section
from server.services.event import event_wizard
from tests.dataconnector import scenario
from tests.dataconnector.deals import deal
from tests.support.dataconnector import Served, new_guid

SUITS = ("spades", "hearts", "diamonds", "clubs")
SEATS = ("north", "east", "south", "west")


def _ok(response: ScoringProgramResponse) -> None:
    assert response.data_type == DataConnectorResponseData.OK, response.serialized_data


def _pbn(hands: list[list[str]]) -> str:
    return "N:" + " ".join(".".join(suits) for suits in hands)


def test_a_deal_the_td_uploads_reaches_the_program_once(
    served: Served, dc: DataConnectorClient
) -> None:
    guid = new_guid()
    _ok(dc.initialize(scenario.init(guid, new_guid())))  # the program's deals for boards 1-6
    assert dc.poll_for_handrecords(guid) == []
    assert dc.poll_for_handrecords(guid, all=True) == []

    hands = deal(103)  # another deal than the program's for board 3
    with Session(served.engine) as s:
        section = s.exec(select(Section)).one()
        assert event_wizard.put_deals(s, section.id or 0, {3: _pbn(hands)}) == 1
        s.commit()
        stored = s.exec(
            select(Board).where(Board.section_id == section.id, Board.number == 3)
        ).one()
        assert stored.deal == _pbn(hands)

    (record,) = dc.poll_for_handrecords(guid)
    assert (record.session_guid, record.section_letters, record.board_number) == (guid, "A", 3)
    assert record.scoring_group_number == 1
    for seat, held in zip(SEATS, hands, strict=True):
        for suit, cards in zip(SUITS, held, strict=True):
            assert getattr(record, f"{seat}_{suit}") == cards, (seat, suit)

    _ok(dc.accept_queue_data(guid, DataConnectorResponseData.Handrecords))
    assert dc.poll_for_handrecords(guid) == []
    assert [r.board_number for r in dc.poll_for_handrecords(guid, all=True)] == [3]

    # The program sends board 3 again: its deal is the latest, nothing of Traveller's to tell.
    _ok(dc.send_handrecords(guid, [scenario.handrecord(guid, 3)]))
    assert dc.poll_for_handrecords(guid, all=True) == []


def test_the_queue_item_is_the_audited_deal(served: Served, dc: DataConnectorClient) -> None:
    """Two uploads of one board: the queue carries the later deal, once."""
    guid = new_guid()
    _ok(dc.initialize(scenario.init(guid, new_guid())))
    with Session(served.engine) as s:
        section_id = s.exec(select(Section)).one().id or 0
        event_wizard.put_deals(s, section_id, {5: _pbn(deal(205))})
        s.commit()
        event_wizard.put_deals(s, section_id, {5: _pbn(deal(305))})
        s.commit()
    (record,) = dc.poll_for_handrecords(guid)
    assert record.board_number == 5
    later = deal(305)
    for seat, held in zip(SEATS, later, strict=True):
        assert [getattr(record, f"{seat}_{suit}") for suit in SUITS] == held, seat

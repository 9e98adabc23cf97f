"""The outgoing queues: poll new or all items, accept up to an id, clear.

A queue item is derived from Traveller's own records when the scoring program polls: for
results the audit trail (every change to a result writes one, so no change can be missed),
for names the pair-naming audit rows, for TD calls the calls. Its id is that row's id. The
``dc_delivery`` rows remember which items were sent and which the program accepted: Accept
marks only items that were actually sent, so an item whose transaction committed late (with a
lower id than one already sent) is still new at the next poll.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, select

from server.core.models import DcDelivery, DcSession
from server.dataconnector.deals import handrecord_items
from server.dataconnector.people import named_pairs, participation_dtos, player_dtos
from server.dataconnector.results import result_items
from server.dataconnector.tdcalls import KIND as TD_CALLS
from server.dataconnector.tdcalls import call_items
from server.dataconnector.wire import Command, DataType, DcError, ErrorType, Response


@dataclass(frozen=True)
class Item:
    """One queue item: its id, the DTOs it carries, and whether the program made the change."""

    item_id: int
    dtos: list[dict[str, Any]]
    from_program: bool


Producer = Callable[[Session, DcSession], list[Item]]


def _results(session: Session, dcs: DcSession) -> list[Item]:
    return [Item(i.item_id, [i.dto.wire()], i.from_program) for i in result_items(session, dcs)]


def _players(session: Session, dcs: DcSession) -> list[Item]:
    return [
        Item(n.item_id, [d.wire() for d in player_dtos(n, dcs.session_guid)], n.from_program)
        for n in named_pairs(session, dcs)
    ]


def _participations(session: Session, dcs: DcSession) -> list[Item]:
    return [
        Item(
            n.item_id,
            [d.wire() for d in participation_dtos(session, n, dcs.session_guid)],
            n.from_program,
        )
        for n in named_pairs(session, dcs)
    ]


def _handrecords(session: Session, dcs: DcSession) -> list[Item]:
    """The deals set in Traveller during the session (``deals.handrecord_items``)."""
    return [Item(i.item_id, [i.dto.wire()], False) for i in handrecord_items(session, dcs)]


def _calls(session: Session, dcs: DcSession) -> list[Item]:
    return [Item(c.item_id, [c.dto.wire()], c.from_program) for c in call_items(session, dcs)]


QUEUES: dict[str, tuple[DataType, Producer]] = {
    "results": (DataType.RESULTS, _results),
    "player_data": (DataType.PLAYER_DATA, _players),
    "participations": (DataType.PARTICIPATIONS, _participations),
    "handrecords": (DataType.HANDRECORDS, _handrecords),
    TD_CALLS: (DataType.TD_CALLS, _calls),
}


def _deliveries(session: Session, dcs: DcSession, kind: str) -> dict[int, DcDelivery]:
    rows = session.exec(
        select(DcDelivery).where(DcDelivery.dc_session_id == dcs.id, DcDelivery.kind == kind)
    )
    return {row.item_id: row for row in rows}


def _deliver(session: Session, dcs: DcSession, kind: str, items: list[Item]) -> None:
    known = _deliveries(session, dcs, kind)
    for item in items:
        if item.item_id not in known:
            session.add(DcDelivery(dc_session_id=dcs.id or 0, kind=kind, item_id=item.item_id))


def poll(
    session: Session, dcs: DcSession, command: Command, kind: str, everything: bool
) -> Response:
    """New: the items not accepted yet (changes the program made itself are not echoed);
    All: every item of the session, accepted or not. LastQueueItemId: the highest id sent."""
    data_type, producer = QUEUES[kind]
    items = producer(session, dcs)
    if not everything:
        accepted = {i for i, row in _deliveries(session, dcs, kind).items() if row.accepted}
        items = [i for i in items if not i.from_program and i.item_id not in accepted]
    _deliver(session, dcs, kind, items)
    dtos = [dto for item in items for dto in item.dtos]
    last = max((item.item_id for item in items), default=0)
    return Response(command, data_type, dtos, dcs.session_guid, last)


def accept(session: Session, dcs: DcSession, kind: str, last_id: Any) -> int:
    """Mark the sent items up to and including ``last_id`` as accepted; how many."""
    if not isinstance(last_id, int) or isinstance(last_id, bool):
        raise DcError(ErrorType.VALIDATION, "Send the last queue item id as a JSON integer.")
    rows = session.exec(
        select(DcDelivery).where(
            DcDelivery.dc_session_id == dcs.id,
            DcDelivery.kind == kind,
            DcDelivery.item_id <= last_id,
            DcDelivery.accepted == False,  # noqa: E712
        )
    ).all()
    for row in rows:
        row.accepted = True
        session.add(row)
    return len(rows)


def clear(session: Session, dcs: DcSession) -> None:
    """ClearData: everything queued so far counts as sent and accepted."""
    for kind, (_data_type, producer) in QUEUES.items():
        items = producer(session, dcs)
        _deliver(session, dcs, kind, items)
        session.flush()
        accept(session, dcs, kind, max((i.item_id for i in items), default=0))

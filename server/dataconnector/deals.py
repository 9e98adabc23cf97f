"""Hand records both ways: the scoring program's deals onto Traveller's boards (PBN), and the
deals that become known in Traveller during the session (the TD's upload, a deal keyed at the
table) back to the program through the hand-record queue."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, select

from server.core.models import Audit, Board, DcSession, Section
from server.dataconnector import checks
from server.dataconnector.dto import HandrecordDTO
from server.dataconnector.store import load, same_session, section_of, sections_of
from server.dataconnector.wire import PROGRAM, DcError, ErrorType
from server.io import handrecords
from server.services import audit


def pbn(dto: HandrecordDTO) -> str:
    """The deal as PBN from North: "N:S.H.D.C S.H.D.C S.H.D.C S.H.D.C" (a void is empty)."""
    hands = (
        ".".join(dto.holding(seat, suit) or "" for suit in checks.SUITS) for seat in checks.SEATS
    )
    return "N:" + " ".join(hands)


def dto_of(deal: str, guid: str, letters: str, group: int, board: int) -> HandrecordDTO:
    """The deal (PBN) as the HandrecordDTO the program reads: thirteen cards a hand, suit by
    suit (``pbn`` read backwards)."""
    held = handrecords.hands(deal)
    suits = {
        f"{seat}{suit}": cards
        for seat, letter in zip(checks.SEATS, "NESW", strict=True)
        for suit, cards in zip(checks.SUITS, held[letter], strict=True)
    }
    fields = {"SessionGuid": guid, "ScoringGroupNumber": group, "SectionLetters": letters}
    return HandrecordDTO.model_validate(fields | {"BoardNumber": board} | suits)


@dataclass(frozen=True)
class HandrecordItem:
    """A deal Traveller learnt during the session: the audit row that set it, and its DTO."""

    item_id: int
    dto: HandrecordDTO


def handrecord_items(session: Session, dcs: DcSession) -> list[HandrecordItem]:
    """The hand-record queue: each board's latest deal set in Traveller ("deal_set" in the
    audit trail: the TD's upload, a deal keyed and checked at the tables). A deal the program
    sent itself is not one (BCS queues the hand records entered at the tables); nor is a
    board whose latest deal came from the program again."""
    sections = {s.id: s for s in sections_of(session, dcs)}
    groups = {letters: meta.get("group") for letters, meta in load(dcs)["sections"].items()}
    rows = session.exec(
        select(Audit)
        .where(col(Audit.section_id).in_(list(sections)), Audit.action == "deal_set")
        .order_by(col(Audit.id))
    ).all()
    latest: dict[tuple[int, int], tuple[Audit, str]] = {}
    for row in rows:
        new = json.loads(row.new or "null")
        if not isinstance(new, dict) or not isinstance(new.get("board"), int):
            continue
        if isinstance(new.get("deal"), str):
            latest[(row.section_id or 0, new["board"])] = (row, new["deal"])
    items = []
    for (section_id, board), (row, deal) in sorted(latest.items()):
        if row.actor == PROGRAM:
            continue
        letters = sections[section_id].letter
        try:
            dto = dto_of(deal, dcs.session_guid, letters, int(groups.get(letters) or 1), board)
        except ValueError:
            continue  # not a whole deal in PBN (stored before the checks): nothing to send
        items.append(HandrecordItem(row.id or 0, dto))
    return sorted(items, key=lambda i: i.item_id)


def _board(session: Session, section: Section, number: int) -> Board | None:
    return session.exec(
        select(Board).where(Board.section_id == section.id, Board.number == number)
    ).first()


def put_handrecords(session: Session, dcs: DcSession, dtos: Sequence[HandrecordDTO]) -> str:
    """Store each deal on its board in every section of its scoring group; a summary."""
    checks.require([p for dto in dtos for p in checks.handrecord(dto)], "HandrecordDTO")
    same_session([dto.session_guid for dto in dtos], dcs)
    groups = {letters: meta.get("group") for letters, meta in load(dcs)["sections"].items()}
    stored = 0
    for dto in dtos:
        named = section_of(session, dcs, dto.section_letters)
        if _board(session, named, dto.board_number) is None:
            raise DcError(
                ErrorType.MOVEMENT,
                f"Section {named.letter} has no board {dto.board_number}.",
            )
        deal = pbn(dto)
        for section in sections_of(session, dcs):
            if section.id != named.id and groups.get(section.letter) != groups.get(named.letter):
                continue
            board = _board(session, section, dto.board_number)
            if board is None or board.deal == deal:
                continue
            board.deal = deal
            session.add(board)
            stored += 1
            audit.record(
                session,
                actor=PROGRAM,
                action="deal_set",
                section_id=section.id,
                new={"board": board.number, "deal": deal},
            )
    return f"{len(dtos)} hand records received, {stored} boards updated."

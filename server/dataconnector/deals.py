"""Hand records: the scoring program's deals onto Traveller's boards (PBN)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, select

from server.dataconnector import checks
from server.dataconnector.dto import HandrecordDTO
from server.dataconnector.store import load, same_session, section_of, sections_of
from server.dataconnector.wire import PROGRAM, DcError, ErrorType
from server.models import Board, DcSession, Section
from server.services import audit


def pbn(dto: HandrecordDTO) -> str:
    """The deal as PBN from North: "N:S.H.D.C S.H.D.C S.H.D.C S.H.D.C" (a void is empty)."""
    hands = (
        ".".join(dto.holding(seat, suit) or "" for suit in checks.SUITS) for seat in checks.SEATS
    )
    return "N:" + " ".join(hands)


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

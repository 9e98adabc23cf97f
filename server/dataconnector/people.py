"""Players both ways: player data and first-round seats to pair names, and pair names back."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session, col, select

from server.core.models import Audit, DcPlayer, DcSession, MovementAssignment, Pair, Section
from server.dataconnector import checks
from server.dataconnector.dto import ParticipationDTO, PlayerDataDTO
from server.dataconnector.store import section_of, sections_of
from server.dataconnector.wire import PROGRAM, DcError, ErrorType
from server.movements import PairRef
from server.services import audit
from server.services.views import assignment

NORTH, EAST, SOUTH, WEST = 1, 2, 3, 4
SEAT_NAMES = {NORTH: "North", EAST: "East", SOUTH: "South", WEST: "West"}


def full_name(first: str, last: str) -> str:
    """ "First Last", as Traveller shows a player."""
    return f"{first.strip()} {last.strip()}".strip()[:100]


def split_name(name: str) -> tuple[str, str]:
    """A Traveller name as first and last name (the last word is the last name)."""
    words = name.split()
    return (" ".join(words[:-1]), words[-1]) if words else ("", "")


def store_players(session: Session, dcs: DcSession, dtos: Sequence[PlayerDataDTO]) -> None:
    """Keep the scoring program's player data; pairs holding a number take its new name."""
    checks.require([p for dto in dtos for p in checks.player(dto)], "PlayerDataDTO")
    names: dict[str, str] = {}
    for dto in dtos:
        number = dto.player_number.strip()
        row = session.exec(
            select(DcPlayer).where(
                DcPlayer.dc_session_id == dcs.id, DcPlayer.player_number == number
            )
        ).first() or DcPlayer(dc_session_id=dcs.id or 0, player_number=number)
        row.first_name, row.last_name = dto.first_name.strip(), dto.last_name.strip()
        row.country_code = dto.country_code.strip()[:8]
        session.add(row)
        names[number] = full_name(row.first_name, row.last_name)
    for section in sections_of(session, dcs):
        for pair in session.exec(select(Pair).where(Pair.section_id == section.id)):
            new = [
                names.get(member or "", name)
                for member, name in ((pair.member1, pair.player1), (pair.member2, pair.player2))
            ]
            rename(session, section, pair, (new[0], pair.member1), (new[1], pair.member2))
    session.flush()


def rename(
    session: Session,
    section: Section,
    pair: Pair,
    first: tuple[str, str | None],
    second: tuple[str, str | None],
) -> None:
    """Set the pair's players (name, member number) as the scoring program has them; audited."""
    if (pair.player1, pair.member1, pair.player2, pair.member2) == (*first, *second):
        return
    old = {"player1": pair.player1, "player2": pair.player2}
    (pair.player1, pair.member1), (pair.player2, pair.member2) = first, second
    session.add(pair)
    audit.record(
        session,
        actor=PROGRAM,
        action="pair_names",
        section_id=section.id,
        old=old,
        new={"pair": str(_ref(pair)), "player1": pair.player1, "player2": pair.player2},
    )


def _ref(pair: Pair) -> PairRef:
    return PairRef.parse(f"{pair.number}{pair.direction or ''}")


def _seated(session: Session, section: Section, dto: ParticipationDTO) -> Pair:
    """The pair on the participation's seat in the first round."""
    if dto.round_number > 1:
        raise DcError(
            ErrorType.VALIDATION,
            f"Participation at table {dto.table_number} has RoundNumber {dto.round_number}: "
            "Traveller takes first-round seats (0 or 1) and follows the movement from there.",
        )
    row = assignment(session, section, dto.table_number, 1)
    pair_id = None
    if row is not None:
        pair_id = row.ns_pair_id if dto.direction in (NORTH, SOUTH) else row.ew_pair_id
    pair = session.get(Pair, pair_id) if pair_id else None
    if pair is None:
        raise DcError(
            ErrorType.MOVEMENT,
            f"Nobody sits {SEAT_NAMES.get(dto.direction, '?')} at table {section.letter}"
            f"{dto.table_number} in round 1.",
        )
    return pair


def seat_players(session: Session, dcs: DcSession, dtos: Sequence[ParticipationDTO]) -> None:
    """Name the players in their first-round seats (N/E are player 1, S/W player 2)."""
    checks.require([p for dto in dtos for p in checks.participation(dto)], "ParticipationDTO")
    for dto in dtos:
        section = section_of(session, dcs, dto.section_letters)
        pair = _seated(session, section, dto)
        players = [(pair.player1, pair.member1), (pair.player2, pair.member2)]
        slot = 0 if dto.direction in (NORTH, EAST) else 1
        if dto.is_player_swap:
            players.reverse()
        if dto.is_removal:
            players[slot] = ("", None)
        elif dto.player_number.strip():
            number = dto.player_number.strip()
            known = session.exec(
                select(DcPlayer).where(
                    DcPlayer.dc_session_id == dcs.id, DcPlayer.player_number == number
                )
            ).first()
            if known is None:
                raise DcError(
                    ErrorType.VALIDATION,
                    f"Player number {number!r} has no player data: send it (PutPlayerData) first.",
                )
            players[slot] = (full_name(known.first_name, known.last_name), number)
        else:
            players[slot] = (full_name(dto.first_name, dto.last_name), None)
        rename(session, section, pair, players[0], players[1])
    session.flush()


@dataclass(frozen=True)
class NamedPair:
    """A pair whose names changed in Traveller: the audit row that is its queue item."""

    item_id: int
    section: Section
    pair: Pair
    from_program: bool


def named_pairs(session: Session, dcs: DcSession) -> list[NamedPair]:
    """Every named pair of the session, by its latest naming (the queue item id)."""
    sections = {s.id: s for s in sections_of(session, dcs)}
    rows = session.exec(
        select(Audit)
        .where(col(Audit.section_id).in_(list(sections)), Audit.action == "pair_names")
        .order_by(col(Audit.id))
    ).all()
    latest: dict[tuple[int, str], Audit] = {}
    for row in rows:
        label = json.loads(row.new or "{}").get("pair")
        if row.section_id is not None and isinstance(label, str):
            latest[row.section_id, label] = row
    out = []
    for (section_id, label), row in latest.items():
        ref = PairRef.parse(label)
        pair = session.exec(
            select(Pair).where(
                Pair.section_id == section_id,
                Pair.number == ref.number,
                Pair.direction == ref.direction,
            )
        ).first()
        if pair is not None:
            out.append(NamedPair(row.id or 0, sections[section_id], pair, row.actor == PROGRAM))
    return sorted(out, key=lambda n: n.item_id)


def player_dtos(named: NamedPair, session_guid: str) -> list[PlayerDataDTO]:
    """Player data for the pair's players that have a membership number."""
    out = []
    for name, member in (
        (named.pair.player1, named.pair.member1),
        (named.pair.player2, named.pair.member2),
    ):
        if member:
            first, last = split_name(name)
            out.append(
                PlayerDataDTO(
                    session_guid=session_guid,
                    player_number=member,
                    first_name=first,
                    last_name=last,
                )
            )
    return out


def first_seat(session: Session, pair: Pair) -> MovementAssignment | None:
    """The pair's first table of the session (round 1 unless it joined late)."""
    return session.exec(
        select(MovementAssignment)
        .where(
            (MovementAssignment.ns_pair_id == pair.id) | (MovementAssignment.ew_pair_id == pair.id)
        )
        .order_by(col(MovementAssignment.round))
    ).first()


def participation_dtos(
    session: Session, named: NamedPair, session_guid: str
) -> list[ParticipationDTO]:
    """The pair's players in their first seats: by number when known, else by name."""
    row = first_seat(session, named.pair)
    if row is None:
        return []
    at_ns = row.ns_pair_id == named.pair.id
    seats = (NORTH, SOUTH) if at_ns else (EAST, WEST)
    players = ((named.pair.player1, named.pair.member1), (named.pair.player2, named.pair.member2))
    out = []
    for seat, (name, member) in zip(seats, players, strict=True):
        first, last = split_name(name)
        out.append(
            ParticipationDTO(
                session_guid=session_guid,
                section_letters=named.section.letter,
                table_number=row.table_number,
                direction=seat,
                round_number=row.round,
                player_number=member or "",
                first_name="" if member else first,
                last_name="" if member else last,
                is_removal=not member and not name,
            )
        )
    return out

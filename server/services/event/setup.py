"""Event set-up by the TD: events, sections from a movement, pair names."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, col, select

from protocol.messages import AfterConfirm, AuctionEntry, PlayEntry, PlayerNumbers
from server.core.errors import ConflictError, InvalidError, NotFoundError, verbatim
from server.core.models import (
    BridgeTable,
    Event,
    Language,
    Pair,
    ScoringProfile,
    Section,
    TricksStyle,
)
from server.core.text import checked
from server.movements import Movement, MovementError, validate
from server.scoring import methods
from server.services import audit
from server.services.event import movement_admin


def create_event(
    session: Session,
    *,
    name: str,
    scoring: str = methods.DEFAULT,
    lead_required: bool = False,
    tricks_style: TricksStyle = "absolute",
    confirm_pin_required: bool = False,
    after_confirm: AfterConfirm = "nothing",
    show_ranking: bool = False,
    player_numbers: PlayerNumbers = "off",
    language: Language | None = None,
    scoring_profile: ScoringProfile = "dbf",
    auction_entry: AuctionEntry = "off",
    play_entry: PlayEntry = "off",
    deal_entry: bool = False,
) -> Event:
    name = checked(name, max_length=200)
    event = Event(
        name=name,
        scoring=scoring,
        lead_required=lead_required,
        tricks_style=tricks_style,
        confirm_pin_required=confirm_pin_required,
        after_confirm=after_confirm,
        show_ranking=show_ranking,
        player_numbers=player_numbers,
        language=language,
        scoring_profile=scoring_profile,
        auction_entry=auction_entry,
        play_entry=play_entry,
        deal_entry=deal_entry,
    )
    session.add(event)
    session.flush()
    audit.record(session, actor="td", action="event_created", section_id=None, new={"name": name})
    return event


def get_event(session: Session, event_id: int) -> Event:
    event = session.get(Event, event_id)
    if event is None:
        raise NotFoundError("unknown_event", "There is no event {event_id}.", event_id=event_id)
    return event


def get_section(session: Session, section_id: int) -> Section:
    section = session.get(Section, section_id)
    if section is None:
        raise NotFoundError(
            "unknown_section", "There is no section {section_id}.", section_id=section_id
        )
    return section


def create_section(session: Session, *, event: Event, letter: str, movement: Movement) -> Section:
    """Store a validated movement as a new section: its tables (with pairing codes), pairs,
    boards (Law 2 dealer and vulnerability) and the round-by-round assignments."""
    try:
        validate(movement)
    except MovementError as exc:
        raise InvalidError("invalid_movement", verbatim(str(exc))) from exc
    letter = letter.strip().upper()
    clash = session.exec(
        select(Section).where(Section.event_id == event.id, Section.letter == letter)
    ).first()
    if clash is not None:
        raise ConflictError(
            "section_exists",
            "Event {name} already has a section {letter}.",
            name=repr(event.name),
            letter=letter,
        )
    section = Section(
        event_id=event.id or 0,
        letter=letter,
        movement_name=movement.name,
        movement_kind=movement.kind,
        tables=movement.tables,
        rounds=movement.rounds,
        boards_per_round=movement.boards_per_round,
    )
    session.add(section)
    session.flush()
    movement_admin.store(session, section, movement, from_round=1)
    sid = section.id or 0
    audit.record(
        session,
        actor="td",
        action="section_created",
        section_id=sid,
        new={"letter": letter, "movement": movement.name, "tables": movement.tables},
    )
    return section


@dataclass(frozen=True)
class PairNames:
    player1: str
    player2: str
    member1: str | None = None
    member2: str | None = None


def find_pair(session: Session, section: Section, number: int, direction: str | None) -> Pair:
    """The pair, to change: its row locked until the COMMIT and read as it is then, so two
    changes of its names (the TD's, a table's, on any worker) come one after the other and
    each audits what the other left."""
    pair = session.exec(
        select(Pair)
        .where(Pair.section_id == section.id, Pair.number == number, Pair.direction == direction)
        .with_for_update()
        .execution_options(populate_existing=True)
    ).first()
    if pair is None:
        label = f"{number}{direction or ''}"
        raise NotFoundError(
            "unknown_pair",
            "Section {letter} has no pair {label}.",
            letter=section.letter,
            label=label,
        )
    return pair


def set_pair_names(
    session: Session,
    *,
    section: Section,
    number: int,
    direction: str | None,
    names: PairNames,
    actor: str = "td",
) -> Pair:
    player1, player2 = checked(names.player1), checked(names.player2)
    member1, member2 = (None if m is None else checked(m) for m in (names.member1, names.member2))
    pair = find_pair(session, section, number, direction)
    old: dict[str, object] = {"player1": pair.player1, "player2": pair.player2}
    if pair.member1 or pair.member2 or member1 or member2:
        old |= {"member1": pair.member1, "member2": pair.member2}
    pair.player1, pair.player2 = player1, player2
    pair.member1, pair.member2 = member1, member2
    session.add(pair)
    new: dict[str, object] = {
        "pair": f"{number}{direction or ''}",
        "player1": pair.player1,
        "player2": pair.player2,
    }
    if "member1" in old:
        new |= {"member1": pair.member1, "member2": pair.member2}
    audit.record(
        session,
        actor=actor,
        action="pair_names",
        section_id=section.id,
        old=old,
        new=new,
    )
    return pair


def tables_of(session: Session, section: Section) -> list[BridgeTable]:
    stmt = (
        select(BridgeTable)
        .where(BridgeTable.section_id == section.id)
        .order_by(col(BridgeTable.number))
    )
    return list(session.exec(stmt))


def find_table(session: Session, section: Section, number: int) -> BridgeTable:
    table = session.exec(
        select(BridgeTable).where(
            BridgeTable.section_id == section.id, BridgeTable.number == number
        )
    ).first()
    if table is None:
        raise NotFoundError(
            "unknown_table",
            "Section {letter} has no table {number}.",
            letter=section.letter,
            number=number,
        )
    return table


def pairs_of(session: Session, section: Section) -> list[Pair]:
    stmt = (
        select(Pair)
        .where(Pair.section_id == section.id)
        .order_by(col(Pair.direction), col(Pair.number))
    )
    return list(session.exec(stmt))

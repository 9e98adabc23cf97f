"""Individual sections: players' names, and the ranking per player.

A player's score on a board is the score of the partnership they played it in (individual
matchpoints); totals and percentages add up each player's boards exactly, then players are
ranked by percentage of the possible (matchpoint methods) or by total.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from sqlmodel import Session, select

from server import scoring
from server.core.errors import InvalidError, NotFoundError
from server.core.models import MovementAssignment, Pair, Section, SectionPlayer
from server.movements.model import parse_seats
from server.scoring.ranking import places, tied_groups
from server.services import audit
from server.services.event.movement_admin import player_label
from server.services.results import standings


@dataclass(frozen=True)
class PlayerLine:
    """One player's line in an individual's ranking."""

    place: str
    number: int
    name: str
    total: Decimal
    percent: Decimal | None
    boards: int


@dataclass(frozen=True)
class PlayerRanking:
    section_id: int
    method: str
    unit: str
    lines: list[PlayerLine]


def require_individual(section: Section) -> None:
    if section.movement_kind != "individual":
        raise InvalidError(
            "not_individual",
            "Section {letter} is a pairs section, not an individual.",
            letter=section.letter,
        )


def partnership_players(session: Session, section: Section) -> dict[int, tuple[int, int]]:
    """Each partnership's pair id and its two players, from the stored seats."""
    players: dict[int, tuple[int, int]] = {}
    rows = session.exec(
        select(MovementAssignment).where(MovementAssignment.section_id == section.id)
    )
    for row in rows:
        if not row.seats:
            continue
        north, east, south, west = parse_seats(row.seats)
        for pair_id, first, second in (
            (row.ns_pair_id, north, south),
            (row.ew_pair_id, east, west),
        ):
            if pair_id is not None and first is not None and second is not None:
                players.setdefault(pair_id, (first, second))
    return players


def player_names(session: Session, section: Section) -> dict[int, str]:
    """Each player's number and name."""
    rows = session.exec(select(SectionPlayer).where(SectionPlayer.section_id == section.id))
    return {p.number: p.name for p in rows}


def player_ranking(session: Session, section: Section, *, public: bool = False) -> PlayerRanking:
    """The ranking per player (public: only boards every table has finished)."""
    require_individual(section)
    data = standings.load(session, section)
    members = partnership_players(session, section)
    return rank_players(data, members, player_names(session, section), public=public)


def rank_players(
    data: standings.SectionData,
    members: dict[int, tuple[int, int]],
    names: dict[int, str],
    *,
    public: bool = False,
) -> PlayerRanking:
    """The ranking per player of loaded data (pure: run it outside the transaction)."""
    engine = standings.scorer(data, public=public)
    totals: dict[int, Fraction] = defaultdict(Fraction)
    tops: dict[int, Fraction] = defaultdict(Fraction)
    boards: dict[int, int] = defaultdict(int)
    for pair_id, records in engine.pair_records().items():
        for player in members.get(pair_id, ()):  # type: ignore[call-overload]
            for record in records:
                totals[player] += record.score
                tops[player] += record.top
                boards[player] += 1
    matchpoints = data.method.is_matchpoints
    everyone = sorted(names)

    def key(player: int) -> Fraction:
        if not matchpoints:
            return totals[player]
        return 100 * totals[player] / tops[player] if tops[player] else Fraction(-1)

    ordered = sorted(everyone, key=key, reverse=True)
    lines = [
        PlayerLine(
            place=label,
            number=player,
            name=names.get(player, ""),
            total=scoring.to_decimal(totals[player], 2),
            percent=scoring.to_decimal(100 * totals[player] / tops[player], 2)
            if matchpoints and tops[player]
            else None,
            boards=boards[player],
        )
        for player, _, label in places(tied_groups(ordered, key))
    ]
    section_id = data.section.id or 0
    return PlayerRanking(section_id, data.method.value, data.method.spec.unit, lines)


def set_player_name(
    session: Session, section: Section, number: int, name: str, member: str | None
) -> SectionPlayer:
    """Name a player of an individual; the partnerships they play in show the new name."""
    require_individual(section)
    player = session.exec(
        select(SectionPlayer).where(
            SectionPlayer.section_id == section.id, SectionPlayer.number == number
        )
    ).first()
    if player is None:
        raise NotFoundError(
            "unknown_player",
            "Section {letter} has no player {number}.",
            letter=section.letter,
            number=number,
        )
    old = {"name": player.name, "member": player.member}
    player.name, player.member = name.strip(), member
    session.add(player)
    label = player_label(number, player.name)
    for pair_id, (first, second) in partnership_players(session, section).items():
        pair = session.get(Pair, pair_id)
        if pair is None or number not in (first, second):
            continue
        if first == number:
            pair.player1, pair.member1 = label, member
        else:
            pair.player2, pair.member2 = label, member
        session.add(pair)
    audit.record(
        session,
        actor="td",
        action="player_name",
        section_id=section.id,
        old=old,
        new={"player": number, "name": player.name, "member": member},
    )
    return player

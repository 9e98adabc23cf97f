"""Results of an individual as the public sees them: players instead of partnerships.

Loads a section's scoring data together with who sat in each partnership, then (pure, outside
the transaction) ranks the players, builds a player's score card and names the four players
at each table of a traveller. The release rules are the standings' own (``public=True``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from sqlmodel import Session

from server import scoring
from server.core.errors import NotFoundError
from server.core.models import Section
from server.services.results import standings
from server.services.results.individual_standings import (
    PlayerLine,
    PlayerRanking,
    partnership_players,
    player_names,
    rank_players,
    require_individual,
)


@dataclass(frozen=True)
class PlayerName:
    """A player of an individual as results pages show them."""

    number: int
    name: str

    @property
    def label(self) -> str:
        return f"{self.number} {self.name}".strip()


@dataclass
class IndividualData:
    """A section's scoring data plus each partnership's two players (N/E first, S/W second)."""

    data: standings.SectionData
    members: dict[int, tuple[int, int]]
    names: dict[int, str]

    def player(self, number: int) -> PlayerName:
        return PlayerName(number, self.names.get(number, ""))

    def players_of(self, pair_id: object) -> tuple[PlayerName, PlayerName] | None:
        pair = self.members.get(pair_id) if isinstance(pair_id, int) else None
        return None if pair is None else (self.player(pair[0]), self.player(pair[1]))

    def seated(self) -> dict[int, tuple[PlayerName, PlayerName]]:
        """Pair id -> its two players, for pages that show a partnership as its players."""
        return {pid: (self.player(a), self.player(b)) for pid, (a, b) in self.members.items()}


def load(session: Session, section: Section) -> IndividualData | None:
    """The data of an individual section; None for a pairs section."""
    if section.movement_kind != "individual":
        return None
    data = standings.load(session, section)
    return IndividualData(
        data, partnership_players(session, section), player_names(session, section)
    )


def load_individual(session: Session, section: Section) -> IndividualData:
    """The data of an individual section; refused for a pairs section."""
    require_individual(section)
    found = load(session, section)
    assert found is not None
    return found


def ranking(found: IndividualData, *, public: bool = True) -> PlayerRanking:
    """The players' ranking (public: released boards only, as the pairs ranking)."""
    return rank_players(found.data, found.members, found.names, public=public)


@dataclass(frozen=True)
class PlayerCardLine:
    """One board on a player's score card."""

    board: int
    round: int | None
    table: int | None
    seat: str | None  # "N", "E", "S" or "W"
    partner: PlayerName | None
    opponents: tuple[PlayerName, PlayerName] | None
    contract: str | None
    declarer: str | None
    result: str | None
    score: str
    value: Decimal | None
    percent: Decimal | None
    note: str | None = None


@dataclass(frozen=True)
class PlayerCard:
    """A player's score card: their line in the players' ranking and every scored board."""

    player: PlayerName
    line: PlayerLine | None
    lines: list[PlayerCardLine]
    unit: str
    boards_total: int


def _seat(direction: str | None, first: bool) -> str | None:
    if direction is None:
        return None
    return {"NS": ("N", "S"), "EW": ("E", "W")}[direction][0 if first else 1]


def player_card(found: IndividualData, number: int, *, public: bool = True) -> PlayerCard:
    """A player's boards so far (public: released boards only) with partner and opponents."""
    if number not in found.names:
        letter = found.data.section.letter
        raise NotFoundError(
            "unknown_player",
            "Section {letter} has no player {number}.",
            letter=letter,
            number=number,
        )
    data = found.data
    engine = standings.scorer(data, public=public)
    notes = standings.adjusted_kinds(data)
    lines = []
    for pair_id, (first, second) in found.members.items():
        if number not in (first, second):
            continue
        partner = found.player(second if first == number else first)
        for row in scoring.score_card(engine.boards.values(), pair_id):
            direction = row.direction.value if row.direction else None
            lines.append(
                PlayerCardLine(
                    board=row.board,
                    round=row.round,
                    table=row.table if isinstance(row.table, int) else None,
                    seat=_seat(direction, first == number),
                    partner=partner,
                    opponents=found.players_of(row.opponents),
                    contract=standings.symbols(row.contract),
                    declarer=row.declarer[0] if row.declarer else None,
                    result=row.result,
                    score=row.label,
                    value=None if row.value is None else scoring.to_decimal(row.value, 2),
                    percent=None if row.percent is None else scoring.to_decimal(row.percent, 0),
                    note=notes.get((row.board, row.table, row.round)),
                )
            )
    lines.sort(key=lambda x: (x.round or 0, x.board))
    placed = ranking(found, public=public)
    line = next((x for x in placed.lines if x.number == number), None)
    unit = data.method.spec.unit
    return PlayerCard(found.player(number), line, lines, unit, len(data.plays))

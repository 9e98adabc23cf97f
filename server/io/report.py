"""The report of a scored event: the ranking and every board's traveller, as the offline
scorer (``scorefile.score_event``) builds it and the writers (PBN, USEBIO, CSV) print it."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction

from server.scoring import Method, Profile, ScoredLine, to_decimal
from server.scoring.profiles import DBF

from .model import EventFile, Line, PairKey


@dataclass(frozen=True, slots=True)
class ScoredRankingLine:
    """A pair's line in the ranking, scored (exact), as `traveller score` prints it (the pages'
    ``RankingLine`` rounds its figures)."""

    key: PairKey
    names: tuple[str, ...]
    direction: str | None
    """The direction it is ranked in (two-winner events), else the key's direction or None."""
    total: Fraction
    percentage: Fraction | None
    place: str
    boards: int
    penalty: Fraction = Fraction(0)
    """Deducted from the total (§ 211), in the ranking's unit."""
    handicap: Fraction | None = None
    """The pair's handicap (percentage points) in a handicap event, else None."""
    handicapped: Fraction | None = None
    """The published percentage of a handicap pair: raw plus the profile's share of the
    handicap; the place stays the scratch place."""


@dataclass(frozen=True, slots=True)
class ScoredTraveller:
    """A board's traveller, scored: the scorer's lines (``server.scoring.ScoredLine``) as they
    are, under the board and its section."""

    board: int
    section: str | None
    rows: tuple[ScoredLine, ...]


@dataclass(frozen=True, slots=True)
class ScoreReport:
    """An event scored: the ranking and every board's traveller."""

    event: EventFile
    method: Method
    winners: int
    pairs: tuple[ScoredRankingLine, ...]
    boards: tuple[ScoredTraveller, ...]
    profile: Profile = DBF
    """The conventions it was scored under (server/scoring/profiles.py)."""
    partnerships: dict[PairKey, tuple[int, int]] | None = None
    """An individual event's partnerships (the travellers' keys) -> their two players; its
    ranking (``pairs``) is then one line a player, keyed by the player's number."""

    def row_key(self, board: int, row: ScoredLine) -> tuple[int, str, str]:
        """A scored row as ``line_key`` names the file's line it comes from."""
        return board, self.side(row.ns), self.side(row.ew)

    def side(self, key: Hashable | None) -> str:
        """A traveller's side as printed: the pair, or an individual's two players "3-7"."""
        if isinstance(key, PairKey) and self.partnerships and key in self.partnerships:
            return "-".join(str(n) for n in self.partnerships[key])
        return str(key)


def line_key(line: Line) -> tuple[int, str, str]:
    """A line by its board and two sides as printed: the pairs, or an individual's
    partnerships "north-south" and "east-west" (``ScoreReport.side``)."""
    if line.players is not None:
        north, east, south, west = line.players
        return line.board, f"{north}-{south}", f"{east}-{west}"
    return line.board, str(line.ns), str(line.ew)


def decimal(value: Fraction | None, places: int = 2) -> float | None:
    """An exact value rounded (halves away from zero) for printing."""
    return None if value is None else float(to_decimal(value, places))

"""Plain data every format reads into and writes from: pairs, boards and traveller lines."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from protocol.bridge import BridgeError, ns_score
from server.scoring import Direction, Method, SideScore, side_label


def played_points(
    board: int, contract: str | None, declarer: str | None, tricks: int | None
) -> int | None:
    """The N/S score (Law 77) of a contract a file says was played, or None without one (or
    with one that cannot be scored)."""
    if contract is None or tricks is None:
        return None
    try:
        return ns_score(board, contract, None if contract == "PASS" else declarer, tricks)
    except BridgeError:
        return None


@dataclass(frozen=True, slots=True, order=True)
class PairKey:
    """A pair: its number, and its section and direction when the numbering needs them."""

    section: str | None
    number: int
    direction: str | None = None
    """"NS"/"EW" when pair numbers repeat across directions (a Mitchell), else None."""

    def __str__(self) -> str:
        text = str(self.number)
        if self.direction:
            text += f" {self.direction}"
        if self.section:
            text = f"({self.section}) {text}"
        return text


@dataclass(slots=True)
class PairEntry:
    """A pair in the event, with what the file published for it (never used to score)."""

    key: PairKey
    names: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    published_total: Decimal | None = None
    published_percentage: Decimal | None = None
    published_place: str | None = None
    penalty: Fraction = Fraction(0)
    """Deductions the TD gave the pair (§ 211), in the ranking's unit; the totals net them."""
    handicap: Decimal | None = None
    """The pair's handicap in percentage points (USEBIO <HANDICAP>), or None in a scratch event."""


@dataclass(slots=True)
class IndividualPlayer:
    """A player of an individual event, with what the file published (never used to score)."""

    section: str | None
    number: int
    name: str = ""
    published_total: Decimal | None = None
    published_percentage: Decimal | None = None
    published_place: str | None = None


@dataclass(slots=True)
class BoardRecord:
    """A board's hand record: dealer, vulnerability and the deal (PBN notation)."""

    number: int
    dealer: str | None = None
    vulnerable: str | None = None
    deal: str | None = None
    """"N:AKQ.JT9.876.5432 ..." in PBN notation, or None without a hand record."""
    optimum: dict[str, dict[str, int]] | None = None
    """Double-dummy tricks the file gives: declarer seat -> strain -> tricks."""


@dataclass(slots=True)
class Line:
    """One table's result on a board, as the traveller gives it."""

    board: int
    ns: PairKey | None
    ew: PairKey | None
    contract: str | None = None
    """Canonical contract ("4SX", "PASS"), or None for an artificial score or no play."""
    declarer: str | None = None
    tricks: int | None = None
    lead: str | None = None
    auction: str | None = None
    """The auction at the table, canonical calls from the dealer ("1C 1NT! P 3NT P P P", an
    alert marked "!"), as ``Result.auction`` holds it; None when not known."""
    alerts: dict[int, str] = field(default_factory=dict)
    """The explanations of the auction's alerted calls, call number (1 = the dealer's first
    call) -> text, as the table keyed them (protocol/alerts.py); empty when none."""
    play: str | None = None
    """The play at the table (``protocol.bridge.play.format_play``: the cards in the order
    played from the opening lead, a last "=n" a claim), as ``Result.play``; None when not known."""
    artificial: tuple[Fraction, Fraction] | None = None
    """(N/S %, E/W %) of an artificial adjusted score."""
    adjusted: tuple[SideScore, SideScore] | None = None
    """A weighted (§ X78A1) or unbalanced (§ X78A2) score: what N/S and E/W are each scored
    on. The formats have no words for it, so the writers print its label."""
    section: str | None = None
    round: int | None = None
    table: int | None = None
    published_ns_score: int | None = None
    published_values: tuple[Decimal, Decimal] | None = None
    """(N/S, E/W) matchpoints or IMPs the file published for this line (never used to score)."""
    score: int | None = None
    """The N/S score of a line that gives a score and no contract (USEBIO individual events
    write SCORE alone): scored from it, as the table entered it."""
    players: tuple[int, int, int, int] | None = None
    """The North, East, South and West players of a line of an individual event (its ``ns``
    and ``ew`` are then None: the partnerships change from round to round)."""

    @property
    def played(self) -> bool:
        return (
            self.contract is not None
            or self.artificial is not None
            or self.adjusted is not None
            or self.score is not None
        )

    def adjusted_labels(self) -> tuple[str, str] | None:
        """The N/S and E/W labels of a weighted or unbalanced score ("60% 420 / 40% -50")."""
        if self.adjusted is None:
            return None
        ns, ew = self.adjusted
        return side_label(ns, Direction.NS), side_label(ew, Direction.EW)

    def ns_points(self) -> int | None:
        """The N/S score of the contract played (Law 77), or the score the line gives without
        a contract, or None without either."""
        if self.contract is None and self.score is not None:
            return self.score
        return played_points(self.board, self.contract, self.declarer, self.tricks)


@dataclass(slots=True)
class TeamLine:
    """One table's result in a team match: which team sat N/S, and what was played."""

    board: int
    ns_team: str
    ew_team: str
    stage: str | None = None
    """The round or stage the match belongs to ([Round] or [Stage]), if the file says."""
    room: str | None = None
    """"Open" or "Closed" when the file says ([Room])."""
    table: str | None = None
    contract: str | None = None
    declarer: str | None = None
    tricks: int | None = None
    lead: str | None = None
    auction: str | None = None
    """The auction at the table, as ``Line.auction``."""
    play: str | None = None
    """The play at the table, as ``Line.play``."""
    published_ns_score: int | None = None
    published_ns_imps: Decimal | None = None
    """The N/S team's IMPs on the board as the file published them ([ScoreIMP])."""
    players: tuple[str, str, str, str] = ("", "", "", "")
    """The players' names, North, East, South and West, where known (written, not read)."""
    source_line: int | None = None
    element: str | None = None
    """Where in a structured file the line is ("MATCH 2 / BOARD 5 / TRAVELLER_LINE 1")."""

    def ns_points(self) -> int | None:
        """The N/S score of the contract played (Law 77), or None without one."""
        return played_points(self.board, self.contract, self.declarer, self.tricks)


@dataclass(slots=True)
class TeamEntry:
    """A team as the file lists it, with what it published for the team (never used to score)."""

    team: str
    """The team as the lines name it (USEBIO TEAM_ID, PBN [HomeTeam]/[VisitTeam])."""
    name: str = ""
    players: tuple[str, ...] = ()
    pairs: tuple[str, ...] = ()
    """The pair numbers the file lists under the team (USEBIO TEAM / PAIR / PAIR_NUMBER)."""
    published_total: Decimal | None = None
    published_place: str | None = None


@dataclass(slots=True)
class PublishedMatch:
    """A match's result as the file published it, kept to compare against (never used to score)."""

    stage: str | None
    home: str
    away: str
    home_score: Decimal | None = None
    """IMPs (or board-a-match points) the file gives the home team (USEBIO TEAM_SCORE)."""
    away_score: Decimal | None = None
    home_vp: Decimal | None = None
    away_vp: Decimal | None = None
    boards: int | None = None
    """The boards that counted in the match, where the file says."""


@dataclass(frozen=True, slots=True)
class TeamBye:
    """A team without a match in a round (a round robin of an odd number of teams)."""

    stage: str | None
    team: str


@dataclass(slots=True)
class TeamEvent:
    """The team matches of an event file: every table's result with the teams seated."""

    lines: list[TeamLine] = field(default_factory=list)
    board_a_match: bool = False
    """Scored board-a-match / point-a-board (§ 206), as the file says, instead of IMPs and VPs."""
    entries: list[TeamEntry] = field(default_factory=list)
    published: list[PublishedMatch] = field(default_factory=list)
    scoring: str = ""
    """The file's own words for the board and match scoring (USEBIO BOARD_SCORING_METHOD /
    MATCH_SCORING_METHOD), e.g. "IMPS/VPS" or "PAB"."""
    byes: list[TeamBye] = field(default_factory=list)
    """The teams that sat a round out, as the file says; each gets the bye's VPs (§ 202D)
    once a match of its round has a board that counts."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """A piece of a file that was not read, where it is and why (never dropped silently)."""

    reason: str
    line: int | None = None
    """The line in the file (1-based), when the format has lines."""
    element: str | None = None
    """Where in a structured file ("BOARD 5 / TRAVELLER_LINE 3", "[Board \"7\"]"); it
    names the board itself, so `board` is then only for filtering."""
    board: int | None = None

    def __str__(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.element:
            where.append(self.element)
        if self.board is not None and self.element is None:
            where.append(f"board {self.board}")
        return f"{', '.join(where)}: {self.reason}" if where else self.reason


TEAM_PROVISIONAL = (
    "provisional: exported before every result was in; a board counts in a match once both "
    "rooms have played it"
)
"""What a provisional team export says of itself (PBN: a comment and [Provisional]; USEBIO:
the ``<?traveller ...?>`` instruction and a comment)."""


def provisional_note(tables: int) -> str:
    """What a provisional export says of itself (PBN: a comment and the [Provisional] and
    [TablesPerBoard] tags; USEBIO: the ``<?traveller ...?>`` instruction and a comment)."""
    return (
        "provisional: exported before every result was in; each board is scored over "
        f"{tables} tables (the movement's), boards played fewer times factored up (§ X78B)"
    )


@dataclass(slots=True)
class EventFile:
    """An event read from (or to be written to) a file."""

    name: str = ""
    date: str = ""
    club_id: str = ""
    """The club's number with its federation (USEBIO CLUB_ID_NUMBER), or "" when not known."""
    provisional: bool = False
    """Exported before every result of the session was in: more results will come."""
    tables_per_board: int | None = None
    """The tables each board is scored over as the file says (a provisional export: the
    movement's), or None to score each board over the most results any board has."""
    method: Method | None = None
    """The scoring method the file names, if any."""
    scoring: str = ""
    """The file's own words for the scoring method."""
    winners: int | None = None
    """1 for one ranking, 2 for one per direction; None if the file does not say."""
    across_sections: bool = False
    pairs: list[PairEntry] = field(default_factory=list)
    players: list[IndividualPlayer] = field(default_factory=list)
    """An individual event's players; its lines name them (``Line.players``), not pairs."""
    boards: dict[int, BoardRecord] = field(default_factory=dict)
    lines: list[Line] = field(default_factory=list)
    source: str = ""
    """The format it came from ("pbn", "usebio", "csv", "bws")."""
    program: str = ""
    """The program that wrote the file, as the file names it (PBN [Application] or
    [Generator], USEBIO PROGRAM_NAME/PROGRAM_VERSION), or "" when it does not say."""
    teams: TeamEvent | None = None
    """A team event's matches (PBN records naming [HomeTeam] and [VisitTeam]), else None."""
    refused: list[Refusal] = field(default_factory=list)
    """Every traveller line (or other piece) the reader could not read, with place and reason."""
    notes: list[str] = field(default_factory=list)
    """What the reader decided that the TD should know (a conflict between the event type and
    the scoring method, a spelling taken one way); shown with the summary, never fatal."""

    @property
    def individual(self) -> bool:
        """Whether the lines seat players (an individual event) rather than pairs."""
        return bool(self.players) or any(line.players is not None for line in self.lines)

    def pair(self, key: PairKey) -> PairEntry | None:
        for entry in self.pairs:
            if entry.key == key:
                return entry
        return None

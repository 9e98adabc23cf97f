"""The live ranking, board travellers and personal score cards, scored by ``server.scoring``.

The public views only use boards every table has finished (or all boards once the TD has
published the results), so nobody sees a result before they have played the board.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from fractions import Fraction
from typing import Any, cast

import sqlalchemy as sa
from sqlmodel import Session, col, select

from protocol import fair_play
from protocol.bridge import BridgeError, Contract
from protocol.messages import COMPLETE_STATES, BoardResultView, RoundInfo
from server import scoring
from server.core.errors import NotFoundError
from server.core.models import Board, Event, MovementAssignment, Pair, Result, Sanction, Section
from server.io.model import TeamEvent
from server.scoring import BoardResult, Method, ScoringOptions, methods
from server.services.deadlines import PublishedChange, published_changes
from server.services.event import handicaps
from server.services.results import adjusted
from server.services.views import pair_number


@dataclass(frozen=True)
class PairName:
    """A pair as results pages show it."""

    id: int
    number: int
    direction: str | None
    label: str  # "3 NS" or "7"
    key: str  # "3NS" or "7", for links
    names: str


def pair_name(pair: Pair) -> PairName:
    direction = pair.direction
    names = " – ".join(n for n in (pair.player1, pair.player2) if n)
    return PairName(
        id=pair.id or 0,
        number=pair.number,
        direction=direction,
        label=f"{pair.number} {direction}" if direction else str(pair.number),
        key=f"{pair.number}{direction or ''}",
        names=names,
    )


@dataclass(frozen=True)
class Played:
    """A stored result as plain values (loading them as ORM rows costs more than scoring)."""

    table_number: int
    round: int
    board: int
    ns_pair_id: int | None
    ew_pair_id: int | None
    state: str
    contract: str | None
    declarer: str | None
    tricks: int | None
    lead: str | None
    adjusted: str | None
    section_id: int


_PLAYED = [
    col(Result.table_number),
    col(Result.round),
    col(Result.board),
    col(Result.ns_pair_id),
    col(Result.ew_pair_id),
    col(Result.state),
    col(Result.contract),
    col(Result.declarer),
    col(Result.tricks),
    col(Result.lead),
    col(Result.adjusted),
    col(Result.section_id),
]


@dataclass
class SectionData:
    """A section's results and movement, loaded once (in a short transaction) and then scored
    from plain data outside it."""

    section: Section
    event: Event
    pairs: dict[int, Pair]
    results: list[Played]
    plays: dict[int, set[tuple[int, int]]]
    """Board -> every (table, round) that plays it: a pair on each side (a sit-out plays none)."""
    penalties: dict[Hashable, Fraction]  # pair id -> total deduction
    changes: list[PublishedChange] = field(default_factory=list)  # § X79, newest first
    boards: dict[int, Board] = field(default_factory=dict)
    """Number -> hand record; loaded for the exports only (``exports.load``), else empty."""
    played: dict[tuple[int, int, int], tuple[str | None, str | None, str | None]] = field(
        default_factory=dict
    )
    """(table, round, board) -> the auction, play and alert explanations (as stored) keyed
    there; for the exports only."""
    seats: dict[tuple[int, int], tuple[int, int, int, int]] = field(default_factory=dict)
    """An individual's (table, round) -> its North, East, South and West players; for the
    exports only (empty for a pairs section)."""
    players: dict[int, str] = field(default_factory=dict)
    """An individual's players, number -> name; for the exports only."""
    teams: TeamEvent | None = None
    """A teams section's teams and match results as the TD's standings give them (no lines
    yet: ``exports.event_file`` adds the tables); for the exports only."""

    @property
    def method(self) -> Method:
        return methods.of(self.event.scoring).key

    @property
    def profile(self) -> scoring.Profile:
        """The event's convention profile (DBf for a name no longer known)."""
        return scoring.PROFILES.get(self.event.scoring_profile, scoring.get_profile(None))

    @property
    def field_size(self) -> int:
        return max((len(v) for v in self.plays.values()), default=1)

    @property
    def published(self) -> bool:
        return self.section.publication in ("provisional", "final")

    def released(self) -> set[int]:
        """Boards every table that plays them has finished (the public may see them)."""
        done = {
            (r.board, r.table_number, r.round) for r in self.results if r.state in COMPLETE_STATES
        }
        return fair_play.released(self.plays, done)


def load(session: Session, section: Section) -> SectionData:
    event = session.get(Event, section.event_id)
    assert event is not None
    sid = section.id
    pairs = {p.id or 0: p for p in session.exec(select(Pair).where(Pair.section_id == sid))}
    rows = session.connection().execute(sa.select(*_PLAYED).where(col(Result.section_id) == sid))
    results = [Played(*cast(Any, row)) for row in rows]
    plays: dict[int, set[tuple[int, int]]] = defaultdict(set)
    m = MovementAssignment
    movement = sa.select(
        col(m.table_number), col(m.round), col(m.boards), col(m.ns_pair_id), col(m.ew_pair_id)
    ).where(col(m.section_id) == sid)
    for table, round_, boards, ns, ew in session.connection().execute(movement):
        if not fair_play.plays_here(ns, ew):
            continue
        for board in boards.split(","):
            if board:
                plays[int(board)].add((table, round_))
    penalties: dict[Hashable, Fraction] = {}
    for s in session.exec(select(Sanction).where(Sanction.section_id == sid)):
        # A row stored before the amounts were bounded (1e26) is left out, not a 500.
        amount = scoring.stored_deduction(s.amount)
        if s.withdrawn_at is None and not s.warning and amount is not None:
            penalties[s.pair_id] = penalties.get(s.pair_id, Fraction(0)) + amount
    changes = published_changes(session, section) if section.published_at else []
    return SectionData(section, event, pairs, results, dict(plays), penalties, changes)


def parse_adjusted(text: str) -> tuple[Fraction, Fraction] | None:
    """The N/S and E/W percentages of an artificial score "A60/40", or None."""
    if not text.startswith("A") or "/" not in text:
        return None
    ns, ew = text[1:].split("/", 1)
    try:
        return Fraction(ns), Fraction(ew)
    except (ValueError, ZeroDivisionError):
        return None


def board_result(result: Played) -> BoardResult | None:
    """What the scorer sees of a stored result; None while it is not settled."""
    ns, ew = result.ns_pair_id, result.ew_pair_id
    table, round_, section = result.table_number, result.round, result.section_id
    if result.state == "not_played":
        return BoardResult(
            result.board, ns, ew, None, None, table=table, round=round_, section=section
        )
    if ns is None or ew is None:
        return None
    if result.state == "adjusted" and result.adjusted:
        try:
            made = adjusted.parse(result.adjusted)
        except ValueError:
            return None
        return made.board_result(result.board, ns, ew, table=table, round=round_, section=section)
    settled = result.state in ("confirmed", "td_pending")
    if settled and result.contract and result.tricks is not None:
        return BoardResult.from_play(
            result.board,
            ns,
            ew,
            result.contract,
            result.declarer,
            result.tricks,
            lead=result.lead,
            table=table,
            round=round_,
            section=section,
        )
    return None


def scorer(data: SectionData, *, public: bool) -> scoring.PairsScorer:
    """Score the section: every settled result (TD view) or only the released boards."""
    visible = None if (not public or data.published) else data.released()
    results: Iterable[Played] = data.results
    if visible is not None:
        results = [r for r in data.results if r.board in visible]
    scored = [b for b in (board_result(r) for r in results) if b is not None]
    options = data.profile.options(ScoringOptions(method=data.method, field=data.field_size))
    engine = scoring.PairsScorer(scored, options, pairs=list(data.pairs))
    engine.set_penalties(data.penalties)
    return engine


@dataclass(frozen=True)
class RankingLine:
    """One pair's line in the ranking."""

    place: str
    pair: PairName
    total: Decimal
    percent: Decimal | None
    boards: int
    penalty: Decimal
    handicap: Decimal | None = None
    """A handicap pairs event: the pair's handicap in percentage points."""
    handicapped: Decimal | None = None
    """The published percentage of a handicap pair: raw plus the profile's share of its
    handicap (``Profile.handicapped``); the place stays the scratch place."""


@dataclass(frozen=True)
class RankingGroup:
    """A ranked group: N/S or E/W of a Mitchell, or all pairs of a Howell."""

    title: str
    lines: list[RankingLine]


@dataclass(frozen=True)
class Ranking:
    """The ranking of a section as one audience may see it."""

    section_id: int
    event: str
    letter: str
    method: str
    unit: str
    groups: list[RankingGroup]
    boards_shown: list[int]
    boards_total: int
    publication: str
    published_at: datetime | None
    corrections_until: datetime | None
    public: bool
    changes: list[PublishedChange] = field(default_factory=list)
    """Changes published after the results, each with its own deadline (§ X79)."""

    @property
    def lines(self) -> list[RankingLine]:
        return [line for group in self.groups for line in group.lines]

    @property
    def handicaps(self) -> bool:
        """Whether any pair of the section has a handicap (the pages then show both
        percentages)."""
        return any(line.handicap is not None for line in self.lines)


def _groups(data: SectionData) -> list[tuple[str, list[int]]]:
    by_direction: dict[str | None, list[int]] = defaultdict(list)
    for pair_id, pair in sorted(data.pairs.items(), key=lambda kv: kv[1].number):
        by_direction[pair.direction].append(pair_id)
    titles = {"NS": "North–South", "EW": "East–West", None: "All pairs"}
    return [(titles[d], ids) for d, ids in by_direction.items() if ids]


def ranking(session: Session, section: Section, *, public: bool = True) -> Ranking:
    """The live ranking; ``public`` leaves out boards not every table has finished."""
    return rank(load(session, section), public=public)


def rank(data: SectionData, *, public: bool = True) -> Ranking:
    """The ranking of loaded data (pure: run it outside the database transaction)."""
    return _ranking(data, scorer(data, public=public), public=public)


def _ranking(data: SectionData, engine: scoring.PairsScorer, *, public: bool) -> Ranking:
    section = data.section
    groups = []
    for title, ids in _groups(data):
        lines = [_line(data, s) for s in engine.standings(ids)]
        groups.append(RankingGroup(title, lines))
    shown = sorted({key[1] for key in engine.boards})
    return Ranking(
        section_id=section.id or 0,
        event=data.event.name,
        letter=section.letter,
        method=data.method.value,
        unit=data.method.spec.unit,
        groups=groups,
        boards_shown=shown,
        boards_total=len(data.plays),
        publication=section.publication,
        published_at=section.published_at,
        corrections_until=section.corrections_until,
        public=public,
        changes=data.changes,
    )


Seats = dict[tuple[int, int], tuple[int | None, int | None]]
"""(table, round) -> the N/S and E/W pair ids the movement seats there."""


def seats(session: Session, section: Section) -> Seats:
    """Who sits where, for results pushed with their table and round but not their pairs."""
    m = MovementAssignment
    rows = session.exec(
        select(m.table_number, m.round, m.ns_pair_id, m.ew_pair_id).where(
            m.section_id == section.id
        )
    )
    return {(table, round_): (ns, ew) for table, round_, ns, ew in rows}


Versions = dict[tuple[int, int, int], int]
"""(table, round, board) -> the stored result's version."""


def versions(session: Session, section: Section) -> Versions:
    """Each stored result's version, so that a push older than what was loaded changes nothing."""
    r = Result
    rows = session.exec(
        select(r.table_number, r.round, r.board, r.version).where(r.section_id == section.id)
    )
    return {(table, round_, board): version for table, round_, board, version in rows}


class LiveRanking:
    """A section's ranking kept scored as results arrive: a result rescores only its board
    (``PairsScorer.set_board``: that board's comparisons, the pair totals by difference), under
    the same rule as :func:`rank` for what ``public`` may see (a board counts once every table
    that plays it has finished, or once the results are published).

    ``put`` answers False when it cannot follow a change exactly (a board the loaded movement
    does not have, a pair it cannot place, a board leaving the ranking again); the caller
    then loads and ranks afresh. ``ranking()`` equals ``rank(data, public=...)`` of the same
    results (tested over random command sequences)."""

    def __init__(
        self,
        data: SectionData,
        seated: Seats,
        *,
        public: bool,
        versions: Versions | None = None,
    ) -> None:
        self.data = data
        self.seated = seated
        self.versions = dict(versions or {})
        self.rescored = False  # a board was scored again since the last ranking()
        self.public = public
        self.engine = scorer(data, public=public)
        self._at = {(r.table_number, r.round, r.board): i for i, r in enumerate(data.results)}
        self._on: dict[int, list[int]] = defaultdict(list)  # board -> indices in results
        #: (table, round) -> the boards the loaded movement plays there (made when first asked).
        self._boards_at: dict[tuple[int, int], set[int]] | None = None
        for i, r in enumerate(data.results):
            self._on[r.board].append(i)

    def _shown(self, board: int) -> bool:
        """Whether the audience may see ``board`` now (the rule of :func:`scorer`)."""
        data = self.data
        if not self.public or data.published:
            return True
        done = {
            (board, data.results[i].table_number, data.results[i].round)
            for i in self._on.get(board, [])
            if data.results[i].state in COMPLETE_STATES
        }
        return board in fair_play.released({board: data.plays.get(board, set())}, done)

    def put(self, view: BoardResultView) -> bool:
        """Take one result as pushed; False when only a full recompute can follow it."""
        data = self.data
        where = (view.table, view.round, view.board)
        if view.board not in data.plays or (view.table, view.round) not in data.plays[view.board]:
            return False
        if self.versions.get(where, 0) >= view.version:
            return True  # already loaded, or a newer version is
        self.versions[where] = view.version
        i = self._at.get(where)
        if i is not None:
            ns, ew = data.results[i].ns_pair_id, data.results[i].ew_pair_id
        elif where[:2] in self.seated:
            ns, ew = self.seated[where[:2]]
        else:
            return False
        played = Played(
            view.table,
            view.round,
            view.board,
            ns,
            ew,
            view.state.value,
            view.contract,
            view.declarer,
            view.tricks,
            view.lead,
            view.adjusted,
            data.section.id or 0,
        )
        if i is None:
            self._at[where] = len(data.results)
            self._on[view.board].append(len(data.results))
            data.results.append(played)
        else:
            data.results[i] = played
        return self._rescore(view.board)

    def _rescore(self, board: int) -> bool:
        data, engine = self.data, self.engine
        section = data.section.id
        key = (None if engine.options.across_sections else section, board)
        scored: list[BoardResult] = []
        if self._shown(board):
            found = (board_result(data.results[i]) for i in self._on.get(board, []))
            scored = [b for b in found if b is not None]
        if scored:
            engine.set_board(board, scored, section)
            self.rescored = True
        elif key in engine.boards:
            return False  # the board leaves the ranking: the scorer has no way to drop a key
        return True

    def seated_as_loaded(self, info: RoundInfo) -> bool:
        """Whether a round pushed to a table (its own move, or the TD starting or closing a
        round) is the loaded movement's own: the same pairs at that table in that round, the
        same boards, the same number of rounds. Then nothing ranked changed: the ranking
        follows the results and the movement, not where the tables are now (a board is shown
        once every table that plays it has finished, wherever they sit). Anything else (a
        changed movement, a sit-out, a round the movement does not have) asks for a full read."""
        where = (info.table, info.round)
        seated = self.seated.get(where)
        if seated is None or info.rounds != self.data.section.rounds:
            return False
        numbers = tuple(pair_number(self.data.pairs, pair_id) for pair_id in seated)
        if None in numbers or numbers != tuple(p.number if p else None for p in (info.ns, info.ew)):
            return False
        if self._boards_at is None:
            self._boards_at = defaultdict(set)
            for board, places in self.data.plays.items():
                for place in places:
                    self._boards_at[place].add(board)
        return {b.board for b in info.boards} == self._boards_at.get(where, set())

    def ranking(self) -> Ranking:
        self.rescored = False
        return _ranking(self.data, self.engine, public=self.public)


def _line(data: SectionData, standing: scoring.Standing) -> RankingLine:
    pair = data.pairs.get(standing.pair) if isinstance(standing.pair, int) else None
    handicap = handicaps.value(pair) if pair is not None else None
    handicapped = data.profile.handicapped(standing.percent, handicap) if standing.boards else None
    return RankingLine(
        place=standing.place,
        pair=_known(data, standing.pair),
        total=scoring.to_decimal(standing.total, 2),
        percent=standing.percent_display,
        boards=standing.boards,
        penalty=scoring.to_decimal(standing.penalty, 2),
        handicap=None if pair is None or pair.handicap is None else Decimal(pair.handicap),
        handicapped=_dec(handicapped),
    )


@dataclass(frozen=True)
class TravellerLine:
    """One table's result on a board's traveller."""

    table: int | None
    round: int | None
    ns: PairName | None
    ew: PairName | None
    contract: str | None
    declarer: str | None
    lead: str | None
    result: str | None
    ns_score: str
    ew_score: str
    ns_value: Decimal | None
    ew_value: Decimal | None
    ns_percent: Decimal | None
    ew_percent: Decimal | None
    note: str | None = None  # the kind of a TD's adjusted score: assigned, weighted, ...
    corrections_until: datetime | None = None  # changed after publication: its deadline


@dataclass(frozen=True)
class Traveller:
    """A board's traveller, or why it is not shown yet."""

    board: int
    visible: bool
    lines: list[TravellerLine]
    unit: str


def _dec(value: Fraction | None, places: int = 2) -> Decimal | None:
    return None if value is None else scoring.to_decimal(value, places)


def _known(data: SectionData, pair_id: object) -> PairName:
    found = _pair(data, pair_id)
    assert found is not None
    return found


def _pair(data: SectionData, pair_id: object) -> PairName | None:
    pair = data.pairs.get(pair_id) if isinstance(pair_id, int) else None
    return pair_name(pair) if pair is not None else None


def symbols(contract: str | None) -> str | None:
    """A contract with suit symbols: "4SX" -> "4♠X"."""
    if contract is None:
        return None
    try:
        return Contract.parse(contract).format(symbols=True)
    except BridgeError:
        return contract


def traveller(session: Session, section: Section, board: int, *, public: bool = True) -> Traveller:
    """A board's results at every table, scored; hidden from the public until it is released."""
    return travel(load(session, section), board, public=public)


def travel(data: SectionData, board: int, *, public: bool = True) -> Traveller:
    """The traveller of loaded data (pure)."""
    section = data.section
    if board not in data.plays:
        raise NotFoundError(
            "unknown_board", "Board {board} is not played in this section.", board=board
        )
    unit = data.method.spec.unit
    if public and not data.published and board not in data.released():
        return Traveller(board, False, [], unit)
    engine = scorer(data, public=public)
    key = (section.id, board)
    if key not in engine.boards:
        return Traveller(board, True, [], unit)
    rows = scoring.traveller(engine.boards[key])
    notes = adjusted_kinds(data)
    until = change_deadlines(data)
    lines = [
        TravellerLine(
            table=row.table if isinstance(row.table, int) else None,
            round=row.round,
            ns=_pair(data, row.ns),
            ew=_pair(data, row.ew),
            contract=symbols(row.contract),
            declarer=row.declarer[0] if row.declarer else None,
            lead=row.lead,
            result=row.result,
            ns_score=row.ns_label,
            ew_score=row.ew_label,
            ns_value=_dec(row.ns_value),
            ew_value=_dec(row.ew_value),
            ns_percent=_dec(row.ns_percent, 0),
            ew_percent=_dec(row.ew_percent, 0),
            note=notes.get((board, row.table, row.round)),
            corrections_until=until.get((board, row.table, row.round)),
        )
        for row in rows
    ]
    return Traveller(board, True, lines, unit)


Where = tuple[int, Hashable, int | None]


def adjusted_kinds(data: SectionData) -> dict[Where, str]:
    """(board, table, round) -> the kind of the TD's adjusted score there."""
    out: dict[Where, str] = {}
    for r in data.results:
        if r.state == "adjusted":
            kind = adjusted.kind_of(r.adjusted)
            if kind is not None:
                out[(r.board, r.table_number, r.round)] = kind
    return out


def change_deadlines(data: SectionData) -> dict[Where, datetime]:
    """(board, table, round) -> the latest deadline a published change opened there."""
    out: dict[Where, datetime] = {}
    for change in data.changes:
        key = (change.board, change.table, change.round)
        if key not in out or out[key] < change.until:
            out[key] = change.until
    return out


@dataclass(frozen=True)
class CardLine:
    """One board on a pair's personal score card."""

    board: int
    round: int | None
    table: int | None
    direction: str | None
    opponents: PairName | None
    contract: str | None
    declarer: str | None
    result: str | None
    score: str
    value: Decimal | None
    percent: Decimal | None
    note: str | None = None  # the kind of a TD's adjusted score on this board


@dataclass(frozen=True)
class ScoreCard:
    """A pair's personal score card: its line in the ranking and every scored board."""

    pair: PairName
    line: RankingLine | None
    lines: list[CardLine]
    unit: str
    boards_total: int


def find_pair(data: SectionData, key: str) -> Pair:
    """The pair for a key such as "3NS", "3EW" or "7"."""
    text = key.strip().upper()
    direction = next((d for d in ("NS", "EW") if text.endswith(d)), None)
    number = text[: -len(direction)] if direction else text
    for pair in data.pairs.values():
        if str(pair.number) == number and pair.direction == direction:
            return pair
    raise NotFoundError("unknown_pair", "There is no pair {key} in this section.", key=key)


def score_card(session: Session, section: Section, key: str, *, public: bool = True) -> ScoreCard:
    """A pair's boards so far (public: released boards only), with its place."""
    return card(load(session, section), key, public=public)


def card(data: SectionData, key: str, *, public: bool = True) -> ScoreCard:
    """The score card of loaded data (pure)."""
    pair = find_pair(data, key)
    engine = scorer(data, public=public)
    rows = scoring.score_card(engine.boards.values(), pair.id)
    notes = adjusted_kinds(data)
    lines = [
        CardLine(
            board=row.board,
            round=row.round,
            table=row.table if isinstance(row.table, int) else None,
            direction=row.direction.value if row.direction else None,
            opponents=_pair(data, row.opponents),
            contract=symbols(row.contract),
            declarer=row.declarer[0] if row.declarer else None,
            result=row.result,
            score=row.label,
            value=_dec(row.value),
            percent=_dec(row.percent),
            note=notes.get((row.board, row.table, row.round)),
        )
        for row in rows
    ]
    placed = rank(data, public=public)
    line = next((x for x in placed.lines if x.pair.id == pair.id), None)
    return ScoreCard(pair_name(pair), line, lines, data.method.spec.unit, len(data.plays))


def pairs(session: Session, section: Section) -> list[PairName]:
    """Every pair of the section, by direction and number."""
    rows = session.exec(select(Pair).where(Pair.section_id == section.id)).all()
    return [pair_name(p) for p in sorted(rows, key=lambda p: (p.direction or "", p.number))]


def released_boards(session: Session, section: Section) -> list[int]:
    """The boards the public may see now."""
    return visible_boards(load(session, section))


def visible_boards(data: SectionData) -> list[int]:
    return sorted(data.plays if data.published else data.released())

"""Read models for the TD's dashboard: the table grid, missing entries, calls and terminals."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from sqlmodel import Session, col, select

from protocol import alerts
from protocol.messages import (
    COMPLETE_STATES,
    BoardResultView,
    Message,
    ResultChanged,
    ResultState,
    RoundChanged,
    RoundInfo,
)
from server.core.errors import NotFoundError
from server.core.models import (
    Audit,
    Board,
    BridgeTable,
    Event,
    MovementAssignment,
    Pair,
    ReceivedEntry,
    Result,
    Section,
    TableToken,
    TDCall,
    utcnow,
)
from server.services.event.setup import tables_of
from server.services.views import pair_info, pair_number, result_view, results_at

#: A terminal that spoke this recently counts as online even without a live websocket.
ONLINE_SECONDS = 90

#: The grid shows at most this many round columns; earlier rounds share one column.
MAX_ROUND_COLUMNS = 12


@dataclass(frozen=True)
class Cell:
    """One table in one round: how many boards are in each state, and its overall status."""

    round: int
    boards: int
    missing: int = 0
    entered: int = 0
    confirmed: int = 0
    conflict: int = 0
    td_pending: int = 0
    settled: int = 0  # adjusted or not played by the TD
    status: str = "future"  # future | current-* | conflict | left | missing | entered | ...
    current: bool = False

    @property
    def done(self) -> int:
        return self.confirmed + self.td_pending + self.settled


@dataclass(frozen=True)
class Terminal:
    """A paired device of a table."""

    id: int
    device: str
    created_at: datetime
    expires_at: datetime
    last_seen: datetime | None
    revoked_at: datetime | None
    online: bool
    queued: int | None = None  # its outbox size when it last reported it
    queued_at: datetime | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


@dataclass(frozen=True)
class TableRow:
    """A table's line on the grid: where it is, for how long, and each round's cell."""

    table: int
    round: int
    ns: str
    ew: str
    since: datetime | None
    elapsed: int | None  # seconds in the current round
    late: bool
    complete: bool
    online: bool
    devices: int
    last_seen: datetime | None
    calls: int
    cells: list[Cell]  # the rounds on show
    earlier: Cell | None = None  # the rounds before them, summed up
    #: Commands its terminals hold, not yet sent, as they last reported (results stored at
    #: the table but not here: § 262C asks both sides to make sure nothing is missing).
    unsent: int = 0


@dataclass(frozen=True)
class Grid:
    """The whole room at a glance."""

    section_id: int
    letter: str
    rounds: int
    current_round: int
    closed_rounds: int
    round_minutes: int | None
    round_started_at: datetime | None
    rows: list[TableRow]
    now: datetime
    totals: dict[str, int] = field(default_factory=dict)
    shown: list[int] = field(default_factory=list)  # the round columns

    @property
    def earlier(self) -> int:
        """How many rounds the "earlier" column sums up (0: none)."""
        return self.shown[0] - 1 if self.shown else 0


def round_window(rounds: int, current: int, width: int = MAX_ROUND_COLUMNS) -> list[int]:
    """The rounds to show as columns: all of them, or a window around the current round."""
    if rounds <= width:
        return list(range(1, rounds + 1))
    if current <= width - 2:
        return list(range(1, width + 1))
    columns = width - 1  # one column sums up the earlier rounds
    last = min(rounds, max(current + 2, columns + 1))
    return list(range(last - columns + 1, last + 1))


def _sum(cells: list[Cell]) -> Cell | None:
    """Rounds before the window as one cell: done, or how much is still out."""
    if not cells:
        return None
    keys = ("boards", "missing", "entered", "confirmed", "conflict", "td_pending", "settled")
    total = {k: sum(getattr(c, k) for c in cells) for k in keys}
    played = [c for c in cells if c.status != "future"]
    if not played:
        status = "future"
    elif total["conflict"]:
        status = "conflict"
    elif any(c.status in ("left", "missing", "entered") for c in played):
        status = "left"
    elif total["td_pending"]:
        status = "td_pending"
    else:
        status = "complete"
    return Cell(round=0, status=status, **total)


@dataclass(frozen=True)
class MissingEntry:
    """A board that should have a result by now and has none (or only an unconfirmed one)."""

    table: int
    round: int
    board: int
    state: str
    left: bool  # the table moved on with the board incomplete (§ 262C)
    since: datetime | None


@dataclass(frozen=True)
class OpenCall:
    """A TD call from a table, waiting for the TD."""

    id: int
    table: int
    round: int
    reason: str
    """What the table said; "" when it gave no reason (a keypad): the page words it."""
    created_at: datetime


@dataclass(frozen=True)
class Seating:
    """One line of the movement, as plain values (reading them as ORM rows is slow)."""

    ns_pair_id: int | None
    ew_pair_id: int | None
    boards: tuple[int, ...]

    def board_numbers(self) -> list[int]:
        return list(self.boards)


def _seating(ns: int | None, ew: int | None, boards: str) -> Seating:
    """A line of the movement; a table where a pair sits out (the phantom's seat, or a pair
    that left) plays no boards that round, so none can be missing there."""
    played = ns is not None and ew is not None
    return Seating(ns, ew, tuple(int(b) for b in boards.split(",") if b) if played else ())


@dataclass
class _Section:
    """Everything about a section the read models need, loaded with a handful of queries."""

    section: Section
    tables: list[BridgeTable]
    assignments: dict[tuple[int, int], Seating]
    states: dict[tuple[int, int], dict[int, str]]  # (table, round) -> board -> state
    pairs: dict[int, Pair]
    tokens: dict[int, list[TableToken]]
    calls: list[TDCall]
    #: (table, round, board) -> the stored result's version (a push older than it is stale).
    versions: dict[tuple[int, int, int], int] = field(default_factory=dict)


def _load(session: Session, section: Section) -> _Section:
    sid = section.id
    tables = tables_of(session, section)
    where = MovementAssignment.section_id == sid
    m = MovementAssignment
    pairs_at = {
        (table, round_): (ns, ew)
        for table, round_, ns, ew in session.exec(
            select(m.table_number, m.round, m.ns_pair_id, m.ew_pair_id).where(where)
        )
    }
    assignments = {
        (table, round_): _seating(*pairs_at[(table, round_)], boards)
        for table, round_, boards in session.exec(
            select(m.table_number, m.round, m.boards).where(where)
        )
    }
    states: dict[tuple[int, int], dict[int, str]] = defaultdict(dict)
    versions: dict[tuple[int, int, int], int] = {}
    r = Result
    stored = sa.select(
        col(r.table_number), col(r.round), col(r.board), col(r.state), col(r.version)
    ).where(col(r.section_id) == sid)
    for table, round_, board, state, version in session.connection().execute(stored):
        states[(table, round_)][board] = state
        versions[(table, round_, board)] = version
    pairs = {p.id or 0: p for p in session.exec(select(Pair).where(Pair.section_id == sid))}
    by_id = {t.id: t.number for t in tables}
    tokens: dict[int, list[TableToken]] = defaultdict(list)
    ids = [t.id for t in tables]
    for tok in session.exec(
        select(TableToken).where(col(TableToken.table_id).in_(ids)).order_by(col(TableToken.id))
    ):
        tokens[by_id[tok.table_id]].append(tok)
    calls = list(
        session.exec(
            select(TDCall)
            .where(TDCall.section_id == sid, TDCall.acknowledged_at == None)  # noqa: E711
            .order_by(col(TDCall.id))
        )
    )
    return _Section(section, tables, assignments, states, pairs, tokens, calls, versions)


def _label(pairs: Mapping[int, Pair], pair_id: int | None) -> str:
    info = pair_info(pairs.get(pair_id)) if pair_id is not None else None
    return info.label if info is not None else "–"


def _cell(data: _Section, table: BridgeTable, round_: int, overdue: bool = False) -> Cell:
    """A table's round; its open boards are red ("missing") only once they are overdue (the
    round left, closed or past its time, as :func:`_overdue` says), else the round is in play.
    A round the table has not reached is "future", unless results are stored for it (the TD
    keyed the travellers of a table without a device, whose own round never moves on): those
    show as keyed, and its open boards as still in play."""
    row = data.assignments.get((table.number, round_))
    boards = row.board_numbers() if row else []
    states = data.states.get((table.number, round_), {})
    if round_ > table.round and not states:
        return Cell(round=round_, boards=len(boards), missing=len(boards))
    ahead = round_ > table.round
    counts: dict[str, int] = defaultdict(int)
    for board in boards:
        state = states.get(board, "missing")
        key = {"rejected": "missing", "adjusted": "settled", "not_played": "settled"}.get(
            state, state
        )
        counts[key] += 1
    current = round_ == table.round
    if counts["conflict"]:
        status = "conflict"
    elif counts["missing"] or counts["entered"]:
        if ahead:
            status = "playing" if counts["missing"] else "entered"
        elif not current:
            status = "left"
        elif overdue:
            status = "missing"
        else:
            status = "playing" if counts["missing"] else "entered"
    elif counts["td_pending"]:
        status = "td_pending"
    else:
        status = "complete" if boards else "future"
    return Cell(
        round=round_,
        boards=len(boards),
        missing=counts["missing"],
        entered=counts["entered"],
        confirmed=counts["confirmed"],
        conflict=counts["conflict"],
        td_pending=counts["td_pending"],
        settled=counts["settled"],
        status=status,
        current=current,
    )


def _online(tokens: list[TableToken], connected: int, now: datetime) -> bool:
    if connected:
        return True
    recent = now - timedelta(seconds=ONLINE_SECONDS)
    return any(t.revoked_at is None and t.last_seen and t.last_seen >= recent for t in tokens)


def _unsent(tokens: list[TableToken]) -> int:
    """What a table's paired terminals hold unsent, as each last reported."""
    return sum(t.queued or 0 for t in tokens if t.revoked_at is None)


def _overdue(section: Section, round_: int, since: datetime | None, elapsed: int | None) -> bool:
    """Whether a table's boards of ``round_`` (its current one) should have results by now:
    the TD closed the round, or the table is past the round time. The grid's red cells, the
    MISSING tile and the missing-entries panel all count by this one rule."""
    return round_ <= section.closed_rounds or _late(section, since, elapsed, False)


def _late(section: Section, since: datetime | None, elapsed: int | None, done: bool) -> bool:
    """Whether a table has been in its round longer than the TD's round time."""
    if done or not section.round_minutes or since is None or elapsed is None:
        return False
    return elapsed > section.round_minutes * 60


def grid(
    session: Session,
    section: Section,
    *,
    connected: Mapping[int, int] | None = None,
    now: datetime | None = None,
) -> Grid:
    """Every table by every round; ``connected`` counts each table's live terminal sockets."""
    return _grid(_load(session, section), connected or {}, now or utcnow())


Counts = dict[str, int]
"""What a table adds to the grid's totals: its boards in each state, rounds up to its own."""

_COUNTED = ("missing", "entered", "confirmed", "conflict", "td_pending")


def _calls_at(data: _Section) -> dict[int, int]:
    calls: dict[int, int] = defaultdict(int)
    for call in data.calls:
        calls[call.table_number] += 1
    return calls


def _row(
    data: _Section,
    table: BridgeTable,
    shown: list[int],
    calls: Mapping[int, int],
    connected: Mapping[int, int],
    now: datetime,
) -> tuple[TableRow, Counts]:
    """A table's line of the grid, and what it adds to the totals."""
    section = data.section
    since = table.round_entered_at if table.round else None
    elapsed = int((now - since).total_seconds()) if since else None
    overdue = _overdue(section, table.round, table.round_entered_at, elapsed)
    cells = [_cell(data, table, r, overdue) for r in range(1, section.rounds + 1)]
    here = cells[table.round - 1] if 1 <= table.round <= len(cells) else None
    first = shown[0] if shown else 1
    complete = here is not None and here.boards > 0 and here.done == here.boards
    tokens = data.tokens.get(table.number, [])
    seen = [t.last_seen for t in tokens if t.last_seen is not None]
    assignment = data.assignments.get((table.number, table.round))
    counts: Counts = dict.fromkeys(_COUNTED, 0)
    for cell in cells:
        if cell.round <= table.round:
            for key in _COUNTED:
                counts[key] += getattr(cell, key)
    row = TableRow(
        table=table.number,
        round=table.round,
        ns=_label(data.pairs, assignment.ns_pair_id if assignment else None),
        ew=_label(data.pairs, assignment.ew_pair_id if assignment else None),
        since=since,
        elapsed=elapsed,
        late=_late(section, since, elapsed, complete),
        complete=complete,
        online=_online(tokens, connected.get(table.number, 0), now),
        devices=sum(1 for t in tokens if t.revoked_at is None),
        last_seen=max(seen) if seen else None,
        calls=calls.get(table.number, 0),
        cells=[c for c in cells if c.round in shown],
        earlier=_sum(cells[: first - 1]) if first > 1 else None,
        unsent=_unsent(tokens),
    )
    return row, counts


def _totals(
    data: _Section, rows: list[TableRow], counts: list[Counts], missing: list[MissingEntry]
) -> dict[str, int]:
    totals: dict[str, int] = dict.fromkeys(_COUNTED, 0)
    for each in counts:
        for key, value in each.items():
            totals[key] += value
    # The MISSING tile counts the missing-entries panel's own list: one source for both.
    totals["missing"] = len(missing)
    totals["late"] = sum(1 for r in rows if r.late)
    totals["unsent"] = sum(1 for r in rows if r.unsent)
    totals["calls"] = len(data.calls)
    return totals


def _grid(
    data: _Section,
    connected: Mapping[int, int],
    now: datetime,
    missing: list[MissingEntry] | None = None,
) -> Grid:
    shown = round_window(data.section.rounds, data.section.current_round)
    calls = _calls_at(data)
    made = [_row(data, table, shown, calls, connected, now) for table in data.tables]
    rows = [row for row, _ in made]
    missing = missing if missing is not None else _missing(data, now)
    return _grid_of(data, rows, _totals(data, rows, [c for _, c in made], missing), now, shown)


def _grid_of(
    data: _Section, rows: list[TableRow], totals: dict[str, int], now: datetime, shown: list[int]
) -> Grid:
    section = data.section
    return Grid(
        section_id=section.id or 0,
        letter=section.letter,
        rounds=section.rounds,
        current_round=section.current_round,
        closed_rounds=section.closed_rounds,
        round_minutes=section.round_minutes,
        round_started_at=section.round_started_at,
        rows=rows,
        now=now,
        totals=totals,
        shown=shown,
    )


def missing_entries(
    session: Session, section: Section, *, now: datetime | None = None
) -> list[MissingEntry]:
    """Boards that should have a result by now, oldest first: every incomplete board of a
    round a table has left (§ 262C), and the open boards of a table that is late or whose
    round the TD has closed."""
    return _missing(_load(session, section), now or utcnow())


def _missing(data: _Section, now: datetime) -> list[MissingEntry]:
    out = [entry for table in data.tables for entry in _missing_at(data, table, now)]
    return _oldest_first(out, now)


def _oldest_first(entries: list[MissingEntry], now: datetime) -> list[MissingEntry]:
    return sorted(entries, key=lambda m: (m.round, m.since or now, m.table, m.board))


def _missing_at(data: _Section, table: BridgeTable, now: datetime) -> list[MissingEntry]:
    """One table's boards that should have a result by now."""
    section = data.section
    out = []
    since = table.round_entered_at
    elapsed = int((now - since).total_seconds()) if since else None
    for round_ in range(1, table.round + 1):
        row = data.assignments.get((table.number, round_))
        if row is None:
            continue
        left = round_ < table.round
        overdue = _overdue(section, round_, since, elapsed)
        if not (left or overdue):
            continue
        states = data.states.get((table.number, round_), {})
        for board in row.board_numbers():
            state = states.get(board, "missing")
            if state in COMPLETE_STATES:
                continue
            out.append(
                MissingEntry(
                    table=table.number,
                    round=round_,
                    board=board,
                    state="missing" if state == "rejected" else state,
                    left=left,
                    since=None if left else since,
                )
            )
    return out


def calls(session: Session, section: Section) -> list[OpenCall]:
    """The open TD calls, oldest first."""
    return _calls(_load(session, section))


def _calls(data: _Section) -> list[OpenCall]:
    return [
        OpenCall(c.id or 0, c.table_number, c.round, c.reason, c.created_at) for c in data.calls
    ]


@dataclass(frozen=True)
class Overview:
    """The dashboard in one read: grid, missing entries and calls from the same snapshot."""

    grid: Grid
    missing: list[MissingEntry]
    calls: list[OpenCall]


def overview(
    session: Session,
    section: Section,
    *,
    connected: Mapping[int, int] | None = None,
    now: datetime | None = None,
) -> Overview:
    data = _load(session, section)
    now = now or utcnow()
    missing = _missing(data, now)
    return Overview(_grid(data, connected or {}, now, missing), missing, _calls(data))


class LiveRoom:
    """The dashboard's snapshot of a section, kept in memory by its live page and brought up
    to date by the results pushed after each table command, without reading the database.

    ``put`` takes one result as pushed (``ResultChanged``, ``ConflictRaised``); it answers
    False when only a new read can show the change (a table, round or board the snapshot does
    not know: the movement or the round changed; a conflict raised or settled, which opens or
    closes a TD call), and the page is then read again in full. A push older than what the
    snapshot holds (its version) changes nothing. The calls a lead or a play flags with an
    entry come with the next full read (the page's poll), as a table's own TD call does."""

    def __init__(self, data: _Section) -> None:
        self.data = data
        self.seats = {t.number: t for t in data.tables}
        self.touched: set[int] = set()  # tables whose row changed since the last take()
        self._shown: list[int] = []
        #: table -> its row, what it adds to the totals, its missing entries (the last worked out)
        self._lines: dict[int, tuple[TableRow, Counts, list[MissingEntry]]] = {}

    @classmethod
    def load(cls, session: Session, section: Section) -> LiveRoom:
        return cls(_load(session, section))

    @property
    def section(self) -> Section:
        return self.data.section

    def put(self, view: BoardResultView) -> bool:
        data = self.data
        seating = data.assignments.get((view.table, view.round))
        if view.table not in self.seats or seating is None or view.board not in seating.boards:
            return False
        key = (view.table, view.round, view.board)
        if data.versions.get(key, 0) >= view.version:
            return True  # the snapshot already has this version, or a newer one
        before = data.states.get((view.table, view.round), {}).get(view.board)
        if ResultState.CONFLICT in (before, view.state):
            return False  # a conflict calls the TD, settling it closes the call: read them
        data.versions[key] = view.version
        data.states.setdefault((view.table, view.round), {})[view.board] = view.state.value
        self.touched.add(view.table)
        return True

    def follow(self, messages: Sequence[Message], now: datetime | None = None) -> bool:
        """Take pushed messages in order: results (:meth:`put`) and tables moving on to their
        next round (:meth:`move`); False as soon as one needs a new read (anything else)."""
        for message in messages:
            if isinstance(message, ResultChanged):
                known = self.put(message.result)
            elif isinstance(message, RoundChanged):
                known = self.move(message.round, now)
            else:
                known = False
            if not known:
                return False
        return True

    def move(self, info: RoundInfo, now: datetime | None = None) -> bool:
        """A table moved on to its next round (its own "next round", pushed as the round it
        now plays): True when the snapshot shows it as it is (the table's row is worked out
        again at the next :meth:`changes`). False for anything else a round push can mean (the
        TD started or closed a round, changed the movement or the settings): only a new read
        shows those. The table's time in the round starts at ``now``, the push's arrival, until
        the next full read gives the stored time (the commit's, milliseconds earlier)."""
        section, table = self.data.section, self.seats.get(info.table)
        if table is None or info.round != table.round + 1 or info.round > section.current_round:
            return False
        if info.rounds != section.rounds or info.round_open != (info.round > section.closed_rounds):
            return False
        seating = self.data.assignments.get((info.table, info.round))
        if seating is None or [b.board for b in info.boards] != seating.board_numbers():
            return False
        pairs = self.data.pairs
        seated = (pair_number(pairs, seating.ns_pair_id), pair_number(pairs, seating.ew_pair_id))
        shown = tuple(p.number if p is not None else None for p in (info.ns, info.ew))
        if seated != shown:
            return False
        table.round, table.round_entered_at = info.round, now or utcnow()
        self.touched.add(info.table)
        return True

    def take(self) -> set[int]:
        """The tables whose row changed since the last call."""
        touched, self.touched = self.touched, set()
        return touched

    def overview(
        self, *, connected: Mapping[int, int] | None = None, now: datetime | None = None
    ) -> Overview:
        """The whole dashboard from the snapshot; each table's line is kept for
        :meth:`changes` to start from."""
        now, connected = now or utcnow(), connected or {}
        data = self.data
        self._shown = round_window(data.section.rounds, data.section.current_round)
        calls = _calls_at(data)
        self._lines = {}
        for table in data.tables:
            row, counts = _row(data, table, self._shown, calls, connected, now)
            self._lines[table.number] = (row, counts, _missing_at(data, table, now))
        self.touched.clear()
        return self._assemble(now)

    def changes(
        self, *, connected: Mapping[int, int] | None = None, now: datetime | None = None
    ) -> tuple[Overview, list[TableRow]]:
        """The dashboard after the results put since the last call, with only their tables'
        lines worked out again (the others stay as the last call left them: the live page's
        poll reads everything again), and those tables' rows."""
        if not self._lines:
            room = self.overview(connected=connected, now=now)
            return room, room.grid.rows
        now, connected = now or utcnow(), connected or {}
        touched = self.take()
        calls = _calls_at(self.data)
        for number in sorted(touched):
            table = self.seats[number]
            row, counts = _row(self.data, table, self._shown, calls, connected, now)
            self._lines[number] = (row, counts, _missing_at(self.data, table, now))
        return self._assemble(now), [self._lines[n][0] for n in sorted(touched)]

    def _assemble(self, now: datetime) -> Overview:
        lines = [self._lines[t.number] for t in self.data.tables]
        rows = [row for row, _, _ in lines]
        missing = _oldest_first([m for _, _, entries in lines for m in entries], now)
        totals = _totals(self.data, rows, [counts for _, counts, _ in lines], missing)
        grid_ = _grid_of(self.data, rows, totals, now, self._shown)
        return Overview(grid_, missing, _calls(self.data))


@dataclass(frozen=True)
class PairingRow:
    """A table's pairing code and the terminals paired with it."""

    table: int
    code: str
    round: int
    online: bool
    terminals: list[Terminal]

    @property
    def queued(self) -> int:
        """Commands waiting in the table's terminals, as they last reported (0: none known)."""
        return sum(t.queued or 0 for t in self.terminals if t.active)

    @property
    def last_seen(self) -> datetime | None:
        seen = [t.last_seen for t in self.terminals if t.active and t.last_seen is not None]
        return max(seen) if seen else None


def pairing(
    session: Session,
    section: Section,
    *,
    connected: Mapping[int, int] | None = None,
    now: datetime | None = None,
) -> list[PairingRow]:
    """Pairing codes and terminal status, table by table."""
    now = now or utcnow()
    connected = connected or {}
    data = _load(session, section)
    recent = now - timedelta(seconds=ONLINE_SECONDS)
    rows = []
    for table in data.tables:
        tokens = data.tokens.get(table.number, [])
        terminals = [
            Terminal(
                id=t.id or 0,
                device=t.device,
                created_at=t.created_at,
                expires_at=t.expires_at,
                last_seen=t.last_seen,
                revoked_at=t.revoked_at,
                online=t.revoked_at is None
                and t.last_seen is not None
                and t.last_seen >= recent
                and t.expires_at > now,
                queued=t.queued,
                queued_at=t.queued_at,
            )
            for t in tokens
        ]
        rows.append(
            PairingRow(
                table=table.number,
                code=table.pairing_code,
                round=table.round,
                online=_online(tokens, connected.get(table.number, 0), now),
                terminals=terminals,
            )
        )
    return rows


@dataclass(frozen=True)
class BoardCell:
    """A board of a table's round on the table sheet."""

    board: int
    state: str
    contract: str | None
    declarer: str | None
    result: str | None
    ns_score: int | None
    adjusted: str | None


@dataclass(frozen=True)
class RoundSheet:
    """One round of a table: the pairs and every board's state."""

    round: int
    ns: str
    ew: str
    boards: list[BoardCell]
    current: bool


def table_sheet(session: Session, section: Section, table: BridgeTable) -> list[RoundSheet]:
    """Every round of a table with its boards, for opening any board to edit it."""
    data = _load(session, section)
    sheets = []
    for round_ in range(1, section.rounds + 1):
        row = data.assignments.get((table.number, round_))
        if row is None:
            continue
        stored = {r.board: r for r in results_at(session, section, table.number, round_)}
        boards = []
        for number in row.board_numbers():
            r = stored.get(number)
            view = result_view(r) if r is not None and r.state != "rejected" else None
            boards.append(
                BoardCell(
                    board=number,
                    state=r.state if r is not None else "missing",
                    contract=view.contract if view else None,
                    declarer=view.declarer if view else None,
                    result=view.result if view else None,
                    ns_score=view.ns_score if view else None,
                    adjusted=view.adjusted if view else None,
                )
            )
        sheets.append(
            RoundSheet(
                round=round_,
                ns=_label(data.pairs, row.ns_pair_id),
                ew=_label(data.pairs, row.ew_pair_id),
                boards=boards,
                current=round_ == table.round,
            )
        )
    return sheets


@dataclass(frozen=True)
class Change:
    """One field an audited action changed."""

    name: str
    old: object
    new: object


@dataclass(frozen=True)
class AuditLine:
    """One audit row, with where it happened and what it changed."""

    id: int
    at: datetime
    actor: str
    action: str
    reason: str
    table: int | None
    round: int | None
    board: int | None
    pairs: str
    changes: list[Change]
    details: dict[str, Any]
    corrections_until: datetime | None = None  # § X79: a published change's own deadline


def _changes(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[Change]:
    old, new = old or {}, new or {}
    keys = [k for k in new if k != "version"] + [k for k in old if k not in new]
    return [Change(k, old.get(k), new.get(k)) for k in keys if old.get(k) != new.get(k)]


def _readable(values: Any) -> Any:
    """An audited result's values as the trail shows them: the alert explanations as
    "2: 15-17 · 4: Stayman" (call number: text) rather than their stored JSON."""
    if isinstance(values, dict) and isinstance(values.get("alerts"), str):
        notes = alerts.read_stored(values["alerts"])
        shown = " · ".join(f"{call}: {text}" for call, text in notes.items())
        return {**values, "alerts": shown or values["alerts"]}
    return values


def _line(row: Audit, result: Result | None, pairs: Mapping[int, Pair]) -> AuditLine:
    old = _readable(json.loads(row.old)) if row.old else None
    new = _readable(json.loads(row.new)) if row.new else None
    who = ""
    if result is not None:
        who = f"{_label(pairs, result.ns_pair_id)} v {_label(pairs, result.ew_pair_id)}"
    elif isinstance(new, dict) and "pair" in new:
        who = str(new["pair"])
    return AuditLine(
        id=row.id or 0,
        at=row.at,
        actor=row.actor,
        action=row.action,
        reason=row.reason,
        table=result.table_number if result else None,
        round=result.round if result else None,
        board=result.board if result else None,
        pairs=who,
        changes=_changes(old, new) if result is not None and old is not None else [],
        details=_details(new, result is not None),
        corrections_until=row.corrections_until,
    )


#: What a first entry shows (its state, version and "no ruling" go without saying).
_ENTRY_FIELDS = (
    "contract", "declarer", "tricks", "lead", "auction", "alerts", "ns_score", "adjusted",
)  # fmt: skip


def _details(new: object, of_result: bool) -> dict[str, Any]:
    if not isinstance(new, dict):
        return {}
    if not of_result:
        return new
    return {k: new[k] for k in _ENTRY_FIELDS if new.get(k) not in (None, "")}


def audit_log(
    session: Session,
    section: Section,
    *,
    table: int | None = None,
    board: int | None = None,
    pair: int | None = None,
    limit: int = 500,
) -> list[AuditLine]:
    """The section's audit trail, newest first, optionally for one table, board or pair id."""
    pairs = {p.id or 0: p for p in session.exec(select(Pair).where(Pair.section_id == section.id))}
    results = {r.id: r for r in session.exec(select(Result).where(Result.section_id == section.id))}
    stmt = select(Audit).where(Audit.section_id == section.id).order_by(col(Audit.id).desc())
    pair_label = _label(pairs, pair) if pair is not None else None
    out = []
    for row in session.exec(stmt):
        result = results.get(row.result_id) if row.result_id else None
        if (table is not None or board is not None) and result is None:
            continue
        if table is not None and result is not None and result.table_number != table:
            continue
        if board is not None and result is not None and result.board != board:
            continue
        line = _line(row, result, pairs)
        if pair is not None:
            if result is not None and pair not in (result.ns_pair_id, result.ew_pair_id):
                continue
            if result is None and line.pairs != pair_label:
                continue
        out.append(line)
        if len(out) >= limit:
            break
    return out


def trail(session: Session, result: Result) -> list[AuditLine]:
    """Every change of one result, oldest first: who, when, what was there before."""
    pairs = {
        p.id or 0: p for p in session.exec(select(Pair).where(Pair.section_id == result.section_id))
    }
    rows = session.exec(
        select(Audit).where(Audit.result_id == result.id).order_by(col(Audit.id))
    ).all()
    return [_line(row, result, pairs) for row in rows]


@dataclass(frozen=True)
class Entry:
    """An entry a table sent for a board, as the TD sees it when resolving a conflict."""

    entry_id: str
    contract: str
    declarer: str | None
    tricks: int | str
    lead: str | None
    received_at: datetime
    in_force: bool


def entries(session: Session, result: Result) -> list[Entry]:
    """The entries the table sent for this board (enter and correct), oldest first."""
    rows = session.exec(
        select(ReceivedEntry)
        .where(
            ReceivedEntry.result_id == result.id,
            col(ReceivedEntry.kind).in_(("enter_result", "correct_result")),
        )
        .order_by(col(ReceivedEntry.id))
    ).all()
    out = []
    for row in rows:
        values = json.loads(row.request).get("values", {})
        out.append(
            Entry(
                entry_id=row.entry_id,
                contract=str(values.get("contract", "")),
                declarer=values.get("declarer"),
                tricks=values.get("tricks", ""),
                lead=values.get("lead"),
                received_at=row.received_at,
                in_force=row.entry_id == result.entry_id,
            )
        )
    return out


def entry_values(session: Session, result: Result, entry_id: str) -> dict[str, Any]:
    """The values of one of the entries sent for this board (to settle a conflict with)."""
    for entry in entries(session, result):
        if entry.entry_id == entry_id:
            return {
                "contract": entry.contract,
                "declarer": entry.declarer,
                "tricks": entry.tricks,
                "lead": entry.lead,
            }
    raise NotFoundError(
        "unknown_entry",
        "Board {board} has no entry {entry_id}.",
        board=result.board,
        entry_id=entry_id,
    )


def board_info(session: Session, section: Section, board: int) -> Board | None:
    return session.exec(
        select(Board).where(Board.section_id == section.id, Board.number == board)
    ).first()


@dataclass(frozen=True)
class SectionHead:
    """A section as page headers and lists name it."""

    id: int
    event_id: int
    event: str
    letter: str
    movement: str
    tables: int
    rounds: int
    boards_per_round: int
    current_round: int
    closed_rounds: int
    round_minutes: int | None
    round_started_at: datetime | None
    publication: str
    published_at: datetime | None
    corrections_until: datetime | None
    created_at: datetime
    scoring: str
    td_code: str = ""  # keyed at a table, it lets the TD mark a board not played
    deal_entry: bool = False  # hand-dealt boards: the tables key the deals (the Deals page)


def head(session: Session, section: Section) -> SectionHead:
    event = session.get(Event, section.event_id)
    assert event is not None
    return SectionHead(
        id=section.id or 0,
        event_id=event.id or 0,
        event=event.name,
        letter=section.letter,
        movement=section.movement_name,
        tables=section.tables,
        rounds=section.rounds,
        boards_per_round=section.boards_per_round,
        current_round=section.current_round,
        closed_rounds=section.closed_rounds,
        round_minutes=section.round_minutes,
        round_started_at=section.round_started_at,
        publication=section.publication,
        published_at=section.published_at,
        corrections_until=section.corrections_until,
        created_at=event.created_at,
        scoring=event.scoring,
        td_code=section.td_code,
        deal_entry=event.deal_entry,
    )


def sections(session: Session) -> list[SectionHead]:
    """Every section of every event, newest event first."""
    rows = session.exec(select(Section).order_by(col(Section.id).desc())).all()
    return [head(session, s) for s in rows]


@dataclass(frozen=True)
class BoardDesk:
    """Everything the TD sees when opening one board at one table in one round."""

    table: int
    round: int
    board: int
    boards: list[int]  # the boards of that round at that table, for moving between them
    dealer: str
    vulnerability: str
    ns: str
    ew: str
    state: str
    result: Result | None
    description: str | None
    entries: list[Entry]
    trail: list[AuditLine]
    table_round: int  # the round the table is on now


def board_desk(
    session: Session, section: Section, table_number: int, round_: int, board: int
) -> BoardDesk:
    """One board of a table's round: its result, the entries sent for it and its history."""
    data = _load(session, section)
    row = data.assignments.get((table_number, round_))
    if row is None or board not in row.board_numbers():
        raise NotFoundError(
            "board_not_in_round",
            "Board {board} is not played at table {table_number} in round {round}.",
            board=board,
            table_number=table_number,
            round=round_,
        )
    table = next(t for t in data.tables if t.number == table_number)
    here = results_at(session, section, table_number, round_)
    result = next((r for r in here if r.board == board), None)
    info = board_info(session, section, board)
    view = result_view(result) if result is not None and result.state != "rejected" else None
    return BoardDesk(
        table=table_number,
        round=round_,
        board=board,
        boards=row.board_numbers(),
        dealer=info.dealer if info else "",
        vulnerability=info.vulnerability if info else "",
        ns=_label(data.pairs, row.ns_pair_id),
        ew=_label(data.pairs, row.ew_pair_id),
        state=result.state if result is not None and result.version > 0 else "missing",
        result=result,
        description=view.description if view else None,
        entries=entries(session, result) if result is not None else [],
        trail=trail(session, result) if result is not None else [],
        table_round=table.round,
    )

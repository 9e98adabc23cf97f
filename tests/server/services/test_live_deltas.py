"""Live pages follow the results in memory (issue 18, item 3): the dashboard's snapshot
(``dashboard.LiveRoom``) and the public ranking (``standings.LiveRanking``, one board rescored
a result) equal a full read and a full recompute after every command of random sessions: table
entries, confirmations, rejections, corrections, moving on, and the TD's changes. Whatever they
cannot follow (a table moving on, a board leaving the ranking) they hand back, and are loaded
afresh, as the live page does."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, event
from sqlmodel import Session, select

from protocol.messages import (
    ConfirmResult,
    CorrectResult,
    EnterResult,
    EntryValues,
    Message,
    NextRound,
    RejectResult,
    RoundChanged,
    TableCommand,
)
from server.core.db import make_engine, migrate, transact
from server.core.errors import TravellerError
from server.core.models import Result, Section
from server.movements.mitchell import mitchell
from server.services import tokens
from server.services.event import setup
from server.services.glance import dashboard
from server.services.results import standings
from server.services.table.table_commands import outcome_for
from server.services.td import actions as td
from server.web.live_views import follows
from tests.support.api import new_id

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
KINDS = [
    "enter",
    "enter",
    "confirm",
    "confirm",
    "confirm",
    "reject",
    "correct",
    "next_round",
    "td_adjust",
    "td_not_played",
    "td_set",
]
steps = st.tuples(
    st.integers(0, 50),
    st.sampled_from(KINDS),
    st.integers(0, 50),
    st.sampled_from(["3NT", "4S", "2H", "PASS", "6CX", "1D"]),
    st.sampled_from("NESW"),
    st.integers(0, 13),
)
Step = tuple[int, str, int, str, str, int]


@pytest.fixture(scope="module")
def live_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """One SQLite database for the examples (each opens its own event)."""
    eng = make_engine(f"sqlite:///{tmp_path_factory.mktemp('live') / 'live.db'}")

    @event.listens_for(eng, "connect")
    def no_fsync(connection: Any, _: Any) -> None:  # durability is not what this is about
        connection.execute("PRAGMA synchronous=OFF")

    migrate(eng)
    yield eng
    eng.dispose()


@dataclasses.dataclass
class Night:
    engine: Engine
    section_id: int
    tokens: dict[int, str]
    scoring: str
    reloads: int = 0
    room_reloads: int = 0  # of them, the dashboard's own
    moves: int = 0  # tables moving on that the dashboard followed without a read
    ranking_moves: int = 0  # rounds pushed that the rankings followed without a read

    def section(self, s: Session) -> Section:
        return setup.get_section(s, self.section_id)


def open_night(db: Engine, tables: int, bpr: int, scoring: str) -> Night:
    def work(s: Session) -> Night:
        ev = setup.create_event(s, name="Live night", scoring=scoring)
        section = setup.create_section(
            s, event=ev, letter="A", movement=mitchell(tables, boards_per_round=bpr)
        )
        for round_ in range(1, section.rounds + 1):  # tables move on once they finish
            td.start_round(s, section, round_)
        paired = {
            n: tokens.pair_terminal(s, code=code, device=f"t{n}")[0]
            for n, code in td.pairing_codes(s, section).items()
        }
        return Night(db, section.id or 0, paired, scoring)

    return transact(db, work)


def command(night: Night, table: int, cmd: TableCommand) -> list[Message]:
    def work(s: Session) -> list[Message]:
        outcome = outcome_for(s, tokens.table_identity(s, night.tokens[table], lock=True), cmd)
        return [p.message for p in outcome.pushes]

    try:
        return transact(night.engine, work)
    except TravellerError:
        return []


def td_change(night: Night, pick: int, kind: str, values: EntryValues) -> list[Message]:
    def work(s: Session) -> list[Message]:
        rows = s.exec(
            select(Result).where(Result.section_id == night.section_id).order_by(Result.id)
        ).all()
        if not rows:
            return []
        result = rows[pick % len(rows)]
        if kind == "td_adjust":
            pushes = td.adjust(s, result=result, ns_percent=60, ew_percent=40, reason="Law 12C")
        elif kind == "td_not_played":
            pushes = td.mark_not_played(s, result=result, reason="late")
        else:
            pushes = td.set_result(s, result=result, values=values, reason="ruling")
        return [p.message for p in pushes]

    try:
        return transact(night.engine, work)
    except TravellerError:
        return []


def version(night: Night, table: int, board: int) -> int:
    with Session(night.engine) as s:
        row = s.exec(
            select(Result).where(
                Result.section_id == night.section_id,
                Result.table_number == table,
                Result.board == board,
            )
        ).all()
    return max((r.version for r in row), default=1)


def play(night: Night, step: Step) -> list[Message]:
    index, kind, pick, contract, declarer, tricks = step
    table = 1 + index % len(night.tokens)
    values = EntryValues(
        contract=contract,
        declarer=None if contract == "PASS" else declarer,  # type: ignore[arg-type]
        tricks=0 if contract == "PASS" else tricks,
    )
    if kind.startswith("td_"):
        return td_change(night, pick, kind, values)
    with Session(night.engine) as s:
        identity = tokens.table_identity(s, night.tokens[table])
        here = dashboard.table_sheet(s, night.section(s), identity.table)
    boards = [b.board for sheet in here if sheet.current for b in sheet.boards]
    if kind == "next_round":
        return command(night, table, NextRound())
    if not boards:
        return []
    board = boards[pick % len(boards)]
    cmd: TableCommand
    if kind == "enter":
        cmd = EnterResult(entry_id=new_id(), board=board, values=values)
    elif kind == "correct":
        v = version(night, table, board)
        cmd = CorrectResult(entry_id=new_id(), board=board, version=v, values=values)
    elif kind == "reject":
        cmd = RejectResult(entry_id=new_id(), board=board, version=version(night, table, board))
    else:
        cmd = ConfirmResult(entry_id=new_id(), board=board, version=version(night, table, board))
    return command(night, table, cmd)


class Followers:
    """What the live pages keep: the dashboard's room and the public and TD rankings."""

    def __init__(self, night: Night) -> None:
        self.night = night
        self.load()

    def load(self) -> None:
        self.load_room()
        self.load_rankings()

    def load_room(self) -> None:
        self.moved: set[int] = set()  # tables moved since the read, their time from the push
        with Session(self.night.engine) as s:
            self.room = dashboard.LiveRoom.load(s, self.night.section(s))
        self.room.overview(now=NOW)  # the lines each change starts from

    def load_rankings(self) -> None:
        with Session(self.night.engine) as s:
            section = self.night.section(s)
            seated, versions = standings.seats(s, section), standings.versions(s, section)
            self.public = standings.LiveRanking(
                standings.load(s, section), seated, public=True, versions=versions
            )
            self.td = standings.LiveRanking(
                standings.load(s, section), seated, public=False, versions=versions
            )

    def take(self, messages: list[Message]) -> None:
        """Each live page as its channel does: follow in memory, else read again in full."""
        # The dashboard follows results and tables moving on; a conflict calls the TD, which
        # no push carries, and the TD's changes of rounds: those it reads in full.
        if self.room.follow(messages):  # a move starts the table's time at its arrival
            self.moved |= {m.round.table for m in messages if isinstance(m, RoundChanged)}
            self.night.moves += sum(isinstance(m, RoundChanged) for m in messages)
        else:
            self.night.reloads += 1
            self.night.room_reloads += 1
            self.load_room()
        # The rankings follow results, and rounds pushed to tables as the loaded movement
        # seats them (nothing ranked changes); anything else they read in full.
        if all([follows(self.public, messages), follows(self.td, messages)]):
            self.night.ranking_moves += sum(isinstance(m, RoundChanged) for m in messages)
        else:
            self.night.reloads += 1
            self.load_rankings()


def without_terminals(room: dashboard.Overview, moved: set[int]) -> dashboard.Overview:
    """The overview less what no push announces (a terminal's last contact, which the live
    page's poll reads again; the exact time a table moved on, which the push's arrival stands
    for until then)."""
    rows = [
        dataclasses.replace(r, online=False, last_seen=None, devices=0, unsent=0)
        for r in room.grid.rows
    ]
    rows = [
        dataclasses.replace(r, since=None, elapsed=None) if r.table in moved else r for r in rows
    ]
    return dataclasses.replace(room, grid=dataclasses.replace(room.grid, rows=rows))


def moved_in_time(live: dashboard.Overview, full: dashboard.Overview, moved: set[int]) -> bool:
    """The tables that moved on started their round, as the dashboard shows it, within a
    second of the stored time."""
    stored = {r.table: r.since for r in full.grid.rows}
    shown = {r.table: r.since for r in live.grid.rows}
    for table in moved:
        a, b = shown[table], stored[table]
        if a is None or b is None or abs((a - b).total_seconds()) > 1:
            return False
    return True


def check(night: Night, live: Followers) -> None:
    with Session(night.engine) as s:
        section = night.section(s)
        data = standings.load(s, section)
        full_room = dashboard.overview(s, section, now=NOW)
    assert live.public.ranking() == standings.rank(data, public=True)
    assert live.td.ranking() == standings.rank(data, public=False)
    touched = set(live.room.touched)
    # a change works out only its tables' lines again, and comes to the full read
    changed, rows = live.room.changes(now=NOW)
    moved = live.moved
    assert without_terminals(changed, moved) == without_terminals(full_room, moved)
    assert moved_in_time(changed, full_room, moved)
    assert [r.table for r in rows] == sorted(touched)
    whole = live.room.overview(now=NOW)
    assert without_terminals(whole, moved) == without_terminals(full_room, moved)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tables=st.integers(3, 5),
    bpr=st.integers(1, 2),
    scoring=st.sampled_from(["mp", "imps", "butler", "mp-american"]),
    sequence=st.lists(steps, min_size=5, max_size=30),
)
def test_the_live_pages_equal_a_full_read_after_every_command(
    live_engine: Engine, tables: int, bpr: int, scoring: str, sequence: list[Step]
) -> None:
    night = open_night(live_engine, tables, bpr, scoring)
    live = Followers(night)
    for step in sequence:
        live.take(play(night, step))
        check(night, live)


def test_a_round_of_entries_is_followed_without_a_single_read() -> None:
    """The common case, a round played through (enter, confirm) and every table moving on,
    never needs the dashboard's fallback, and the public ranking takes a board only once every
    table has played it."""
    db = make_engine("sqlite://")
    migrate(db)
    night = open_night(db, 4, 2, "mp")
    live = Followers(night)
    rng = random.Random(7)
    shown: list[list[int]] = []
    for table in range(1, 5):
        for pick in range(2):
            live.take(play(night, (table - 1, "enter", pick, "4S", "S", rng.randint(8, 11))))
            live.take(play(night, (table - 1, "confirm", pick, "4S", "S", 0)))
            check(night, live)
            shown.append(live.public.ranking().boards_shown)
    assert night.reloads == 0
    # Each board is still to be played at the other tables: the public sees none of them,
    # the TD every one.
    assert shown == [[]] * 8
    assert live.td.ranking().boards_shown == list(range(1, 9))
    # Every table moves on: the dashboard and the rankings follow each move without a read.
    for table in range(1, 5):
        live.take(play(night, (table - 1, "next_round", 0, "PASS", "N", 0)))
        check(night, live)
    assert (night.moves, night.ranking_moves, night.reloads) == (4, 4, 0)


def test_a_round_pushed_counts_as_a_move_only_as_the_loaded_movement_seats_it() -> None:
    """A round pushed to a table leaves the ranking as it is only when the loaded movement
    seats the same pairs there, with the same boards and the same number of rounds; a push
    that says otherwise (the movement changed since the ranking was read) asks for a read."""
    db = make_engine("sqlite://")
    migrate(db)
    night = open_night(db, 4, 2, "mp")
    live = Followers(night)
    for pick in range(2):  # table 1 plays its round
        play(night, (0, "enter", pick, "4S", "S", 10))
        play(night, (0, "confirm", pick, "4S", "S", 0))
    moved = play(night, (0, "next_round", 0, "PASS", "N", 0))
    assert [type(m) for m in moved] == [RoundChanged]
    info = moved[0].round  # type: ignore[attr-defined]
    ranking = live.public
    assert ranking.seated_as_loaded(info)
    assert info.ns is not None
    assert info.ew is not None
    other = info.ns.model_copy(update={"number": info.ns.number + 1})
    changed = [
        info.model_copy(update={"ns": other}),  # another pair sits there now
        info.model_copy(update={"ns": info.ew, "ew": info.ns}),  # the pairs swapped sides
        info.model_copy(update={"ew": None}),  # a sit-out there now
        info.model_copy(update={"boards": info.boards[:1]}),  # a board fewer
        info.model_copy(update={"rounds": info.rounds + 1}),  # a round added
        info.model_copy(update={"round": info.rounds + 1}),  # a round the movement lacks
        info.model_copy(update={"table": 99}),  # a table the movement lacks
    ]
    assert [ranking.seated_as_loaded(c) for c in changed] == [False] * len(changed)

"""Two workers racing on one table: two engines, each with its own table desk, memory and
group-commit writer, as two server processes have. The two sides are let go at the same moment
from two threads. Whichever reaches the table's lock first, the outcome (both answers and every
stored result, entry and audit row, and where the table is) must be the one a single worker
gives to the same two sides one after the other, in one order or the other: never both
accepted over one version, never one of them lost.

A side is a table command, or a change the TD or the scoring program (Data Connector) makes,
each as the server makes it. Both workers have the table in their memory before the race (each
asked for its round) and the setup is made through the first, so the second decides on a
remembered state that another process has changed: only what it reads under the table's lock
can tell it."""

from __future__ import annotations

import asyncio
import random
import sqlite3
import threading
import uuid
from collections.abc import Callable, Generator, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

import pytest
from sqlalchemy.engine import make_url
from sqlmodel import Session, select

from protocol.keypad_codec import KeypadCommand
from protocol.messages import EntryValues, Paired, PairTerminal, table_command_adapter
from server.core.db import make_engine
from server.core.errors import TravellerError
from server.core.models import BridgeTable, DcSession, MovementAssignment, Pair, Result
from server.dataconnector.dto import ResultDTO
from server.dataconnector.results import put_results
from server.dataconnector.store import find_session
from server.gateway.jobs import Station
from server.gateway.service import handle
from server.live.table_desk import TableDesk
from server.services.event import event_settings
from server.services.event.setup import PairNames, get_event, get_section, set_pair_names
from server.services.outcomes import Push
from server.services.table.table_memory import TableMemory
from server.services.td import actions as td
from server.services.td import round_control
from tests.support.api import Club, open_club
from tests.support.app_factory import app_client, engine_at
from tests.support.databases import pg_address, pg_database
from tests.support.table_memory import Floor, scrub

#: Each race is run this many times, each on a fresh copy of the night: on PostgreSQL, where
#: two workers' transactions interleave, and on SQLite, where each write transaction takes the
#: database's lock at its BEGIN (the races there check that nothing else differs).
TIMES = {"postgresql": 5, "sqlite": 2}
#: A group commit as the server makes it (several commands a transaction).
BATCH = 8
#: The table the races are played at.
TABLE = 1
#: Table 1's keypad, wired to a gateway's port (a second terminal of the table).
KEYPAD = Station("/dev/ttyUSB0", 1)

FOUR_SPADES = {"contract": "4S", "declarer": "N", "tricks": 10}
THREE_NT = {"contract": "3NT", "declarer": "S", "tricks": 9}


@dataclass(frozen=True)
class Night:
    """The served night the races start from: table 1 paired and in round 1 (of its two
    boards there), and a scoring program's session (Data Connector) on the event."""

    club: Club
    token: str
    boards: tuple[int, ...]
    pin: str
    pairs: tuple[int, int]  # the numbers of table 1's N/S and E/W pairs in round 1
    dc_session: str
    td_code: str

    @property
    def section_id(self) -> int:
        return self.club.section_id

    def program_result(self, *, deleted: bool) -> ResultDTO:
        """The scoring program's 3NT by South, made, on the first board (or its deletion)."""
        ns, ew = self.pairs
        return ResultDTO(
            session_guid=self.dc_session,
            section_letters="A",
            table_number=TABLE,
            round_number=1,
            board_number=self.boards[0],
            is_deleted=deleted,
            pair_north_south=ns,
            pair_east_west=ew,
            declaring_pair=ns,
            declarer_direction=3,
            scoring_direction=1,
            level=3,
            denomination=5,
            total_tricks=9,
        )


@dataclass(frozen=True)
class Move:
    """One side of a race, or a step of its setup: a table command on the table's board
    ``board`` (an index into the round's boards), or a change by the TD or by the scoring
    program (``change``: a key of :data:`CHANGES`)."""

    body: dict[str, Any] | None = None
    board: int = 0
    change: str | None = None
    keypad: bool = False  # the command comes from table 1's keypad, through the gateway


def enter(eid: str, values: dict[str, Any], board: int = 0) -> Move:
    return Move({"type": "enter_result", "entry_id": eid, "board": board, "values": values}, board)


def confirm(eid: str, version: int, board: int = 0) -> Move:
    body = {"type": "confirm_result", "entry_id": eid, "board": board, "version": version}
    return Move({**body, "pin": "PIN"}, board)


def reject(eid: str, version: int) -> Move:
    return Move({"type": "reject_result", "entry_id": eid, "board": 0, "version": version})


def correct(eid: str, version: int, values: dict[str, Any]) -> Move:
    return Move(
        {
            "type": "correct_result",
            "entry_id": eid,
            "board": 0,
            "version": version,
            "values": values,
        }
    )


NEXT_ROUND = Move({"type": "next_round"})
#: The event asks the tables for their players (a table may name them in round 1).
PLAYERS_ASKED = (Move(change="the TD asks for the players' numbers"),)
#: The table names its N/S pair's players.
NAME_PLAYERS = Move(
    {
        "type": "set_players",
        "entry_id": "players-0001",
        "seat": "NS",
        "players": [{"name": "Ann Table"}, {"name": "Bo Table"}],
    }
)
NORTH_ENTERED = (enter("north-0001", FOUR_SPADES),)
#: Both boards of the round entered and confirmed, and round 2 started by the TD.
ROUND_PLAYED = (
    enter("north-0001", FOUR_SPADES, 0),
    confirm("east-0001", 1, 0),
    enter("north-0002", THREE_NT, 1),
    confirm("east-0002", 1, 1),
    Move(change="the TD starts round 2"),
)

#: name -> (the setup, made through the first worker; the first worker's side; the second's)
RACES: dict[str, tuple[tuple[Move, ...], Move, Move]] = {
    "east confirms while north corrects": (
        NORTH_ENTERED,
        confirm("east-0001", 1),
        correct("north-0002", 1, THREE_NT),
    ),
    "east confirms while east rejects on another terminal": (
        NORTH_ENTERED,
        confirm("east-0001", 1),
        reject("east-0002", 1),
    ),
    "one entry delivered to both workers": (
        (),
        enter("north-0001", FOUR_SPADES),
        enter("north-0001", FOUR_SPADES),
    ),
    "north and south each enter the board": (
        (),
        enter("north-0001", FOUR_SPADES),
        enter("south-0001", THREE_NT),
    ),
    "east confirms while the TD adjusts": (
        NORTH_ENTERED,
        confirm("east-0001", 1),
        Move(change="the TD adjusts"),
    ),
    "north corrects while the TD sets the result": (
        NORTH_ENTERED,
        correct("north-0002", 1, THREE_NT),
        Move(change="the TD sets the result"),
    ),
    "east confirms while the scoring program sends its result": (
        NORTH_ENTERED,
        confirm("east-0001", 1),
        Move(change="the program sends its result"),
    ),
    "north corrects while the scoring program deletes the result": (
        NORTH_ENTERED,
        correct("north-0002", 1, THREE_NT),
        Move(change="the program deletes the result"),
    ),
    "east confirms while the TD closes the round": (
        NORTH_ENTERED,
        confirm("east-0001", 1),
        Move(change="the TD closes round 1"),
    ),
    "the table moves on while the TD moves it on": (
        ROUND_PLAYED,
        NEXT_ROUND,
        Move(change="the TD moves the table on"),
    ),
    "the table moves on while the TD starts the next round": (
        ROUND_PLAYED[:-1],
        NEXT_ROUND,
        Move(change="the TD starts round 2"),
    ),
    "the keypad moves the table on while the TD moves it on": (
        ROUND_PLAYED,
        replace(NEXT_ROUND, keypad=True),
        Move(change="the TD moves the table on"),
    ),
    "the keypad enters a board again while the TD closes the round": (
        ROUND_PLAYED[:-1],
        replace(enter("keypad-0001", THREE_NT), keypad=True),
        Move(change="the TD closes round 1"),
    ),
    "the keypad confirms while north corrects": (
        NORTH_ENTERED,
        replace(confirm("keypad-0002", 1), keypad=True),
        correct("north-0002", 1, THREE_NT),
    ),
    "the table names its players while the TD renames them": (
        PLAYERS_ASKED,
        NAME_PLAYERS,
        Move(change="the TD renames N/S"),
    ),
    "east confirms while the TD moves the table to a new device": (
        NORTH_ENTERED,
        confirm("east-0001", 1),
        Move(change="the TD moves the table to a new device"),
    ),
}

#: A change made on a desk's writer as the server makes it: the work, and the section whose
#: round it starts, closes or reopens (None: it does not).
Change = Callable[[Night], tuple[Callable[[Session], list[Push]], int | None]]


def _ruling(action: Callable[[Session, Result], list[Push]]) -> Change:
    """The TD's ruling on the table's first board, as the TD's pages and API make it."""
    return lambda night: (
        td.settle(night.section_id, TABLE, 1, night.boards[0], action),
        None,
    )


def _program(*, deleted: bool) -> Change:
    """The scoring program's result for the first board, as the Data Connector stores it."""

    def change(night: Night) -> tuple[Callable[[Session], list[Push]], None]:
        def work(s: Session) -> list[Push]:
            return put_results(
                s, find_session(s, night.dc_session), [night.program_result(deleted=deleted)]
            )

        return work, None

    return change


def _section(action: Callable[[Session, Any], list[Push]], *, rounds: bool = True) -> Change:
    """The TD's action on the section (``rounds``: it starts, closes or reopens a round)."""
    return lambda night: (
        lambda s: action(s, get_section(s, night.section_id)),
        night.section_id if rounds else None,
    )


_TWO_HEARTS = EntryValues.model_validate({"contract": "2H", "declarer": "E", "tricks": 8})
CHANGES: dict[str, Change] = {
    "the TD adjusts": _ruling(
        lambda s, r: td.adjust(s, result=r, ns_percent=60, ew_percent=40, reason="slow play")
    ),
    "the TD sets the result": _ruling(
        lambda s, r: td.set_result(s, result=r, values=_TWO_HEARTS, reason="fouled board")
    ),
    "the program sends its result": _program(deleted=False),
    "the program deletes the result": _program(deleted=True),
    "the TD starts round 2": _section(lambda s, sec: round_control.start_round_once(s, sec, 2)),
    "the TD closes round 1": _section(lambda s, sec: td.close_round(s, sec, 1)),
    "the TD moves the table on": _section(
        lambda s, sec: round_control.release_table(s, sec, TABLE, "slow table"), rounds=False
    ),
    "the TD marks the board not played": _ruling(
        lambda s, r: td.mark_not_played(s, result=r, reason="no time left")
    ),
    "the TD reopens round 1": _section(lambda s, sec: round_control.reopen_round(s, sec, 1)),
    "the TD renames N/S": lambda night: (
        lambda s: _no_pushes(
            set_pair_names(
                s,
                section=get_section(s, night.section_id),
                number=night.pairs[0],
                direction="NS",
                names=PairNames("Cy Director", "Di Director"),
            )
        ),
        None,
    ),
    "the TD asks for the players' numbers": lambda night: (
        lambda s: event_settings.update_event(
            s, get_event(s, night.club.event_id), {"player_numbers": "first_round"}
        )[1],
        None,
    ),
    "the TD moves the table to a new device": _section(
        lambda s, sec: _no_pushes(round_control.move_to_new_device(s, sec, TABLE)), rounds=False
    ),
}


def _no_pushes(_: object) -> list[Push]:
    """A change that publishes nothing (what it answers, a new pairing code, is random)."""
    return []


class Worker:
    """One server process's writing side on ``url``: its engine, desk, memory and writer."""

    def __init__(self, url: str, night: Night) -> None:
        self.night = night
        self.engine = make_engine(url)
        self.desk = TableDesk(self.engine, batch=BATCH, memory=TableMemory())

    def close(self) -> None:
        self.desk.close()
        self.engine.dispose()

    def send(self, move: Move) -> Any:
        """The move's answer as its transport gets it: the reply, or the refusal's code."""
        try:
            return asyncio.run(self._send(move))
        except TravellerError as exc:
            return "refused", exc.code

    async def _send(self, move: Move) -> Any:
        night = self.night
        if move.change is not None:
            work, rounds_of = CHANGES[move.change](night)
            pushes = await self.desk.write(work, rounds_of=rounds_of)
            return [scrub(p.message.model_dump(mode="json")) for p in pushes]
        assert move.body is not None
        body = dict(move.body)
        if "board" in body:  # the round's board the move names (its index)
            body["board"] = night.boards[move.board]
        if "pin" in body:
            body["pin"] = night.pin
        if "td_code" in body:
            body["td_code"] = night.td_code
        command = table_command_adapter.validate_python(body)
        if move.keypad:  # the gateway's call, in its own thread as the gateway makes it
            handled = await asyncio.to_thread(
                handle, self.desk, KEYPAD, cast(KeypadCommand, command)
            )
            return scrub(handled.reply.model_dump(mode="json")) if handled.reply else None
        reply = await self.desk.command(night.token, command)
        return scrub(reply.model_dump(mode="json"))


def _outcome(url: str, night: Night, answers: list[Any]) -> tuple[Any, ...]:
    """Both answers, everything stored of the section (without ids and times), and the
    table's round."""
    with engine_at(url) as engine:
        club = Club(night.club.client, engine, {}, night.club.event_id, night.club.section)
        with Session(engine) as s:
            table = s.exec(
                select(BridgeTable).where(
                    BridgeTable.section_id == night.section_id, BridgeTable.number == TABLE
                )
            ).one()
        return (*answers, Floor(club).stored(), table.round)


def _prepare(workers: list[Worker], steps: tuple[Move, ...]) -> None:
    """Every worker remembers the table; the setup's ``steps`` are made through the first."""
    for worker in workers:
        reply = worker.send(Move({"type": "get_round"}))
        assert reply["type"] == "round_info", reply
    for move in steps:
        reply = workers[0].send(move)
        assert isinstance(reply, list) or reply["type"] == "result_ack", reply


def one_after_the_other(url: str, night: Night, race: str, first: int) -> tuple[Any, ...]:
    """One worker: the race's two sides in turn, side ``first`` (0 or 1) first."""
    steps, *sides = RACES[race]
    worker = Worker(url, night)
    answers: list[Any] = [None, None]
    try:
        _prepare([worker], steps)
        for i in (first, 1 - first):
            answers[i] = worker.send(sides[i])
    finally:
        worker.close()
    return _outcome(url, night, answers)


def raced(url: str, night: Night, race: str) -> tuple[Any, ...]:
    """Two workers, each sending its side at the same moment from a thread of its own."""
    steps, *sides = RACES[race]
    workers = [Worker(url, night), Worker(url, night)]
    answers: list[Any] = [None, None]
    start = threading.Barrier(2)

    def side(i: int) -> None:
        start.wait(timeout=10)
        answers[i] = workers[i].send(sides[i])

    try:
        _prepare(workers, steps)
        threads = [threading.Thread(target=side, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
        assert not any(t.is_alive() for t in threads), "a racing side never came back"
    finally:
        for worker in workers:
            worker.close()
    return _outcome(url, night, answers)


# ---------------------------------------------------------------- the night and its copies


def _serve_night(url: str) -> Generator[Night, None, None]:
    with engine_at(url) as engine, app_client(engine) as client:
        club = open_club(client, engine, tables=3, bpr=2)
        club.start_round(1)
        token = club.pair(TABLE).token
        code = club.td("GET", f"/api/v1/sections/{club.section_id}").json()["pairing_codes"]
        paired = handle(engine, KEYPAD, PairTerminal(code=code[str(TABLE)], device="keypad"))
        assert isinstance(paired.reply, Paired), paired.reply
        r = client.get("/api/v1/table/round", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        boards = tuple(int(b["board"]) for b in r.json()["boards"])
        with Session(engine) as s:
            row = s.exec(
                select(MovementAssignment).where(
                    MovementAssignment.section_id == club.section_id,
                    MovementAssignment.table_number == TABLE,
                    MovementAssignment.round == 1,
                )
            ).one()
            ns, ew = s.get(Pair, row.ns_pair_id), s.get(Pair, row.ew_pair_id)
            assert ns is not None
            assert ew is not None
            assert ew.pin
            dcs = DcSession(session_guid=uuid.uuid4().hex.upper(), event_id=club.event_id)
            s.add(dcs)
            s.commit()
            night = Night(
                club,
                token,
                boards,
                ew.pin,
                (ns.number, ew.number),
                dcs.session_guid,
                club.section["td_code"],
            )
        yield night


def _served(url: str) -> Night:
    """The night served on ``url``, its app gone (a database is copied without connections)."""
    serving = _serve_night(url)
    night = next(serving)
    serving.close()
    return night


Copies = Callable[[], AbstractContextManager[str]]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def night(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Night, Copies]]:
    """The night, and fresh copies of its database as it was served."""
    if request.param == "sqlite":
        source = tmp_path / "night.db"
        served = _served(f"sqlite:///{source}")
        made = iter(range(1_000))

        @contextmanager
        def sqlite_copy() -> Iterator[str]:
            path = tmp_path / f"copy-{next(made)}.db"
            with sqlite3.connect(source) as src, sqlite3.connect(path) as dst:
                src.backup(dst)
            yield f"sqlite:///{path}"

        yield served, sqlite_copy
        return
    template: str = request.getfixturevalue("pg_template")
    with pg_database(template) as name:
        served = _served(pg_address(name))

        @contextmanager
        def pg_copy() -> Iterator[str]:
            with pg_database(name) as copy:
                yield pg_address(copy)

        yield served, pg_copy


@pytest.mark.parametrize("race", list(RACES))
def test_two_racing_workers_end_as_one_worker_taking_one_side_after_the_other(
    night: tuple[Night, Copies], race: str
) -> None:
    served, copy = night
    with copy() as url:
        in_order = one_after_the_other(url, served, race, first=0)
    with copy() as url:
        reversed_ = one_after_the_other(url, served, race, first=1)
        dialect = make_url(url).get_backend_name()
    # The two orders end differently, so each race's outcome says which order it was.
    assert in_order != reversed_
    for _ in range(TIMES[dialect]):
        with copy() as url:
            got = raced(url, served, race)
        assert got in (in_order, reversed_), got


# ---------------------------------------------------------------- pairs drawn from every side

#: The board's state before a drawn pair of sides.
SETUPS: dict[str, tuple[Move, ...]] = {
    "nothing entered": (),
    "north entered": NORTH_ENTERED,
    "north entered, round 1 closed": (*NORTH_ENTERED, Move(change="the TD closes round 1")),
    "the round played": ROUND_PLAYED[:-1],
    "the round played, round 2 started": ROUND_PLAYED,
    "the players' numbers asked for": PLAYERS_ASKED,
}
#: Every side a pair may be drawn from: the table's commands and the changes of the others.
SIDES: dict[str, Move] = {
    "north enters 4S": enter("north-0001", FOUR_SPADES),
    "south enters 3NT": enter("south-0001", THREE_NT),
    "east confirms version 1": confirm("east-0001", 1),
    "east rejects version 1": reject("east-0002", 1),
    "north corrects version 1": correct("north-0002", 1, THREE_NT),
    "the table moves on": NEXT_ROUND,
    "the TD marks the board not played at the table": Move(
        {"type": "mark_not_played", "entry_id": "td-at-table-1", "board": 0, "td_code": "CODE"}
    ),
    "the table names its N/S players": NAME_PLAYERS,
    "the keypad enters 3NT": replace(enter("keypad-0001", THREE_NT), keypad=True),
    "the keypad confirms version 1": replace(confirm("keypad-0002", 1), keypad=True),
    "the keypad moves on": replace(NEXT_ROUND, keypad=True),
    **{change: Move(change=change) for change in CHANGES},
}
#: Pairs drawn (the same ones every run): a setup, and the two workers' sides.
DRAWN = 16


def _drawn() -> list[tuple[str, str, str]]:
    draw = random.Random(20261205)
    sides = sorted(SIDES)
    return [
        (draw.choice(sorted(SETUPS)), draw.choice(sides), draw.choice(sides)) for _ in range(DRAWN)
    ]


@pytest.mark.postgres
@pytest.mark.parametrize(("before", "first", "second"), _drawn())
def test_drawn_pairs_of_sides_end_as_one_worker_taking_one_after_the_other(
    pg_template: str, before: str, first: str, second: str
) -> None:
    """Any two sides, raced on PostgreSQL (on SQLite every write transaction takes the
    database's lock at its BEGIN: two workers' writes cannot interleave there)."""
    race = f"{before}: {first} / {second}"
    RACES[race] = (SETUPS[before], SIDES[first], SIDES[second])
    try:
        with pg_database(pg_template) as name:
            served = _served(pg_address(name))
            outcomes = []
            for order in (0, 1):
                with pg_database(name) as copy:
                    outcomes.append(one_after_the_other(pg_address(copy), served, race, order))
            with pg_database(name) as copy:
                got = raced(pg_address(copy), served, race)
    finally:
        del RACES[race]
    assert got in outcomes, got

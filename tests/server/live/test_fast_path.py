"""The fast path's pieces (issue 18 item 3) give the same answers as the slower code they
replace: the small token check of a socket's pushes, the round view's narrower reads, the write
lock owned by the Runtime."""

from __future__ import annotations

import threading
from datetime import timedelta
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import Session, select

from protocol.messages import Hello, Paired, PairTerminal, RoundInfo
from server.core.config import Settings
from server.core.db import GroupWriter, make_engine, read, transact, write_lock
from server.core.errors import UnauthorizedError
from server.core.models import BridgeTable, MovementAssignment, Pair, TableToken, utcnow
from server.gateway.jobs import Station
from server.gateway.service import handle
from server.live.runtime import Runtime
from server.live.table_desk import TableDesk
from server.services import tokens
from server.services.views import round_info
from tests.support.api import Club


def _answer(engine: Engine, check: object) -> str:
    """What a check answers for a token: "live", or the refusal's code."""
    try:
        read(engine, check)  # type: ignore[arg-type]
    except UnauthorizedError as exc:
        return exc.code
    return "live"


def _set_token(engine: Engine, token: str, **columns: object) -> None:
    def work(s: Session) -> None:
        row = s.exec(select(TableToken).where(TableToken.token_hash == tokens.digest(token))).one()
        for key, value in columns.items():
            setattr(row, key, value)
        s.add(row)

    transact(engine, work)


def test_the_push_token_check_answers_as_the_full_identity(club: Club) -> None:
    """tokens.check_token (before every batch of a socket's pushes) refuses exactly what
    tokens.table_identity refuses, with the same code: live, unknown, expired, revoked."""
    live, expired, revoked = (club.pair(n).token for n in (1, 2, 3))
    _set_token(club.engine, expired, expires_at=utcnow() - timedelta(seconds=1))
    _set_token(club.engine, revoked, revoked_at=utcnow())
    cases = {live: "live", "no-such-token": "token_invalid"}
    cases |= {expired: "token_expired", revoked: "token_revoked"}
    for token, expected in cases.items():
        small = _answer(club.engine, lambda s, t=token: tokens.check_token(s, t))
        full = _answer(club.engine, lambda s, t=token: tokens.table_identity(s, t))
        assert (small, full) == (expected, expected), token


def test_a_withdrawn_terminal_hears_no_push_after_the_next_command(club: Club) -> None:
    """A second device of table 1 stays on the socket; once the TD withdraws it, the next
    result of table 1 (keyed on the first device) reaches it not at all: it is closed with
    token_revoked instead."""
    club.start_round(1)
    first = club.pair(1)

    def fresh_code(s: Session) -> str:  # a code works once: the table's new one
        return s.exec(
            select(BridgeTable.pairing_code).where(
                BridgeTable.section_id == club.section_id, BridgeTable.number == 1
            )
        ).one()

    paired = club.client.post(
        "/api/v1/table/pair", json={"code": read(club.engine, fresh_code), "device": "second"}
    )
    assert paired.status_code == 200, paired.text
    second_token = paired.json()["token"]
    with club.client.websocket_connect("/api/v1/table/ws") as ws:
        ws.send_json({"type": "hello", "token": second_token})
        assert ws.receive_json()["type"] == "round_info"
        _set_token(club.engine, second_token, revoked_at=utcnow())
        assert first.enter(1, "3NT", "N", 9).status_code == 200
        message = ws.receive_json()
        assert (message["type"], message["code"]) == ("error", "token_revoked")


def test_round_info_reads_only_its_boards_and_the_next_positions(club: Club) -> None:
    """The round view from the narrower reads still names this round's boards (dealer and
    vulnerability) and, once complete, where each of the two pairs goes next: the same as
    the movement's own rows say."""
    club.start_round(1)
    table = club.pair(2)
    info = table.round()
    boards = [b["board"] for b in info["boards"]]
    assert len(boards) == 3
    assert all(b["dealer"] in "NESW" for b in info["boards"])
    for board in boards:
        entered = table.enter(board, "3NT", "N", 9).json()
        assert table.confirm(board, entered["result"]["version"]).status_code == 200
    club.start_round(2)
    done = table.round()
    assert done["complete"]
    assert len(done["next"]) == 2

    def movement(s: Session) -> list[tuple[str, int | None]]:
        rows = s.exec(
            select(MovementAssignment).where(
                MovementAssignment.section_id == club.section_id, MovementAssignment.round == 2
            )
        ).all()
        out = []
        for label in (info["ns"]["label"], info["ew"]["label"]):
            number = int(label.split()[0])
            direction = label.split()[1]
            pair = s.exec(
                select(Pair).where(
                    Pair.section_id == club.section_id,
                    Pair.number == number,
                    Pair.direction == direction,
                )
            ).one()
            row = next(r for r in rows if pair.id in (r.ns_pair_id, r.ew_pair_id))
            out.append((label, row.table_number))
        return out

    expected = read(club.engine, movement)
    assert [(n["pair"], n["table"]) for n in done["next"]] == expected

    def view(s: Session) -> list[int]:
        ident = tokens.table_identity(s, table.token)
        return [b.board for b in round_info(s, ident.event, ident.section, ident.table).boards]

    assert read(club.engine, view) == boards


def test_the_runtime_owns_one_write_lock(club: Club) -> None:
    """The Runtime's transactions, its group writer and its table desk queue on one lock
    (SQLite); another Runtime (another app) has its own; PostgreSQL needs none."""
    engine = club.engine
    settings = Settings(database_url="unused://")
    one, two = Runtime(settings, engine), Runtime(settings, engine)
    assert one.writer is not None
    assert one.writer.lock is one.lock
    assert one.desk.lock is one.lock
    if engine.dialect.name == "sqlite":
        assert isinstance(one.lock, type(threading.RLock()))
        assert one.lock is not two.lock
    else:
        with one.lock:  # a no-op context
            pass
    # While one of its transactions runs, another thread cannot take the lock (SQLite).
    others: list[bool] = []

    def work(s: Session) -> int:
        def try_lock() -> None:
            got = one.lock.acquire(blocking=False)  # type: ignore[attr-defined]
            others.append(got)
            if got:
                one.lock.release()  # type: ignore[attr-defined]

        if engine.dialect.name == "sqlite":
            thread = threading.Thread(target=try_lock)
            thread.start()
            thread.join()
        return len(s.exec(select(BridgeTable)).all())

    assert one.transact(work) >= 0
    assert others == ([False] if engine.dialect.name == "sqlite" else [])


def test_a_group_writer_without_a_lock_makes_its_own(club: Club) -> None:
    """A writer outside a server (the standalone gateway, the tests) gets a lock of its own."""
    engine = club.engine
    first, second = GroupWriter(engine), GroupWriter(engine)
    if engine.dialect.name == "sqlite":
        assert first.lock is not second.lock
    shared = write_lock(engine)
    assert GroupWriter(engine, lock=shared).lock is shared
    assert first.submit(lambda s: len(s.exec(select(BridgeTable)).all())).result(timeout=30) >= 0


def test_a_sqlite_file_keeps_its_readers_connections(tmp_path: Path) -> None:
    """A file database's pool is as large as the page readers at once (no reconnects)."""
    eng = make_engine(f"sqlite:///{tmp_path}/pool.db")
    try:
        assert eng.pool.size() >= 20  # type: ignore[attr-defined]
    finally:
        eng.dispose()


class CountingLock:
    """A write lock that counts the transactions queued on it."""

    def __init__(self) -> None:
        self.inner = threading.RLock()
        self.entered = 0

    def __enter__(self) -> CountingLock:
        self.inner.acquire()
        self.entered += 1
        return self

    def __exit__(self, *exc: object) -> None:
        self.inner.release()


def test_the_keypad_gateways_pairing_and_hello_queue_on_the_write_lock(club: Club) -> None:
    """The gateway's own transactions (pairing, the hello) take the desk's write lock, as the
    table commands do, instead of waiting in SQLite's busy handler."""
    club.start_round(1)

    def code_of(s: Session) -> str:
        return s.exec(
            select(BridgeTable.pairing_code).where(
                BridgeTable.section_id == club.section_id, BridgeTable.number == 2
            )
        ).one()

    lock = CountingLock()
    desk = TableDesk(club.engine, lock=lock)
    station = Station("/dev/ttyUSB0", 7)
    paired = handle(desk, station, PairTerminal(code=read(club.engine, code_of), device="kp"))
    assert isinstance(paired.reply, Paired), paired.reply
    assert lock.entered == 1
    hello = handle(desk, station, Hello(token=paired.reply.token))
    assert isinstance(hello.reply, RoundInfo), hello.reply
    assert lock.entered == 2

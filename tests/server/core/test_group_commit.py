"""Group commit (server/core/db.py GroupWriter): table commands committed together keep every
guarantee of one transaction each — a refused command undoes only itself, nothing is answered
before the COMMIT, a resend in the same batch is a duplicate, a database error falls back to
one by one — on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import event
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from protocol.messages import ConfirmResult, ResultAck
from server.core.db import GroupWriter, Job, pool_for_workers
from server.core.errors import ConflictError, TravellerError
from server.core.models import Audit
from server.services import tokens
from server.services.table.table_commands import Outcome, outcome_for
from tests.support.api import Club, new_id
from tests.support.app_factory import app_client
from tests.support.env import TD_PASSWORD
from tests.support.group_commit import enter, outcome, start_and_pair, stored, stored_in
from tests.support.wait import wait_until

Work = Callable[[Session], Outcome]

WAIT = 30.0  # seconds a step may take before the test gives up (never a timing assertion)


def command(token: str, cmd: Any) -> Work:
    """What the websocket runs for one table command (execute() in server/api/table.py)."""
    return lambda s: outcome_for(s, tokens.table_identity(s, token, lock=True), cmd)


@pytest.fixture
def playing(club: Club) -> tuple[Club, dict[int, str]]:
    """Round 1 started, tables 1-3 paired (their tokens by table number)."""
    return start_and_pair(club)


def test_a_batch_stores_every_command_with_one_commit(playing: tuple[Club, dict[int, str]]) -> None:
    club, token = playing
    commits: list[int] = []
    event.listen(club.engine, "commit", lambda _conn: commits.append(1))
    before = stored(club.engine)
    writer = GroupWriter(club.engine)
    boards = {1: 1, 2: 4, 3: 7}  # each table's first board in round 1 (3 boards a round)
    jobs: list[Job[Any]] = [Job(command(token[n], enter(b)), order=n) for n, b in boards.items()]
    writer.run_batch(jobs)
    assert len(commits) == 1
    acks = [outcome(j) for j in jobs]
    assert all(isinstance(a.reply, ResultAck) for a in acks), acks
    assert [a.reply.result.board for a in acks] == [1, 4, 7]
    # Each command keeps its own idempotency row, audit row and push.
    assert stored(club.engine) == (before[0] + 3, before[1] + 3, before[2] + 3)
    assert [len(a.pushes) for a in acks] == [1, 1, 1]


def test_a_refused_command_undoes_only_itself(playing: tuple[Club, dict[int, str]]) -> None:
    club, token = playing
    before = stored(club.engine)
    writer = GroupWriter(club.engine)
    bad = enter(9)  # board 9 is not table 2's in round 1
    jobs: list[Job[Any]] = [
        Job(command(token[1], enter(1)), order=1),
        Job(command(token[2], bad), order=2),
        Job(command(token[3], enter(7)), order=3),
    ]
    writer.run_batch(jobs)
    assert isinstance(outcome(jobs[0]).reply, ResultAck)
    refused = outcome(jobs[1])
    assert isinstance(refused, TravellerError)
    assert refused.code == "board_not_in_round"
    assert isinstance(outcome(jobs[2]).reply, ResultAck)
    assert stored(club.engine) == (before[0] + 2, before[1] + 2, before[2] + 2)


@pytest.mark.parametrize("how", ["flushed", "pending"])
def test_a_refusal_after_writes_leaves_nothing_of_them(
    playing: tuple[Club, dict[int, str]], how: str
) -> None:
    """A command refused after it wrote leaves nothing behind: a statement it ran (``flushed``:
    the writer counts them) or an ORM object it added and did not flush (``pending``: it would
    be written at the batch's COMMIT). The writer rolls the batch back and runs each command on
    its own."""
    club, token = playing
    before = stored(club.engine)

    def writes_then_refuses(s: Session) -> Outcome:
        if how == "flushed":
            command(token[1], enter(1))(s)
            s.flush()
        else:
            s.add(Audit(actor="table 1", action="kept", section_id=club.section_id))
        raise ConflictError("refused_late", "written, then refused")

    writer = GroupWriter(club.engine)
    jobs: list[Job[Any]] = [
        Job(writes_then_refuses, order=1),
        Job(command(token[2], enter(4)), order=2),
    ]
    writer.run_batch(jobs)
    assert isinstance(outcome(jobs[0]), ConflictError)
    assert isinstance(outcome(jobs[1]).reply, ResultAck)
    assert stored(club.engine) == (before[0] + 1, before[1] + 1, before[2] + 1)
    assert writer.stats.fallbacks == 1


def test_a_refusal_before_any_write_keeps_the_batch_together(
    playing: tuple[Club, dict[int, str]],
) -> None:
    club, token = playing
    writer = GroupWriter(club.engine)
    jobs: list[Job[Any]] = [
        Job(command(token[1], enter(1)), order=1),
        Job(command(token[2], enter(9)), order=2),  # not table 2's board: refused at once
    ]
    writer.run_batch(jobs)
    assert isinstance(outcome(jobs[1]), TravellerError)
    assert (writer.stats.batches, writer.stats.fallbacks) == (1, 0)


def test_a_resend_in_the_same_batch_is_a_duplicate(playing: tuple[Club, dict[int, str]]) -> None:
    club, token = playing
    before = stored(club.engine)
    same = enter(1, entry_id=new_id())
    writer = GroupWriter(club.engine)
    jobs: list[Job[Any]] = [Job(command(token[1], same), order=1) for _ in range(3)]
    writer.run_batch(jobs)
    replies = [outcome(j).reply for j in jobs]
    assert [r.duplicate for r in replies] == [False, True, True]
    assert stored(club.engine) == (before[0] + 1, before[1] + 1, before[2] + 1)


def test_one_tables_commands_keep_their_order(playing: tuple[Club, dict[int, str]]) -> None:
    """Jobs are sorted by table (the lock order) but a table's enter stays before its confirm."""
    club, token = playing
    writer = GroupWriter(club.engine)
    jobs: list[Job[Any]] = [
        Job(command(token[2], enter(4)), order=2),
        Job(command(token[1], enter(1)), order=1),
        Job(command(token[2], ConfirmResult(entry_id=new_id(), board=4, version=1)), order=2),
    ]
    writer.run_batch(jobs)
    confirmed = outcome(jobs[2]).reply
    assert isinstance(confirmed, ResultAck), confirmed
    assert confirmed.result.state == "confirmed"


def test_nothing_is_answered_before_the_commit(playing: tuple[Club, dict[int, str]]) -> None:
    club, token = playing
    seen_at_commit: list[list[bool]] = []
    writer = GroupWriter(club.engine)
    jobs: list[Job[Any]] = [
        Job(command(token[n], enter(b)), order=n) for n, b in ((1, 1), (2, 4), (3, 7))
    ]
    event.listen(
        club.engine, "commit", lambda _conn: seen_at_commit.append([j.future.done() for j in jobs])
    )
    writer.run_batch(jobs)
    assert seen_at_commit == [[False, False, False]]
    assert all(j.future.done() for j in jobs)


def test_a_database_error_falls_back_to_one_by_one(
    playing: tuple[Club, dict[int, str]],
) -> None:
    """An error that is not a refusal (here a unique-key race that persists) undoes the whole
    batch; each command then runs alone, so the others are still stored."""
    club, token = playing
    before = stored(club.engine)

    def races(_s: Session) -> Outcome:
        raise IntegrityError("INSERT ...", {}, Exception("UNIQUE constraint failed"))

    writer = GroupWriter(club.engine)
    jobs: list[Job[Any]] = [
        Job(command(token[1], enter(1)), order=1),
        Job(races, order=2),
        Job(command(token[3], enter(7)), order=3),
    ]
    writer.run_batch(jobs)
    assert writer.stats.fallbacks == 1
    assert isinstance(outcome(jobs[0]).reply, ResultAck)
    assert isinstance(outcome(jobs[1]), IntegrityError)
    assert isinstance(outcome(jobs[2]).reply, ResultAck)
    assert stored(club.engine) == (before[0] + 2, before[1] + 2, before[2] + 2)


def test_the_writer_thread_batches_queued_commands(playing: tuple[Club, dict[int, str]]) -> None:
    """Through the thread: every submitted command is answered, acknowledged once."""
    club, token = playing
    writer = GroupWriter(club.engine, idle=0.2)
    futures = [writer.submit(command(token[n], enter(b)), n) for n, b in ((1, 1), (2, 4), (3, 7))]
    replies = [f.result(timeout=60) for f in futures]
    assert all(isinstance(r.reply, ResultAck) for r in replies)
    assert writer.stats.jobs == 3


def test_the_writer_thread_keeps_one_connection_while_it_runs(
    playing: tuple[Club, dict[int, str]],
) -> None:
    """Batches and writes alone, one after another, all run on the one connection the
    writer's thread took from the pool (its page cache stays warm); idle, the thread gives it
    back."""
    club, token = playing
    checkouts: list[int] = []  # the threads that took a connection from the pool
    event.listen(club.engine, "checkout", lambda *_a: checkouts.append(threading.get_ident()))
    writer = GroupWriter(club.engine, idle=1.0)  # never idle between two writes
    used: list[int] = []
    threads: set[int] = set()

    def note(s: Session) -> None:
        used.append(id(s.connection().connection.dbapi_connection))
        threads.add(threading.get_ident())

    def noted(work: Work) -> Work:
        def run(s: Session) -> Outcome:
            note(s)
            return work(s)

        return run

    def td_write(s: Session) -> int:
        note(s)
        return 1

    for n, b in ((1, 1), (2, 4), (3, 7)):
        assert isinstance(
            writer.submit(noted(command(token[n], enter(b))), n).result(WAIT).reply, ResultAck
        )
        assert writer.submit(td_write, alone=True).result(WAIT) == 1
    assert len(used) == 6
    assert len(set(used)) == 1, used
    assert len(threads) == 1  # the writer's one thread ran them all
    writer_thread = threads.pop()
    assert checkouts.count(writer_thread) == 1
    returned: list[int] = []
    event.listen(club.engine, "checkin", lambda *_a: returned.append(threading.get_ident()))
    wait_until(lambda: writer._thread is None, WAIT, "the idle writer's end")
    assert returned.count(writer_thread) == 1  # it gave its one connection back


def test_stop_ends_the_writer_once_what_was_queued_is_done(
    playing: tuple[Club, dict[int, str]],
) -> None:
    """The server's end: every job queued before ``stop`` is answered, then the thread ends
    and gives its connection back at once (not after its idle time); a job after it starts
    the writer again."""
    club, token = playing
    returned: list[int] = []
    event.listen(club.engine, "checkin", lambda *_a: returned.append(threading.get_ident()))
    writer = GroupWriter(club.engine, idle=60.0)
    running, gate = threading.Event(), threading.Event()

    def hold(_s: Session) -> str:
        running.set()
        return "held" if gate.wait(WAIT) else "gave up"

    held = writer.submit(hold)
    assert running.wait(WAIT)
    queued = [writer.submit(command(token[n], enter(b)), n) for n, b in ((1, 1), (2, 4))]
    thread = writer._thread
    assert thread is not None
    stopping = threading.Thread(target=writer.stop)
    stopping.start()
    gate.set()
    stopping.join(WAIT)
    assert not thread.is_alive()
    assert writer._thread is None
    assert held.result(0) == "held"
    assert all(isinstance(f.result(0).reply, ResultAck) for f in queued)
    assert thread.ident in returned  # its connection went back to the pool
    after = writer.submit(command(token[3], enter(7)), 3)
    assert isinstance(after.result(WAIT).reply, ResultAck)
    writer.stop()


def test_an_app_at_its_end_stops_its_writer(club: Club) -> None:
    """Leaving the server's lifespan ends its writer's thread (its connection given back)."""
    with app_client(club.engine) as client:
        r = client.post("/api/v1/td/login", json={"password": TD_PASSWORD})
        assert r.status_code == 200, r.text  # a write: the login's session
        writer = client.app.state.runtime.desk.writer
        assert writer is not None
        thread = writer._thread
        assert thread is not None
    assert writer._thread is None
    assert not thread.is_alive()


def test_a_broken_writer_connection_is_replaced(playing: tuple[Club, dict[int, str]]) -> None:
    """A connection that breaks under a command (here invalidated, as a database restart
    does) fails that command with nothing stored; the writer's next batch runs on a working
    connection and is stored as usual."""
    club, token = playing
    before = stored(club.engine)
    writer = GroupWriter(club.engine, idle=0.2)

    def breaks(s: Session) -> Outcome:
        s.connection().invalidate()
        return command(token[1], enter(1))(s)

    assert writer.submit(breaks, 1).exception(WAIT) is not None
    after = writer.submit(command(token[2], enter(4)), 2)
    assert isinstance(after.result(WAIT).reply, ResultAck)
    assert stored(club.engine) == (before[0] + 1, before[1] + 1, before[2] + 1)


def test_coroutines_get_a_batchs_answers_in_one_hand_over(
    playing: tuple[Club, dict[int, str]],
) -> None:
    """From coroutines (the websocket's and HTTP's way in): each gets its own answer or
    refusal once the batch has committed, all of a batch's answers reach the event loop in one
    call, and a command whose coroutine stopped waiting before its batch began is not run."""
    club, token = playing
    before = stored(club.engine)
    writer = GroupWriter(club.engine, idle=0.2)
    running, gate = threading.Event(), threading.Event()

    def hold(_s: Session) -> str:
        running.set()
        return "held" if gate.wait(WAIT) else "gave up"

    async def play() -> tuple[list[Any], list[object]]:
        loop = asyncio.get_running_loop()
        handed: list[object] = []
        real = loop.call_soon_threadsafe

        def spy(callback: Callable[..., object], *args: Any, **kwargs: Any) -> Any:
            if getattr(callback, "__module__", "") == "server.core.db":  # not asyncio's own
                handed.append(callback)
            return real(callback, *args, **kwargs)

        loop.call_soon_threadsafe = spy  # type: ignore[method-assign]
        held = writer.submit_async(hold, 0)
        await asyncio.to_thread(running.wait, WAIT)  # the writer is busy: the rest queue up
        unentered = ConfirmResult(entry_id=new_id(), board=7, version=1)
        waits = [
            writer.submit_async(command(token[1], enter(1)), 1),
            writer.submit_async(command(token[2], enter(4)), 2),
            writer.submit_async(command(token[3], unentered), 3),
            writer.submit_async(command(token[3], enter(8)), 3),
        ]
        waits[3].cancel()  # its table's socket closed before the batch began
        gate.set()
        got = await asyncio.gather(held, *waits, return_exceptions=True)
        return got, handed

    got, handed = asyncio.run(play())
    assert got[0] == "held"
    assert isinstance(got[1].reply, ResultAck), got[1]
    assert isinstance(got[2].reply, ResultAck), got[2]
    assert isinstance(got[3], TravellerError), got[3]  # nothing entered on board 7 to confirm
    assert isinstance(got[4], asyncio.CancelledError), got[4]
    assert (writer.stats.batches, writer.stats.jobs) == (2, 4), writer.stats
    assert len(handed) == 2, handed  # one hand-over a batch, not one a command
    assert stored(club.engine) == (before[0] + 2, before[1] + 2, before[2] + 2)


def test_a_write_that_is_no_table_command_runs_alone_in_its_place(
    playing: tuple[Club, dict[int, str]],
) -> None:
    """The TD's writes go through the same writer as the table commands (TableDesk.write):
    one that comes between two commands runs in a transaction of its own, after the command
    queued before it has committed and before the one queued after it, though that one's
    table comes first in a batch's order."""
    club, token = playing
    writer = GroupWriter(club.engine, idle=0.2)
    running, gate = threading.Event(), threading.Event()
    commits: list[int] = []
    event.listen(club.engine, "commit", lambda _conn: commits.append(1))

    def hold(_s: Session) -> bool:
        running.set()
        return gate.wait(WAIT)

    def td_write(s: Session) -> tuple[int, str]:
        s.add(Audit(actor="TD", action="note", section_id=club.section_id))
        return stored_in(s)[0], threading.current_thread().name

    before = stored(club.engine)
    held = writer.submit(hold, 0)
    assert running.wait(WAIT), "the writer never started the holding job"
    later = writer.submit(command(token[3], enter(7)), 3)
    td = writer.submit(td_write, 0, alone=True)
    earlier_table = writer.submit(command(token[1], enter(1)), 1)
    gate.set()
    assert held.result(WAIT) is True
    results_seen, thread = td.result(WAIT)
    assert results_seen == before[0] + 1  # table 3's result, committed before it; not table 1's
    assert thread == "traveller-group-writer"
    assert isinstance(later.result(WAIT).reply, ResultAck)
    assert isinstance(earlier_table.result(WAIT).reply, ResultAck)
    assert len(commits) == 3  # table 3, the TD's write, table 1: one each (holding read nothing)
    assert (writer.stats.alone, writer.stats.jobs) == (1, 3), writer.stats
    assert stored(club.engine) == (before[0] + 2, before[1] + 3, before[2] + 2)


def test_a_batch_handed_over_with_a_td_write_runs_every_job(
    playing: tuple[Club, dict[int, str]],
) -> None:
    """run_batch given the queue as it came, a TD write among the commands: each job runs and
    is answered, the write in a transaction of its own between the commands around it."""
    club, token = playing
    writer = GroupWriter(club.engine)
    jobs: list[Job[Any]] = [
        Job(lambda s: stored_in(s)[0], order=0, alone=True),
        Job(command(token[2], enter(4)), order=2),
        Job(lambda s: stored_in(s)[0], order=0, alone=True),
        Job(command(token[1], enter(1)), order=1),
    ]
    before = stored(club.engine)
    writer.run_batch(jobs)
    assert outcome(jobs[0]) == before[0]
    assert isinstance(outcome(jobs[1]).reply, ResultAck)
    assert outcome(jobs[2]) == before[0] + 1
    assert isinstance(outcome(jobs[3]).reply, ResultAck)
    assert (writer.stats.alone, writer.stats.batches) == (2, 2), writer.stats


def test_a_revoked_token_is_refused_at_once(playing: tuple[Club, dict[int, str]]) -> None:
    club, token = playing
    writer = GroupWriter(club.engine)
    first: Job[Any] = Job(command(token[1], enter(1)), order=1)
    writer.run_batch([first])
    assert isinstance(outcome(first).reply, ResultAck)
    with Session(club.engine) as s:  # the TD moves the table to a new device
        ident = tokens.table_identity(s, token[1])
        assert tokens.revoke_table_tokens(s, ident.table) == 1
        s.commit()
    again: Job[Any] = Job(command(token[1], enter(2)), order=1)
    writer.run_batch([again])
    refused = outcome(again)
    assert isinstance(refused, TravellerError)
    assert refused.code == "token_revoked"


@pytest.mark.parametrize("workers", [1, 2, 4, 8])
def test_the_pool_fits_postgres_max_connections(workers: int) -> None:
    size, overflow = pool_for_workers(workers)
    assert size >= 1
    assert overflow >= 0
    # Each worker: its pool plus the fan-out's LISTEN and NOTIFY connections.
    assert workers * (size + overflow + 2) <= 100 - 10


def test_too_many_workers_for_the_pool_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="max_connections"):
        pool_for_workers(60)

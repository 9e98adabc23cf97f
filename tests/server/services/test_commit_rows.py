"""The rows a table command only writes (its idempotency row, the audit row of its change) are
kept until the group commit's COMMIT and written with one ``executemany`` a statement
(server/services/commit_rows.py), through the table desk as every transport runs a command.
The guarantees stay those of one transaction a command: a resend in the same batch is a
duplicate, an entry id reused with other content is refused, a refused command leaves no row,
a second different entry is a conflict that overwrites nothing, every change is audited."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, event
from sqlmodel import Session, col, func, select

from protocol.messages import (
    ConfirmResult,
    ResultAck,
    TableCommand,
)
from server.core.db import GroupWriter, Job, transact
from server.core.errors import ConflictError
from server.core.models import Audit, Result
from server.live.table_desk import TableDesk
from server.services import audit, commit_rows, tokens
from server.services.outcomes import Outcome
from tests.support.api import Club, new_id
from tests.support.group_commit import enter, outcome, start_and_pair, stored

Work = Callable[[Session], Outcome]


def through_desk(engine: Engine, token: str, cmd: TableCommand) -> Work:
    """A command's work as the table desk runs it for the websocket, HTTP and the gateway."""
    return TableDesk(engine).work(cmd, lambda s: tokens.table_identity(s, token, lock=True))


def run_batch(engine: Engine, jobs: list[Job[Any]]) -> None:
    """The jobs as the desk's group commit runs them: its unit of work opened before the
    first, appended before the COMMIT, its memory applied after."""
    GroupWriter(engine, steps=TableDesk(engine)).run_batch(jobs)


@pytest.fixture
def playing(club: Club) -> tuple[Club, dict[int, str]]:
    """Round 1 started, tables 1-3 paired (their tokens by table number)."""
    return start_and_pair(club)


@pytest.fixture
def statements(club: Club) -> Iterator[list[tuple[str, bool]]]:
    """Every INSERT into audit / received_entry: (table, executemany)."""
    seen: list[tuple[str, bool]] = []

    def note(_conn: Any, _cursor: Any, sql: str, _params: Any, _ctx: Any, many: bool) -> None:
        head = sql.lstrip().upper()
        for table in ("AUDIT", "RECEIVED_ENTRY"):
            if head.startswith(f"INSERT INTO {table} "):
                seen.append((table.lower(), many))

    event.listen(club.engine, "before_cursor_execute", note)
    yield seen
    event.remove(club.engine, "before_cursor_execute", note)


def test_a_batch_writes_its_log_and_audit_rows_with_one_statement_each(
    playing: tuple[Club, dict[int, str]], statements: list[tuple[str, bool]]
) -> None:
    club, token = playing
    before = stored(club.engine)
    boards = {1: 1, 2: 4, 3: 7}  # each table's first board in round 1
    jobs: list[Job[Any]] = [
        Job(through_desk(club.engine, token[n], enter(b)), order=n) for n, b in boards.items()
    ]
    run_batch(club.engine, jobs)
    assert all(isinstance(outcome(j).reply, ResultAck) for j in jobs)
    assert stored(club.engine) == (before[0] + 3, before[1] + 3, before[2] + 3)
    # PostgreSQL's driver may send an executemany as one multi-row INSERT (insertmanyvalues).
    assert sorted(t for t, _ in statements) == ["audit", "received_entry"], statements
    # ... and each row is the command's: the audit names the table and the change.
    with Session(club.engine) as s:
        rows = s.exec(select(Audit).order_by(col(Audit.id))).all()[-3:]
    assert [(r.actor, r.action) for r in rows] == [(f"table {n} N/S", "entered") for n in (1, 2, 3)]
    assert all(r.result_id is not None and r.corrections_until is None for r in rows)


def test_a_resend_in_the_same_batch_is_a_duplicate(playing: tuple[Club, dict[int, str]]) -> None:
    club, token = playing
    before = stored(club.engine)
    cmd = enter(1, entry_id="twice-in-one-batch")
    jobs: list[Job[Any]] = [Job(through_desk(club.engine, token[1], cmd), order=1) for _ in "ab"]
    run_batch(club.engine, jobs)
    first, second = (outcome(j).reply for j in jobs)
    assert (first.duplicate, second.duplicate) == (False, True)
    assert second.result == first.result
    assert stored(club.engine) == (before[0] + 1, before[1] + 1, before[2] + 1)


def test_an_entry_id_reused_in_the_same_batch_is_refused(
    playing: tuple[Club, dict[int, str]],
) -> None:
    club, token = playing
    before = stored(club.engine)
    jobs: list[Job[Any]] = [
        Job(through_desk(club.engine, token[1], enter(1, "4S", "one-entry-id")), order=1),
        Job(through_desk(club.engine, token[1], enter(2, "3NT", "one-entry-id")), order=1),
    ]
    run_batch(club.engine, jobs)
    assert isinstance(outcome(jobs[0]).reply, ResultAck)
    refused = outcome(jobs[1])
    assert isinstance(refused, ConflictError)
    assert refused.code == "entry_id_reused"
    assert stored(club.engine) == (before[0] + 1, before[1] + 1, before[2] + 1)


def test_a_refused_command_keeps_none_of_its_rows(playing: tuple[Club, dict[int, str]]) -> None:
    """A confirmation of a board never entered is refused before it writes: its kept rows go;
    the batch's other commands are stored with theirs."""
    club, token = playing
    before = stored(club.engine)
    jobs: list[Job[Any]] = [
        Job(through_desk(club.engine, token[1], enter(1)), order=1),
        Job(
            through_desk(
                club.engine, token[2], ConfirmResult(entry_id=new_id(), board=4, version=1)
            ),
            order=2,
        ),
        Job(through_desk(club.engine, token[3], enter(7)), order=3),
    ]
    run_batch(club.engine, jobs)
    refused = outcome(jobs[1])
    assert isinstance(refused, ConflictError)
    assert refused.code == "not_entered"
    assert stored(club.engine) == (before[0] + 2, before[1] + 2, before[2] + 2)


def test_a_second_different_entry_in_the_batch_is_a_conflict_and_overwrites_nothing(
    playing: tuple[Club, dict[int, str]],
) -> None:
    """Table 1 enters board 1 and (another device, same batch) enters it again differently:
    the first stays, the second raises the conflict, and both are audited in order."""
    club, token = playing
    jobs: list[Job[Any]] = [
        Job(through_desk(club.engine, token[1], enter(1, "4S")), order=1),
        Job(through_desk(club.engine, token[1], enter(1, "3NT")), order=1),
    ]
    run_batch(club.engine, jobs)
    first, second = (outcome(j).reply for j in jobs)
    assert (first.result.state, second.result.state) == ("entered", "conflict")
    with Session(club.engine) as s:
        row = s.exec(
            select(Result).where(
                Result.section_id == club.section_id, Result.table_number == 1, Result.board == 1
            )
        ).one()
        trail = [(a.action, a.result_id) for a in audit.trail(s, row.id or 0)]
    assert (row.contract, row.state) == ("4S", "conflict")  # the first entry's values stay
    assert trail == [("entered", row.id), ("conflict", row.id)]


def test_rows_outside_a_job_are_written_at_once(club: Club) -> None:
    """A TD's or a tool's audit row (no table desk job) is in the database at once, and a
    job's row only at the COMMIT."""

    def work(s: Session) -> tuple[int, int]:
        audit.record(s, actor="td", action="note", section_id=club.section_id, at_commit=True)
        at_once = s.exec(select(func.count()).select_from(Audit)).one()
        with commit_rows.job(s):
            audit.record(s, actor="td", action="kept", section_id=club.section_id, at_commit=True)
        kept = s.exec(select(func.count()).select_from(Audit)).one()
        return at_once, kept

    before = stored(club.engine)[1]
    at_once, kept = transact(club.engine, work, steps=TableDesk(club.engine))
    assert (at_once, kept) == (before + 1, before + 1)
    assert stored(club.engine)[1] == before + 2


def test_a_job_with_no_unit_of_work_open_writes_its_rows_when_it_ends(club: Club) -> None:
    """A desk's job run in a transaction that no writer will append (no ``begin``) loses
    nothing: its rows are written as the job ends, still inside the transaction."""

    def work(s: Session) -> int:
        with commit_rows.job(s):
            audit.record(s, actor="td", action="kept", section_id=club.section_id, at_commit=True)
        return int(s.exec(select(func.count()).select_from(Audit)).one())

    before = stored(club.engine)[1]
    assert transact(club.engine, work) == before + 1
    assert stored(club.engine)[1] == before + 1


def test_a_job_that_raises_with_no_unit_open_writes_nothing(club: Club) -> None:
    def work(s: Session) -> None:
        with commit_rows.job(s):
            audit.record(s, actor="td", action="kept", section_id=club.section_id, at_commit=True)
            raise ConflictError("refused", "refused")

    before = stored(club.engine)[1]
    with pytest.raises(ConflictError):
        transact(club.engine, work)
    assert stored(club.engine)[1] == before

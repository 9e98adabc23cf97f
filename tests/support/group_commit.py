"""Helpers of the group-commit tests (tests/server/core/test_group_commit.py and
test_perf_commit_rows.py): a result to enter, the rows stored, a finished job's outcome, and
round 1 with its tables paired."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, func, select

from protocol.messages import EnterResult, EntryValues
from server.core.db import Job
from server.core.models import Audit, ReceivedEntry, Result
from tests.support.api import Club, new_id


def enter(board: int, contract: str = "4S", entry_id: str | None = None) -> EnterResult:
    """North's entry of ``contract`` by South making 10 tricks on ``board``."""
    values = EntryValues(contract=contract, declarer="S", tricks=10)
    return EnterResult(entry_id=entry_id or new_id(), board=board, values=values)


def stored(engine: Engine) -> tuple[int, int, int]:
    """How many results, audit rows and idempotency rows the database holds."""
    with Session(engine) as s:
        return stored_in(s)


def stored_in(s: Session) -> tuple[int, int, int]:
    """How many results, audit rows and idempotency rows ``s`` sees."""
    return (
        s.exec(select(func.count()).select_from(Result)).one(),
        s.exec(select(func.count()).select_from(Audit)).one(),
        s.exec(select(func.count()).select_from(ReceivedEntry)).one(),
    )


def outcome(job: Job[Any]) -> Any:
    """The job's result, or the exception it failed with."""
    assert job.future.done()
    return job.future.exception() or job.future.result()


def start_and_pair(club: Club) -> tuple[Club, dict[int, str]]:
    """Round 1 started, tables 1-3 paired (their tokens by table number)."""
    club.start_round(1)
    return club, {n: club.pair(n).token for n in (1, 2, 3)}

"""A starting server waits for its PostgreSQL server (restarting, or still starting) instead of
failing at once: uvicorn stops every worker when one fails to start, so a worker started
again during a PostgreSQL restart took the whole server down (seen in the restart test on a
loaded machine). SQLite's errors do not pass by themselves and are not waited for."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from sqlalchemy import create_engine
from sqlalchemy.exc import OperationalError

from server.core import db


def _down() -> OperationalError:
    return OperationalError("SELECT 1", {}, ConnectionRefusedError("the database is restarting"))


def _failing(monkeypatch: pytest.MonkeyPatch, times: int) -> list[int]:
    calls: list[int] = []

    def migrate(_engine: object) -> None:
        calls.append(1)
        if len(calls) <= times:
            raise _down()

    monkeypatch.setattr(db, "migrate", migrate)
    return calls


def test_a_starting_server_waits_for_postgresql(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    calls = _failing(monkeypatch, times=3)
    slept: list[float] = []
    engine = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    with caplog.at_level(logging.WARNING, logger="server.core.db"):
        db.migrate_when_ready(engine, wait=60, sleep=slept.append)
    assert len(calls) == 4  # three refusals, then the migration ran
    assert slept == [0.2, 0.4, 0.8]  # backing off
    assert sum("does not answer" in r.getMessage() for r in caplog.records) == 3


def test_it_gives_up_after_its_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _failing(monkeypatch, times=10**6)
    clock = [0.0]

    def sleep(seconds: float) -> None:
        clock[0] += seconds

    monkeypatch.setattr(db.time, "monotonic", lambda: clock[0])
    engine = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none")
    with pytest.raises(OperationalError):
        db.migrate_when_ready(engine, wait=10, sleep=sleep)
    assert 5 <= len(calls) <= 8  # 0.2 + 0.4 + 0.8 + 1.6 + 3.2 s, then it would pass 10 s
    assert clock[0] <= 10


def test_sqlite_is_not_waited_for(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    calls = _failing(monkeypatch, times=1)
    slept: list[float] = []
    engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    with pytest.raises(OperationalError):
        db.migrate_when_ready(engine, wait=60, sleep=slept.append)
    assert (len(calls), slept) == (1, [])

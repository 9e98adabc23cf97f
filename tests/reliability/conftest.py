"""Fault-test fixtures: a real uvicorn server process on a fresh SQLite file (helpers: a club
set up through the TD API, outbox terminals, the exactly-once check: tests/support/faults.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.procs import ServerProcess
from tests.support.faults import FAST_LIMITS

# The helpers' old home: new tests import them from tests.support.
from tests.support.faults import Club as Club
from tests.support.faults import acks_of as acks_of
from tests.support.faults import assert_exactly_once as assert_exactly_once
from tests.support.faults import open_club as open_club
from tests.support.faults import terminals as terminals


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'traveller.db'}"


@pytest.fixture
def server(sqlite_url: str, tmp_path: Path) -> Iterator[ServerProcess]:
    """A uvicorn subprocess on a fresh SQLite database, stopped after the test."""
    srv = ServerProcess(sqlite_url, env=FAST_LIMITS, log_path=tmp_path / "server.log")
    srv.start()
    yield srv
    srv.stop()
    log = srv.tail(100_000)
    assert "Traceback" not in log, log[-5000:]

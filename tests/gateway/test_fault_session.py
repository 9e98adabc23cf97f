"""The issue's fault test: a club night of 10 keypads x 7 rounds x 4 boards through faulty lines,
against the real gateway core and a real database, in virtual time.

Tables 1-5 share an RS-485 bus, tables 6-10 each have their own port. Under each fault, every
result the players confirmed is in the database exactly once, with the values North keyed;
every command the keypads sent is stored once; nothing is applied twice; no keypad is left
holding an entry.
"""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from firmware_sim.faults import Faults
from server.core.db import make_engine

from .harness import Night, describe, verify

#: 15-26 s each in a loaded full run, out of `traveller test --fast` (the full suite runs them).
pytestmark = pytest.mark.slow

FAULTS = {
    "corruption_1pct": Faults(corrupt=0.01),
    "dropped_frames": Faults(drop=0.03),
    "duplicated_frames": Faults(duplicate=0.03),
}


def _check(night: Night) -> None:
    assert night.run(max_time=1800.0), "the session did not finish"
    report = verify(night)
    print(describe(night, report))
    assert report.problems == []
    assert report.results == 280


@pytest.fixture
def sqlite_engine(tmp_path: object) -> Engine:
    return make_engine(f"sqlite:///{tmp_path}/gateway.db")


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_line_faults_lose_and_duplicate_nothing(sqlite_engine: Engine, fault: str) -> None:
    night = Night(sqlite_engine, FAULTS[fault], seed=len(fault))
    _check(night)
    stats = [w.stats for w in night.all_injectors()]
    assert sum(s.corrupted + s.dropped + s.duplicated for s in stats) > 100


def test_a_ten_second_cable_pull(sqlite_engine: Engine) -> None:
    night = Night(sqlite_engine, seed=7)
    night.pull_cables(start=40.0, seconds=10.0)
    _check(night)
    assert sum(w.stats.pulled for w in night.all_injectors()) > 0


def test_a_gateway_restart_mid_round(db_url: str) -> None:
    """On a SQLite file and on PostgreSQL: a new gateway on the same database, twice."""
    engine = make_engine(db_url)
    try:
        night = Night(engine, Faults(corrupt=0.002), seed=11)
        assert not night.run(until=50.0)
        rounds = {k.device.round.round for k in night.keypads.values() if k.device.round}
        assert rounds, "the keypads have their rounds"
        assert max(rounds) < 7, "still mid-session"
        night.restart_gateway()
        assert not night.run(until=51.0)
        night.restart_gateway()  # and again at once, before the keypads have even noticed
        _check(night)
        assert night.restarts == 2
    finally:
        engine.dispose()

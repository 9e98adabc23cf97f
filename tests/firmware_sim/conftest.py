"""Keypad fixtures: a keypad wired straight to the fake server (tests/support/keypad.py)."""

from __future__ import annotations

import pytest

from firmware_sim.fake_gateway import FakeTables
from tests.support.keypad import Table


@pytest.fixture
def tables() -> FakeTables:
    return FakeTables(tables=3, rounds=3, boards_per_round=2)


@pytest.fixture
def table(tables: FakeTables) -> Table:
    return Table(tables).boot()

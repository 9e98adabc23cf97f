"""io fixtures: the fixture files' folder (helpers: tests/support/io.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.io import DATA

# The helpers' old home: new tests import them from tests.support.
from tests.support.io import content as content


@pytest.fixture
def data_dir() -> Path:
    return DATA

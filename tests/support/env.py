"""Settings every test directory shares."""

from __future__ import annotations

import os
from pathlib import Path

#: The repository's root.
ROOT = Path(__file__).resolve().parents[2]

#: The TD password of every server the tests start.
TD_PASSWORD = "secret-td-password"

#: CI=true makes the PostgreSQL, browser and deploy tests mandatory (they fail, not skip).
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")

#: A PostgreSQL database to connect to as a superuser (it makes and drops the tests' databases).
PG_ADMIN_URL = os.environ.get("TRAVELLER_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")

#: The pytest-xdist worker running this process ("gw0", "gw1", ...), or "main" without xdist.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")

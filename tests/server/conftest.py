"""Server fixtures: a running app on a test database, a logged-in TD, paired tables (made in
tests/support/api.py, where tests import the helpers from)."""

from __future__ import annotations

# The helpers' old home: new tests import them from tests.support.
from tests.support.api import Club as Club
from tests.support.api import Table as Table
from tests.support.api import client as client
from tests.support.api import club as club
from tests.support.api import engine as engine
from tests.support.api import new_id as new_id
from tests.support.api import open_club as open_club
from tests.support.env import TD_PASSWORD as TD_PASSWORD

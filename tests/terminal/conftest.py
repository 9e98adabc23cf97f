"""Terminal tests: their helpers (an app on the fake server) are in tests/support/terminal.py."""

from __future__ import annotations

# The helpers' old home: new tests import them from tests.support.
from tests.support.terminal import make_app as make_app
from tests.support.terminal import screen_text as screen_text
from tests.support.terminal import seated as seated
from tests.support.terminal import settle as settle

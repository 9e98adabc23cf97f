"""The limit on a terminal's wrong guesses at a secret (server/limits/guesses.py): the times
kept on its token row, the window, each secret apart."""

from __future__ import annotations

import json

import pytest

from server.core.models import TableToken
from server.limits.guesses import NONE, PIN, TD_CODE


def test_five_wrong_guesses_make_the_terminal_wait_until_the_oldest_is_old_enough() -> None:
    stored = NONE
    for at in (100.0, 110.0, 120.0, 130.0):
        stored = PIN.missed(stored, at)
        assert PIN.wait(stored, at) == 0.0
    stored = PIN.missed(stored, 140.0)
    assert PIN.wait(stored, 140.0) == pytest.approx(100.0 + PIN.window - 140.0)
    assert PIN.wait(stored, 100.0 + PIN.window - 0.5) == pytest.approx(0.5)
    assert PIN.wait(stored, 100.0 + PIN.window) == 0.0  # the oldest has left the window
    # A sixth guess, once allowed, keeps the limit's last five only.
    stored = PIN.missed(stored, 100.0 + PIN.window)
    assert PIN.misses(stored, 100.0 + PIN.window) == [110.0, 120.0, 130.0, 140.0, 400.0]
    assert PIN.wait(stored, 100.0 + PIN.window) == pytest.approx(110.0 + PIN.window - 400.0)


def test_each_secret_counts_apart_and_a_right_code_forgives_only_its_own() -> None:
    stored = NONE
    for at in range(5):
        stored = TD_CODE.missed(stored, float(at))
    stored = PIN.missed(stored, 5.0)
    assert TD_CODE.wait(stored, 5.0) > 0
    assert PIN.wait(stored, 5.0) == 0.0
    stored = TD_CODE.cleared(stored)
    assert TD_CODE.wait(stored, 5.0) == 0.0
    assert PIN.misses(stored, 5.0) == [5.0]
    assert json.loads(stored) == {"pin": [5.0]}


@pytest.mark.parametrize(
    "stored", ["", "not json", "[1, 2]", '{"pin": "x"}', '{"pin": 7}', '{"pin": [null]}']
)
def test_a_stored_text_that_is_not_the_rows_counts_as_no_guesses(stored: str) -> None:
    assert PIN.wait(stored, 1.0) == 0.0
    assert PIN.misses(PIN.missed(stored, 1.0), 1.0) == [1.0]


def test_the_longest_stored_text_fits_the_column() -> None:
    stored = NONE
    for limit in (PIN, TD_CODE):
        for n in range(limit.limit + 3):
            stored = limit.missed(stored, 1_764_925_000.123456 + n)
    length = TableToken.model_fields["guesses"].metadata
    assert len(stored) <= next(m.max_length for m in length if hasattr(m, "max_length"))

"""The scoring methods' registry (server/scoring/methods.py) is the one place a method is
named: its key is spelled in the registry alone, and every list, form and dispatch follows it."""

from __future__ import annotations

import ast
import re
from fractions import Fraction
from functools import cache
from pathlib import Path

import pytest

from server.scoring import BoardResult, Direction, Points, ScoringOptions, methods, score_board
from server.scoring.methods import KEYS, METHODS, Method

ROOT = Path(__file__).resolve().parents[3]
SHIPPED = ("server", "protocol", "terminal", "firmware_sim")
REGISTRY = "server/scoring/methods.py"
#: The same word meaning something else, where it is spelled: (key, file) -> what it means.
HOMONYMS = {
    ("imps", "protocol/bridge/__init__.py"): "the IMP scale's function, in __all__",
    ("total", "server/io/csv_io.py"): "the ranking's total column",
    ("total", "server/io/scorefile.py"): "a pair's total in the JSON score file",
}


@cache
def spellings() -> dict[str, frozenset[str]]:
    """Each key -> the shipped files spelling it: a Python string constant equal to it, or the
    key in quotes in a template or a script."""
    found: dict[str, set[str]] = {key: set() for key in KEYS}
    for top in SHIPPED:
        for path in sorted((ROOT / top).rglob("*")):
            name = path.relative_to(ROOT).as_posix()
            if path.suffix == ".py":
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                    if isinstance(node, ast.Constant) and node.value in found:
                        found[node.value].add(name)
            elif path.suffix in (".html", ".js"):
                text = path.read_text(encoding="utf-8")
                for key in KEYS:
                    if re.search(rf"[\"']{re.escape(key)}[\"']", text):
                        found[key].add(name)
    return {key: frozenset(files) for key, files in found.items()}


@pytest.mark.parametrize("key", KEYS)
def test_a_key_is_spelled_in_the_registry_alone(key: str) -> None:
    files = spellings()[key] - {f for k, f in HOMONYMS if k == key}
    assert REGISTRY in files  # the scan sees a spelled key
    assert files == {REGISTRY}, f"{key!r} is spelled outside the registry: {sorted(files)}"


@pytest.mark.parametrize(("key", "file"), list(HOMONYMS))
def test_each_homonym_is_still_there(key: str, file: str) -> None:
    """An exception no longer needed is dropped from HOMONYMS."""
    assert file in spellings()[key]


def test_every_method_has_an_entry_under_its_key() -> None:
    assert list(METHODS) == list(Method)
    assert all(entry.key is key for key, entry in METHODS.items())
    assert KEYS[0] == methods.DEFAULT
    assert len({entry.label for entry in METHODS.values()}) == len(METHODS)


def test_stored_keys_and_the_older_word() -> None:
    """The keys are the values events store; the offline CLI's older "aggregate" still reads."""
    assert KEYS == ("mp", "mp-american", "imps", "cross-imps", "butler", "total")
    assert methods.parse("aggregate") is Method.TOTAL
    assert methods.parse(" Butler ") is Method.BUTLER
    with pytest.raises(ValueError, match=r"expected mp, .* or total"):
        methods.parse("rubber")
    assert methods.of("nonsense").key is methods.DEFAULT
    assert methods.of(None).key is methods.DEFAULT


def test_the_board_scorer_comes_from_the_entry() -> None:
    """Three tables, N/S +420, +420, +170: each method's own scores for the board."""
    results = [
        BoardResult(board=1, ns_pair=t, ew_pair=10 + t, ns=Points(s), ew=Points(s), table=t)
        for t, s in enumerate((420, 420, 170))
    ]
    values = {}
    for key in Method:
        board = score_board((None, 1), results, ScoringOptions(method=key))
        values[key] = [board.value(i, Direction.NS) for i in range(3)]
    assert values[Method.MATCHPOINTS] == [3, 3, 0]
    assert values[Method.MATCHPOINTS_AMERICAN] == [Fraction(3, 2), Fraction(3, 2), 0]
    assert values[Method.IMPS_ACROSS] == [6, 6, -12]
    assert values[Method.CROSS_IMPS] == [3, 3, -6]
    assert values[Method.TOTAL] == [420, 420, 170]
    assert values[Method.BUTLER] == [0, 0, -6]  # the datum: 420, one score dropped at each end


def test_tops_and_penalty_units() -> None:
    assert METHODS[Method.MATCHPOINTS].top(7) == 12
    assert METHODS[Method.MATCHPOINTS_AMERICAN].top(7) == 6
    assert METHODS[Method.BUTLER].top(7) is None
    assert METHODS[Method.TOTAL].penalty_unit is None
    assert Method.MATCHPOINTS_AMERICAN.is_matchpoints
    assert not Method.CROSS_IMPS.is_matchpoints

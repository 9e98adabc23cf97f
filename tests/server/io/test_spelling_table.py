"""The one table of known spellings (server/io/spelling.py, issue 16): every entry cites a
source, and the readers accept exactly what it documents."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from server.io import spelling
from server.io.spelling import KNOWN


def test_every_spelling_names_its_field_meaning_programs_and_source() -> None:
    for entry in KNOWN:
        assert all((entry.field, entry.written, entry.means, entry.programs)), entry
        assert entry.source.strip(), entry


def test_real_files_cited_exist() -> None:
    root = Path(__file__).resolve().parents[3]
    for entry in KNOWN:
        if entry.source.startswith("real file: "):
            path = entry.source.removeprefix("real file: ").split(" ")[0]
            assert (root / path).exists(), entry


@pytest.mark.parametrize(
    "entry", [e for e in KNOWN if e.field == "contract" and e.means == "passed out"]
)
def test_each_passed_out_spelling_reads_as_pass(entry: spelling.Spelling) -> None:
    assert spelling.contract(entry.written) == "PASS"


@pytest.mark.parametrize(
    "entry", [e for e in KNOWN if e.field == "contract" and e.means == "not played"]
)
def test_each_not_played_spelling_reads_as_not_played(entry: spelling.Spelling) -> None:
    assert spelling.not_played(entry.written)


@pytest.mark.parametrize("entry", [e for e in KNOWN if e.field == "score"])
def test_each_artificial_score_reads_as_its_per_cent(entry: spelling.Spelling) -> None:
    ns = Fraction(entry.means.split()[1])
    result = spelling.artificial(entry.written)
    assert result is not None
    assert result[0] == ns


def test_np_scored_needs_np_a_zero_score_and_matchpoints() -> None:
    assert spelling.np_scored("NP", 0, True)
    assert not spelling.np_scored("NP", 0, False)
    assert not spelling.np_scored("NP", None, True)
    assert not spelling.np_scored("", 0, True)
    assert not spelling.np_scored("4S", 0, True)


def test_adjusted_columns_and_void_suits() -> None:
    assert spelling.adjusted_columns("A", "a", " A ")
    assert not spelling.adjusted_columns("A", "-", "A")
    assert spelling.void_suits("N:Q64.-.KQ8643.KQT4 - x.-.-.y") == "N:Q64..KQ8643.KQT4 - x...y"

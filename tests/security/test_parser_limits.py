"""L7 of issue 14: the readers' memory stays bounded. One 20 MB PBN tag line made `traveller
score` use 3.5 GB; now a file over 16 MB, a line over 10,000 characters, a CSV field past the
csv module's limit and a USEBIO file nested too deep or with too many elements are refused with
an EventFileError naming the line, and the peak memory of a refusal stays small."""

# ruff: noqa: F811  (the server fixtures, imported, are parameters here)
from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlmodel import select
from typer.testing import CliRunner

from server.core.db import transact
from server.core.models import Member
from server.io.cli import app as score_app
from server.io.csv_io import read_travellers_csv
from server.io.errors import EventFileError
from server.io.formats import load
from server.io.limits import MAX_FILE_BYTES, MAX_LINE, MAX_XML_DEPTH, MAX_XML_ELEMENTS
from server.io.pbn import read_pbn
from server.io.usebio import read_usebio
from tests.support.api import Club, client, club, engine  # noqa: F401 (fixtures)
from tests.support.web import web_login

MB = 1024 * 1024
GAME = '[Board "1"]\n[Dealer "N"]\n[Vulnerable "None"]\n[Contract "3NT"]\n[Declarer "N"]\n'
GAME += '[Result "9"]\n[North "a"]\n[South "b"]\n[East "c"]\n[West "d"]\n'


def _peak(read: Callable[[], object]) -> tuple[EventFileError, int]:
    """The refusal ``read`` raises, and the peak memory (bytes) it allocated on the way."""
    tracemalloc.start()
    try:
        with pytest.raises(EventFileError) as refused:
            read()
        _size, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return refused.value, peak


@pytest.mark.parametrize("length", [MAX_LINE + 1, 12 * MB], ids=["just-over", "12MB"])
def test_a_long_pbn_tag_line_is_refused_with_its_number(length: int) -> None:
    text = f'[Event "x"]\n{GAME}[Site "{"A" * length}"]\n'
    error, peak = _peak(lambda: read_pbn(text))
    assert error.line == 12
    assert f"at most {MAX_LINE}" in error.message
    assert peak < 4 * MB  # nothing copied: the old tag pattern took ~170 bytes a character


def test_a_20mb_tag_line_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.pbn"
    path.write_text(f'[Event "{"A" * 20 * MB}"]\n{GAME}')
    error, peak = _peak(lambda: load(path))
    assert "20.0 MB" in error.message
    assert error.path == str(path)
    assert peak < MB
    result = CliRunner().invoke(score_app, [str(path)])
    assert result.exit_code == 2
    assert "at most 16 MB" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("suffix", [".pbn", ".xml", ".csv", ".bws"])
def test_any_file_over_the_size_limit_is_refused_unread(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"big{suffix}"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is written
    error, peak = _peak(lambda: load(path))
    assert "MB" in error.message
    assert peak < MB


def test_a_long_csv_line_and_an_endless_quoted_field_are_refused() -> None:
    header = "board,ns,ew,contract,declarer,tricks\n1,1,2,3NT,N,9\n"
    text = header + "," * (12 * MB) + "\n"
    error, peak = _peak(lambda: read_travellers_csv(text))
    assert error.line == 3
    assert peak < 4 * MB  # the old reader built a row of 12 million cells (270 MB)
    quoted = header + '1,1,2,"' + "x\n" * 200_000 + '",N,9\n'
    error, _peak_bytes = _peak(lambda: read_travellers_csv(quoted))
    assert "field" in error.message
    assert error.line is not None
    assert error.line > 3


def test_a_usebio_file_nested_too_deep_is_refused() -> None:
    depth = MAX_XML_DEPTH * 100
    data = ("<USEBIO>" + "<A>" * depth + "</A>" * depth + "</USEBIO>").encode()
    error, _peak_bytes = _peak(lambda: read_usebio(data))
    assert f"more than {MAX_XML_DEPTH} deep" in error.message
    assert error.line == 1


def test_a_usebio_file_with_too_many_elements_is_refused() -> None:
    data = ("<USEBIO><EVENT>" + "<X>1</X>" * (MAX_XML_ELEMENTS + 1) + "</EVENT></USEBIO>").encode()
    with pytest.raises(EventFileError) as refused:
        read_usebio(data)
    assert f"more than {MAX_XML_ELEMENTS} elements" in refused.value.message


def test_a_member_list_with_an_endless_quoted_field_is_refused(
    client: TestClient, club: Club
) -> None:
    """The players page takes 2 MB; a quote left open made one field past the csv module's
    limit (131,072 characters), and the import a 500."""
    csrf = web_login(client)
    text = '101,"Anna' + "x" * 200_000 + "\n102,Bo\n"
    r = client.post(f"/td/s/{club.section_id}/players/import", data={"csrf": csrf, "text": text})
    assert r.status_code == 200
    assert "is a quote left open" in r.text
    assert transact(club.engine, lambda s: list(s.exec(select(Member)))) == []

"""The catalogues are compiled when the package is built (setup.py runs
``protocol.catalogues.compile_tree``), and read from their ``.mo`` with the standard library;
a ``.po`` changed since, or never compiled, is compiled in memory so its words are the ones
shown."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from protocol import catalogues

ROOT = Path(__file__).resolve().parents[2]
DOMAINS = {"server": "messages", "terminal": "terminal", "firmware_sim": "keypad"}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """The three packages' catalogues, as a build copies them."""
    for package in DOMAINS:
        shutil.copytree(
            ROOT / package / "locales",
            tmp_path / package / "locales",
            ignore=shutil.ignore_patterns("*.mo"),
        )
    return tmp_path


def _no_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: Path, lang: str, domain: str) -> bytes:
        raise AssertionError(f"{path} compiled at run time")

    monkeypatch.setattr(catalogues, "compile_po", refuse)


def test_the_build_compiles_every_catalogue_of_every_package(tree: Path) -> None:
    compiled = catalogues.compile_tree(tree)
    expected = sorted(
        tree / package / "locales" / lang / "LC_MESSAGES" / f"{domain}.mo"
        for package, domain in DOMAINS.items()
        for lang in ("da", "de", "nb", "ru")
    )
    assert sorted(compiled) == expected
    assert all(mo.read_bytes().startswith(b"\xde\x12\x04\x95") for mo in compiled)


def test_a_compiled_catalogue_is_read_without_compiling(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    catalogues.compile_tree(tree)
    _no_compiling(monkeypatch)
    po = catalogues.po_file(tree / "firmware_sim" / "locales", "da", "keypad")
    assert catalogues.load(po, "da", "keypad").gettext("Call the TD?") == "Tilkald TL?"
    po = catalogues.po_file(tree / "terminal" / "locales", "de", "terminal")
    assert catalogues.load(po, "de", "terminal").gettext("Not stored") != "Not stored"


def test_a_po_edited_after_the_build_shows_its_new_words(tree: Path) -> None:
    catalogues.compile_tree(tree)
    po = catalogues.po_file(tree / "firmware_sim" / "locales", "da", "keypad")
    po.write_text(
        po.read_text(encoding="utf-8").replace('"Tilkald TL?"', '"Kald på TL?"'), encoding="utf-8"
    )
    assert catalogues.load(po, "da", "keypad").gettext("Call the TD?") == "Kald på TL?"


def test_a_catalogue_never_compiled_is_compiled_in_memory(tree: Path) -> None:
    po = catalogues.po_file(tree / "firmware_sim" / "locales", "nb", "keypad")
    assert not catalogues.mo_file(po).exists()
    assert catalogues.load(po, "nb", "keypad").gettext("Call the TD?") == "Tilkall TL?"
    assert not catalogues.mo_file(po).exists(), "nothing is written at run time"

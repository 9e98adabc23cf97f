"""The TD pages' notices after an action: given as a template and its parameters, extracted by
Babel's Python extractor with the context ``notice``, and translated in every catalogue."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from string import Formatter

from babel.messages.pofile import read_po

from server import i18n
from server.i18n import notice_words
from server.i18n.notice_words import NOTICE, said
from tests.i18n.test_catalogues import TRANSLATED, source_ids

ROOT = Path(__file__).resolve().parents[2]
#: The calls that give a notice, and the position of the notice among their arguments.
GIVERS = {"act": 3, "redirect": 1, "_login_page": 2}


@cache
def _translated(lang: str) -> dict[str, str]:
    """The notices a language's catalogue translates: template -> translation."""
    with i18n.po_path(lang).open("rb") as handle:
        catalogue = read_po(handle, locale=lang)
    return {
        m.id: m.string
        for m in catalogue
        if m.context == NOTICE and isinstance(m.id, str) and isinstance(m.string, str)
        if m.string and not m.fuzzy
    }


def _calls() -> Iterator[tuple[str, ast.Call]]:
    """Every call in the server's code: (file:line, the call)."""
    for path in sorted((ROOT / "server").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                yield f"{path.relative_to(ROOT)}:{node.lineno}", node


def _called(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _fields(template: str) -> set[str]:
    return {name for _t, name, _s, _c in Formatter().parse(template) if name}


def test_every_notice_site_gives_a_template_in_every_catalogue() -> None:
    """Each ``said`` call has the literal context ``notice`` and a literal template whose fields
    are its keyword arguments; Babel extracts it, and da, de, nb and ru translate it with the
    same fields."""
    extracted = source_ids("server")
    sites = 0
    for where, call in _calls():
        if _called(call.func) != "said" or where.startswith("server/i18n/notice_words.py"):
            continue
        sites += 1
        assert len(call.args) == 2, where
        context, template = call.args
        assert isinstance(context, ast.Constant), where
        assert context.value == NOTICE, where
        assert isinstance(template, ast.Constant), where
        assert isinstance(template.value, str), where
        assert _fields(template.value) == {k.arg for k in call.keywords}, where
        assert (NOTICE, template.value) in extracted, where
        for lang in TRANSLATED:
            words = _translated(lang).get(template.value)
            assert words is not None, (where, lang)
            assert words != template.value, (where, lang)
            assert _fields(words) == _fields(template.value), (where, lang)
    assert sites >= 39


def test_no_notice_is_given_as_an_english_sentence() -> None:
    """``act``, ``redirect`` and the login page take a notice, never a sentence."""
    for where, call in _calls():
        position = GIVERS.get(_called(call.func))
        if position is None or len(call.args) <= position:
            continue
        given = call.args[position]
        if isinstance(given, ast.Lambda):
            given = given.body
        bodies = [given.body, given.orelse] if isinstance(given, ast.IfExp) else [given]
        for body in bodies:
            assert not isinstance(body, ast.JoinedStr | ast.BinOp), where
            assert not (isinstance(body, ast.Constant) and isinstance(body.value, str)), where


def test_a_reworded_template_is_missing_from_the_catalogue(tmp_path: Path) -> None:
    """A site whose template was reworded extracts a template no catalogue holds (so the
    catalogue test fails), and the notice stays English."""
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "reworded.py").write_text(
        "def done(round: int) -> object:\n"
        '    return said("notice", "Round {round} has begun.", round=round)\n'
    )
    found = source_ids("server", tmp_path)
    assert found == {(NOTICE, "Round {round} has begun.")}
    for lang in TRANSLATED:
        assert "Round {round} started." in _translated(lang)
        assert "Round {round} has begun." not in _translated(lang)
    notice = said("notice", "Round {round} has begun.", round=3)
    assert notice_words.text("da", notice) == "Round 3 has begun."


def test_a_notice_is_translated_with_its_parameters() -> None:
    notice = said("notice", "Round {round} started.", round=3)
    assert str(notice) == "Round 3 started."
    assert notice_words.text("da", notice) == "Runde 3 er startet."
    assert notice_words.text("de", notice) == "Runde 3 gestartet."
    assert notice_words.text("en", notice) == "Round 3 started."
    assert notice_words.text(None, notice) == "Round 3 started."


def test_a_notice_inside_a_notice_is_translated_too() -> None:
    first = said("notice", "line {line}: expected number,name", line=2)
    notice = said(
        "notice",
        "Members: {added} added, {updated} updated. Lines skipped: {skipped} ({first}…).",
        added=1,
        updated=0,
        skipped=1,
        first=first,
    )
    assert str(notice) == (
        "Members: 1 added, 0 updated. Lines skipped: 1 (line 2: expected number,name…)."
    )
    assert notice_words.text("de", notice) == (
        "Mitglieder: 1 hinzugefügt, 0 aktualisiert. Übersprungene Zeilen: 1 "
        "(Zeile 2: erwartet Nummer,Name…)."
    )


def test_data_that_is_no_notice_of_the_catalogue_is_not_translated() -> None:
    assert notice_words.translated("da", {"template": "<b>{x}</b>", "params": {"x": 1}}) is None
    assert notice_words.translated("da", {"template": "Round {round} started."}) is None
    assert notice_words.translated("da", "Round 3 started.") is None
    missing = {"template": "Round {round} started.", "params": {}}
    assert notice_words.translated("da", missing) is None

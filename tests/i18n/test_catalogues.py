"""Every gettext catalogue (the server's pages, API refusals and CLI; the terminal's screens):
complete, not fuzzy, compiling, and covering every string the code uses."""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from server import i18n
from terminal import i18n as terminal_i18n

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE]
KEYWORDS = {
    "_": None,
    "gettext": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "N_": None,
}
#: domain -> (its extraction config, the .po of a language)
DOMAINS = {
    "server": (ROOT / "server/locales/babel.cfg", i18n.po_path),
    "terminal": (ROOT / "terminal/locales/babel.cfg", terminal_i18n.po_path),
}


def message_key(message_id: Any, context: str | None) -> tuple[str | None, str]:
    return context, str(message_id if isinstance(message_id, str) else message_id[0])


def texts(value: Any) -> tuple[str, ...]:
    """A message's id or string as a tuple of texts (one, or the plural forms)."""
    return tuple(str(v or "") for v in value) if isinstance(value, tuple | list) else (value or "",)


@cache  # the same for every language: extracted once a worker
def source_ids(domain: str, root: Path = ROOT) -> frozenset[tuple[str | None, str]]:
    """Every (context, message id) the code and templates of a domain use, as its
    ``babel.cfg`` extracts them (from the repository, or from another tree laid out alike)."""
    config, _po = DOMAINS[domain]
    with config.open() as handle:
        method_map, options_map = parse_mapping_cfg(handle)
    found = extract_from_dir(str(root), method_map, options_map, keywords=KEYWORDS)
    return frozenset(message_key(msgid, context) for _f, _l, msgid, _c, context in found)


@pytest.mark.parametrize("domain", list(DOMAINS))
@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_and_not_fuzzy(domain: str, lang: str) -> None:
    _config, po_path = DOMAINS[domain]
    with po_path(lang).open("rb") as handle:
        catalogue = read_po(handle, locale=lang)
    missing = []
    for message in catalogue:
        if not message.id:
            continue
        strings = texts(message.string)
        if message.fuzzy or not all(s.strip() for s in strings):
            missing.append(message.id)
        if isinstance(message.string, tuple):
            assert len(strings) == catalogue.num_plurals, (lang, message.id)
    assert not missing, f"{domain} {lang}: untranslated or fuzzy: {missing}"
    ids = {message_key(m.id, m.context) for m in catalogue if m.id}
    used = source_ids(domain)
    assert len(used) > 100
    assert used <= ids, f"{domain} {lang}: not in the catalogue: {used - ids}"


@pytest.mark.parametrize("domain", list(DOMAINS))
@pytest.mark.parametrize("lang", TRANSLATED)
def test_placeholders_survive_translation(domain: str, lang: str) -> None:
    """A translation uses exactly the fields of its message id ({board}, %(table)s ...)."""
    field = re.compile(r"\{\w*\}|%\(\w+\)s")
    _config, po_path = DOMAINS[domain]
    with po_path(lang).open("rb") as handle:
        catalogue = read_po(handle, locale=lang)
    for message in catalogue:
        if not message.id:
            continue
        ids = texts(message.id)
        strings = texts(message.string)
        wanted = set(field.findall(ids[-1]))
        for text in strings:
            assert set(field.findall(text)) <= wanted | set(field.findall(ids[0])), (lang, text)
            if len(ids) == 1:
                assert set(field.findall(text)) == wanted, (lang, message.id, text)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalogues_compile(lang: str) -> None:
    assert i18n.compile_catalogue(lang).startswith(b"\xde\x12\x04\x95")
    assert terminal_i18n.compile_catalogue(lang).startswith(b"\xde\x12\x04\x95")
    words = i18n.translations(lang)
    assert words.gettext("Ranking") != "Ranking"
    assert "%(num)s" in words.ngettext("%(num)s table", "%(num)s tables", 5)
    assert words.pgettext("pin_wrong", "That is not E/W's PIN: try again or call the TD.")
    screens = terminal_i18n.translations(lang)
    assert screens.gettext("Round summary") != "Round summary"
    assert "{num}" in screens.ngettext("{num} result so far", "{num} results so far", 5)


def test_danish_words_numbers_and_dates() -> None:
    assert i18n.gettext_for("da", "Declarer") == "Spilfører"
    assert i18n.gettext_for("nb", "Declarer") == "Spillefører"
    assert i18n.gettext_for("de", "Declarer") == "Alleinspieler"
    assert i18n.gettext_for("ru", "Declarer") == "Разыгрывающий"
    assert i18n.percent(Decimal("56.23"), "da") == "56,23\xa0%"
    assert i18n.percent(Decimal("56.23"), "de") == "56,23\xa0%"
    assert i18n.percent(Decimal("56.23"), "en") == "56.23%"
    assert i18n.number(Decimal("-1234.5"), "da", 1) == "−1.234,5"
    assert i18n.ngettext_for("ru", "%(num)s table", "%(num)s tables", 3) == "%(num)s стола"
    assert i18n.seat_letter("E", "da") == "Ø"


def test_the_terminal_uses_the_glossarys_bridge_words() -> None:
    for lang, declarer in [
        ("da", "Spilfører"),
        ("nb", "Spillefører"),
        ("de", "Alleinspieler"),
        ("ru", "Разыгрывающий"),
    ]:
        assert terminal_i18n.translations(lang).gettext("Declarer") == declarer


@pytest.mark.parametrize(
    ("asked", "cookie", "accept", "event", "expected"),
    [
        (None, None, None, None, "en"),
        (None, None, "da-DK,da;q=0.9,en;q=0.8", None, "da"),
        (None, None, "fr, no;q=0.5", None, "nb"),
        (None, None, "en;q=0.2, de;q=0.9", "da", "de"),
        (None, None, "fr", "da", "da"),
        (None, "ru", "de", None, "ru"),
        ("nb", "ru", "de", None, "nb"),
        ("xx", None, None, None, "en"),
    ],
)
def test_choose_the_language(
    asked: str | None, cookie: str | None, accept: str | None, event: str | None, expected: str
) -> None:
    assert i18n.choose(asked, cookie, accept, event) == expected

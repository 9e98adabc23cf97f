"""The web pages' gettext catalogues: complete, not fuzzy, compiling, and covering the source."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po

from server import i18n

ROOT = Path(__file__).resolve().parents[2]
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.SOURCE]
#: What ``server/locales/babel.cfg`` extracts (kept in step with it by the test below).
METHODS = [
    ("server/web/**.py", "python"),
    ("server/web/templates/public/**.html", "jinja2"),
    ("server/web/templates/base.html", "jinja2"),
    ("server/web/templates/error.html", "jinja2"),
]
OPTIONS = {"**.html": {"extensions": "jinja2.ext.i18n", "trim_blocks": "True"}}


def source_ids() -> set[str]:
    """Every message id the code and templates use."""
    found = extract_from_dir(
        str(ROOT),
        METHODS,
        OPTIONS,
        keywords={"_": None, "gettext": None, "ngettext": (1, 2), "N_": None},
    )
    return {msgid if isinstance(msgid, str) else msgid[0] for _, _, msgid, _, _ in found}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_is_translated_and_not_fuzzy(lang: str) -> None:
    with i18n.po_path(lang).open("rb") as handle:
        catalogue = read_po(handle, locale=lang)
    missing = []
    for message in catalogue:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.fuzzy or not all(s.strip() for s in strings):
            missing.append(message.id)
    assert not missing, f"{lang}: untranslated or fuzzy: {missing}"
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in catalogue if m.id}
    used = source_ids()
    assert len(used) > 50
    assert used <= ids, f"{lang}: not in the catalogue: {used - ids}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_catalogues_compile(lang: str) -> None:
    assert i18n.compile_catalogue(lang).startswith(b"\xde\x12\x04\x95")
    words = i18n.translations(lang)
    assert words.gettext("Ranking") != "Ranking"
    assert "%(num)s" in words.ngettext("%(num)s table", "%(num)s tables", 5)


def test_the_extraction_config_matches_the_test() -> None:
    config = (ROOT / "server/locales/babel.cfg").read_text()
    for pattern, method in METHODS:
        assert f"[{method}: {pattern}]" in config


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

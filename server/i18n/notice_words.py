"""The TD pages' notices after an action ("Round 3 started.") in the person's language.

A route gives its notice as an English sentence (``act(..., done)``, ``redirect(url,
sentence)``, the login page's error, or any sentence marked with :func:`notice`). The catalogue
holds each as a template with the gettext context ``notice``, its f-string fields named:

    msgctxt "notice"
    msgid "Round {round} started."

:func:`extract_server` is the Babel extraction method that finds them (``babel.cfg``), beside
the standard Python extraction (gettext calls and the refusals, server/i18n/error_words.py).
:func:`translate_notice` matches a shown notice against the templates and puts the filled-in
values into the translation; a notice that matches no template stays English.
"""

from __future__ import annotations

import ast
import io
import re
from collections.abc import Iterator
from functools import cache
from typing import IO, Any

from server import i18n

#: The gettext context of the TD pages' notices after an action.
NOTICE = "notice"
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_FIELD = re.compile(r"\(\?P<\w+>\.\+\?\)")


def notice(text: str) -> str:
    """Mark a notice (or a part of one) built outside ``act``/``redirect``, e.g. by a helper or a
    service, for extraction with the context ``notice``; it is translated when shown."""
    return text


def _name_of(node: ast.expr) -> str:
    """A placeholder name for an f-string expression: ``board``, ``table.number`` -> ``number``."""
    if isinstance(node, ast.Name):
        return node.id.rstrip("_") or "value"
    if isinstance(node, ast.Attribute):
        return node.attr.rstrip("_") or "value"
    if isinstance(node, ast.BinOp):
        return _name_of(node.left)
    return "value"


def template_of(node: ast.expr) -> str | None:
    """The sentence of a str or f-string literal (or a ``+`` of them), f-string fields named;
    None for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.replace("{", "{{").replace("}", "}}")
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = template_of(node.left), template_of(node.right)
        return None if left is None or right is None else _join(left, right)
    if not isinstance(node, ast.JoinedStr):
        return None
    parts: list[str] = []
    used: dict[str, int] = {}
    for value in node.values:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            parts.append(value.value.replace("{", "{{").replace("}", "}}"))
        elif isinstance(value, ast.FormattedValue):
            name = _name_of(value.value)
            used[name] = used.get(name, 0) + 1
            parts.append("{" + (name if used[name] == 1 else f"{name}{used[name]}") + "}")
        else:
            return None
    return "".join(parts)


def _join(left: str, right: str) -> str:
    """Two templates as one, placeholders renamed where both use a name."""
    taken = set(_PLACEHOLDER.findall(left))

    def rename(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in taken:
            return match.group(0)
        number = 2
        while f"{name}{number}" in taken:
            number += 1
        return "{" + f"{name}{number}" + "}"

    return left + _PLACEHOLDER.sub(rename, right)


def notice_sites(source: str) -> Iterator[tuple[int, str]]:
    """(line, template) of each notice a web route gives: ``act(..., done)`` (a sentence or a
    lambda returning one), ``redirect(url, sentence)``, the login page's error and any
    ``notice(sentence)``."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        position = {"act": 3, "redirect": 1, "_login_page": 2, "notice": 0}.get(name)
        if position is None or len(node.args) <= position:
            continue
        argument = node.args[position]
        if isinstance(argument, ast.Lambda):
            argument = argument.body
        bodies = [argument.body, argument.orelse] if isinstance(argument, ast.IfExp) else [argument]
        for body in bodies:
            template = template_of(body)
            if template:
                yield node.lineno, template


def extract_server(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[Any, ...]]:
    """Babel extraction method for the server's Python: Babel's own (gettext calls and the
    refusals, by the keywords in ``babel.cfg``) and the notices."""
    # The extraction tool only (pybabel extract): the running server never loads it.
    from babel.messages.extract import extract_python  # noqa: PLC0415

    data = fileobj.read()
    yield from extract_python(io.BytesIO(data), keywords, comment_tags, options)
    source = data.decode(options.get("encoding", "utf-8"))
    for line, template in notice_sites(source):
        yield line, "pgettext", (NOTICE, template), []


def _pattern(template: str) -> re.Pattern[str]:
    """A regular expression that matches the English sentences a template stands for."""
    out = []
    position = 0
    for match in _PLACEHOLDER.finditer(template):
        out.append(re.escape(template[position : match.start()].replace("{{", "{")))
        out.append(f"(?P<{match.group(1)}>.+?)")
        position = match.end()
    out.append(re.escape(template[position:].replace("}}", "}").replace("{{", "{")))
    return re.compile("".join(out), re.DOTALL)


@cache
def _templates(lang: str) -> list[tuple[re.Pattern[str], str]]:
    """[(pattern of the English notice, translated template)] of a language."""
    # Start-up cost: babel.messages (~45 ms) loads when a language's notices are first read.
    from babel.messages.pofile import read_po  # noqa: PLC0415

    with i18n.po_path(lang).open("rb") as handle:
        catalogue = read_po(handle, locale=lang, domain=i18n.DOMAIN)
    found = [
        (_pattern(message.id), message.string)
        for message in catalogue
        if message.context == NOTICE
        and isinstance(message.id, str)
        and not message.fuzzy
        and isinstance(message.string, str)
        and message.string
    ]
    # the most specific first: most words outside the fields
    found.sort(key=lambda pair: -len(_FIELD.sub("", pair[0].pattern)))
    return found


def translate_notice(lang: str | None, text: str) -> str:
    """A notice shown after an action in ``lang`` (its parts may be notices: "line 3: expected
    ..."); English when there is no translation."""
    lang = i18n.normalise(lang)
    if lang is None or lang == i18n.SOURCE:
        return text
    for pattern, translated in _templates(lang):
        match = pattern.fullmatch(text)
        if match is not None:
            values = {
                key: value if value == text else translate_notice(lang, value)
                for key, value in match.groupdict().items()
            }
            try:
                return translated.format(**values)
            except (KeyError, IndexError, ValueError):
                return text
    return text

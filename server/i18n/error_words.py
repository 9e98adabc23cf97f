"""The API's refusals in the person's language: ``code`` stays English, ``message`` is translated.

Errors are raised in English all over the services (``NotFoundError("unknown_board", f"Board
{board} is not played in this session.")``). Rather than touching every raise, the catalogue
holds each raise site's sentence as a template, with the error code as its gettext context:

    msgctxt "unknown_board"
    msgid "Board {board} is not played in this session."

:func:`extract_errors` is the Babel extraction method that finds those sites (``babel.cfg``);
:func:`translate` matches an English message against its code's templates, takes the filled-in
values (board numbers, names...) and puts them into the translation. A message that matches no
template (new, or built elsewhere) stays English, so nothing is ever lost.
"""

from __future__ import annotations

import ast
import io
import re
from collections.abc import Iterator
from functools import cache
from typing import IO, Any

from server import i18n
from server.core.errors import InvalidError, TravellerError

#: The exception classes whose second argument is a sentence for people.
ERROR_CLASSES = frozenset(
    {
        "TravellerError",
        "NotFoundError",
        "UnauthorizedError",
        "ForbiddenError",
        "ConflictError",
        "InvalidError",
        "UnavailableError",
        "RateLimitedError",
    }
)
_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_FIELD = re.compile(r"\(\?P<\w+>\.\+\?\)")


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


def error_sites(source: str) -> Iterator[tuple[int, str, str]]:
    """(line, code, template) of every ``XxxError("code", <sentence>)`` in Python source."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or len(node.args) < 2:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        code = node.args[0]
        if name not in ERROR_CLASSES or not isinstance(code, ast.Constant):
            continue
        if not isinstance(code.value, str):
            continue
        template = template_of(node.args[1])
        if template:
            yield node.lineno, code.value, template
    yield from _refusal_sites(source)


def refusal(code: str, template: str) -> tuple[str, str]:
    """Mark an English refusal sentence with ``{field}`` placeholders that is raised with
    ``code`` once filled in (not written at a raise site), for extraction with ``code`` as its
    context; returns the two as they are."""
    return code, template


def _refusal_sites(source: str) -> Iterator[tuple[int, str, str]]:
    """(line, code, template) of each ``refusal("code", "template")``."""
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or len(node.args) != 2:
            continue
        func = node.func
        if (func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")) != "refusal":
            continue
        code, template = (getattr(arg, "value", None) for arg in node.args)
        if isinstance(code, str) and isinstance(template, str):
            yield node.lineno, code, template


#: The gettext context of the TD pages' notices after an action ("Round 3 started.").
NOTICE = "notice"


def notice(text: str) -> str:
    """Mark a notice (or a part of one) built outside ``act``/``redirect``, e.g. by a helper or a
    service, for extraction with the context ``notice``; it is translated when shown."""
    return text


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


def extract_errors(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[int, str, tuple[str, str], list[str]]]:
    """Babel extraction method (``babel.cfg``): each error sentence, its code as the context."""
    source = fileobj.read().decode(options.get("encoding", "utf-8"))
    for line, code, template in error_sites(source):
        yield line, "pgettext", (code, template), []
    for line, template in notice_sites(source):
        yield line, "pgettext", (NOTICE, template), []


def extract_server(
    fileobj: IO[bytes], keywords: Any, comment_tags: Any, options: Any
) -> Iterator[tuple[Any, ...]]:
    """Babel extraction method for the server's Python: gettext calls (as ``python``) and the
    error sentences (as :func:`extract_errors`)."""
    # The extraction tool only (pybabel extract): the running server never loads it.
    from babel.messages.extract import extract_python  # noqa: PLC0415

    data = fileobj.read()
    yield from extract_python(io.BytesIO(data), keywords, comment_tags, options)
    yield from extract_errors(io.BytesIO(data), keywords, comment_tags, options)


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
def _templates(lang: str) -> dict[str, list[tuple[re.Pattern[str], str]]]:
    """code -> [(pattern of the English sentence, translated template)] of a language."""
    # Start-up cost: babel.messages (~45 ms) loads when a language's refusals are first read.
    from babel.messages.pofile import read_po  # noqa: PLC0415

    with i18n.po_path(lang).open("rb") as handle:
        catalogue = read_po(handle, locale=lang, domain=i18n.DOMAIN)
    found: dict[str, list[tuple[re.Pattern[str], str]]] = {}
    for message in catalogue:
        if not message.context or not isinstance(message.id, str) or message.fuzzy:
            continue
        if isinstance(message.string, str) and message.string:
            found.setdefault(message.context, []).append((_pattern(message.id), message.string))
    for templates in found.values():  # the most specific first: most words outside the fields
        templates.sort(key=lambda pair: -len(_FIELD.sub("", pair[0].pattern)))
    return found


def translate(lang: str | None, code: str, message: str) -> str:
    """``message`` (raised with ``code``) in ``lang``; English when there is no translation."""
    lang = i18n.normalise(lang)
    if lang is None or lang == i18n.SOURCE:
        return message
    for pattern, translated in _templates(lang).get(code, []):
        match = pattern.fullmatch(message)
        if match is not None:
            values = match.groupdict()
            if code == NOTICE:  # a notice's parts may be notices ("line 3: expected ...")
                values = {
                    key: value if value == message else translate(lang, NOTICE, value)
                    for key, value in values.items()
                }
            try:
                return translated.format(**values)
            except (KeyError, IndexError, ValueError):
                return message
    return message


def translate_notice(lang: str | None, text: str) -> str:
    """A notice shown after an action (a route's sentence, or a refusal whose code is not at
    hand) in ``lang``: the first template of any context that matches; else English."""
    lang = i18n.normalise(lang)
    if lang is None or lang == i18n.SOURCE:
        return text
    templates = _templates(lang)
    for code in [NOTICE, *templates]:
        translated = translate(lang, code, text)
        if translated != text:
            return translated
    return text


#: The movement engine's refusals of a mid-session change (raised as ``invalid_movement`` with
#: the engine's sentence, ``server/movements``), each with a code of its own and a sentence for
#: the TD. The engine's sentence is matched as a template; its fields fill in the TD's.
MOVEMENT_REFUSALS: tuple[tuple[str, tuple[str, str]], ...] = (
    (
        "round {round}, table {table}, pair {pair}: plays board {board} again "
        "(already in round {before} at table {other})",
        refusal(
            "board_played_again",
            "Round {round}, table {table}: pair {pair} would play board {board} a second time "
            "(it played it in round {before} at table {other}).",
        ),
    ),
    (
        "round {round}, table {table}, pair {pair}: sits at two tables ({first} and {second})",
        refusal(
            "pair_seated_twice",
            "Round {round}: pair {pair} would sit at two tables ({first} and {second}).",
        ),
    ),
    (
        "round {round}, table {table}, pair {pair}: board {board} is also in play at table "
        "{other} (tables not declared as sharing)",
        refusal(
            "board_in_play_twice",
            "Round {round}: board {board} would be in play at tables {other} and {table}, "
            "which do not share boards.",
        ),
    ),
    (
        "round {round}, table {table}: board {board} is also in play at table {other} "
        "(tables not declared as sharing)",
        refusal(
            "board_in_play_twice",
            "Round {round}: board {board} would be in play at tables {other} and {table}, "
            "which do not share boards.",
        ),
    ),
    (
        "pair {pair}: pair {same} is already in the movement",
        refusal(
            "pair_already_seated",
            "Pair {pair} is already in the movement: give the late pair a number not in use.",
        ),
    ),
    (
        "pair {pair}: pair {same} is not in the movement",
        refusal("pair_not_in_movement", "Pair {pair} is not in the movement."),
    ),
    (
        "round {round}, table {table}: more than one empty seat: say which pair to replace "
        "(replace_pair)",
        refusal(
            "several_empty_seats",
            "Round {round} has more than one empty seat: seat the late pair at a new table "
            "sharing boards.",
        ),
    ),
    (
        "there is no table {table} to share boards with",
        refusal("no_table_to_share", "There is no table {table} to share boards with."),
    ),
    (
        "no round is left to play: the late pair cannot join now",
        refusal("no_round_left", "No round is left to play: the late pair cannot join now."),
    ),
    (
        "no round is left to play: nothing to swap",
        refusal("no_round_left", "No round is left to play: there is nothing to swap."),
    ),
    (
        "round {round}: nobody sits out to play the late pair: name an opponent",
        refusal(
            "no_opponent_for_late_pair",
            "Round {round}: nobody sits out to play the late pair; name its opponents.",
        ),
    ),
    (
        "round {round}: give share_with: the opponent has no table",
        refusal(
            "share_with_needed",
            "Round {round}: the opponents have no table; say whose boards the new table shares.",
        ),
    ),
    (
        "round {round}, table {table}: the table to share with is not used",
        refusal(
            "share_table_unused",
            "Round {round}: table {table} is not in use, so its boards cannot be shared.",
        ),
    ),
    (
        "rounds must be between 1 and {most}",
        refusal("rounds_out_of_range", "The number of rounds must be between 1 and {most}."),
    ),
    (
        "boards_per_round must be at least 1",
        refusal("boards_per_round_too_small", "Boards per round must be at least 1."),
    ),
    (
        "no seat is empty for pair {pair}: seat it at a new table sharing boards",
        refusal(
            "no_empty_seat",
            "No seat is empty for pair {pair}: seat it at a new table sharing boards.",
        ),
    ),
    (
        "pick two different pairs to swap, not {pair} twice",
        refusal("same_pair_twice", "Pick two different pairs to swap, not {pair} twice."),
    ),
)


def movement_refusal(error: TravellerError) -> TravellerError:
    """A refused mid-session change with a code of its own and a sentence for the TD (which
    :func:`translate` puts into the TD's language) instead of the engine's words; any other
    refusal as it is."""
    if error.code != "invalid_movement":
        return error
    for engine, (code, sentence) in MOVEMENT_REFUSALS:
        match = _pattern(engine).fullmatch(error.message)
        if match is not None:
            return InvalidError(code, sentence.format(**match.groupdict()))
    return error


def for_request(error: TravellerError, accept_language: str | None) -> str:
    """A refusal's message for the person who asked: the Accept-Language's language, else the
    event's (for a table), else English."""
    lang = i18n.from_accept_language(accept_language) or error.language
    return translate(lang, error.code, error.message)

"""PBN 2.1 syntax (https://www.tistis.nl/pbn/pbn_v21.txt §3): games split at blank lines, tags
and their values, the rows of a table tag (§3.3 "Tables"), comments, and the quoting of a string
on export. What the tags mean is the readers' (``pbn``, ``teamfile``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from protocol.text import neutral

from .errors import EventFileError
from .limits import check_lines
from .model import Refusal

_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\S+')
_COLUMN = re.compile(r"([^\\;]+)(?:\\\d+[LR]?)?")
UNKNOWN = frozenset({"", "?", "-", "#"})
_ESCAPE = re.compile(r"\\([\\\"])")
_PROGRAM_COMMENT = re.compile(r"%\s*(?:Generator|Creator)\s*:\s*(.+)", re.IGNORECASE)


@dataclass(slots=True)
class Game:
    """One PBN game: its tags (with their line numbers) and the rows of its table tags."""

    tags: dict[str, str] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    rows: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)
    """The game's [Note "n:text"] tags, n -> text (PBN 2.1 §3.5.4: a game may have several)."""


@dataclass(slots=True)
class Split:
    """What ``split_games`` found besides the games: refused lines and the program's name."""

    refused: list[Refusal] = field(default_factory=list)
    program: str = ""


def _unescape(value: str) -> str:
    """A PBN string's text: \\" is a quote and \\\\ a backslash, read left to right."""
    return _ESCAPE.sub(r"\1", value)


def _strip_comment(text: str) -> str:
    """Drop a ';' comment outside quoted strings (where \\" and \\\\ are escapes)."""
    quoted = escaped = False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\" and quoted:
            escaped = True
        elif char == '"':
            quoted = not quoted
        elif char == ";" and not quoted:
            return text[:index]
    return text


def split_games(text: str, found: Split | None = None) -> list[Game]:
    """Split PBN text into games; "#" values are copied from the previous game. A line longer
    than ``limits.MAX_LINE`` refuses the file with its number (the tag pattern's memory grows
    with the line: 3.5 GB for one 20 MB tag). A malformed tag or text outside any tag is put
    in ``found.refused`` with its line (raised without ``found``)."""
    check_lines(text)
    strict = found is None
    found = found if found is not None else Split()
    games: list[Game] = []
    game = Game()
    section: str | None = None
    in_brace = False
    previous: dict[str, str] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.rstrip("\r\n")
        if in_brace:
            if "}" in line:
                in_brace = False
                line = line.split("}", 1)[1]
            else:
                continue
        if line.startswith("%"):
            comment = _PROGRAM_COMMENT.match(line)
            if comment and not found.program:
                found.program = comment.group(1).strip()
            continue
        if "{" in line and '"' not in line.split("{", 1)[0]:
            before, _, after = line.partition("{")
            if "}" in after:
                line = before + after.split("}", 1)[1]
            else:
                in_brace = True
                line = before
        stripped = line.strip()
        if not stripped:
            if game.tags:
                games.append(game)
                previous = dict(game.tags)
                game = Game()
            section = None
            continue
        matched = False
        rest = stripped
        while rest.startswith("["):
            tag = _TAG.match(rest)
            if tag is None:
                if strict:
                    raise EventFileError(f"malformed tag {rest[:40]!r}", line=number)
                found.refused.append(Refusal(f"malformed tag {rest[:40]!r}", line=number))
                rest = ""
                matched = True
                break
            name, value = tag.group(1), _unescape(tag.group(2))
            if name == "Board" and name in game.tags:
                # A second [Board] within one game starts a new game (no blank line between).
                games.append(game)
                previous = dict(game.tags)
                game = Game()
            if value == "#" and name in previous:
                value = previous[name]
            game.tags[name] = value
            game.lines[name] = number
            if name == "Note":
                note, _, text = value.partition(":")
                game.notes[note.strip()] = text
            section = name
            matched = True
            rest = _strip_comment(rest[tag.end() :]).strip()
        if matched and not rest:
            continue
        if section is None:
            if strict:
                raise EventFileError(f"text outside any tag: {stripped[:40]!r}", line=number)
            found.refused.append(Refusal(f"text outside any tag: {stripped[:40]!r}", line=number))
            continue
        body = _strip_comment(rest if matched else stripped).strip()
        if body:
            game.rows.setdefault(section, []).append((number, body))
    if game.tags:
        games.append(game)
    return games


def columns(spec: str) -> list[str]:
    """Column names of a table tag: "Rank\\2R;PairId\\2R;Names\\45L" -> [Rank, PairId, Names]."""
    names = []
    for part in spec.split(";"):
        match = _COLUMN.match(part.strip())
        if match is None:
            continue
        names.append(match.group(1).strip())
    return names


def table_rows(
    game: Game, tag: str, refused: list[Refusal] | None = None, board: int | None = None
) -> list[tuple[int, dict[str, str]]]:
    """The rows of a table tag as {column: value}, "-" and "" for missing values. A row with
    the wrong number of values is put in ``refused`` with its line (raised without it)."""
    names = columns(game.tags.get(tag, ""))
    out = []
    for number, text in game.rows.get(tag, []):
        tokens = [_unquote(t) for t in _TOKEN.findall(text)]
        if len(tokens) != len(names):
            reason = f"{tag} row has {len(tokens)} values for {len(names)} columns"
            if refused is None:
                raise EventFileError(reason, line=number, board=board)
            refused.append(Refusal(reason, line=number, board=board))
            continue
        out.append((number, dict(zip(names, tokens, strict=True))))
    return out


def _unquote(token: str) -> str:
    if len(token) >= 2 and token[0] == token[-1] == '"':
        return _unescape(token[1:-1])
    return token


def cell(row: dict[str, str], *names: str) -> str:
    for name in names:
        value = row.get(name)
        if value is not None and value.strip() not in ("-", ""):
            return value.strip()
    return ""


def quote(text: str) -> str:
    """A PBN string: one line (``neutral``: a stored name's line break would start a
    fake tag), with \\ and " escaped."""
    return '"' + neutral(text).replace("\\", "\\\\").replace('"', '\\"') + '"'

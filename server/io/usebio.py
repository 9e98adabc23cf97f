"""USEBIO 1.2 XML (the EBU results format) import and export for pairs events.

The reader's contract: every TRAVELLER_LINE is read or put in ``EventFile.refused``
with its element path, line and board; a line with a SCORE and no CONTRACT (individual events)
is scored from its score; NP with SCORE 0 and matchpoints is a board passed out. The scoring
method is read from every place the file names one (EVENT_TYPE on any element, the
EVENT_TYPE, BOARD_SCORING_METHOD and SCORING_METHOD elements), a conflict is reported in
``EventFile.notes``, and scoring across sections is read from the published matchpoints'
top where a file of several sections shows it.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from importlib import metadata
from typing import Any, NoReturn
from xml.parsers import expat

from protocol.bridge import BridgeError
from protocol.text import neutral
from server.scoring import Method

from . import dates, handicap_io, handrecords, spelling, usebio_teams
from .assemble import UNSEATED, Assembler, RawPair, RawRef, finish, unseated
from .errors import EventFileError
from .limits import MAX_XML_DEPTH, MAX_XML_ELEMENTS, check_size
from .lines import Cells, fill_play
from .model import (
    TEAM_PROVISIONAL,
    EventFile,
    IndividualPlayer,
    Line,
    PairKey,
    Refusal,
    TeamLine,
    provisional_note,
)
from .report import ScoredRankingLine, ScoreReport, decimal, line_key
from .teamfile import pair_rooms
from .usebio_hands import HAND_SEATS, SUIT_TAGS, WRITTEN_SUITS, read_handset

DOCTYPE = '<!DOCTYPE USEBIO SYSTEM "http://www.usebio.org/files/usebio_v1_2.dtd">'


def _forbid(*_: Any) -> NoReturn:
    raise EventFileError("XML entity declarations are not allowed in a USEBIO file")


_INSTRUCTION = "traveller"
"""The processing instruction a provisional export carries (``<?traveller provisional="yes"
tables-per-board="5"?>``): other readers skip it, Traveller's scores the file as it was."""


def parse_xml(
    data: bytes, lines: dict[int, int] | None = None, instructions: dict[str, str] | None = None
) -> ET.Element:
    """Parse XML without entity expansion (no billion-laughs, no external entities), of at
    most ``limits.MAX_FILE_BYTES``, ``MAX_XML_DEPTH`` levels and ``MAX_XML_ELEMENTS``.
    With ``lines``, each element's start line is put there under ``id(element)``."""
    check_size(len(data))
    builder = ET.TreeBuilder()
    parser = expat.ParserCreate()
    depth = elements = 0

    def start(tag: str, attributes: dict[str, str]) -> None:
        nonlocal depth, elements
        depth, elements = depth + 1, elements + 1
        if depth > MAX_XML_DEPTH:
            raise EventFileError(
                f"elements nested more than {MAX_XML_DEPTH} deep", line=parser.CurrentLineNumber
            )
        if elements > MAX_XML_ELEMENTS:
            raise EventFileError(
                f"more than {MAX_XML_ELEMENTS} elements", line=parser.CurrentLineNumber
            )
        element = builder.start(tag, attributes)
        if lines is not None:
            lines[id(element)] = parser.CurrentLineNumber

    def end(tag: str) -> None:
        nonlocal depth
        depth -= 1
        builder.end(tag)

    def instruction(target: str, text: str) -> None:
        if instructions is not None and target == _INSTRUCTION:
            instructions.update(re.findall(r'([\w-]+)="([^"]*)"', text))

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.ProcessingInstructionHandler = instruction
    parser.CharacterDataHandler = builder.data
    parser.EntityDeclHandler = _forbid
    parser.UnparsedEntityDeclHandler = _forbid
    parser.ExternalEntityRefHandler = _forbid
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    try:
        parser.Parse(data, True)
        return builder.close()
    except expat.ExpatError as exc:
        raise EventFileError(
            f"not well-formed XML ({expat.errors.messages[exc.code]})", line=exc.lineno
        ) from None
    except AssertionError:
        raise EventFileError("not well-formed XML (no root element)") from None


def _text(element: ET.Element | None, name: str) -> str:
    if element is None:
        return ""
    child = element.find(name)
    return (child.text or "").strip() if child is not None else ""


def _walk(element: ET.Element, section: str | None) -> Iterator[tuple[ET.Element, str | None]]:
    """Every element under `element`, with the SECTION_ID it sits in."""
    for child in element:
        inner = section
        if child.tag == "SECTION":
            inner = (child.get("SECTION_ID") or _text(child, "SECTION_ID") or section) or None
        yield child, inner
        yield from _walk(child, inner)


def read_usebio(data: bytes) -> EventFile:
    """Read a USEBIO 1.x pairs event: participants, travellers and the scoring it names."""
    lines: dict[int, int] = {}
    said: dict[str, str] = {}
    root = parse_xml(data, lines, said)
    if root.tag != "USEBIO":
        raise EventFileError(f"the root element is <{root.tag}>, not <USEBIO>")
    event_el = root.find("EVENT")
    if event_el is None:
        raise EventFileError("no <EVENT> in the USEBIO file")
    if usebio_teams.is_team_event(event_el):  # teams: matches, IMPs/VPs, point-a-board
        event = usebio_teams.read_team_event(root, event_el)
    else:
        event = _read_pairs_event(root, event_el, lines)
    _read_instruction(said, event)
    return event


def _read_instruction(said: dict[str, str], event: EventFile) -> None:
    """A provisional export's mark and the tables it scored each board over."""
    if said.get("provisional") == "yes":
        event.provisional = True
        event.notes.append("the file is provisional: exported before every result was in")
    tables = said.get("tables-per-board", "")
    if tables.isascii() and tables.isdigit() and 0 < int(tables) < 1000:
        event.tables_per_board = int(tables)
        event.notes.append(f"each board scored over {tables} tables, as the file says")


def _read_pairs_event(root: ET.Element, event_el: ET.Element, lines: dict[int, int]) -> EventFile:
    event = EventFile(source="usebio")
    event.name = _text(event_el, "EVENT_DESCRIPTION") or _text(root.find("CLUB"), "CLUB_NAME")
    event.date = _text(event_el, "DATE")
    event.club_id = _text(root.find("CLUB"), "CLUB_ID_NUMBER")
    event.program = _program(root, event_el)
    _read_method(event_el, event)
    winners = _text(event_el, "WINNER_TYPE")
    event.winners = int(winners) if winners in ("1", "2") else None
    assembler = Assembler(event)
    reader = _Reader(assembler, lines)
    handicaps = handicap_io.Handicaps()
    for element, section in _walk(event_el, None):
        if element.tag == "PAIR":
            raw = reader.pair(element, section)
            if raw is not None:
                handicaps.read(element, raw)
        elif element.tag == "PARTICIPANTS":
            for player in element.findall("PLAYER"):  # an individual's players
                reader.player(player, section)
        elif element.tag == "BOARD" and element.find("TRAVELLER_LINE") is not None:
            reader.board(element, section)
    if reader.passed_out:
        event.notes.append(
            f"{reader.passed_out} lines written NP with SCORE 0 and matchpoints read as "
            "passed out (they were scored; a board not played is not)"
        )
    if event.winners == 2 and assembler.pairs and all(p.direction for p in assembler.pairs):
        assembler.directional = True
    built = assembler.build()
    handicaps.apply(built)
    read_handset(root.find("HANDSET"), built)
    _read_across(built)
    return finish(built)


def _program(root: ET.Element, event_el: ET.Element) -> str:
    """PROGRAM_NAME and PROGRAM_VERSION, from the EVENT or the root."""
    for element in (event_el, root):
        name = _text(element, "PROGRAM_NAME")
        if name:
            return " ".join(x for x in (name, _text(element, "PROGRAM_VERSION")) if x)
    return ""


def _refines(specific: Method, generic: Method) -> bool:
    """Whether a file naming ``generic`` agrees with ``specific`` (SCORING_METHOD IMPS is
    Butler in a Butler event): no conflict, the specific one is taken."""
    return specific.spec.refines is generic


def _read_method(event_el: ET.Element, event: EventFile) -> None:
    """The method from every place the file names one, the most specific first:
    BOARD_SCORING_METHOD, SCORING_METHOD, an inner EVENT_TYPE, then EVENT's EVENT_TYPE. An
    unknown word or two methods that disagree are reported in ``event.notes``."""
    named: list[tuple[int, str, str]] = []
    if event_el.get("EVENT_TYPE"):
        named.append((3, "EVENT EVENT_TYPE", event_el.get("EVENT_TYPE", "")))
    for element, section in _walk(event_el, None):
        where = f"SECTION {section} / {element.tag}" if section else f"EVENT / {element.tag}"
        if element.get("EVENT_TYPE"):
            named.append((2, f"{where} EVENT_TYPE", element.get("EVENT_TYPE", "")))
        if element.tag in _METHOD_PLACES:
            named.append((_METHOD_PLACES[element.tag], where, (element.text or "").strip()))
    named.sort(key=lambda item: item[0])
    known = [
        (where, text, spelling.method(text))
        for _, where, text in named
        if text and text.upper() not in _GENERIC
    ]
    for where, text, method in known:
        if method is None and "TEAM" not in text.upper():
            event.notes.append(f"{where} {text!r} is not a scoring method Traveller knows")
    methods = [(where, text, m) for where, text, m in known if m is not None]
    if not methods:
        event.scoring = next((text for _, text, _ in known), "")
        if known:
            event.notes.append("the file names no scoring method Traveller knows: matchpoints")
        return
    chosen_where, chosen_text, chosen = methods[0]
    for where, text, method in methods:
        if _refines(method, chosen):
            chosen_where, chosen_text, chosen = where, text, method
    event.method, event.scoring = chosen, chosen_text
    if any(m is not chosen and not _refines(chosen, m) for _, _, m in methods):
        said = "; ".join(f"{where} {text!r}" for where, text, _ in methods)
        event.notes.append(
            f"the file's scoring methods disagree ({said}): scored as {chosen.value}, "
            f"from {chosen_where}"
        )


_METHOD_PLACES = {"BOARD_SCORING_METHOD": 0, "SCORING_METHOD": 1, "EVENT_TYPE": 2}
_GENERIC = frozenset({"PAIRS", "INDIVIDUAL"})
"""EVENT_TYPE words that name the kind of event, not a scoring method (Traveller's own
export writes PAIRS beside BOARD_SCORING_METHOD)."""


def _read_across(event: EventFile) -> None:
    """Whether the published matchpoints were scored across the sections: on most boards
    played in two or more sections, a line's N/S + E/W matchpoints are the top of all the
    board's tables and not of its section's."""
    if event.method is not None and not event.method.is_matchpoints:
        return
    boards: dict[int, list[Line]] = {}
    for line in event.lines:
        if line.played and line.published_values is not None:
            boards.setdefault(line.board, []).append(line)
    votes: Counter[bool] = Counter()
    for lines in boards.values():
        sections = Counter(line.section for line in lines)
        if len(sections) < 2:
            continue
        total = len(lines)
        for line in lines:
            if line.contract is None or line.published_values is None:
                continue
            top = sum(line.published_values, Decimal(0))
            own = sections[line.section]
            if top in (2 * (total - 1), total - 1) and top not in (2 * (own - 1), own - 1):
                votes[True] += 1
            elif top in (2 * (own - 1), own - 1):
                votes[False] += 1
    if votes[True] > votes[False]:
        event.across_sections = True
        event.notes.append(
            "the published matchpoints are over all sections' tables: scored across sections"
        )


def _number(text: str) -> Decimal | None:
    if not text:
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


class _Reader:
    """Reads PAIR and TRAVELLER_LINE elements into the assembler, refusing each bad one with
    its element path and line."""

    def __init__(self, assembler: Assembler, lines: dict[int, int]) -> None:
        self.assembler = assembler
        self.lines = lines
        self.refused = assembler.event.refused
        self.passed_out = 0
        self.pairs = 0
        self.players = 0

    def pair(self, element: ET.Element, section: str | None) -> RawPair | None:
        """The pair read (and added), or None when it is refused."""
        self.pairs += 1
        try:
            raw = _pair(element, section)
        except spelling.SpellingError as exc:
            place = f"SECTION {section} / PAIR {self.pairs}" if section else f"PAIR {self.pairs}"
            self.refused.append(Refusal(str(exc), self.lines.get(id(element)), place))
            return None
        self.assembler.pairs.append(raw)
        return raw

    def player(self, element: ET.Element, section: str | None) -> None:
        """A player of an individual event (PARTICIPANTS / PLAYER), or its refusal."""
        self.players += 1
        try:
            number = spelling.player_number(_text(element, "PLAYER_NUMBER"))
        except spelling.SpellingError as exc:
            place = f"PARTICIPANTS / PLAYER {self.players}"
            place = f"SECTION {section} / {place}" if section else place
            self.refused.append(Refusal(str(exc), self.lines.get(id(element)), place))
            return
        self.assembler.event.players.append(
            IndividualPlayer(
                section,
                number,
                neutral(_text(element, "PLAYER_NAME")),
                _number(_text(element, "TOTAL_SCORE")),
                _number(_text(element, "PERCENTAGE")),
                _text(element, "PLACE") or None,
            )
        )

    def board(self, element: ET.Element, section: str | None) -> None:
        prefix = f"SECTION {section} / " if section else ""
        number_text = _text(element, "BOARD_NUMBER")
        try:
            board = int(number_text)
            if not 1 <= board <= 9999:
                raise ValueError
        except ValueError:
            count = len(element.findall("TRAVELLER_LINE"))
            self.refused.append(
                Refusal(
                    f"{number_text!r} is not a board number: its {count} lines not read",
                    self.lines.get(id(element)),
                    f"{prefix}BOARD",
                )
            )
            return
        for index, traveller in enumerate(element.findall("TRAVELLER_LINE"), start=1):
            try:
                line, ns, ew = _traveller(traveller, board, section)
            except (spelling.SpellingError, BridgeError, ValueError) as exc:
                self.refused.append(
                    Refusal(
                        str(exc),
                        self.lines.get(id(traveller)),
                        f"{prefix}BOARD {board} / TRAVELLER_LINE {index}",
                        board,
                    )
                )
                continue
            if unseated(line, ns, ew):
                place = f"{prefix}BOARD {board} / TRAVELLER_LINE {index}"
                self.refused.append(Refusal(UNSEATED, self.lines.get(id(traveller)), place, board))
                continue
            if line.contract == "PASS" and spelling.not_played(_text(traveller, "CONTRACT")):
                self.passed_out += 1
            self.assembler.add_line(line, ns, ew)


def _pair(element: ET.Element, section: str | None) -> RawPair:
    number_text = _text(element, "PAIR_NUMBER")
    own_section, number, side = spelling.pair_number(number_text)
    direction_text = _text(element, "DIRECTION")
    direction = spelling.direction(direction_text) if direction_text else side
    names = tuple((p.findtext("PLAYER_NAME") or "").strip() for p in element.findall("PLAYER"))
    ids = tuple((p.findtext("NATIONAL_ID_NUMBER") or "").strip() for p in element.findall("PLAYER"))
    return RawPair(
        own_section or section,
        number,
        direction,
        names,
        ids if any(ids) else (),
        _number(_text(element, "TOTAL_SCORE")),
        _number(_text(element, "PERCENTAGE")),
        _text(element, "PLACE") or None,
        explicit=side is not None,
    )


_PLAYER_TAGS = ("N_PLAYER_NUMBER", "E_PLAYER_NUMBER", "S_PLAYER_NUMBER", "W_PLAYER_NUMBER")
"""The four players of a line of an individual event, North, East, South and West."""


def _players(element: ET.Element) -> tuple[int, int, int, int] | None:
    """The line's four players, None on a pairs line."""
    return spelling.seated_players([(tag, _text(element, tag)) for tag in _PLAYER_TAGS], "line")


def _traveller(
    element: ET.Element, board: int, section: str | None
) -> tuple[Line, RawRef | None, RawRef | None]:
    players = _players(element)
    refs: list[RawRef | None] = []
    for tag, seat in (("NS_PAIR_NUMBER", "NS"), ("EW_PAIR_NUMBER", "EW")):
        text = _text(element, tag)
        if not text:
            refs.append(None)
            continue
        own, number, side = spelling.pair_number(text)
        refs.append(RawRef(own or section, number, seat, side))
    line = Line(board, None, None, section=section, players=players)
    if players is not None:
        refs = [None, None]
    for tag in ("ROUND_NUMBER", "ROUND"):
        if _text(element, tag).isdigit():
            line.round = int(_text(element, tag))
    for tag in ("TABLE_NUMBER", "TABLE"):
        if _text(element, tag).isdigit():
            line.table = int(_text(element, tag))
    lead = _text(element, "LEAD")
    line.lead = lead or None
    for suffix in ("MATCH_POINTS", "CROSS_IMP_POINTS", "BUTLER_POINTS", "IMPS"):
        ns_value = _number(_text(element, "NS_" + suffix))
        ew_value = _number(_text(element, "EW_" + suffix))
        if ns_value is not None and ew_value is not None:
            line.published_values = (ns_value, ew_value)
            break
    fill_play(
        line, Cells(*(_text(element, t) for t in ("CONTRACT", "PLAYED_BY", "TRICKS", "SCORE")))
    )
    return line, refs[0], refs[1]


# --- export -------------------------------------------------------------------------------


def _add(parent: ET.Element, tag: str, text: object | None) -> ET.Element:
    """A child element; its text single-line and XML-safe (``neutral`` drops what XML 1.0
    cannot carry, a name stored before the input check; ElementTree quotes & < >)."""
    child = ET.SubElement(parent, tag)
    if text is not None:
        child.text = neutral(str(text))
    return child


def _version() -> str:
    try:
        return metadata.version("traveller")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "0"


PROGRAM_VERSION = _version()
"""Traveller's version, as USEBIO's PROGRAM_VERSION names the program that wrote a file."""


def write_usebio(event: EventFile, report: ScoreReport | None = None) -> bytes:
    """USEBIO 1.2 XML for a pairs event; with a report, places, totals and matchpoints too."""
    method = report.method if report else event.method
    root = ET.Element("USEBIO", {"Version": "1.2"})
    club = _add(root, "CLUB", None)
    _add(club, "CLUB_NAME", event.name or "Traveller")
    if event.club_id:
        _add(club, "CLUB_ID_NUMBER", event.club_id)
    event_type = "MP_PAIRS" if method is None or method.is_matchpoints else "PAIRS"
    if event.individual:
        event_type = "INDIVIDUAL"
    event_el = ET.SubElement(root, "EVENT", {"EVENT_TYPE": event_type})
    _add(event_el, "PROGRAM_NAME", "Traveller")
    _add(event_el, "PROGRAM_VERSION", PROGRAM_VERSION)
    _add(event_el, "EVENT_DESCRIPTION", event.name)
    _add(event_el, "DATE", dates.usebio(event.date))
    if method is not None:
        _add(event_el, "BOARD_SCORING_METHOD", method.spec.usebio_method)
    winners = report.winners if report else event.winners
    if winners:
        _add(event_el, "WINNER_TYPE", winners)
    _add(event_el, "BOARDS_PLAYED", len({line.board for line in event.lines if line.played}))
    sections = sorted(
        {p.key.section or "" for p in event.pairs}
        | {p.section or "" for p in event.players}
        | {ln.section or "" for ln in event.lines}
    )
    results = {p.key: p for p in report.pairs} if report else {}
    values = _values(report)
    for section in sections:
        parent = event_el
        if section:
            parent = ET.SubElement(event_el, "SECTION", {"SECTION_ID": section})
        participants = _add(parent, "PARTICIPANTS", None)
        _write_players(participants, event, section, results)
        for entry in (p for p in event.pairs if (p.key.section or "") == section):
            pair = _add(participants, "PAIR", None)
            _add(pair, "PAIR_NUMBER", entry.key.number)
            if entry.key.direction:
                _add(pair, "DIRECTION", entry.key.direction)
            for index, name in enumerate(entry.names):
                player = _add(pair, "PLAYER", None)
                _add(player, "PLAYER_NAME", name)
                if index < len(entry.ids) and entry.ids[index]:
                    _add(player, "NATIONAL_ID_NUMBER", entry.ids[index])
            result = results.get(entry.key)
            if result is not None:
                _add(pair, "PLACE", result.place)
                _add(pair, "TOTAL_SCORE", f"{decimal(result.total):.2f}")
                if result.percentage is not None:
                    _add(pair, "PERCENTAGE", f"{decimal(result.percentage):.2f}")
            if entry.handicap is not None:
                _add(pair, "HANDICAP", handicap_io.handicap_text(entry.handicap))
        for board in sorted({ln.board for ln in event.lines if (ln.section or "") == section}):
            board_el = _add(parent, "BOARD", None)
            _add(board_el, "BOARD_NUMBER", board)
            for line in event.lines:
                if line.board == board and (line.section or "") == section:
                    _traveller_line(board_el, line, values.get(line_key(line)))
    _write_handset(root, event)
    instruction = ""
    if event.provisional:  # USEBIO 1.2 has no element for it: an instruction and a comment
        tables = event.tables_per_board or 0
        instruction = f'<?{_INSTRUCTION} provisional="yes" tables-per-board="{tables}"?>\n'
        root.insert(0, ET.Comment(f" {provisional_note(tables)} "))
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    head = '<?xml version="1.0" encoding="UTF-8"?>\n' + DOCTYPE + "\n" + instruction
    return (head + body + "\n").encode()


def _write_players(
    participants: ET.Element,
    event: EventFile,
    section: str,
    results: dict[PairKey, ScoredRankingLine],
) -> None:
    """An individual's players (PARTICIPANTS / PLAYER), with their place, total and
    percentage when scored (the ranking is keyed by player number)."""
    for player in (p for p in event.players if (p.section or "") == section):
        element = _add(participants, "PLAYER", None)
        _add(element, "PLAYER_NUMBER", player.number)
        _add(element, "PLAYER_NAME", player.name)
        result = results.get(PairKey(player.section, player.number))
        if result is not None:
            _add(element, "PLACE", result.place)
            _add(element, "TOTAL_SCORE", f"{decimal(result.total):.2f}")
            if result.percentage is not None:
                _add(element, "PERCENTAGE", f"{decimal(result.percentage):.2f}")


def _write_handset(root: ET.Element, event: EventFile) -> None:
    """<HANDSET> with every board that has a deal: a HAND per seat, suits by name."""
    records = [event.boards[n] for n in sorted(event.boards) if event.boards[n].deal]
    if not records:
        return
    handset = _add(root, "HANDSET", None)
    for record in records:
        assert record.deal is not None
        held = handrecords.hands(record.deal)
        board_el = _add(handset, "BOARD", None)
        _add(board_el, "BOARD_NUMBER", record.number)
        for name, seat in HAND_SEATS.items():
            hand = _add(board_el, "HAND", None)
            _add(hand, "DIRECTION", name)
            suits = dict(zip(SUIT_TAGS, held[seat], strict=True))
            for tag in WRITTEN_SUITS:
                _add(hand, tag, suits[tag])


Values = tuple[str, str, str]
"""(element suffix, N/S value, E/W value) for a traveller line."""


def _values(report: ScoreReport | None) -> dict[tuple[int, str, str], Values]:
    """Each line's matchpoints (or IMPs) to two decimals, under the method's element names."""
    tag = None if report is None else report.method.spec.usebio_points
    if report is None or tag is None:
        return {}
    out = {}
    for board in report.boards:
        for row in board.rows:
            ns, ew = decimal(row.ns_value), decimal(row.ew_value)
            if ns is not None and ew is not None:
                out[report.row_key(board.board, row)] = (tag, f"{ns:g}", f"{ew:g}")
    return out


def _traveller_line(board_el: ET.Element, line: Line, values: Values | None) -> None:
    element = _add(board_el, "TRAVELLER_LINE", None)
    if line.players is not None:
        for tag, player in zip(_PLAYER_TAGS, line.players, strict=True):
            _add(element, tag, player)
    else:
        _add(element, "NS_PAIR_NUMBER", "" if line.ns is None else line.ns.number)
        _add(element, "EW_PAIR_NUMBER", "" if line.ew is None else line.ew.number)
    labels = line.adjusted_labels()
    if line.artificial is not None:
        _add(element, "SCORE", spelling.artificial_label(*line.artificial))
    elif labels is not None:
        _add(element, "SCORE", labels[0])
    elif line.contract is None and line.score is not None:
        _add(element, "SCORE", line.score)
    elif line.contract is not None:
        _add_contract(element, line)
    if values is not None:
        tag, ns, ew = values
        _add(element, "NS_" + tag, ns)
        _add(element, "EW_" + tag, ew)


def write_team_usebio(event: EventFile) -> bytes:
    """USEBIO 1.2 XML for the team event of ``event.teams``, in the elements the team reader
    takes (``usebio_teams``): the TEAMs (TEAM_ID, TEAM_NAME, PLACE, TOTAL_SCORE in VPs), then a
    MATCH per match (ROUND_NUMBER, TEAM the home team, OPPOSING_TEAM, the IMPs each team won as
    TEAM_SCORE / OPPOSING_TEAM_SCORE, the VPs) with a BOARD per board both rooms have played:
    its home IMPs and a TRAVELLER_LINE per room, DIRECTION where the home team sat. A board
    played in one room only is left out (it does not count in the match yet, § 202B2), and a
    match with no such board with it; a provisional export says so as the pairs one does."""
    teams = event.teams
    if teams is None:
        raise ValueError("the event has no team matches")
    root = ET.Element("USEBIO", {"Version": "1.2"})
    club = _add(root, "CLUB", None)
    _add(club, "CLUB_NAME", event.name or "Traveller")
    if event.club_id:
        _add(club, "CLUB_ID_NUMBER", event.club_id)
    event_el = ET.SubElement(root, "EVENT", {"EVENT_TYPE": "TEAMS"})
    _add(event_el, "PROGRAM_NAME", "Traveller")
    _add(event_el, "PROGRAM_VERSION", PROGRAM_VERSION)
    _add(event_el, "EVENT_DESCRIPTION", event.name)
    _add(event_el, "DATE", dates.usebio(event.date))
    _add(event_el, "BOARD_SCORING_METHOD", "IMPS")
    _add(event_el, "MATCH_SCORING_METHOD", "VPS")
    _add(event_el, "BOARDS_PLAYED", len({line.board for line in teams.lines}))
    participants = _add(event_el, "PARTICIPANTS", None)
    ids = {
        entry.team: entry.pairs[0] if entry.pairs else str(number)
        for number, entry in enumerate(teams.entries, 1)
    }
    for entry in teams.entries:
        team_el = ET.SubElement(participants, "TEAM", {"TEAM_ID": ids[entry.team]})
        _add(team_el, "TEAM_NAME", entry.name or entry.team)
        if entry.published_place is not None:
            _add(team_el, "PLACE", entry.published_place)
        if entry.published_total is not None:
            _add(team_el, "TOTAL_SCORE", f"{entry.published_total:.2f}")
    published = {(p.stage, p.home, p.away): p for p in teams.published}
    for stage, home, away, plays in pair_rooms(teams.lines):
        counted = [p for p in plays if p.open is not None and p.closed is not None]
        if not counted:
            continue
        match_el = _add(event_el, "MATCH", None)
        _add(match_el, "ROUND_NUMBER", stage)
        _add(match_el, "TEAM", ids[home])
        _add(match_el, "OPPOSING_TEAM", ids[away])
        result = published.get((stage, home, away))
        if result is not None:
            for tag, value in (
                ("TEAM_SCORE", result.home_score),
                ("OPPOSING_TEAM_SCORE", result.away_score),
                ("TEAM_VICTORY_POINTS", result.home_vp),
                ("OPPOSING_TEAM_VICTORY_POINTS", result.away_vp),
            ):
                if value is not None:
                    _add(match_el, tag, f"{value:.2f}")
        for play in counted:
            board_el = _add(match_el, "BOARD", None)
            _add(board_el, "BOARD_NUMBER", play.board)
            if play.home_imps is not None:
                _add(board_el, "IMPS", f"{decimal(play.home_imps):.2f}")
            for direction, room in (("NS", play.open), ("EW", play.closed)):
                assert room is not None
                _team_traveller_line(board_el, direction, room)
    for bye in teams.byes:  # a MATCH of one team and no board: it sat the round out
        match_el = _add(event_el, "MATCH", None)
        _add(match_el, "ROUND_NUMBER", bye.stage)
        _add(match_el, "TEAM", ids[bye.team])
    _write_handset(root, event)
    instruction = ""
    if event.provisional:
        instruction = f'<?{_INSTRUCTION} provisional="yes"?>\n'
        root.insert(0, ET.Comment(f" {TEAM_PROVISIONAL} "))
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    head = '<?xml version="1.0" encoding="UTF-8"?>\n' + DOCTYPE + "\n" + instruction
    return (head + body + "\n").encode()


def _team_traveller_line(board_el: ET.Element, direction: str, line: TeamLine) -> None:
    element = _add(board_el, "TRAVELLER_LINE", None)
    _add(element, "DIRECTION", direction)
    if line.contract is not None:
        _add_contract(element, line)


def _add_contract(element: ET.Element, line: Line | TeamLine) -> None:
    """A played line's CONTRACT, PLAYED_BY, LEAD and TRICKS (a passed-out board: the contract
    alone), then its N/S SCORE."""
    _add(element, "CONTRACT", line.contract)
    if line.contract != "PASS":
        _add(element, "PLAYED_BY", line.declarer)
        if line.lead:
            _add(element, "LEAD", line.lead)
        _add(element, "TRICKS", line.tricks)
    _add(element, "SCORE", line.ns_points())

"""USEBIO team events (USEBIO 1.0-1.2, the EBU's results format): matches, IMPs, VPs and
point-a-board, read into the team model and scored like a PBN team event (§ 202, § 206).

Source: the USEBIO 1.2 specification and DTD the EBU publishes at usebio.org (usebio_v1_2.dtd;
USEBIO 1.3, 2018, keeps 1.2 valid). The specification's own text was not in reach when this
was written, so no section number is cited: the element names below are those of the 1.2 DTD
as public USEBIO readers and writers use them (marcshearer/ImportUsebio's parser for MATCH,
TEAM, OPPOSING_TEAM, TEAM_SCORE, TEAM_VICTORY_POINTS, BOARD/IMPS and TRAVELLER_LINE/DIRECTION;
a club scorer's writer for TEAM_ID/TEAM_NAME and PAB/BAM), nothing of their code copied.
What the reader takes from a file:
- ``EVENT EVENT_TYPE``: a team event is one whose type names teams (``TEAMS``,
  ``SWISS_TEAMS``, ``TEAMS_OF_FOUR``, ``MULTIPLE_TEAMS``, ``KO``, ``HEAD_TO_HEAD``), or one
  whose participants are ``TEAM``s or whose results sit in ``MATCH``es.
- ``BOARD_SCORING_METHOD`` / ``MATCH_SCORING_METHOD``: ``IMPS`` and ``VPS`` (the default), or
  point-a-board / board-a-match (``PAB``, ``BAM``, ``POINT_A_BOARD``, ``BOARD_A_MATCH``), which
  is scored 2/1/0 a board (§ 206); a file publishing ``BAM`` on the 1/0.5/0 scale is the same
  ranking at half the figures.
- ``PARTICIPANTS / TEAM`` (``TEAM_ID`` and ``TEAM_NAME``, as attributes or child elements),
  with its ``PAIR``s (``PAIR_NUMBER``) and ``PLAYER``s, and the published ``TOTAL_SCORE`` and
  ``PLACE``.
- ``MATCH``: ``ROUND_NUMBER``, ``TEAM`` (the home team) and ``OPPOSING_TEAM``, the published
  ``TEAM_SCORE`` / ``OPPOSING_TEAM_SCORE`` (IMPs or board points; VPs when the match scoring
  is VPs) and ``TEAM_VICTORY_POINTS`` / ``OPPOSING_TEAM_VICTORY_POINTS``, then a ``BOARD``
  per board (``BOARD_NUMBER``, the published ``IMPS`` for the home team) with one
  ``TRAVELLER_LINE`` per room. A line's ``DIRECTION`` is where the MATCH's ``TEAM`` sat: N/S
  is the open room, E/W the closed room (§ 231A2). Without DIRECTION the line's pair numbers
  say which team sat N/S.
- Without ``MATCH`` elements, plain ``BOARD / TRAVELLER_LINE``s whose ``NS_PAIR_NUMBER`` and
  ``EW_PAIR_NUMBER`` are team-pair ids such as ``1-1-2``: the pair id is looked up among the
  pairs the teams list in PARTICIPANTS; a pair id no team lists is read as dash-separated
  numbers whose first is the team. Each board of a match then has two tables, one with each
  team N/S. The three parts are team - player - player: team 1's pairs are ``1-1-2`` (its
  players 1 and 2, N/S where the team sits N/S) and ``1-3-4`` (players 3 and 4, E/W in the
  other room), each listed under ``TEAM TEAM_ID="1"`` with its two PLAYERs. So written by
  EBUScoreTeams 1.1.3 ("Example Point-a-Board Event", the EBU's annotated example) and
  TeamsScorer 5.1.17 ("Multiple Teams Example Session"): github.com/jacquicollier/
  ukbridge-club-website ``public/usebio/point-a-board-teams.xml`` and ``multiple-teams.xml``
  @ 9ddfd310860128fc0309a491a30f613727829b5b (no licence, read here, not copied; this reader
  reads both whole, nothing refused). The specification's own text still was not found.

Scoring is always from the contracts, declarers and tricks; the published IMPs, VPs and board
points are kept (``TeamEvent.published``, ``TeamLine.published_ns_imps``) to compare against.
Anything that cannot be read is refused with the element named (``EventFile.refused``), never
dropped: a match naming a team that PARTICIPANTS does not list, a traveller line that does not
parse, a board without both rooms (it leaves the match, § 202B2) or with more than two tables.

No USEBIO team file under a licence we may commit was found in the public repositories
searched; the test file ``tests/data/io/usebio_teams_minimal.xml`` is written from the element
names above and says so.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from protocol.text import neutral

from . import spelling
from .errors import EventFileError
from .lines import Cells, read_cells, team_refusal
from .model import (
    EventFile,
    PublishedMatch,
    Refusal,
    TeamBye,
    TeamEntry,
    TeamEvent,
    TeamLine,
)
from .usebio_hands import read_handset

TEAM_EVENT_TYPES = frozenset(
    {"TEAMS", "SWISS_TEAMS", "TEAMS_OF_FOUR", "MULTIPLE_TEAMS", "KO", "HEAD_TO_HEAD"}
)
"""EVENT_TYPE values that name a team event (the team types USEBIO readers and writers use)."""
BOARD_A_MATCH_WORDS = frozenset({"PAB", "BAM", "POINT_A_BOARD", "BOARD_A_MATCH"})
"""Scoring-method words for point-a-board / board-a-match (§ 206)."""
_TEAM_PAIR = re.compile(r"(?P<team>[0-9]{1,4})(?:\s*-\s*[0-9]{1,4})+")
_SCORE = re.compile(r"-?[0-9]{1,5}")
_CONTAINERS = frozenset({"SESSION", "SECTION", "ROUND", "STAGE", "SEGMENT"})


def _text(element: ET.Element | None, name: str) -> str:
    if element is None:
        return ""
    child = element.find(name)
    return (child.text or "").strip() if child is not None else ""


def _decimal(text: str) -> Decimal | None:
    if not text:
        return None
    try:
        value = Decimal(text.replace(",", "."))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _key(text: str) -> str:
    return text.strip().upper().replace("-", "_").replace(" ", "_")


def is_team_event(event_el: ET.Element) -> bool:
    """Whether a USEBIO EVENT is a team event (by its type, its participants or its MATCHes)."""
    event_type = _key(event_el.get("EVENT_TYPE", "") or _text(event_el, "EVENT_TYPE"))
    if event_type in TEAM_EVENT_TYPES or event_type.endswith("_TEAMS"):
        return True
    for element in event_el.iter():
        if element.tag == "MATCH" and (
            element.find("TEAM") is not None or element.find("OPPOSING_TEAM") is not None
        ):
            return True
        if element.tag == "PARTICIPANTS" and element.find("TEAM") is not None:
            return True
    return False


def board_a_match(*words: str) -> bool:
    """Whether the file's scoring words say point-a-board / board-a-match (§ 206)."""
    return any(_key(word) in BOARD_A_MATCH_WORDS for word in words if word)


@dataclass(slots=True)
class _TeamsReader:
    """Collects the team lines and the refusals while walking the EVENT."""

    known: set[str]
    pair_teams: dict[str, str]
    board_a_match: bool
    vp_match_scoring: bool
    lines: list[TeamLine] = field(default_factory=list)
    published: list[PublishedMatch] = field(default_factory=list)
    byes: list[TeamBye] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    matches: int = 0
    loose_boards: int = 0

    def refuse(self, element: str, reason: str, board: int | None = None) -> None:
        self.refused.append(Refusal(reason, element=element, board=board))

    # --- ids ----------------------------------------------------------------------------------

    def team(self, text: str) -> str | None:
        """A team id as written, if PARTICIPANTS lists it (any id when it lists none)."""
        team = text.strip()
        if not team:
            return None
        if self.known and team not in self.known:
            return None
        return team

    def team_of_pair(self, text: str) -> str | None:
        """The team a pair id such as "1-1-2" belongs to, or None if no team has it."""
        pair = text.strip()
        if pair in self.pair_teams:
            return self.pair_teams[pair]
        match = _TEAM_PAIR.fullmatch(pair)
        if match is None:
            return None
        return self.team(str(int(match.group("team"))))

    # --- MATCH ---------------------------------------------------------------------------------

    def match(self, element: ET.Element, round_text: str | None) -> None:
        self.matches += 1
        round_text = _text(element, "ROUND_NUMBER") or round_text
        place = f"MATCH {self.matches}" + (f" (round {round_text})" if round_text else "")
        home_text, away_text = _text(element, "TEAM"), _text(element, "OPPOSING_TEAM")
        home, away = self.team(home_text), self.team(away_text)
        if (
            home is not None
            and element.find("OPPOSING_TEAM") is None
            and not len(element.findall("BOARD"))
        ):  # a MATCH of one team and no board: the team sat the round out (a bye)
            self.byes.append(TeamBye(round_text, home))
            return
        if home is None or away is None:
            text = home_text if home is None else away_text
            reason = f"team {text!r} is not in PARTICIPANTS" if text else "no TEAM or OPPOSING_TEAM"
            self.refuse(place, reason + "; the match is not scored")
            return
        if home == away:
            self.refuse(place, f"team {home} cannot play itself; the match is not scored")
            return
        self.published.append(self._published(element, round_text, home, away))
        for index, board_el in enumerate(element.findall("BOARD"), start=1):
            self._match_board(board_el, f"{place} / BOARD", index, round_text, home, away)

    def _published(
        self, element: ET.Element, stage: str | None, home: str, away: str
    ) -> PublishedMatch:
        record = PublishedMatch(stage, home, away)
        home_score = _decimal(_text(element, "TEAM_SCORE"))
        away_score = _decimal(_text(element, "OPPOSING_TEAM_SCORE"))
        record.home_vp = _decimal(_text(element, "TEAM_VICTORY_POINTS"))
        record.away_vp = _decimal(_text(element, "OPPOSING_TEAM_VICTORY_POINTS"))
        if self.vp_match_scoring and record.home_vp is None and record.away_vp is None:
            record.home_vp, record.away_vp = home_score, away_score
        else:
            record.home_score, record.away_score = home_score, away_score
        return record

    def _match_board(
        self,
        board_el: ET.Element,
        prefix: str,
        index: int,
        stage: str | None,
        home: str,
        away: str,
    ) -> None:
        number = _board_number(board_el)
        place = f"{prefix} {number if number is not None else f'#{index}'}"
        if number is None:
            self.refuse(place, f"{_text(board_el, 'BOARD_NUMBER')!r} is not a board number")
            return
        imps = _decimal(_text(board_el, "IMPS"))
        for line_index, line_el in enumerate(board_el.findall("TRAVELLER_LINE"), start=1):
            where = f"{place} / TRAVELLER_LINE {line_index}"
            home_seat = self._home_seat(line_el, home, away)
            if home_seat is None:
                self.refuse(
                    where,
                    "no DIRECTION and no pair numbers of the two teams: cannot tell which "
                    "team sat N/S",
                    number,
                )
                continue
            ns, ew = (home, away) if home_seat == "NS" else (away, home)
            room = "Open" if home_seat == "NS" else "Closed"
            line = self._line(line_el, number, ns, ew, stage, room, where)
            if line is None:
                continue
            if imps is not None:
                line.published_ns_imps = imps if room == "Open" else -imps
            self.lines.append(line)

    def _home_seat(self, line_el: ET.Element, home: str, away: str) -> str | None:
        """Where the MATCH's TEAM sat on this line: DIRECTION, else the pair numbers."""
        direction = _text(line_el, "DIRECTION")
        if direction:
            try:
                return spelling.direction(direction)
            except spelling.SpellingError:
                return None
        ns_team = self.team_of_pair(_text(line_el, "NS_PAIR_NUMBER"))
        ew_team = self.team_of_pair(_text(line_el, "EW_PAIR_NUMBER"))
        if (ns_team, ew_team) in ((home, away), (home, None), (None, away)):
            return "NS"
        if (ns_team, ew_team) in ((away, home), (away, None), (None, home)):
            return "EW"
        return None

    # --- travellers without MATCH --------------------------------------------------------------

    def traveller_board(self, board_el: ET.Element, stage: str | None) -> None:
        self.loose_boards += 1
        number = _board_number(board_el)
        place = f"BOARD {number if number is not None else f'#{self.loose_boards}'}"
        if number is None:
            self.refuse(place, f"{_text(board_el, 'BOARD_NUMBER')!r} is not a board number")
            return
        for line_index, line_el in enumerate(board_el.findall("TRAVELLER_LINE"), start=1):
            where = f"{place} / TRAVELLER_LINE {line_index}"
            teams = []
            for tag in ("NS_PAIR_NUMBER", "EW_PAIR_NUMBER"):
                pair = _text(line_el, tag)
                team = self.team_of_pair(pair)
                if team is None:
                    what = f"{tag} {pair!r} is no team's pair" if pair else f"no {tag}"
                    self.refuse(where, what, number)
                    break
                teams.append(team)
            else:
                round_text = _text(line_el, "ROUND_NUMBER") or _text(line_el, "ROUND") or stage
                line = self._line(line_el, number, teams[0], teams[1], round_text, None, where)
                if line is not None:
                    self.lines.append(line)

    # --- one table -----------------------------------------------------------------------------

    def _line(
        self,
        element: ET.Element,
        board: int,
        ns: str,
        ew: str,
        stage: str | None,
        room: str | None,
        where: str,
    ) -> TeamLine | None:
        if ns == ew:
            self.refuse(where, f"team {ns} sits on both sides", board)
            return None
        line = TeamLine(board, ns, ew, stage=stage, room=room, element=where)
        table = _text(element, "TABLE_NUMBER") or _text(element, "TABLE")
        line.table = table or None
        contract = _text(element, "CONTRACT")
        score = _text(element, "SCORE")
        line.lead = _text(element, "LEAD") or None
        cells = Cells(contract, _text(element, "PLAYED_BY"), _text(element, "TRICKS"), score)
        try:
            play = read_cells(cells)
        except spelling.SpellingError as exc:
            self.refuse(where, str(exc), board)
            return None
        reason = team_refusal(play, cells)
        if reason is not None:
            self.refuse(where, reason, board)
            return None
        if play.contract is None and not contract:
            self.refuse(where, "no CONTRACT: the board was not played here", board)
            return None
        line.contract, line.declarer, line.tricks = play.contract, play.declarer, play.tricks
        line.published_ns_score = play.published_ns_score
        return line

    # --- both rooms ----------------------------------------------------------------------------

    def keep_complete_boards(self) -> list[TeamLine]:
        """The lines of boards that have both rooms; the rest are refused, named (§ 202B2)."""
        groups: dict[tuple[str | None, frozenset[str], int], list[TeamLine]] = {}
        for line in self.lines:
            key = (line.stage, frozenset((line.ns_team, line.ew_team)), line.board)
            groups.setdefault(key, []).append(line)
        kept: list[TeamLine] = []
        for (_, teams, board), tables in groups.items():
            match = " v ".join(sorted(teams))
            where = tables[0].element or f"BOARD {board}"
            if len(tables) == 1:
                (only,) = tables
                self.refuse(
                    where,
                    f"{match}: only the table with {only.ns_team} N/S has a result; a team "
                    "board needs both rooms, so it leaves the match (§ 202B2)",
                    board,
                )
            elif len(tables) > 2:
                self.refuse(
                    where, f"{match}: {len(tables)} tables for one board (expected two)", board
                )
            elif tables[0].ns_team == tables[1].ns_team:
                self.refuse(
                    where,
                    f"{match}: both tables seat {tables[0].ns_team} N/S (expected one room each)",
                    board,
                )
            else:
                kept.extend(tables)
        return kept


def _board_number(element: ET.Element) -> int | None:
    text = _text(element, "BOARD_NUMBER")
    if not re.fullmatch(r"[0-9]{1,4}", text) or not 1 <= int(text) <= 9999:
        return None
    return int(text)


def _entries(event_el: ET.Element) -> list[TeamEntry]:
    """Every TEAM in PARTICIPANTS: its id, name, players, pairs and published total/place."""
    entries = []
    for participants in event_el.iter("PARTICIPANTS"):
        for team_el in participants.findall("TEAM"):
            team = (
                team_el.get("TEAM_ID")
                or _text(team_el, "TEAM_ID")
                or _text(team_el, "TEAM_NUMBER")
                or team_el.get("TEAM_NUMBER")
                or ""
            ).strip()
            if not team:
                continue
            name = team_el.get("TEAM_NAME") or _text(team_el, "TEAM_NAME")
            players = tuple(
                neutral((p.findtext("PLAYER_NAME") or "").strip()) for p in team_el.iter("PLAYER")
            )
            pairs = tuple(
                (p.findtext("PAIR_NUMBER") or "").strip()
                for p in team_el.findall("PAIR")
                if (p.findtext("PAIR_NUMBER") or "").strip()
            )
            entries.append(
                TeamEntry(
                    team,
                    neutral(name.strip()),
                    players,
                    pairs,
                    _decimal(_text(team_el, "TOTAL_SCORE")),
                    _text(team_el, "PLACE") or None,
                )
            )
    return entries


def _pair_teams(entries: list[TeamEntry]) -> dict[str, str]:
    """Pair number -> team, for pair numbers only one team lists."""
    owners: dict[str, set[str]] = {}
    for entry in entries:
        for pair in entry.pairs:
            owners.setdefault(pair, set()).add(entry.team)
    return {pair: next(iter(teams)) for pair, teams in owners.items() if len(teams) == 1}


def _walk(element: ET.Element, round_text: str | None) -> Iterator[tuple[ET.Element, str | None]]:
    """The MATCHes and the loose result BOARDs under `element`, with any enclosing round."""
    for child in element:
        if child.tag == "MATCH":
            yield child, round_text
        elif child.tag == "BOARD":
            if child.find("TRAVELLER_LINE") is not None:
                yield child, round_text
        elif child.tag in _CONTAINERS:
            inner = round_text
            if child.tag in ("ROUND", "STAGE"):
                inner = child.get("ROUND_NUMBER") or _text(child, "ROUND_NUMBER") or inner
            yield from _walk(child, inner)


def read_team_event(root: ET.Element, event_el: ET.Element) -> EventFile:
    """A USEBIO team event: teams, matches and both rooms' results, published figures kept."""
    event = EventFile(source="usebio")
    event.name = neutral(
        _text(event_el, "EVENT_DESCRIPTION") or _text(root.find("CLUB"), "CLUB_NAME")
    )
    event.date = _text(event_el, "DATE")
    event.program = " ".join(
        x for x in (_text(event_el, "PROGRAM_NAME"), _text(event_el, "PROGRAM_VERSION")) if x
    )
    event_type = event_el.get("EVENT_TYPE", "") or _text(event_el, "EVENT_TYPE")
    board_method = _text(event_el, "BOARD_SCORING_METHOD")
    match_method = _text(event_el, "MATCH_SCORING_METHOD")
    event.scoring = "/".join(x for x in (board_method, match_method) if x) or event_type
    entries = _entries(event_el)
    reader = _TeamsReader(
        known={e.team for e in entries},
        pair_teams=_pair_teams(entries),
        board_a_match=board_a_match(board_method, match_method, event_type),
        vp_match_scoring=_key(match_method) in ("VP", "VPS", "VICTORY_POINTS"),
    )
    for element, round_text in _walk(event_el, None):
        if element.tag == "MATCH":
            reader.match(element, round_text)
        else:
            reader.traveller_board(element, round_text)
    lines = reader.keep_complete_boards()
    event.refused.extend(reader.refused)
    if not lines:
        reasons = "; ".join(str(r) for r in reader.refused[:3])
        raise EventFileError(
            "no team match with both rooms' results in the USEBIO file"
            + (f" ({reasons})" if reasons else "")
        )
    if reader.board_a_match:
        event.notes.append(
            f"scored board-a-match (2/1/0 a board, § 206) as the file says ({event.scoring})"
        )
    event.teams = TeamEvent(
        lines, reader.board_a_match, entries, reader.published, event.scoring, reader.byes
    )
    read_handset(root.find("HANDSET"), event)
    return event


__all__ = [
    "BOARD_A_MATCH_WORDS",
    "TEAM_EVENT_TYPES",
    "board_a_match",
    "is_team_event",
    "read_team_event",
]

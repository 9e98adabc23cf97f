"""Server-side validation of what a scoring program sends: the Validation answers' messages."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import date
from typing import Any

from server.dataconnector.dto import (
    HandrecordDTO,
    ParticipationDTO,
    PlayerDataDTO,
    ResultDTO,
    RoundDTO,
    ScoringGroupDTO,
    SectionDTO,
    SessionDTO,
    TableDTO,
    TdCallDTO,
)
from server.dataconnector.wire import DcError, ErrorType

GUID = re.compile(r"^[0-9A-F]{32}$")
LETTERS = re.compile(r"^([A-Z])\1{0,2}$")
CARDS = "AKQJT98765432"
SEATS = ("North", "East", "South", "West")
SUITS = ("Spades", "Hearts", "Diamonds", "Clubs")
SCORING_METHODS = frozenset({10, 20, 21, 22, 25, 26, 27, 30, 31, 35, 36, 40, 50, 51, 60, 70})
GAME_TYPES = frozenset({10, 20, 30})


def require(problems: Iterable[str], what: str) -> None:
    """Raise the protocol's Validation error listing ``problems``, if there are any."""
    found = [p for p in problems if p]
    if found:
        raise DcError(ErrorType.VALIDATION, f"{what}: " + "; ".join(found))


def guid(value: str, name: str = "SessionGuid") -> list[str]:
    """A session or event guid: 32 capital hexadecimal characters, no dashes or braces."""
    if GUID.match(value or ""):
        return []
    return [f"{name} {value!r} must be 32 characters, capital A-F or 0-9"]


def letters(value: str, name: str = "SectionLetters") -> list[str]:
    """Section letters: A-Z, AA-ZZ or AAA-ZZZ."""
    if LETTERS.match(value or ""):
        return []
    return [f"{name} {value!r} must be A-Z, AA-ZZ or AAA-ZZZ"]


def result(dto: ResultDTO) -> list[str]:
    """A board result: position, pairs, contract, stake, tricks and lead card."""
    out = guid(dto.session_guid) + letters(dto.section_letters)
    for name, value in (
        ("TableNumber", dto.table_number),
        ("RoundNumber", dto.round_number),
        ("BoardNumber", dto.board_number),
    ):
        if value < 1:
            out.append(f"{name} ({value}) must be greater than zero")
    if dto.is_deleted:
        return out
    if dto.pair_north_south < 1 or dto.pair_east_west < 1:
        out.append("PairNorthSouth and PairEastWest must be greater than zero")
    if dto.declaring_pair not in (dto.pair_north_south, dto.pair_east_west):
        out.append(f"DeclaringPair ({dto.declaring_pair}) must be one of the two pairs")
    if not -10 <= dto.level <= 7:
        out.append(f"Level ({dto.level}) must be between -10 and 7")
    if dto.level >= 1:
        if not 1 <= dto.declarer_direction <= 4:
            out.append(f"DeclarerDirection ({dto.declarer_direction}) must be 1-4")
        if not 1 <= dto.scoring_direction <= 3:
            out.append(f"ScoringDirection ({dto.scoring_direction}) must be 1-3")
        if not 1 <= dto.denomination <= 5:
            out.append(f"Denomination ({dto.denomination}) must be 1-5")
    if not 0 <= dto.stake <= 2:
        out.append(f"Stake ({dto.stake}) must be 0, 1 or 2")
    if not 0 <= dto.total_tricks <= 13:
        out.append(f"TotalTricks ({dto.total_tricks}) must be between 0 and 13")
    if dto.lead_card_rank != 0:
        if not 2 <= dto.lead_card_rank <= 14:
            out.append(f"LeadCardRank ({dto.lead_card_rank}) must be 2-14")
        elif not 1 <= dto.lead_card_suit <= 4:
            out.append(f"LeadCardSuit ({dto.lead_card_suit}) must be 1-4")
    return out


def player(dto: PlayerDataDTO) -> list[str]:
    """Player data: a number and at least a last name."""
    out = guid(dto.session_guid)
    if not dto.player_number.strip():
        out.append("PlayerNumber is required")
    if not dto.last_name.strip():
        out.append(f"LastName is required (player {dto.player_number!r})")
    return out


def participation(dto: ParticipationDTO) -> list[str]:
    """A seat: where, and either a player number or a name (not both); or a removal."""
    out = guid(dto.session_guid) + letters(dto.section_letters)
    if not 1 <= dto.direction <= 4:
        out.append(f"Direction ({dto.direction}) must be 1-4 (North, East, South, West)")
    if dto.table_number < 1:
        out.append(f"TableNumber ({dto.table_number}) must be greater than zero")
    if dto.round_number < 0:
        out.append(f"RoundNumber ({dto.round_number}) cannot be negative")
    named = bool(dto.last_name.strip())
    numbered = bool(dto.player_number.strip())
    if dto.is_removal:
        if named or numbered or dto.first_name.strip() or dto.country_code.strip():
            out.append("a removal carries no player number and no name")
        if dto.is_player_swap:
            out.append("a participation cannot be a removal and a swap")
    elif not named and not numbered:
        out.append("give the LastName or the PlayerNumber")
    elif named and numbered:
        out.append("give the LastName or the PlayerNumber, not both")
    return out


def td_call(dto: TdCallDTO) -> list[str]:
    """A TD call: where, and a status 1-4."""
    out = guid(dto.session_guid) + letters(dto.section_letters)
    if dto.table_number < 1 or dto.round_number < 1:
        out.append("TableNumber and RoundNumber must be greater than zero")
    if not 1 <= dto.status <= 4:
        out.append(f"Status ({dto.status}) must be 1, 2, 3 or 4")
    return out


def handrecord(dto: HandrecordDTO) -> list[str]:
    """A deal: valid cards, thirteen per hand, each card once."""
    out = guid(dto.session_guid) + letters(dto.section_letters)
    if dto.scoring_group_number < 1:
        out.append("ScoringGroupNumber must be greater than zero")
    if dto.board_number < 1:
        out.append("BoardNumber must be greater than zero")
    holdings = {(seat, suit): dto.holding(seat, suit) for seat in SEATS for suit in SUITS}
    bad = [f"{seat}{suit}" for (seat, suit), cards in holdings.items() if not _cards(cards)]
    if bad:
        out.append("invalid or missing cards in " + ", ".join(bad))
        return out
    for seat in SEATS:
        count = sum(len(holdings[seat, suit] or "") for suit in SUITS)
        if count != 13:
            out.append(f"{seat} has {count} cards, not 13")
    for suit in SUITS:
        cards = "".join(holdings[seat, suit] or "" for seat in SEATS)
        if sorted(cards) != sorted(CARDS):
            out.append(f"the {suit.lower()} are not each card once")
    return out


def _cards(value: str | None) -> bool:
    return value is not None and all(c in CARDS for c in value)


def _four_digits(value: Any) -> bool:
    return isinstance(value, str) and len(value) == 4 and value.strip().lstrip("+-").isdigit()


def bridgemate2(raw: Mapping[str, Any]) -> list[str]:
    """Bridgemate 2 settings: the section, and a four-digit TD PIN."""
    out = guid(str(raw.get("SessionGuid") or "")) + letters(str(raw.get("SectionLetters") or ""))
    if not _four_digits(raw.get("BM2PINcode")):
        out.append("BM2PINcode must be four digits")
    return out


BM3_RANGES = {
    "BM3ScreenBrightness": (1, 7),
    "BM3ScreenDimMode": (0, 15),
    "BM3SleepMode": (0, 120),
    "BM3AudioVolume": (0, 7),
}


def bridgemate3(raw: Mapping[str, Any]) -> list[str]:
    """Bridgemate 3 settings: the section, the screen ranges and a four-digit TD PIN."""
    out = guid(str(raw.get("SessionGuid") or "")) + letters(str(raw.get("SectionLetters") or ""))
    for name, (low, high) in BM3_RANGES.items():
        value = raw.get(name, 0)
        if not isinstance(value, int) or not low <= value <= high:
            out.append(f"{name} ({value}) must be {low}-{high}")
    if not _four_digits(raw.get("BM3PINcode")):
        out.append("BM3PINcode must be four digits")
    return out


def round_(dto: RoundDTO) -> list[str]:
    """A round at a table: numbered from 1; no boards when a seat is empty."""
    out = []
    if dto.round_number < 1:
        out.append(f"RoundNumber ({dto.round_number}) must be greater than zero")
    if (dto.pair_ns == 0 or dto.pair_ew == 0) and (dto.low_board_number or dto.high_board_number):
        out.append(f"round {dto.round_number}: no boards for a sit-out or an empty table")
    if dto.pair_ns < 0 or dto.pair_ew < 0:
        out.append(f"round {dto.round_number}: pair numbers cannot be negative")
    if dto.pair_ns and dto.pair_ew and not 0 < dto.low_board_number <= dto.high_board_number:
        out.append(f"round {dto.round_number}: LowBoardNumber..HighBoardNumber is not a range")
    return out


def table(dto: TableDTO, session_guid: str, section: str) -> list[str]:
    """A table: its number, consecutive unique rounds from 1, each round valid."""
    where = f"table {section}{dto.table_number}"
    out = []
    if dto.table_number < 1:
        out.append(f"{where}: TableNumber must be greater than zero")
    if dto.session_guid != session_guid or dto.section_letters != section:
        out.append(f"{where}: SessionGuid and SectionLetters must be the section's")
    numbers = sorted(r.round_number for r in dto.rounds)
    if numbers and numbers != list(range(1, len(numbers) + 1)):
        out.append(f"{where}: the rounds must be numbered 1, 2, 3... once each")
    for r in dto.rounds:
        if r.session_guid != session_guid or r.section_letters != section:
            out.append(f"{where} round {r.round_number}: SessionGuid and SectionLetters differ")
        if r.table_number != dto.table_number:
            out.append(f"{where} round {r.round_number}: TableNumber {r.table_number} differs")
        out += [f"{where}: {p}" for p in round_(r)]
    return out


def section(dto: SectionDTO, session_guid: str) -> list[str]:
    """A section: letters, scoring group, winners, game type and its tables."""
    out = guid(dto.session_guid) + letters(dto.letters, "Letters")
    if dto.session_guid != session_guid:
        out.append(f"section {dto.letters}: SessionGuid is not its session's")
    if dto.scoring_group_number < 1:
        out.append(f"section {dto.letters}: ScoringGroupNumber must be greater than zero")
    if dto.winners not in (1, 2):
        out.append(f"section {dto.letters}: Winners must be 1 or 2")
    if dto.missing_pair < 0 and dto.winners != 2:
        out.append(f"section {dto.letters}: a negative MissingPair needs two winners")
    if dto.game_type not in GAME_TYPES:
        out.append(f"section {dto.letters}: GameType must be 10, 20 or 30")
    if abs(dto.ew_move_before_play) > len(dto.tables):
        out.append(f"section {dto.letters}: EWMoveBeforePlay is more than the tables")
    for number, count in Counter(t.table_number for t in dto.tables).items():
        if count > 1:
            out.append(f"section {dto.letters}: table {number} is listed {count} times")
    for t in dto.tables:
        out += table(t, dto.session_guid, dto.letters)
    return out


def group(dto: ScoringGroupDTO, session_guid: str, *, in_init: bool) -> list[str]:
    """A scoring group: number, method, and (in an InitDTO) at least one section."""
    out = guid(dto.session_guid)
    if dto.session_guid != session_guid:
        out.append(f"scoring group {dto.scoring_group_number}: SessionGuid differs")
    if dto.scoring_group_number < 1:
        out.append("ScoringGroupNumber must be greater than zero")
    if dto.scoring_method not in SCORING_METHODS:
        out.append(f"ScoringMethod {dto.scoring_method} is not a known scoring method")
    if dto.is_deleted and dto.sections:
        out.append(f"scoring group {dto.scoring_group_number} is deleted but has sections")
    if in_init and not dto.sections:
        out.append(f"scoring group {dto.scoring_group_number} needs at least one section")
    for s in dto.sections:
        if s.scoring_group_number != dto.scoring_group_number:
            out.append(f"section {s.letters} names another ScoringGroupNumber")
        if in_init:
            out += section(s, session_guid)
    return out


def session(dto: SessionDTO) -> list[str]:
    """A session: guid, name, a real date and time, and its scoring groups."""
    out = guid(dto.session_guid)
    if dto.event_guid:
        out += guid(dto.event_guid, "EventGuid")
    if not dto.name.strip():
        out.append("the session needs a Name")
    try:
        date(dto.year, dto.month, dto.day)
    except ValueError:
        out.append(f"{dto.year}-{dto.month}-{dto.day} is not a date")
    if dto.year < 2000:
        out.append("Year must be 2000 or later")
    if not (0 <= dto.hour < 24 and 0 <= dto.minute < 60):
        out.append(f"{dto.hour}:{dto.minute} is not a time of day")
    if not dto.scoring_groups:
        out.append("the session needs at least one scoring group")
    numbers = Counter(g.scoring_group_number for g in dto.scoring_groups)
    out += [f"scoring group {n} appears {c} times" for n, c in numbers.items() if c > 1]
    for g in dto.scoring_groups:
        out += group(g, dto.session_guid, in_init=True)
    return out

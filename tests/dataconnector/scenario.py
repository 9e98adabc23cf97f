"""The club night a scoring program sets up: 1 section, 2 tables, 3 rounds, 4 pairs (8 players),
a two-table Howell with both tables sharing each round's boards; pair 4 arrives late."""

from __future__ import annotations

from datetime import date

from bridgemate_dataconnector.dto import (
    Bridgemate3SettingsDTO,
    HandrecordDTO,
    InitDTO,
    ParticipationDTO,
    PlayerDataDTO,
    ResultDTO,
    RoundDTO,
    ScoringGroupDTO,
    SectionDTO,
    SectionUpdateDTO,
    SessionDTO,
    TableDirection,
    TableDTO,
)
from bridgemate_dataconnector.dto.bm3_lead_card_entry_option import Bm3LeadCardEntryOption
from bridgemate_dataconnector.dto.bm3_ranking_display_option import Bm3RankingDisplayOption
from bridgemate_dataconnector.dto.bm3_result_entry_method import Bm3ResultEntryMethod

from tests.dataconnector.deals import deal

#: (table, round) -> (N/S pair, E/W pair, first board); two boards a round, shared by the tables.
FULL = {
    (1, 1): (1, 2, 1),
    (2, 1): (3, 4, 1),
    (1, 2): (1, 3, 3),
    (2, 2): (4, 2, 3),
    (1, 3): (1, 4, 5),
    (2, 3): (2, 3, 5),
}
LATE_PAIR = 4
PLAYERS = [  # number, first, last, (table, direction) in round 1 or None (the late pair)
    ("P101", "Anna", "North", (1, TableDirection.North)),
    ("P102", "Bo", "South", (1, TableDirection.South)),
    ("P103", "Cai", "East", (1, TableDirection.East)),
    ("P104", "Dag", "West", (1, TableDirection.West)),
    ("P105", "Eva", "Tablesix", (2, TableDirection.North)),
    ("P106", "Finn", "Tablesix", (2, TableDirection.South)),
    ("P107", "Gro", "Late", None),
    ("P108", "Hal", "Late", None),
]


def rounds(guid: str, missing: int | None) -> list[TableDTO]:
    """The tables with their rounds; ``missing``: that pair's seats are empty (a sit-out)."""
    tables = []
    for table in (1, 2):
        dtos = []
        for round_ in (1, 2, 3):
            ns, ew, low = FULL[table, round_]
            if missing in (ns, ew):
                ns, ew = (0 if p == missing else p for p in (ns, ew))
            r = RoundDTO()
            r.session_guid, r.section_letters = guid, "A"
            r.table_number, r.round_number = table, round_
            r.pair_ns, r.pair_ew = ns, ew
            if ns and ew:
                r.low_board_number, r.high_board_number = low, low + 1
            dtos.append(r)
        t = TableDTO()
        t.session_guid, t.section_letters, t.table_number, t.rounds = guid, "A", table, dtos
        tables.append(t)
    return tables


def section(guid: str, missing: int | None) -> SectionDTO:
    s = SectionDTO()
    s.session_guid, s.scoring_group_number, s.letters = guid, 1, "A"
    s.winners, s.game_type = 1, SectionDTO.GameType_Pairs
    s.missing_pair = missing or 0
    s.tables = rounds(guid, missing)
    return s


def late_pair_update(guid: str) -> SectionUpdateDTO:
    """After round 1: pair 4 has come, it plays rounds 2 and 3 (round 1 stays a sit-out)."""
    u = SectionUpdateDTO()
    u.session_guid, u.letters, u.scoring_group_number = guid, "A", 1
    u.scoring_group_scoring_method = ScoringGroupDTO.ScoringType_Pairs
    u.winners, u.game_type = 1, SectionDTO.GameType_Pairs
    u.tables = rounds(guid, None)
    for table in u.tables:
        for r in table.rounds:
            if r.round_number == 1 and LATE_PAIR in (r.pair_ns, r.pair_ew):
                r.pair_ew, r.low_board_number, r.high_board_number = 0, 0, 0
    return u


def players(guid: str) -> list[PlayerDataDTO]:
    out = []
    for number, first, last, _seat in PLAYERS:
        p = PlayerDataDTO()
        p.session_guid, p.player_number, p.first_name, p.last_name = guid, number, first, last
        p.country_code = "DK"
        out.append(p)
    return out


def seats(guid: str) -> list[ParticipationDTO]:
    out = []
    for number, _first, _last, seat in PLAYERS:
        if seat is None:
            continue
        p = ParticipationDTO()
        p.session_guid, p.section_letters = guid, "A"
        p.table_number, p.direction, p.round_number = seat[0], seat[1], 1
        p.player_number = number
        out.append(p)
    return out


def handrecord(guid: str, board: int) -> HandrecordDTO:
    h = HandrecordDTO()
    h.session_guid, h.scoring_group_number, h.section_letters, h.board_number = guid, 1, "A", board
    for seat, hand in zip(("north", "east", "south", "west"), deal(board), strict=True):
        for suit, cards in zip(("spades", "hearts", "diamonds", "clubs"), hand, strict=True):
            setattr(h, f"{seat}_{suit}", cards)
    return h


def bm3_settings(guid: str, *, lead: bool) -> Bridgemate3SettingsDTO:
    s = Bridgemate3SettingsDTO()
    s.session_guid, s.section_letters = guid, "A"
    s.bm3_screen_brightness, s.bm3_pi_ncode = 4, "1234"
    s.bm3_result_method = Bm3ResultEntryMethod.NumberOfTricks
    s.bm3_lead_card_entry = (
        Bm3LeadCardEntryOption.EnabledNoValidation if lead else Bm3LeadCardEntryOption.Disabled
    )
    s.bm3_ranking = Bm3RankingDisplayOption.EndOfSession
    return s


def init(guid: str, event_guid: str) -> InitDTO:
    """The InitDTO: the session with pair 4 missing, players, round-1 seats, deals, settings."""
    group = ScoringGroupDTO()
    group.session_guid, group.scoring_group_number = guid, 1
    group.scoring_method, group.name = ScoringGroupDTO.ScoringType_Pairs, "Pairs"
    group.sections = [section(guid, LATE_PAIR)]
    today = date.today()
    session = SessionDTO()
    session.session_guid, session.event_guid, session.name = guid, event_guid, "Monday pairs"
    session.year, session.month, session.day, session.hour = today.year, today.month, today.day, 19
    session.scoring_groups = [group]
    dto = InitDTO()
    dto.commands = 7  # start BCS, reset, start reading: what scoring programs send
    dto.event_guid = event_guid
    dto.sessions = [session]
    dto.player_data = players(guid)
    dto.participations = seats(guid)
    dto.handrecords = [handrecord(guid, b) for b in range(1, 7)]
    dto.bridgemate3_settings = [bm3_settings(guid, lead=False)]
    return dto


def result(guid: str, table: int, round_: int, board: int, **fields: int) -> ResultDTO:
    ns, ew, _low = FULL[table, round_]
    r = ResultDTO()
    r.session_guid, r.section_letters = guid, "A"
    r.table_number, r.round_number, r.board_number = table, round_, board
    r.scoring_direction = ResultDTO.ScoringDirection_NSEW
    r.pair_north_south, r.pair_east_west, r.declaring_pair = ns, ew, ns
    for name, value in fields.items():
        setattr(r, name, value)
    return r

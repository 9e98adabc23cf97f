"""A team event as PBN 2.1: one game per table and board, as team programs write them.

Each game names its match's teams ([HomeTeam], [VisitTeam]), its round ([Round]) and room
([Room "Open"]: the home team N/S; "Closed": the home team E/W), with the table's contract and
result, its N/S [Score] and the N/S team's [ScoreIMP] on the board. The first game says
[Competition "Teams"] and carries the ranking ([TotalScoreTable]: Rank, TeamId, TeamName,
TotalScoreVP, TotalScoreIMP (net), the standard's team columns) and each match's result as the
scorer gave it ([MatchScoreTable]: round, the teams by TeamId, boards, IMPs won by each team
and VPs; a table
of Traveller's own, which readers that do not know it skip). Those published figures are read
back by ``teamfile`` to compare against; the matches are always scored again from the tables.
"""

from __future__ import annotations

from decimal import Decimal

from protocol.bridge import dealer

from . import dates
from .handrecords import law2_vulnerable
from .model import TEAM_PROVISIONAL, BoardRecord, EventFile, TeamEvent, TeamLine
from .pbn import table_spec, unknown_deal
from .pbn_play import auction_section, play_section
from .pbn_syntax import quote
from .teamfile import pair_rooms

TOTAL_COLUMNS = [
    "Rank\\3R",
    "TeamId\\3R",
    "TotalScoreVP\\7R",
    "TotalScoreIMP\\7R",
    "TeamName\\30L",
]
MATCH_COLUMNS = [
    "Round\\2R",
    "HomeTeamId\\3R",
    "VisitTeamId\\3R",
    "Boards\\2R",
    "IMP_Home\\6R",
    "IMP_Visit\\6R",
    "VP_Home\\6R",
    "VP_Visit\\6R",
]


def write_team_pbn(event: EventFile) -> str:
    """The team event of ``event.teams`` as PBN: every table's game, board by board, the
    ranking and the matches' results in the first game."""
    teams = event.teams
    if teams is None:
        raise ValueError("the event has no team matches")
    out = ["% PBN 2.1", "% EXPORT", "%Creator: Traveller"]
    if event.provisional:
        out.append(f"% {TEAM_PROVISIONAL}")
    out.append("")
    imps = _board_imps(teams)
    first = True
    for line in sorted(teams.lines, key=lambda t: (t.board, int(t.stage or 0), t.table or "")):
        record = event.boards.get(line.board) or BoardRecord(line.board)
        out.extend(_game(event, line, record, imps.get((line.stage, line.board, line.ns_team))))
        if first:
            out[-1:-1] = _event_tables(event, teams)
            first = False
    return "\n".join(out)


def _game(event: EventFile, line: TeamLine, record: BoardRecord, imps: Decimal | None) -> list[str]:
    seat_dealer = record.dealer or dealer(line.board).value
    home, visit = (
        (line.ew_team, line.ns_team) if line.room == "Closed" else (line.ns_team, line.ew_team)
    )
    out = [f"[Event {quote(event.name)}]", '[Site ""]', f"[Date {quote(dates.pbn(event.date))}]"]
    out.append(f'[Board "{line.board}"]')
    north, east, south, west = line.players
    for seat, name in (("West", west), ("North", north), ("East", east), ("South", south)):
        out.append(f"[{seat} {quote(name)}]")
    out.append(f"[Dealer {quote(seat_dealer)}]")
    out.append(f"[Vulnerable {quote(record.vulnerable or law2_vulnerable(line.board))}]")
    out.append(f"[Deal {quote(record.deal or unknown_deal(record, line.board))}]")
    out.append('[Scoring "IMP"]')
    out.append(f"[HomeTeam {quote(home)}]")
    out.append(f"[VisitTeam {quote(visit)}]")
    out.append(f"[Round {quote(line.stage or '')}]")
    out.append(f"[Room {quote(line.room or '')}]")
    out.append(f"[Table {quote(line.table or '')}]")
    passed = line.contract == "PASS"
    out.append(f"[Declarer {quote('' if passed else line.declarer or '?')}]")
    out.append(f"[Contract {quote('Pass' if passed else line.contract or '?')}]")
    out.append(f"[Result {quote('' if passed or line.tricks is None else str(line.tricks))}]")
    points = line.ns_points()
    if points is not None:
        out.append(f'[Score "NS {points}"]')
    if imps is not None:
        out.append(f'[ScoreIMP "NS {imps}"]')
    if line.auction:
        out.extend(auction_section(seat_dealer, line.auction, {}))
    if line.play and line.contract and line.declarer and not passed:
        out.extend(play_section(line.contract, line.declarer, line.play, record.deal))
    out.append("")
    return out


def _board_imps(teams: TeamEvent) -> dict[tuple[str | None, int, str], Decimal]:
    """(round, board, N/S team) -> the IMPs of that N/S team on the board, where both rooms
    have played it."""
    out: dict[tuple[str | None, int, str], Decimal] = {}
    for stage, home, away, plays in pair_rooms(teams.lines):
        for play in plays:
            if play.home_imps is None:
                continue
            value = Decimal(play.home_imps.numerator) / play.home_imps.denominator
            out[(stage, play.board, home)] = value
            out[(stage, play.board, away)] = -value
    return out


def _event_tables(event: EventFile, teams: TeamEvent) -> list[str]:
    """[Competition], [Provisional], the ranking and the matches' results."""
    out = ['[Competition "Teams"]']
    if event.provisional:
        out.append('[Provisional "Yes"]')
    ids = {  # the team's own number where the scorer gave one, else its place in the list
        entry.team: entry.pairs[0] if entry.pairs else str(number)
        for number, entry in enumerate(teams.entries, 1)
    }
    out.append(f"[TotalScoreTable {table_spec(TOTAL_COLUMNS)}]")
    imps = {entry.team: Decimal(0) for entry in teams.entries}  # net: won less lost
    for match in teams.published:
        net = (match.home_score or 0) - (match.away_score or 0)
        imps[match.home] = imps.get(match.home, Decimal(0)) + net
        imps[match.away] = imps.get(match.away, Decimal(0)) - net
    for entry in teams.entries:
        cells = [entry.published_place or "-", ids[entry.team], _fixed(entry.published_total)]
        out.append(" ".join([*cells, _fixed(imps.get(entry.team)), quote(entry.name)]))
    out.append(f"[MatchScoreTable {table_spec(MATCH_COLUMNS)}]")
    for match in teams.published:
        cells = [match.stage or "-", ids[match.home], ids[match.away]]
        cells += ["-" if match.boards is None else str(match.boards)]
        cells += [_fixed(v) for v in (match.home_score, match.away_score)]
        cells += [_fixed(v) for v in (match.home_vp, match.away_vp)]
        out.append(" ".join(cells))
    for bye in teams.byes:  # a row without a visiting team: the home team had the bye
        out.append(" ".join([bye.stage or "-", ids[bye.team], *("-" * 6)]))
    return out


def _fixed(value: Decimal | None) -> str:
    return "-" if value is None else f"{value:.2f}"

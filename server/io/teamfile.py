"""Team events from PBN: the two rooms of each match paired up, scored in IMPs and VPs (§ 202).

A PBN team file has one game per table and board, naming the match's teams in [HomeTeam] and
[VisitTeam]. Two conventions are in use and both are read:
- with [Room "Open"/"Closed"] (PBN 2.1): the home team sits N/S in the open room and E/W in the
  closed room (§ 231A2);
- without [Room] (RealBridge): each table names its own N/S team as [HomeTeam], so the two
  tables of a match name the teams the other way round.
Each match is scored from the contracts, declarers and tricks, never from the file's
[Score] or [ScoreIMP] (those are kept to compare against).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from server.scoring import (
    BYE_VP,
    MatchScore,
    TeamBoard,
    TeamStanding,
    bam_board,
    score_bam_match,
    score_match,
    team_standings,
    to_decimal,
    two_table_imps,
)

from . import spelling
from .csv_io import text_cell
from .errors import EventFileError
from .handrecords import normalise_deal
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
from .pbn_play import SectionError, read_auction, read_play
from .pbn_syntax import cell, table_rows

if TYPE_CHECKING:
    from .pbn_syntax import Game

_UNKNOWN = frozenset({"", "?", "-", "#"})


# --- reading ------------------------------------------------------------------------------------


def team_event_from_games(games: Sequence[Game], refused: list[Refusal]) -> TeamEvent | None:
    """The team lines of a PBN file, or None when no game names both teams. A table whose
    contract, result or room cannot be read is put in ``refused`` with its line and left out
    (its board then has one table and leaves the match, § 202B2); a line's broken [Auction] or
    [Play] is put there too, and the result is kept without it."""
    lines: list[TeamLine] = []
    for game in games:
        tags = game.tags
        home = tags.get("HomeTeam", "").strip()
        visit = tags.get("VisitTeam", "").strip()
        if home in _UNKNOWN or visit in _UNKNOWN or "ScoreTable" in tags:
            continue
        board_text = tags.get("Board", "").strip()
        if not board_text.isdigit():
            continue
        try:
            line = _team_line(game, int(board_text), home, visit)
        except EventFileError as exc:  # this table is not read; the rest of the file is
            refusal = Refusal(exc.message, line=exc.line, board=exc.board)
            if refusal not in refused:  # the pairs reading of the same game may have said it
                refused.append(refusal)
            continue
        if line is not None:
            _read_sections(game, line, refused)
            lines.append(line)
    if not lines:
        return None
    event = TeamEvent(lines)
    _read_published(games, event, refused)
    return event


def _read_published(games: Sequence[Game], event: TeamEvent, refused: list[Refusal]) -> None:
    """The teams and match results the file published (kept to compare against): a
    [TotalScoreTable] keyed by TeamId, and the [MatchScoreTable] Traveller writes, whose
    teams are TeamIds of that ranking."""
    names: dict[str, str] = {}
    for game in games:
        if "TeamId" in game.tags.get("TotalScoreTable", ""):
            for number, row in table_rows(game, "TotalScoreTable", refused):
                team, name = cell(row, "TeamId"), cell(row, "TeamName", "Name")
                if not team:
                    refused.append(Refusal("TotalScoreTable: the row has no TeamId", number))
                    continue
                names[team] = name or team
                entry = TeamEntry(names[team], name, published_place=cell(row, "Rank") or None)
                entry.published_total = _published_number(cell(row, "TotalScoreVP"))
                event.entries.append(entry)
        for number, row in table_rows(game, "MatchScoreTable", refused):
            home, away = cell(row, "HomeTeamId"), cell(row, "VisitTeamId")
            if home in names and not away:  # the home team sat the round out
                event.byes.append(TeamBye(cell(row, "Round") or None, names[home]))
                continue
            if home not in names or away not in names:
                refused.append(Refusal("MatchScoreTable: a TeamId not in the ranking", number))
                continue
            boards = cell(row, "Boards")
            match = PublishedMatch(cell(row, "Round") or None, names[home], names[away])
            match.boards = int(boards) if boards.isascii() and boards.isdigit() else None
            match.home_score = _published_number(cell(row, "IMP_Home"))
            match.away_score = _published_number(cell(row, "IMP_Visit"))
            match.home_vp = _published_number(cell(row, "VP_Home"))
            match.away_vp = _published_number(cell(row, "VP_Visit"))
            event.published.append(match)


def _published_number(text: str) -> Decimal | None:
    try:
        value = Decimal(text.replace(",", "."))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def _read_sections(game: Game, line: TeamLine, refused: list[Refusal]) -> None:
    """The game's [Auction] and [Play] onto its line (``pbn_play``), checked against the deal
    of the game's [Deal] when it gives all four hands."""
    deal = game.tags.get("Deal", "").strip()
    try:
        normalised = normalise_deal(spelling.void_suits(deal)) if deal not in _UNKNOWN else None
    except ValueError:
        normalised = None  # the hand record's own refusal says why (pbn._read_board)
    try:
        line.auction = read_auction(game, line.contract, line.declarer)
    except SectionError as exc:
        refused.append(Refusal(exc.reason, line=exc.line, board=line.board))
    try:
        line.play = read_play(game, line.contract, line.declarer, line.tricks, normalised)
    except SectionError as exc:
        refused.append(Refusal(exc.reason, line=exc.line, board=line.board))


def _team_line(game: Game, board: int, home: str, visit: str) -> TeamLine | None:
    tags = game.tags
    where = game.lines.get("Board")
    room = tags.get("Room", "").strip().capitalize() or None
    if room is not None and room not in ("Open", "Closed"):
        raise EventFileError(f"[Room {room!r}] is neither Open nor Closed", line=where, board=board)
    ns_team, ew_team = (visit, home) if room == "Closed" else (home, visit)
    stage = next(
        (tags[t].strip() for t in ("Round", "Stage") if tags.get(t, "").strip() not in _UNKNOWN),
        None,
    )
    line = TeamLine(board, ns_team, ew_team, stage=stage, room=room, source_line=where)
    table = tags.get("Table", "").strip()
    line.table = table if table not in _UNKNOWN else None
    contract = tags.get("Contract", "").strip()
    played = "" if contract in _UNKNOWN else contract  # "?": not known, as no contract
    cells = Cells(played, tags.get("Declarer", ""), tags.get("Result", ""))
    try:
        play = read_cells(cells)
    except spelling.SpellingError as exc:
        raise EventFileError(str(exc), line=game.lines.get("Contract"), board=board) from None
    reason = team_refusal(play, cells)
    if reason is not None:
        raise EventFileError(reason, line=game.lines.get("Contract"), board=board)
    if play.contract is None:
        return line
    line.contract, line.declarer, line.tricks = play.contract, play.declarer, play.tricks
    line.published_ns_score = _ns_value(tags.get("Score", ""))
    imps = _ns_decimal(tags.get("ScoreIMP", ""))
    line.published_ns_imps = imps
    return line


def _ns_value(text: str) -> int | None:
    """ "NS 420" / "EW -50" / "420" as the N/S score, or None."""
    value = _ns_decimal(text)
    return None if value is None or value != value.to_integral_value() else int(value)


def _ns_decimal(text: str) -> Decimal | None:
    """The N/S figure of "NS 4 EW -4", "EW 3", "NS -2.5" or a bare number."""
    parts = text.replace(",", ".").split()
    try:
        if len(parts) == 1:
            return Decimal(parts[0])
        if len(parts) >= 2 and parts[0].upper() in ("NS", "EW"):
            value = Decimal(parts[1])
            return value if parts[0].upper() == "NS" else -value
    except InvalidOperation:
        return None
    return None


# --- pairing the rooms --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoardPlay:
    """One board of a match: the table where the home team sat N/S, and the other one."""

    board: int
    open: TeamLine | None
    closed: TeamLine | None
    home_imps: Fraction | None
    """IMP(open - closed) for the home team; None when the board does not count."""
    home_points: Fraction | None = None
    """Board-a-match points (2/1/0, § 206) for the home team, in a board-a-match event."""


@dataclass(frozen=True, slots=True)
class MatchReport:
    """A match scored: its boards and the IMPs and VPs of both teams."""

    stage: str | None
    home: str
    away: str
    boards: tuple[BoardPlay, ...]
    result: MatchScore


@dataclass(frozen=True, slots=True)
class TeamReport:
    """A team event scored: every match, and the ranking by VPs."""

    event: EventFile
    matches: tuple[MatchReport, ...]
    standings: tuple[TeamStanding, ...]
    integer_scale: bool
    board_a_match: bool = False
    """Scored board-a-match (§ 206): the matches' and the ranking's unit is board points, held
    in the results' VP fields (home_vp/away_vp, TeamStanding.vp)."""


def pair_rooms(lines: Sequence[TeamLine]) -> list[tuple[str | None, str, str, list[BoardPlay]]]:
    """Group the tables into matches and each board's two tables into open and closed rooms.

    The home team is the N/S team of the open room (or, without [Room], of the first table
    the file gives for the match). A board with one table only leaves the match (§ 202B2).
    """
    matches: dict[tuple[str | None, frozenset[str]], dict[int, list[TeamLine]]] = {}
    homes: dict[tuple[str | None, frozenset[str]], str] = {}
    for line in lines:
        if line.ns_team == line.ew_team:
            raise EventFileError(
                f"{line.ns_team} cannot play itself", line=line.source_line, board=line.board
            )
        key = (line.stage, frozenset((line.ns_team, line.ew_team)))
        matches.setdefault(key, {}).setdefault(line.board, []).append(line)
        if line.room == "Open" or (key not in homes and line.room is None):
            homes[key] = line.ns_team
        elif line.room == "Closed" and key not in homes:
            homes[key] = line.ew_team
    out = []
    for key, boards in matches.items():
        home = homes[key]
        (away,) = key[1] - {home}
        plays = [_board_play(number, tables, home) for number, tables in sorted(boards.items())]
        out.append((key[0], home, away, plays))
    return out


def _board_play(board: int, tables: list[TeamLine], home: str) -> BoardPlay:
    if len(tables) > 2:
        raise EventFileError(
            f"{len(tables)} tables for one match (expected two rooms)",
            line=tables[2].source_line,
            board=board,
        )
    open_room = next((t for t in tables if t.ns_team == home), None)
    closed_room = next((t for t in tables if t.ew_team == home), None)
    if len(tables) == 2 and (open_room is None or closed_room is None):
        raise EventFileError(
            f"both tables seat {tables[0].ns_team} N/S and no [Room] tells them apart",
            line=tables[1].source_line,
            board=board,
        )
    imps: Fraction | None = None
    if open_room is not None and closed_room is not None:
        open_points, closed_points = open_room.ns_points(), closed_room.ns_points()
        if open_points is not None and closed_points is not None:
            imps = _imps(open_points, closed_points)
    return BoardPlay(board, open_room, closed_room, imps)


def _imps(open_points: int, closed_points: int) -> Fraction:
    return Fraction(two_table_imps(open_points, closed_points))


# --- scoring ------------------------------------------------------------------------------------


def score_team_event(event: EventFile, *, integer_scale: bool = False) -> TeamReport:
    """Score every match in IMPs and VPs (WBF 2013 scale for the boards that count), or in
    board-a-match points (§ 206) when the file says the event is point-a-board."""
    if event.teams is None:
        raise EventFileError("the file has no team matches ([HomeTeam] and [VisitTeam])")
    by_points = event.teams.board_a_match
    reports = []
    for stage, home, away, plays in pair_rooms(event.teams.lines):
        boards = [
            TeamBoard(
                p.board,
                None if p.open is None else p.open.ns_points(),
                None if p.closed is None else p.closed.ns_points(),
            )
            for p in plays
        ]
        if by_points:
            plays = [_with_points(p, b) for p, b in zip(plays, boards, strict=True)]
            result = _bam_result(boards)
        else:
            result = score_match(boards, integer_scale=integer_scale)
        reports.append(MatchReport(stage, home, away, tuple(plays), result))
    # A match none of whose boards counts yet (each played in one room only) has no result,
    # as the scorer's own standings give it none: it stays listed, out of the ranking.
    matches = [m.result.as_tie_record(m.home, m.away) for m in reports if m.result.boards]
    started = {m.stage for m in reports if m.result.boards}
    byes: dict[Hashable, Fraction] = {}
    for bye in event.teams.byes:  # the bye's VPs (§ 202D) once its round is under way
        if bye.stage in started and not by_points:
            byes[bye.team] = byes.get(bye.team, Fraction(0)) + BYE_VP
    standings = team_standings(matches, extra_vp=byes)
    return TeamReport(event, tuple(reports), tuple(standings), integer_scale, by_points)


def _with_points(play: BoardPlay, board: TeamBoard) -> BoardPlay:
    points = bam_board(board)
    return BoardPlay(
        play.board, play.open, play.closed, play.home_imps, None if points is None else points[0]
    )


def _bam_result(boards: Sequence[TeamBoard]) -> MatchScore:
    """A board-a-match match (§ 206): each team's board points, which also rank the teams."""
    counted = sum(1 for board in boards if bam_board(board) is not None)
    home, away = score_bam_match(boards)
    return MatchScore(counted, home, away, away, home, home - away, away - home, home, away)


# --- output -------------------------------------------------------------------------------------


def _number(value: Fraction | None) -> float | None:
    return None if value is None else float(to_decimal(value, 2))


def _table_json(line: TeamLine | None) -> dict[str, Any] | None:
    if line is None:
        return None
    return {
        "ns_team": line.ns_team,
        "ew_team": line.ew_team,
        "table": line.table,
        "contract": line.contract,
        "declarer": line.declarer,
        "tricks": line.tricks,
        "ns_score": line.ns_points(),
    }


def team_to_json(report: TeamReport) -> dict[str, Any]:
    """{"event", "method": "teams", "teams": [...ranking...], "matches": [...boards...]}."""
    imps: dict[str, tuple[Fraction, Fraction]] = {}
    for m in report.matches:
        for team, won, lost in (
            (m.home, m.result.home_won, m.result.home_lost),
            (m.away, m.result.away_won, m.result.away_lost),
        ):
            before = imps.get(team, (Fraction(0), Fraction(0)))
            imps[team] = (before[0] + won, before[1] + lost)
    unit = "points" if report.board_a_match else "vp"
    published = _published_by_match(report)
    return {
        "event": report.event.name,
        "date": report.event.date,
        "method": "board-a-match" if report.board_a_match else "teams",
        "vp_scale": "integer" if report.integer_scale else "continuous",
        "teams": [
            {
                "team": s.team,
                "name": _team_name(report, str(s.team)),
                "place": s.place,
                unit: _number(s.vp),
                **_imps_json(report, imps.get(str(s.team), (Fraction(0),) * 2)),
                "matches": s.matches,
            }
            for s in report.standings
        ],
        "matches": [
            {
                "stage": m.stage,
                "home": m.home,
                "away": m.away,
                "boards": m.result.boards,
                **(
                    {}
                    if report.board_a_match
                    else {
                        "home_imps": _number(m.result.home_margin),
                        "away_imps": _number(m.result.away_margin),
                    }
                ),
                f"home_{unit}": _number(m.result.home_vp),
                f"away_{unit}": _number(m.result.away_vp),
                "published": published.get((m.stage, m.home, m.away)),
                "results": [
                    {
                        "board": p.board,
                        "open": _table_json(p.open),
                        "closed": _table_json(p.closed),
                        "home_imps": _number(p.home_imps),
                        **({"home_points": _number(p.home_points)} if report.board_a_match else {}),
                    }
                    for p in m.boards
                ],
            }
            for m in report.matches
        ],
        "refused": [str(r) for r in report.event.refused],
    }


def _imps_json(report: TeamReport, won_lost: tuple[Fraction, Fraction]) -> dict[str, Any]:
    """A team's IMPs won and lost (none in a board-a-match event, whose unit is points)."""
    if report.board_a_match:
        return {}
    return {"imps_won": _number(won_lost[0]), "imps_lost": _number(won_lost[1])}


def _team_name(report: TeamReport, team: str) -> str | None:
    teams = report.event.teams
    if teams is None:
        return None
    return next((e.name or None for e in teams.entries if e.team == team), None)


def _published_by_match(report: TeamReport) -> dict[tuple[str | None, str, str], dict[str, Any]]:
    """What the file published for each match (IMPs or points, VPs), as home/away figures."""
    teams = report.event.teams
    out: dict[tuple[str | None, str, str], dict[str, Any]] = {}
    if teams is None:
        return out
    for p in teams.published:
        figures = {
            "home_score": p.home_score,
            "away_score": p.away_score,
            "home_vp": p.home_vp,
            "away_vp": p.away_vp,
        }
        shown = {k: float(v) for k, v in figures.items() if v is not None}
        out[(p.stage, p.home, p.away)] = shown
        flipped = {
            k.replace("home", "x").replace("away", "home").replace("x", "away"): v
            for k, v in shown.items()
        }
        out.setdefault((p.stage, p.away, p.home), flipped)
    return out


def team_to_text(report: TeamReport) -> str:
    """A printable VP ranking, then each match board by board."""
    event = report.event
    if report.board_a_match:
        method, unit = "Method: board-a-match (2/1/0 a board, § 206)", "Pts"
    else:
        method, unit = "Method: teams (IMPs, WBF VPs)", "VP"
    out = [f"{event.name or 'Event'} {event.date}".rstrip(), method, ""]
    out.append(f"{'Place':>5} {unit:>8}     Team")
    for s in report.standings:
        name = _team_name(report, str(s.team))
        team = f"{s.team} {name}" if name and name != str(s.team) else str(s.team)
        out.append(f"{s.place:>5} {_fixed(s.vp):>8} {unit:<3} {team}")
    for m in report.matches:
        stage = f" ({m.stage})" if m.stage else ""
        r = m.result
        if not r.boards:
            summary = "no board played in both rooms yet: no result"
        elif report.board_a_match:
            summary = f"points {_fixed(r.home_vp)}-{_fixed(r.away_vp)} over {r.boards} boards"
        else:
            summary = (
                f"IMPs {_fixed(r.home_won)}-{_fixed(r.away_won)}"
                f" over {r.boards} boards, VP {_fixed(r.home_vp)}-{_fixed(r.away_vp)}"
            )
        column = "Pts" if report.board_a_match else "IMPs"
        out.extend(
            [
                "",
                f"{m.home} v {m.away}{stage}: {summary}",
                f"  {'Bd':>3}  {'Open room':<22} {'Closed room':<22} {column:>6}",
            ]
        )
        for p in m.boards:
            open_text = _play_text(p.open)
            closed_text = _play_text(p.closed)
            value = p.home_points if report.board_a_match else p.home_imps
            shown = "" if value is None else _fixed(value)
            out.append(f"  {p.board:>3}  {open_text:<22} {closed_text:<22} {shown:>6}")
    if event.refused:
        out.extend(["", f"Not read ({len(event.refused)}):"])
        out.extend(f"  {r}" for r in event.refused)
    return "\n".join(out) + "\n"


TEAM_RANKING_COLUMNS = ("place", "team", "vp", "imps_won", "imps_lost", "matches")
BAM_RANKING_COLUMNS = ("place", "team", "points", "matches")


def team_to_csv(report: TeamReport) -> str:
    """The VP ranking as CSV: place, team, VPs, IMPs won and lost, matches."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    unit = "points" if report.board_a_match else "vp"
    writer.writerow(TEAM_RANKING_COLUMNS if unit == "vp" else BAM_RANKING_COLUMNS)
    for row in team_to_json(report)["teams"]:
        if unit == "points":
            writer.writerow(
                [row["place"], text_cell(row["team"]), f"{row['points']:.2f}", row["matches"]]
            )
            continue
        writer.writerow(
            [
                row["place"],
                text_cell(row["team"]),
                f"{row['vp']:.2f}",
                f"{row['imps_won']:.2f}",
                f"{row['imps_lost']:.2f}",
                row["matches"],
            ]
        )
    return out.getvalue()


def _play_text(line: TeamLine | None) -> str:
    if line is None:
        return "-"
    play = " ".join(x for x in (line.contract, line.declarer) if x)
    points = line.ns_points()
    return f"{play} {'' if points is None else points}".strip()


def _fixed(value: Fraction) -> str:
    return f"{to_decimal(value, 2):.2f}"


__all__ = [
    "BoardPlay",
    "MatchReport",
    "TeamReport",
    "pair_rooms",
    "score_team_event",
    "team_event_from_games",
    "team_to_csv",
    "team_to_json",
    "team_to_text",
]

"""A section's results as files (USEBIO, PBN, CSV) through the writers of ``server.io``."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import cast

import sqlalchemy as sa
from sqlmodel import Session, col, select

from protocol import alerts
from server.core.errors import NotFoundError
from server.core.models import Board, MovementAssignment, Result, Section
from server.io.csv_io import write_ranking_csv, write_travellers_csv
from server.io.csv_teams import write_team_ranking_csv, write_team_travellers_csv
from server.io.model import (
    BoardRecord,
    EventFile,
    IndividualPlayer,
    Line,
    PairEntry,
    PairKey,
    PublishedMatch,
    TeamBye,
    TeamEntry,
    TeamEvent,
    TeamLine,
)
from server.io.pbn import write_pbn
from server.io.pbn_teams import write_team_pbn
from server.io.scorefile import score_event
from server.io.usebio import write_team_usebio, write_usebio
from server.movements.model import parse_seats
from server.scoring import to_decimal
from server.scoring.models import RealScore
from server.services.results import adjusted, individual_standings, standings, team_matches
from server.services.results.standings import SectionData

#: Kind -> (file suffix, media type).
FORMATS = {
    "usebio": (".xml", "application/xml"),
    "pbn": (".pbn", "text/plain; charset=utf-8"),
    "travellers": ("-travellers.csv", "text/csv; charset=utf-8"),
    "ranking": ("-ranking.csv", "text/csv; charset=utf-8"),
}

#: Board.vulnerability (protocol.bridge.Vulnerability) -> the PBN and USEBIO word.
_VULNERABLE = {"NONE": "None", "NS": "NS", "EW": "EW", "BOTH": "All"}


@dataclass(frozen=True)
class ExportFile:
    """A file to download."""

    name: str
    media_type: str
    content: bytes


def _key(data: SectionData, pair_id: int | None) -> PairKey | None:
    pair = data.pairs.get(pair_id) if pair_id is not None else None
    return PairKey(None, pair.number, pair.direction) if pair is not None else None


def event_file(data: SectionData, club_id: str | None = None) -> EventFile:
    """The section as the file writers see it: its pairs and every settled result; the
    club's number (the Data Connector's club id) when it is set."""
    event = EventFile(
        name=f"{data.event.name} {data.section.letter}".strip(),
        date=data.event.created_at.date().isoformat(),
        club_id=club_id or "",
        method=data.method,
        winners=2 if any(p.direction for p in data.pairs.values()) else 1,
        source="traveller",
    )
    individual = bool(data.seats)
    event.players = [IndividualPlayer(None, n, name) for n, name in sorted(data.players.items())]
    for pair in sorted(data.pairs.values(), key=lambda p: (p.direction or "", p.number)):
        if individual:
            break  # an individual's partnerships are its lines' players, not pairs
        names = tuple(n for n in (pair.player1, pair.player2) if n)
        ids = tuple(m for m in (pair.member1, pair.member2) if m)
        entry = PairEntry(PairKey(None, pair.number, pair.direction), names, ids)
        entry.penalty = data.penalties.get(pair.id or 0, entry.penalty)
        entry.handicap = None if pair.handicap is None else Decimal(pair.handicap)
        event.pairs.append(entry)
    for number, board in sorted(data.boards.items()):
        if board.deal:  # a hand record: the exports carry the deal (PBN [Deal], USEBIO HANDSET)
            event.boards[number] = BoardRecord(number, board.dealer, _vulnerable(board), board.deal)
    for result in sorted(data.results, key=lambda r: (r.board, r.round, r.table_number)):
        line = Line(
            board=result.board,
            ns=None if individual else _key(data, result.ns_pair_id),
            ew=None if individual else _key(data, result.ew_pair_id),
            round=result.round,
            table=result.table_number,
            players=data.seats.get((result.table_number, result.round)),
        )
        if individual and line.players is None:
            continue  # a table with a seat empty: no four players to name
        if result.state in ("confirmed", "td_pending") and result.contract:
            line.contract, line.declarer = result.contract, result.declarer
            line.tricks, line.lead = result.tricks, result.lead
            line.auction, line.play, explained = data.played.get(
                (result.table_number, result.round, result.board), (None, None, None)
            )
            line.alerts = alerts.read_stored(explained) if line.auction else {}
        elif result.state == "adjusted" and result.adjusted:
            try:
                _adjusted_line(line, adjusted.parse(result.adjusted))
            except ValueError:
                continue
        else:
            continue
        event.lines.append(line)
    return event


def load(session: Session, section: Section) -> SectionData:
    """The section's results (``standings.load``) with its boards' hand records, each
    table's auction and play and an individual's seats and players, which only the exports
    write (the TD's downloads); the scoring path never loads them."""
    data = standings.load(session, section)
    boards = session.exec(select(Board).where(Board.section_id == section.id))
    data.boards = {board.number: board for board in boards}
    columns = (
        Result.table_number, Result.round, Result.board, Result.auction, Result.play,
        Result.alerts,
    )  # fmt: skip
    known = sa.or_(col(Result.auction).is_not(None), col(Result.play).is_not(None))
    rows = session.connection().execute(
        sa.select(*(col(c) for c in columns)).where(col(Result.section_id) == section.id, known)
    )
    if section.movement_kind == "individual":
        data.players = individual_standings.player_names(session, section)
        assignments = session.exec(
            select(MovementAssignment).where(MovementAssignment.section_id == section.id)
        )
        for assignment in assignments:
            seated = parse_seats(assignment.seats) if assignment.seats else None
            if seated is not None and all(seated):
                north, east, south, west = (int(n or 0) for n in seated)
                data.seats[(assignment.table_number, assignment.round)] = (north, east, south, west)
    if section.movement_kind == "teams":
        data.teams = _teams(team_matches.team_table(session, section))
    for row in rows:
        table, round_, board, auction, play, explained = cast(
            tuple[int, int, int, str | None, str | None, str | None], row
        )
        data.played[(table, round_, board)] = (auction, play, explained)
    return data


def _team_labels(table: team_matches.TeamTable) -> dict[int, str]:
    """Team number -> the name that stands for it in the file: its name, or "Team n" for a
    team without one or with another team's name (the files tell teams apart by name)."""
    numbers = sorted(set(table.names) | {t for m in table.matches for t in (m.home, m.away)})
    named = [table.names.get(n, "").strip() for n in numbers]
    return {
        n: name if name and named.count(name) == 1 else f"Team {n}"
        for n, name in zip(numbers, named, strict=True)
    }


def _teams(table: team_matches.TeamTable) -> TeamEvent:
    """The TD's teams, ranking and match results (``team_matches.team_table``) as the files
    publish them."""
    labels = _team_labels(table)
    teams = TeamEvent()
    for standing in table.standings:
        label = labels[int(str(standing.team))]
        entry = TeamEntry(label, label, pairs=(str(standing.team),))
        entry.published_place = standing.place
        entry.published_total = to_decimal(standing.vp, 2)
        teams.entries.append(entry)
    ranked = {entry.team for entry in teams.entries}
    teams.entries += [
        TeamEntry(label, label, pairs=(str(number),))
        for number, label in labels.items()
        if label not in ranked
    ]
    for match in table.matches:
        if match.result is None:
            continue
        made = match.result
        published = PublishedMatch(str(match.round), labels[match.home], labels[match.away])
        published.boards = made.boards
        published.home_score, published.away_score = (
            to_decimal(made.home_won, 2),
            to_decimal(made.away_won, 2),
        )
        published.home_vp = to_decimal(made.home_vp, 2)
        published.away_vp = to_decimal(made.away_vp, 2)
        teams.published.append(published)
    teams.byes = [TeamBye(str(round_), labels[team]) for round_, team in sorted(table.byes.items())]
    return teams


def _team_lines(data: SectionData, event: EventFile) -> list[TeamLine]:
    """Each table's real score in a teams section, as the TD's matches count them: a table
    at an odd table number is its match's open room (the home team N/S), the next one the
    closed room; a board without a real score (unsettled, or the TD's artificial score) is
    left out, and with it the board from its match."""
    assert data.teams is not None
    by_number = {int(n): entry.team for entry in data.teams.entries for n in entry.pairs}
    stored = {(r.table_number, r.round, r.board): r for r in data.results}
    out = []
    for line in event.lines:
        made = standings.board_result(stored[(line.table or 0, line.round or 0, line.board)])
        if made is None or not isinstance(made.ns, RealScore) or line.ns is None or line.ew is None:
            continue
        room = "Open" if (line.table or 0) % 2 else "Closed"
        team = TeamLine(
            line.board,
            by_number[line.ns.number],
            by_number[line.ew.number],
            stage=str(line.round),
            room=room,
            table=str(line.table),
        )
        team.contract, team.declarer, team.tricks = line.contract, line.declarer, line.tricks
        team.auction, team.play = line.auction, line.play
        ns, ew = (event.pair(key) for key in (line.ns, line.ew))
        north, south = (*(ns.names if ns else ()), "", "")[:2]
        east, west = (*(ew.names if ew else ()), "", "")[:2]
        team.players = (north, east, south, west)
        out.append(team)
    return out


def _vulnerable(board: Board) -> str:
    """The PBN word for a board's stored vulnerability."""
    return _VULNERABLE.get(board.vulnerability.upper(), board.vulnerability)


def _adjusted_line(line: Line, made: adjusted.Adjustment) -> None:
    """An artificial or assigned score in the formats' own words; a weighted or unbalanced
    one as the scorer's sides (the writers print its label)."""
    if made.kind == "artificial":
        assert made.ns.percent is not None
        assert made.ew.percent is not None
        line.artificial = (made.ns.percent, made.ew.percent)
    elif made.kind == "assigned":
        part = made.ns.parts[0]
        line.contract, line.declarer, line.tricks = part.contract, part.declarer, part.tricks
    else:
        line.adjusted = (made.ns.side_score(line.board), made.ew.side_score(line.board))


def export(data: SectionData, kind: str, club_id: str | None = None) -> ExportFile:
    """One export of the section, scored, with the TD's penalties: net in every total, and
    in a column of their own in the PBN ranking and the ranking CSV (USEBIO has no place for
    them beyond the totals). A handicap pairs event carries each pair's handicap: USEBIO's
    ``HANDICAP``, and the handicap with the handicapped percentage in the PBN and CSV
    rankings."""
    if kind not in FORMATS:
        raise NotFoundError("unknown_export", "There is no {kind} export.", kind=repr(kind))
    suffix, media_type = FORMATS[kind]
    event = event_file(data, club_id)
    event.provisional = len(event.lines) < sum(len(plays) for plays in data.plays.values())
    if data.teams is not None:
        event.teams = TeamEvent(
            _team_lines(data, event),
            entries=data.teams.entries,
            published=data.teams.published,
            byes=data.teams.byes,
        )
        return _file(event, suffix, media_type, _team_export(event, kind, data.section.letter))
    if event.provisional:  # the file says over how many tables, so a reader scores it alike
        event.tables_per_board = data.field_size
    report = score_event(event, data.method, field=data.field_size, profile=data.profile)
    if kind == "usebio":
        content = write_usebio(event, report)
    elif kind == "pbn":
        content = write_pbn(event, report).encode()
    elif kind == "travellers":
        content = write_travellers_csv(event, report, section=data.section.letter).encode()
    else:
        content = write_ranking_csv(report, section=data.section.letter).encode()
    return _file(event, suffix, media_type, content)


def _team_export(event: EventFile, kind: str, section: str) -> bytes:
    """A teams section's export: its matches room by room and its VP ranking."""
    if kind == "usebio":
        return write_team_usebio(event)
    if kind == "pbn":
        return write_team_pbn(event).encode()
    if kind == "travellers":
        return write_team_travellers_csv(event, section=section).encode()
    return write_team_ranking_csv(event, section=section).encode()


def _file(event: EventFile, suffix: str, media_type: str, content: bytes) -> ExportFile:
    stem = "".join(c if c.isalnum() else "-" for c in event.name.lower()).strip("-") or "event"
    return ExportFile(f"{stem}{suffix}", media_type, content)

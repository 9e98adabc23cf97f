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
from server.io.model import BoardRecord, EventFile, IndividualPlayer, Line, PairEntry, PairKey
from server.io.pbn import write_pbn
from server.io.scorefile import score_event
from server.io.usebio import write_usebio
from server.movements.model import parse_seats
from server.services import adjusted, individual_standings, standings
from server.services.standings import SectionData

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
    for row in rows:
        table, round_, board, auction, play, explained = cast(
            tuple[int, int, int, str | None, str | None, str | None], row
        )
        data.played[(table, round_, board)] = (auction, play, explained)
    return data


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
        raise NotFoundError("unknown_export", f"There is no {kind!r} export.")
    suffix, media_type = FORMATS[kind]
    event = event_file(data, club_id)
    event.provisional = len(event.lines) < sum(len(plays) for plays in data.plays.values())
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
    stem = "".join(c if c.isalnum() else "-" for c in event.name.lower()).strip("-") or "event"
    return ExportFile(f"{stem}{suffix}", media_type, content)

"""A team event's travellers and ranking as CSV (export), in the words of the TD's matches page.

The travellers give every table's result by match: the round, the home and away teams, the room
("Open": the home team N/S; "Closed": the home team E/W), the contract and its N/S score, and
the IMPs the board gives the home team (on both rooms' rows, empty until both rooms have played
it). The ranking gives each team's place, number, name and members, its VPs, the IMPs it won
and lost and its matches, as the TD's standings rank them (``TeamEntry.published_place`` and
``published_total``, the matches' ``PublishedMatch`` figures).
"""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from fractions import Fraction

from server.scoring import to_decimal

from .csv_io import text_cell
from .model import EventFile, TeamEvent
from .teamfile import pair_rooms

TEAM_TRAVELLER_COLUMNS = (
    "section",
    "board",
    "round",
    "table",
    "room",
    "home",
    "away",
    "contract",
    "declarer",
    "tricks",
    "score",
    "home_imps",
    "north",
    "east",
    "south",
    "west",
    "event",
)
TEAM_RANKING_COLUMNS = (
    "place",
    "section",
    "number",
    "team",
    "members",
    "vp",
    "imps_won",
    "imps_lost",
    "matches",
)


def _teams(event: EventFile) -> TeamEvent:
    if event.teams is None:
        raise ValueError("the event has no team matches")
    return event.teams


def write_team_travellers_csv(event: EventFile, *, section: str | None = None) -> str:
    """Every table's result of ``event.teams``, board by board and match by match, the open
    room first; ``section`` fills the section column (one section's file)."""
    teams = _teams(event)
    home_imps: dict[tuple[str | None, int, str], Fraction] = {}
    homes: dict[tuple[str | None, frozenset[str]], tuple[str, str]] = {}
    for stage, home, away, plays in pair_rooms(teams.lines):
        homes[(stage, frozenset((home, away)))] = (home, away)
        for play in plays:
            if play.home_imps is not None:
                home_imps[(stage, play.board, home)] = play.home_imps
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(TEAM_TRAVELLER_COLUMNS)
    order = sorted(
        teams.lines,
        key=lambda t: (t.board, int(t.stage or 0), int(t.table or 0), t.room != "Open"),
    )
    for line in order:
        home, away = homes[(line.stage, frozenset((line.ns_team, line.ew_team)))]
        imps = home_imps.get((line.stage, line.board, home))
        passed = line.contract == "PASS"
        points = line.ns_points()
        writer.writerow(
            [
                section or "",
                line.board,
                line.stage or "",
                line.table or "",
                line.room or "",
                text_cell(home),
                text_cell(away),
                line.contract or "",
                "" if passed else line.declarer or "",
                "" if passed or line.tricks is None else line.tricks,
                "" if points is None else points,
                "" if imps is None else _fixed(to_decimal(imps, 2)),
                *(text_cell(name) for name in line.players),
                text_cell(event.name),
            ]
        )
    return out.getvalue()


def write_team_ranking_csv(event: EventFile, *, section: str | None = None) -> str:
    """The teams of ``event.teams`` in their published order: place, section, number, name,
    members (each pair's players, the pairs as the event lists them), VPs, the IMPs won and
    lost in the published matches, and the matches played."""
    teams = _teams(event)
    won: dict[str, Decimal] = {}
    lost: dict[str, Decimal] = {}
    played: dict[str, int] = {}
    for match in teams.published:
        for team, plus, minus in (
            (match.home, match.home_score, match.away_score),
            (match.away, match.away_score, match.home_score),
        ):
            won[team] = won.get(team, Decimal(0)) + (plus or 0)
            lost[team] = lost.get(team, Decimal(0)) + (minus or 0)
            played[team] = played.get(team, 0) + 1
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(TEAM_RANKING_COLUMNS)
    for entry in teams.entries:
        members = [
            " & ".join(pair.names)
            for pair in event.pairs
            if str(pair.key.number) in entry.pairs and pair.names
        ]
        writer.writerow(
            [
                entry.published_place or "",
                section or "",
                entry.pairs[0] if entry.pairs else "",
                text_cell(entry.name or entry.team),
                text_cell("; ".join(members)),
                "" if entry.published_total is None else _fixed(entry.published_total),
                _fixed(won.get(entry.team, Decimal(0))),
                _fixed(lost.get(entry.team, Decimal(0))),
                played.get(entry.team, 0),
            ]
        )
    return out.getvalue()


def _fixed(value: Decimal) -> str:
    return f"{value:.2f}"

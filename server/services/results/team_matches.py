"""The matches of a teams section and the VP standings they give (§ 202, § 221).

A teams section (`movements.teams`: a two-room match or a round robin) seats match k of a
round at tables 2k-1 (open room: home N/S) and 2k (closed room: home E/W). Each board's two
N/S scores are compared in IMPs (§ 202A), the match's net IMPs give VPs on the WBF scale for the
boards that count (`scoring.teams.score_match`), and the teams are ranked on their VPs, a team
with the bye getting `BYE_VP` (§ 202D) for each round played. A board counts when both rooms
have a settled real score; a TD's artificial score (Ave+/Ave-, a percentage) is not an IMP
figure and leaves the board out of the match until the TD gives a real or IMP score there
(that IMP adjustment is not yet entered through the server: a known limit). Scored from the
stored results, read in one short transaction (`standings.load`).

A Swiss section (`movements.teams.swiss_movement`) is paired one round at a time:
`pair_next_round`, once every match of the round in play has all its boards in both rooms, pairs
the next round from these standings (`teams.swiss_pairings`: no repeat meeting, the bye to the
lowest team that has not had one, home to the team with fewer home matches) and stores it as a
movement change (`movement_admin.change_movement`: audited, refused once that round started).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from fractions import Fraction

from sqlmodel import Session, select

from server.core.errors import ConflictError, InvalidError, verbatim
from server.core.models import Audit, MovementAssignment, Section, Team
from server.movements.teams import SWISS_NAME, Match, swiss_pairings, with_round
from server.scoring.models import RealScore
from server.scoring.teams import (
    BYE_VP,
    MatchScore,
    TeamBoard,
    TeamStanding,
    score_match,
    team_standings,
)
from server.services.event import movement_admin
from server.services.results import standings


@dataclass(frozen=True)
class MatchLine:
    """One match of a round: the teams (home first), the boards that count, IMPs and VPs."""

    round: int
    home: int
    away: int
    boards: int
    result: MatchScore | None  # None until a board of the match counts


@dataclass(frozen=True)
class TeamTable:
    matches: list[MatchLine]
    byes: dict[int, int]  # round -> the team with the bye
    standings: list[TeamStanding]
    names: dict[int, str]
    #: A Swiss: the first round not yet paired from the standings (its matches and later
    #: ones are placeholders until then); None for a round robin or a match.
    unpaired_from: int | None = None


def team_table(session: Session, section: Section) -> TeamTable:
    """The section's matches so far and the VP standings."""
    if section.movement_kind != "teams":
        raise InvalidError("not_teams", "This section is not a teams movement.")
    data = standings.load(session, section)
    numbers = {pair_id: pair.number for pair_id, pair in data.pairs.items()}
    scores: dict[tuple[int, int, int], RealScore] = {}
    for played in data.results:
        made = standings.board_result(played)
        if made is not None and isinstance(made.ns, RealScore):
            scores[(played.table_number, played.round, played.board)] = made.ns
    cells = session.exec(
        select(MovementAssignment).where(MovementAssignment.section_id == section.id)
    ).all()
    by_cell = {(c.round, c.table_number): c for c in cells}
    teams = sorted(set(numbers.values()))
    matches: list[MatchLine] = []
    byes: dict[int, int] = {}
    for round_ in sorted({c.round for c in cells}):
        seated: set[int] = set()
        for (r, table), open_room in sorted(by_cell.items()):
            if (
                r != round_
                or table % 2 == 0
                or None in (open_room.ns_pair_id, open_room.ew_pair_id)
            ):
                continue
            home = numbers[open_room.ns_pair_id or 0]
            away = numbers[open_room.ew_pair_id or 0]
            seated |= {home, away}
            boards = [
                TeamBoard(
                    board,
                    scores.get((table, round_, board)),
                    scores.get((table + 1, round_, board)),
                )
                for board in open_room.boards_listed()
            ]
            counted = [b for b in boards if b.open is not None and b.closed is not None]
            result = score_match(counted) if counted else None
            matches.append(MatchLine(round_, home, away, len(counted), result))
        resting = [t for t in teams if t not in seated]
        if len(resting) == 1:
            byes[round_] = resting[0]
    unpaired = max(paired_rounds(session, section)) + 1 if is_swiss(section) else None
    return TeamTable(matches, byes, _standings(matches, byes), _names(session, section), unpaired)


_PAIRED = "Swiss: round "


def paired_rounds(session: Session, section: Section) -> set[int]:
    """The rounds of a Swiss paired so far: round 1 (by team number) and each round paired
    from the standings (read from the audit trail of `pair_next_round`)."""
    rows = session.exec(
        select(Audit).where(Audit.section_id == section.id, Audit.action == "movement_changed")
    )
    rounds = {1}
    for row in rows:
        if row.reason.startswith(_PAIRED):
            number = row.reason[len(_PAIRED) :].split(" ", 1)[0]
            if number.isdigit():
                rounds.add(int(number))
    return rounds


def _standings(matches: list[MatchLine], byes: dict[int, int]) -> list[TeamStanding]:
    played = [m for m in matches if m.result is not None]
    started = {m.round for m in played}
    extra: dict[Hashable, Fraction] = {}
    for round_, team in byes.items():
        if round_ in started:
            extra[team] = extra.get(team, Fraction(0)) + BYE_VP
    records = [m.result.as_tie_record(m.home, m.away) for m in played if m.result is not None]
    return team_standings(records, extra_vp=extra)


def _names(session: Session, section: Section) -> dict[int, str]:
    rows = session.exec(select(Team).where(Team.event_id == section.event_id))
    return {t.number: t.name for t in rows}


def is_swiss(section: Section) -> bool:
    return section.movement_kind == "teams" and section.movement_name.startswith(SWISS_NAME)


def pair_next_round(session: Session, section: Section) -> list[Match]:
    """Pair the round after the one in play from the standings and store it (audited)."""
    if not is_swiss(section):
        raise InvalidError("not_swiss", "Only a Swiss teams section is paired round by round.")
    played_round = section.current_round
    next_round = played_round + 1
    if played_round < 1:
        raise ConflictError("swiss_not_started", "Round 1 is paired by team number: start it.")
    if next_round > section.rounds:
        raise ConflictError("swiss_finished", "Every round of the Swiss has been paired.")
    table = team_table(session, section)
    unfinished = [
        m for m in table.matches if m.round == played_round and m.boards < section.boards_per_round
    ]
    if unfinished:
        where = ", ".join(f"{m.home} v {m.away}" for m in unfinished)
        raise ConflictError(
            "swiss_round_open",
            "Round {played_round} is not finished (matches {where}): pair the next round "
            "when every board is in.",
            played_round=played_round,
            where=where,
        )
    done = [m for m in table.matches if m.round <= played_round]
    homes: dict[int, int] = {}
    for m in done:
        homes[m.home] = homes.get(m.home, 0) + 1
    ranked = [int(str(s.team)) for s in table.standings]
    everyone = sorted({t for m in done for t in (m.home, m.away)} | set(table.byes.values()))
    ranked += [t for t in everyone if t not in ranked]
    try:
        matches, _bye = swiss_pairings(
            ranked,
            [(m.home, m.away) for m in done],
            round=next_round,
            home_counts=homes,
            had_bye=[t for r, t in table.byes.items() if r <= played_round],
        )
    except ValueError as exc:
        raise ConflictError("swiss_no_pairing", verbatim(str(exc))) from exc
    movement_admin.change_movement(
        session,
        section,
        lambda m, _from: with_round(m, next_round, matches),
        what=f"{_PAIRED}{next_round} paired from the standings after round {played_round}",
    )
    return matches

"""Teams: the two-room match, round-robin schedules (circle method) and Swiss pairings.

A team's two pairs are PairRef(team, "NS") and PairRef(team, "EW"): the home team sits N/S in
the open room (table 1) and E/W in the closed room (table 2), § 231A; both rooms play the same
boards, so the two tables are declared as sharing.

A round-robin event is one movement (`round_robin_movement`): each round of the schedule is a
round of the movement, match k of the round plays at tables 2k-1 (open room) and 2k (closed
room), and every match of a round plays the same boards (one duplicated set a match), so all
the tables share the boards; a team with the bye sits out its round. A Swiss is the same shape
(`swiss_movement`), its rounds after the first paired one at a time from the VP standings.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from server.movements.model import Movement, PairRef, RoundAssignment

MIN_TEAMS = 2
MAX_TEAMS = 40


@dataclass(frozen=True, order=True)
class Match:
    """One match of a teams round: the home team sits N/S in the open room."""

    round: int
    home: int
    away: int


def team_match(
    home: int, away: int, *, boards: Sequence[int], rounds: int = 1, name: str = ""
) -> Movement:
    """A two-table match: open room (table 1) and closed room (table 2) share the boards.

    The boards are split into `rounds` equal stanzas (the rooms swap boards between stanzas).
    """
    if home == away:
        raise ValueError("a team cannot play itself")
    if rounds < 1 or len(boards) % rounds:
        raise ValueError("the boards must split evenly into the rounds")
    per = len(boards) // rounds
    cells = []
    for r in range(1, rounds + 1):
        stanza = tuple(boards[(r - 1) * per : r * per])
        cells.append(RoundAssignment(1, r, PairRef(home, "NS"), PairRef(away, "EW"), stanza))
        cells.append(RoundAssignment(2, r, PairRef(away, "NS"), PairRef(home, "EW"), stanza))
    return Movement(
        name=name or f"Team {home} v team {away}",
        kind="teams",
        tables=2,
        rounds=rounds,
        boards_per_round=per,
        assignments=tuple(cells),
        shared_tables=((1, 2),),
    )


def round_robin(teams: int) -> list[Match]:
    """Every team meets every other once (circle method); an odd field gets a bye each round.

    Team `teams` (or the bye) stays fixed while the others rotate; home and away alternate so
    no team has more than one home match more than away matches.
    """
    if not MIN_TEAMS <= teams <= MAX_TEAMS:
        raise ValueError(f"round robins are offered for {MIN_TEAMS} to {MAX_TEAMS} teams")
    size = teams + teams % 2
    fixed = size
    ring = list(range(1, size))
    matches = []
    for r in range(1, size):
        first, second = fixed, ring[0]
        if r % 2 == 0:
            first, second = second, first
        pairs = [(first, second)]
        for i in range(1, size // 2):
            a, b = ring[i], ring[-i]
            pairs.append((a, b) if i % 2 == 1 else (b, a))
        for home, away in pairs:
            if home <= teams and away <= teams:
                matches.append(Match(r, home, away))
        ring = ring[-1:] + ring[:-1]
    return matches


def round_robin_movement(teams: int, *, boards_per_match: int) -> Movement:
    """The whole round robin as one movement: round r of the schedule plays boards
    (r-1)*b+1 .. r*b at every match, open and closed rooms side by side."""
    schedule = round_robin(teams)
    check_schedule(teams, schedule)
    rounds = max(m.round for m in schedule)
    return matches_movement(
        teams,
        schedule,
        rounds=rounds,
        boards_per_match=boards_per_match,
        name=f"Round robin, {teams} teams",
    )


#: A Swiss movement's name starts so (`swiss_movement`); the pairing service looks for it.
SWISS_NAME = "Swiss teams"


def swiss_movement(teams: int, *, rounds: int, boards_per_match: int) -> Movement:
    """A Swiss of `rounds` rounds: round 1 paired by team number (1 v 2, 3 v 4: the seeding),
    the later rounds held by the round-robin schedule until each is paired from the standings
    after the round before (`services.results.team_matches.pair_next_round`)."""
    schedule = round_robin(teams)
    if not 1 <= rounds <= max(m.round for m in schedule):
        raise ValueError(f"a Swiss of {teams} teams has 1 to {teams - 1 + teams % 2} rounds")
    first, _bye = swiss_pairings(list(range(1, teams + 1)), round=1)
    later = [m for m in schedule if 2 <= m.round <= rounds]
    return matches_movement(
        teams,
        [*first, *later],
        rounds=rounds,
        boards_per_match=boards_per_match,
        name=f"{SWISS_NAME}, {teams} teams, {rounds} rounds",
    )


def matches_movement(
    teams: int, matches: Sequence[Match], *, rounds: int, boards_per_match: int, name: str
) -> Movement:
    """Matches as one movement: match k of round r at tables 2k-1 (open room, home N/S) and
    2k (closed room), every match of round r on boards (r-1)*b+1 .. r*b."""
    if boards_per_match < 1:
        raise ValueError("a match needs at least one board")
    cells = []
    for r in range(1, rounds + 1):
        stanza = tuple(range((r - 1) * boards_per_match + 1, r * boards_per_match + 1))
        in_round = [m for m in matches if m.round == r]
        for k, match in enumerate(in_round):
            home, away = match.home, match.away
            open_room, closed_room = 2 * k + 1, 2 * k + 2
            cells.append(
                RoundAssignment(open_room, r, PairRef(home, "NS"), PairRef(away, "EW"), stanza)
            )
            cells.append(
                RoundAssignment(closed_room, r, PairRef(away, "NS"), PairRef(home, "EW"), stanza)
            )
    tables = 2 * (teams // 2)
    return Movement(
        name=name,
        kind="teams",
        tables=tables,
        rounds=rounds,
        boards_per_round=boards_per_match,
        assignments=tuple(cells),
        shared_tables=(tuple(range(1, tables + 1)),),
    )


def with_round(m: Movement, round_: int, matches: Sequence[Match]) -> Movement:
    """The movement with round `round_` played by these matches (its boards kept)."""
    stanza = next(a.boards for a in m.assignments if a.round == round_)
    cells = [a for a in m.assignments if a.round != round_]
    for k, match in enumerate(matches):
        cells.append(
            RoundAssignment(
                2 * k + 1, round_, PairRef(match.home, "NS"), PairRef(match.away, "EW"), stanza
            )
        )
        cells.append(
            RoundAssignment(
                2 * k + 2, round_, PairRef(match.away, "NS"), PairRef(match.home, "EW"), stanza
            )
        )
    return replace(m, assignments=tuple(sorted(cells, key=lambda a: (a.round, a.table))))


def matches_of(m: Movement) -> list[Match]:
    """The matches of a teams movement, read back from its open rooms (odd tables)."""
    return sorted(
        Match(a.round, a.ns.number, a.ew.number)
        for a in m.assignments
        if a.table % 2 == 1 and a.ns is not None and a.ew is not None
    )


def byes(teams: int, matches: Iterable[Match]) -> dict[int, int]:
    """The team sitting out each round of a schedule (odd fields only)."""
    playing: dict[int, set[int]] = {}
    for match in matches:
        playing.setdefault(match.round, set()).update((match.home, match.away))
    return {
        r: next(t for t in range(1, teams + 1) if t not in seen)
        for r, seen in sorted(playing.items())
        if len(seen) < teams
    }


def swiss_pairings(
    standings: Sequence[int],
    played: Iterable[tuple[int, int]] = (),
    *,
    round: int = 1,
    home_counts: dict[int, int] | None = None,
    had_bye: Iterable[int] = (),
) -> tuple[list[Match], int | None]:
    """Pair teams by standing (best first) with no repeat meetings.

    Each unpaired team in turn takes the best-placed team it has not met; the search backs
    up when that leaves the rest unpairable. With an odd field the lowest-placed team that
    has not had a bye sits out. The team with fewer home matches is home (ties: higher-placed).
    Raises ValueError when no pairing without a repeat exists.
    """
    met = {frozenset(p) for p in played}
    homes = Counter(home_counts or {})
    teams = list(standings)
    bye: int | None = None
    if len(teams) % 2:
        previous = set(had_bye)
        bye = next((t for t in reversed(teams) if t not in previous), teams[-1])
        teams.remove(bye)
    pairs = _pair_off(teams, met, [20_000]) or _pair_constrained(teams, met, [200_000])
    if pairs is None:
        raise ValueError(f"round {round}: no Swiss pairing without a repeat meeting")
    matches = []
    for high, low in pairs:
        home, away = (low, high) if homes[low] < homes[high] else (high, low)
        matches.append(Match(round, home, away))
    return matches, bye


def _pair_off(
    teams: list[int], met: set[frozenset[int]], budget: list[int]
) -> list[tuple[int, int]] | None:
    """Backtracking pairing of the list in order; None when impossible (or out of budget)."""
    if not teams:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    first, rest = teams[0], teams[1:]
    for i, other in enumerate(rest):
        if frozenset((first, other)) in met:
            continue
        tail = _pair_off(rest[:i] + rest[i + 1 :], met, budget)
        if tail is not None:
            return [(first, other), *tail]
    return None


def _pair_constrained(
    teams: list[int], met: set[frozenset[int]], budget: list[int]
) -> list[tuple[int, int]] | None:
    """Backtracking that pairs the team with fewest possible opponents first (for late,
    crowded rounds where pairing strictly by standing runs into dead ends)."""
    if not teams:
        return []
    budget[0] -= 1
    if budget[0] < 0:
        return None
    options = {t: [o for o in teams if o != t and frozenset((t, o)) not in met] for t in teams}
    first = min(teams, key=lambda t: (len(options[t]), teams.index(t)))
    for other in options[first]:
        rest = [t for t in teams if t not in (first, other)]
        tail = _pair_constrained(rest, met, budget)
        if tail is not None:
            pair = (first, other) if teams.index(first) < teams.index(other) else (other, first)
            return [pair, *tail]
    return None


def check_schedule(teams: int, matches: Sequence[Match]) -> None:
    """Raise ValueError when a team plays twice in a round or two teams meet twice."""
    seen: set[frozenset[int]] = set()
    busy: set[tuple[int, int]] = set()
    for match in matches:
        for team in (match.home, match.away):
            if not 1 <= team <= teams:
                raise ValueError(f"round {match.round}: no team {team}")
            if (match.round, team) in busy:
                raise ValueError(f"round {match.round}: team {team} plays twice")
            busy.add((match.round, team))
        key = frozenset((match.home, match.away))
        if key in seen or len(key) < 2:
            raise ValueError(f"round {match.round}: teams {match.home} and {match.away} meet again")
        seen.add(key)

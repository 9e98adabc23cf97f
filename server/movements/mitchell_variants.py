"""Mitchell variants for awkward numbers: hesitation Mitchell, a rover pair, web (shared) sections.

Hesitation Mitchell (E. E. Blandon, 1973; EBU club notes): n tables, n + 1 rounds and board
sets. N/S pairs 1..n-1 sit still; pairs n..2n move EW1 -> EW2 -> ... -> EWn -> NSn -> EW1,
so each plays one round N/S at the hesitation table n. Boards move down one table with a relay
stand between tables n//2 and n//2 + 1 (two stands, and table n sharing table 1's boards,
when n is even). Arrow-switch the last rounds everywhere except the hesitation table to make
it a single-winner movement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from server.movements.mitchell import mitchell
from server.movements.model import Movement, PairRef, RoundAssignment, board_set
from server.movements.validate import MovementError, validate


def hesitation_mitchell(
    tables: int, *, boards_per_round: int = 2, arrow_switch_rounds: int = 0
) -> Movement:
    """A hesitation Mitchell for `tables` tables (2n pairs), n + 1 rounds and board sets.

    Odd n: one relay stand between tables n//2 and n//2 + 1. Even n (the share-and-relay
    form clubs use, e.g. 8 tables, 9 rounds): table n shares table 1's boards and two relay
    stands sit between tables n/2 and n/2 + 1, so the boards travel round n - 1 tables and
    two stands, n + 1 stations in all.
    """
    if tables < 3:
        raise ValueError("a hesitation Mitchell needs 3 or more tables")
    rounds = tables + 1
    if not 0 <= arrow_switch_rounds <= rounds:
        raise ValueError("arrow_switch_rounds must be between 0 and the number of rounds")
    stations, start_set = _hesitation_stations(tables)
    movers = rounds  # positions 0..n-1: E/W at table p+1; position n: N/S at table n
    assignments = []
    for r in range(1, rounds + 1):
        at: dict[tuple[int, str], PairRef] = {(t, "NS"): PairRef(t) for t in range(1, tables)}
        for number in range(tables, 2 * tables + 1):
            start = tables if number == tables else number - tables - 1
            position = (start + r - 1) % movers
            seat = (tables, "NS") if position == tables else (position + 1, "EW")
            at[seat] = PairRef(number)
        switched = r > rounds - arrow_switch_rounds
        for t in range(1, tables + 1):
            index = stations.index(1 if tables % 2 == 0 and t == tables else t)
            s = start_set[stations[(index - (r - 1)) % len(stations)]]
            ns, ew = at[(t, "NS")], at[(t, "EW")]
            if switched and t != tables:
                ns, ew = ew, ns
            assignments.append(RoundAssignment(t, r, ns, ew, board_set(s, boards_per_round)))
    name = f"Hesitation Mitchell {tables} tables"
    if arrow_switch_rounds:
        name += f", arrow-switch last {arrow_switch_rounds}"
    shared = ((1, tables),) if tables % 2 == 0 else ()
    return Movement(
        name, "hesitation", tables, rounds, boards_per_round, tuple(assignments), shared
    )


def _hesitation_stations(tables: int) -> tuple[list[int | str], dict[int | str, int]]:
    """The stations in the order boards travel (down) and the set each holds in round 1.

    Tables are ints, relay stands strings. Odd n: 1, n, ..., half+1, relay, half, ..., 2.
    Even n: 1, n-1, ..., half+1, relay A, relay B, half, ..., 2 (table n shares with 1)."""
    half = tables // 2
    top = tables if tables % 2 == 1 else tables - 1
    relays: list[int | str] = ["relay"] if tables % 2 == 1 else ["relay A", "relay B"]
    stations: list[int | str] = [1, *range(top, half, -1), *relays, *range(half, 1, -1)]
    start_set: dict[int | str, int] = {t: t for t in range(1, half + 1)}
    for i, relay in enumerate(relays):
        start_set[relay] = half + 1 + i
    start_set.update({t: t + len(relays) for t in range(half + 1, top + 1)})
    return stations, start_set


def add_rover(m: Movement, *, from_round: int = 1) -> Movement:
    """Add a rover pair that takes a N/S seat each round from `from_round`; the N/S pair it
    displaces sits out. Each N/S pair is displaced at most once, the rover never plays a board
    twice, and repeat opponents are kept to the fewest a search finds."""
    rover = PairRef(max(p.number for p in m.pairs()) + 1, "NS")
    rounds = list(range(from_round, m.rounds + 1))
    best: list[list[RoundAssignment]] = []
    best_repeats = [len(rounds) + 1]
    budget = [20_000]

    def search(i: int, chosen: list[RoundAssignment], boards: set[int], met: list[PairRef]) -> None:
        repeats = len(met) - len(set(met))
        if repeats >= best_repeats[0] or budget[0] <= 0:
            return
        budget[0] -= 1
        if i == len(rounds):
            best[:] = [list(chosen)]
            best_repeats[0] = repeats
            return
        displaced = {a.ns for a in chosen}
        # Two tables up a round first: with tables prime to 6 that meets every E/W pair once.
        cells = m.in_round(rounds[i])
        cells.sort(key=lambda a: (a.table - 1 - 2 * i) % max(m.tables, 1))
        for a in cells:
            if not a.played or a.ns in displaced or boards & set(a.boards):
                continue
            assert a.ew is not None
            chosen.append(a)
            search(i + 1, chosen, boards | set(a.boards), [*met, a.ew])
            chosen.pop()

    search(0, [], set(), [])
    if not best:
        raise ValueError(f"no rover schedule found for {m.name}")
    taken = {(a.table, a.round) for a in best[0]}
    cells = [
        RoundAssignment(a.table, a.round, rover, a.ew, a.boards)
        if (a.table, a.round) in taken
        else a
        for a in m.assignments
    ]
    return m.with_assignments(cells, name=f"{m.name}, rover pair {rover}")


@dataclass(frozen=True)
class WebMitchell:
    """Several sections playing the same boards; same-numbered tables share their set."""

    sections: dict[str, Movement]
    shared: tuple[tuple[tuple[str, int], ...], ...]


def web_mitchell(
    sections: int,
    tables: int,
    *,
    boards_per_round: int = 2,
    even: str = "skip",
    arrow_switch_rounds: int = 0,
) -> WebMitchell:
    """`sections` identical Mitchells on one set of boards: table t of every section shares
    the set that table t holds (the tables sit side by side and swap boards in the round)."""
    if not 2 <= sections <= 26:
        raise ValueError("a web Mitchell has 2 to 26 sections")
    base = mitchell(
        tables,
        boards_per_round=boards_per_round,
        even="relay" if even == "relay" else "skip",
        arrow_switch_rounds=arrow_switch_rounds,
    )
    letters = [chr(ord("A") + i) for i in range(sections)]
    shared = tuple(tuple((letter, t) for letter in letters) for t in range(1, tables + 1))
    return WebMitchell(dict.fromkeys(letters, base), shared)


def validate_sections(
    sections: Mapping[str, Movement], shared: Iterable[Iterable[tuple[str, int]]] = ()
) -> None:
    """Validate each section, then check that a board is in play at two tables of different
    sections in one round only where those tables are declared as sharing."""
    groups = [set(group) for group in shared]
    for name, m in sections.items():
        try:
            validate(m)
        except MovementError as error:
            raise MovementError(f"section {name}: {error}") from error
    rounds = {a.round for m in sections.values() for a in m.assignments}
    for r in sorted(rounds):
        in_play: dict[int, tuple[str, int]] = {}
        for name, m in sections.items():
            for a in m.in_round(r):
                if not a.played:
                    continue
                for board in a.boards:
                    here = (name, a.table)
                    other = in_play.get(board)
                    if (
                        other is not None
                        and other[0] != name
                        and not any(here in g and other in g for g in groups)
                    ):
                        raise MovementError(
                            f"section {name}: board {board} also in play at section "
                            f"{other[0]} table {other[1]}",
                            round=r,
                            table=a.table,
                            pair=a.ns,
                        )
                    in_play.setdefault(board, here)

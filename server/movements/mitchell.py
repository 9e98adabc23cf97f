"""Mitchell movements: N/S stationary, E/W move up one table, boards move down one table.

With an even number of tables a plain Mitchell would bring E/W pairs back to boards they have
played after half the rounds. Two cures are offered:

- "skip": after half the rounds every E/W pair moves up two tables instead of one. At most
  tables - 1 rounds can then be played (each E/W pair misses one N/S pair and one board set).
- "relay": tables 1 and the last table share a board set (the relay) and a bye stand, a place
  where one set rests unplayed each round, sits between tables n/2 and n/2 + 1. Boards travel
  relay -> table n-1 -> ... -> table n/2+1 -> bye stand -> table n/2 -> ... -> table 2 -> relay,
  so with n sets every E/W pair can play n rounds and meet every N/S pair.
"""

from __future__ import annotations

from typing import Literal

from server.movements.model import Movement, PairRef, RoundAssignment, board_set

EvenCure = Literal["skip", "relay"]


def max_rounds(tables: int, even: EvenCure = "skip") -> int:
    """The most rounds a Mitchell of this size can play without repeats."""
    if tables % 2 == 1 or even == "relay":
        return tables
    return tables - 1


def mitchell(
    tables: int,
    *,
    rounds: int | None = None,
    boards_per_round: int = 2,
    even: EvenCure = "skip",
    arrow_switch_rounds: int = 0,
) -> Movement:
    """A Mitchell for `tables` tables: NS pair k sits at table k, EW pair k starts there.

    Board set s holds boards (s-1)*bpr+1 .. s*bpr; table t plays set t in round 1 (with the
    relay, the last table shares set 1 with table 1 and set n starts on the bye stand).
    `rounds` defaults to the most possible (tables, or tables - 1 for a skip Mitchell with an
    even number of tables). In the last `arrow_switch_rounds` rounds the pairs swap directions:
    the E/W pair sits in the N/S seat.
    """
    if tables < 2:
        raise ValueError("a Mitchell needs at least 2 tables")
    if boards_per_round < 1:
        raise ValueError("boards_per_round must be at least 1")
    relay = tables % 2 == 0 and even == "relay"
    most = max_rounds(tables, even)
    rounds = most if rounds is None else rounds
    if not 1 <= rounds <= most:
        raise ValueError(f"a {tables}-table Mitchell ({even}) plays 1 to {most} rounds")
    if not 0 <= arrow_switch_rounds <= rounds:
        raise ValueError("arrow_switch_rounds must be between 0 and the number of rounds")
    assignments = []
    for r in range(1, rounds + 1):
        switched = r > rounds - arrow_switch_rounds
        for t in range(1, tables + 1):
            ew_number = _ew_at(t, r, tables, skip=tables % 2 == 0 and not relay)
            s = _relay_set(t, r, tables) if relay else (t - 1 + r - 1) % tables + 1
            ns, ew = PairRef(t, "NS"), PairRef(ew_number, "EW")
            if switched:
                ns, ew = ew, ns
            assignments.append(RoundAssignment(t, r, ns, ew, board_set(s, boards_per_round)))
    name = f"Mitchell {tables} tables"
    if tables % 2 == 0:
        name += " (relay and bye stand)" if relay else " (skip)"
    if arrow_switch_rounds:
        name += f", arrow-switch last {arrow_switch_rounds}"
    return Movement(
        name=name,
        kind="mitchell",
        tables=tables,
        rounds=rounds,
        boards_per_round=boards_per_round,
        assignments=tuple(assignments),
        shared_tables=((1, tables),) if relay else (),
    )


def _ew_at(table: int, round: int, tables: int, *, skip: bool) -> int:
    """The E/W pair at a table: pairs move up one table a round (two at the skip)."""
    moved = round - 1
    if skip and round > tables // 2:
        moved += 1
    return (table - 1 - moved) % tables + 1


def _relay_set(table: int, round: int, tables: int) -> int:
    """The board set at a table in a relay-and-bye-stand Mitchell (even tables)."""
    half = tables // 2
    # Stations in the order the boards travel: 0 is the relay (tables 1 and n), half is the bye.
    if table in (1, tables):
        station = 0
    elif table > half:
        station = tables - table
    else:
        station = tables + 1 - table
    start = (station - (round - 1)) % tables
    # Round 1: station 0 holds set 1, table t (station i) holds set t, the bye stand set n.
    return _station_set_at_start(start, tables)


def _station_set_at_start(station: int, tables: int) -> int:
    """The set that sits on a station in round 1."""
    half = tables // 2
    if station == 0:
        return 1
    if station == half:
        return tables
    if station < half:
        return tables - station
    return tables + 1 - station

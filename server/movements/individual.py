"""Individual movements: each player moves alone and partners a different player each round."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from server.movements.bridgescorer import load_bundled
from server.movements.model import IndividualAssignment, IndividualMovement
from server.movements.validate import MovementError

# The model moved to server.movements.model; callers that import it from here still work.
__all__ = ["IndividualAssignment", "IndividualMovement", "individual", "validate_individual"]


def validate_individual(
    m: IndividualMovement, *, shared_tables: Iterable[Iterable[int]] = ()
) -> None:
    """Raise MovementError: a player twice in a round or at a table, boards at two tables
    not declared as sharing, or a player given the same board twice."""
    sharing = {
        frozenset((first, second))
        for group in (*m.shared_tables, *shared_tables)
        for first, second in combinations(sorted(set(group)), 2)
    }
    played: dict[int, dict[int, int]] = {}
    for round_number in sorted({a.round for a in m.assignments}):
        seated: dict[int, int] = {}
        in_play: dict[int, int] = {}
        for a in sorted((a for a in m.assignments if a.round == round_number), key=_table):
            players = a.players()
            if len(set(players)) != len(players):
                raise MovementError("a player is in two seats", round=a.round, table=a.table)
            for player in players:
                if player in seated:
                    raise MovementError(
                        f"player {player} sits at two tables ({seated[player]} and {a.table})",
                        round=a.round,
                        table=a.table,
                    )
                seated[player] = a.table
            if len(players) < 4:
                continue
            for board in a.boards:
                if board in in_play and frozenset((in_play[board], a.table)) not in sharing:
                    raise MovementError(
                        f"board {board} is also in play at table {in_play[board]}",
                        round=a.round,
                        table=a.table,
                    )
                in_play.setdefault(board, a.table)
                for player in players:
                    before = played.setdefault(player, {}).get(board)
                    if before is not None:
                        raise MovementError(
                            f"player {player} plays board {board} again (round {before})",
                            round=a.round,
                            table=a.table,
                        )
                    played[player][board] = a.round


def _table(a: IndividualAssignment) -> int:
    return a.table


_PATTERNS = {
    8: "IndividualMovement.Individual2Tables14Boards",
    12: "IndividualMovement.Individual3Tables",
}


def individual(players: int, *, boards_per_round: int = 2) -> IndividualMovement:
    """An individual for 8 players (2 tables, 7 rounds, both tables sharing each round's
    boards) or 12 players (3 tables, 11 rounds), from the bundled bridgescorer patterns.

    Every player partners every other player exactly once.
    """
    if players not in _PATTERNS:
        raise ValueError(f"individual movements are offered for {sorted(_PATTERNS)} players")
    if boards_per_round < 1:
        raise ValueError("boards_per_round must be at least 1")
    pattern = load_bundled(_PATTERNS[players])
    assert isinstance(pattern, IndividualMovement)
    sets: dict[tuple[int, ...], int] = {}
    for a in sorted(pattern.assignments, key=lambda a: a.boards):
        sets.setdefault(a.boards, len(sets) + 1)
    cells = tuple(
        IndividualAssignment(
            a.table,
            a.round,
            a.north,
            a.east,
            a.south,
            a.west,
            tuple(
                range(
                    (sets[a.boards] - 1) * boards_per_round + 1,
                    sets[a.boards] * boards_per_round + 1,
                )
            ),
        )
        for a in pattern.assignments
    )
    return IndividualMovement(
        name=f"Individual {players} players",
        tables=pattern.tables,
        rounds=pattern.rounds,
        boards_per_round=boards_per_round,
        assignments=cells,
        shared_tables=((1, 2),) if players == 8 else (),
    )

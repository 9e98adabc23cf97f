"""Reject broken movements: a pair twice in a round, boards at two tables, a board played twice."""

from __future__ import annotations

from collections.abc import Iterable

from server.movements.model import Movement, PairRef, RoundAssignment


class MovementError(ValueError):
    """A movement that cannot be played; the message names the round, table and pair.

    ``kind`` names the fault for a refusal in the TD's words, ``values`` the fault's other
    numbers (server/i18n/error_words.py)."""

    def __init__(
        self,
        message: str,
        *,
        kind: str | None = None,
        round: int | None = None,
        table: int | None = None,
        pair: PairRef | None = None,
        **values: object,
    ) -> None:
        where = []
        if round is not None:
            where.append(f"round {round}")
        if table is not None:
            where.append(f"table {table}")
        if pair is not None:
            where.append(f"pair {pair}")
        super().__init__(f"{', '.join(where)}: {message}" if where else message)
        self.kind = kind
        self.round = round
        self.table = table
        self.pair = pair
        self.values = values

    def fields(self) -> dict[str, object]:
        """The round, table and pair that are named, and the values."""
        where = {"round": self.round, "table": self.table, "pair": self.pair}
        return {**{k: v for k, v in where.items() if v is not None}, **self.values}


def _sharing(groups: Iterable[Iterable[int]]) -> set[frozenset[int]]:
    """Every two tables that may share boards, as unordered table pairs."""
    shared: set[frozenset[int]] = set()
    for group in groups:
        tables = sorted(set(group))
        for i, first in enumerate(tables):
            for second in tables[i + 1 :]:
                shared.add(frozenset((first, second)))
    return shared


def validate(m: Movement, *, shared_tables: Iterable[Iterable[int]] = ()) -> None:
    """Raise MovementError on the first fault found, checked round by round in table order.

    Boards count as in play only at tables where both seats are taken: a phantom's
    opponents sit out and their boards stay on the table unplayed. With board circuits (each
    with its own copy of the boards) a board may be in play once in each circuit.
    """
    sharing = _sharing([*m.shared_tables, *shared_tables])
    seen_cells: set[tuple[int, int]] = set()
    boards_played: dict[PairRef, dict[int, RoundAssignment]] = {}
    for a in sorted(m.assignments, key=lambda a: (a.round, a.table)):
        _check_cell(m, a, seen_cells)
    for round_number in sorted({a.round for a in m.assignments}):
        tables = m.in_round(round_number)
        seated: dict[PairRef, int] = {}
        in_play: dict[tuple[int, int], int] = {}
        for a in tables:
            for pair in a.pairs():
                if pair in seated:
                    raise MovementError(
                        f"sits at two tables ({seated[pair]} and {a.table})",
                        kind="pair_seated_twice",
                        first=seated[pair],
                        second=a.table,
                        round=a.round,
                        table=a.table,
                        pair=pair,
                    )
                seated[pair] = a.table
            if not a.played:
                continue
            circuit = m.circuit_of(a.table)
            for board in a.boards:
                other = in_play.get((circuit, board))
                if other is not None and frozenset((other, a.table)) not in sharing:
                    raise MovementError(
                        f"board {board} is also in play at table {other} "
                        "(tables not declared as sharing)",
                        kind="board_in_play_twice",
                        board=board,
                        other=other,
                        round=a.round,
                        table=a.table,
                        pair=a.ns,
                    )
                in_play.setdefault((circuit, board), a.table)
            for pair in a.pairs():
                history = boards_played.setdefault(pair, {})
                for board in a.boards:
                    before = history.get(board)
                    if before is not None:
                        raise MovementError(
                            f"plays board {board} again (already in round {before.round} "
                            f"at table {before.table})",
                            kind="board_played_again",
                            board=board,
                            before=before.round,
                            other=before.table,
                            round=a.round,
                            table=a.table,
                            pair=pair,
                        )
                    history[board] = a


def _check_cell(m: Movement, a: RoundAssignment, seen: set[tuple[int, int]]) -> None:
    """One assignment on its own: inside the movement, not repeated, no pair meeting itself."""
    if not 1 <= a.round <= m.rounds:
        raise MovementError(f"round outside 1..{m.rounds}", round=a.round, table=a.table)
    if not 1 <= a.table <= m.tables:
        raise MovementError(f"table outside 1..{m.tables}", round=a.round, table=a.table)
    if (a.table, a.round) in seen:
        raise MovementError("table listed twice in the round", round=a.round, table=a.table)
    seen.add((a.table, a.round))
    if a.ns is not None and a.ns == a.ew:
        raise MovementError("meets itself", round=a.round, table=a.table, pair=a.ns)
    if len(set(a.boards)) != len(a.boards):
        raise MovementError("a board listed twice", round=a.round, table=a.table, pair=a.ns)

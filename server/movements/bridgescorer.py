"""Import the bridgescorer YAML movement shape (thebridsk/bridgescorer, MIT licence).

Pairs files: `numberTeams`, then `hands: [{table, round, ns, ew, boards}]`; individual files:
`numberPlayers`, then hands with `north, south, east, west`. Sit-outs are simply not listed.
Tables that share boards are declared only for files whose name or description says "relay"
(and not "no relay");
anywhere else a shared board is an error for the validator to find.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from importlib import resources
from itertools import combinations
from typing import Any

from server.movements.exchange import movement_from_assignments
from server.movements.model import (
    IndividualAssignment,
    IndividualMovement,
    Movement,
    PairRef,
    RoundAssignment,
)

DATA_PACKAGE = "server.movements.data.bridgescorer"


def read_bridgescorer(text: str) -> Movement | IndividualMovement:
    """Read one bridgescorer YAML document (needs PyYAML, imported here so that importing
    this package never does)."""
    import yaml  # noqa: PLC0415 (PyYAML, the server extra: only to read a bundled movement)

    return from_bridgescorer(yaml.safe_load(text))


def from_bridgescorer(data: Mapping[str, Any]) -> Movement | IndividualMovement:
    """Build a movement from the parsed YAML mapping."""
    name = str(data.get("short") or data["name"])
    hands = data["hands"]
    if "numberPlayers" in data:
        cells = tuple(
            sorted(
                (
                    IndividualAssignment(
                        table=int(h["table"]),
                        round=int(h["round"]),
                        north=int(h["north"]),
                        east=int(h["east"]),
                        south=int(h["south"]),
                        west=int(h["west"]),
                        boards=tuple(int(b) for b in h["boards"]),
                    )
                    for h in hands
                ),
                key=lambda a: (a.round, a.table),
            )
        )
        return IndividualMovement(
            name=name,
            tables=max(a.table for a in cells),
            rounds=max(a.round for a in cells),
            boards_per_round=max(len(a.boards) for a in cells),
            assignments=cells,
        )
    pairs = [
        RoundAssignment(
            table=int(h["table"]),
            round=int(h["round"]),
            ns=PairRef(int(h["ns"])),
            ew=PairRef(int(h["ew"])),
            boards=tuple(int(b) for b in h["boards"]),
        )
        for h in hands
    ]
    label = f"{data.get('name', '')} {data.get('description', '')}".lower()
    says_relay = re.search(r"(?<!no)(?<!no )relay", label) is not None
    shared = _sharing_tables(pairs) if says_relay else ()
    kind = "mitchell" if "mitchell" in label else "howell"
    return movement_from_assignments(pairs, name=name, kind=kind, shared_tables=shared)


def _sharing_tables(cells: list[RoundAssignment]) -> tuple[tuple[int, ...], ...]:
    """Every two tables that hold a common board in some round."""
    by_round: dict[int, list[RoundAssignment]] = defaultdict(list)
    for a in cells:
        by_round[a.round].append(a)
    found: set[tuple[int, int]] = set()
    for tables in by_round.values():
        for first, second in combinations(tables, 2):
            if set(first.boards) & set(second.boards):
                found.add((min(first.table, second.table), max(first.table, second.table)))
    return tuple(sorted(found))


def bundled_names() -> list[str]:
    """The bundled bridgescorer movements, by file name without ".yaml"."""
    folder = resources.files(DATA_PACKAGE)
    return sorted(
        p.name.removesuffix(".yaml") for p in folder.iterdir() if p.name.endswith(".yaml")
    )


def load_bundled(name: str) -> Movement | IndividualMovement:
    """One bundled bridgescorer movement, e.g. "Movement.Howell08T4B14"."""
    return read_bridgescorer(resources.files(DATA_PACKAGE).joinpath(f"{name}.yaml").read_text())

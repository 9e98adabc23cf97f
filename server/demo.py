"""The demo club night: a 5-table Mitchell, 3 boards a round, named pairs, round 1 started."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine
from sqlmodel import Session

from server.db import migrate, transact
from server.movements import mitchell
from server.services import setup, td

DEMO_PAIRS = [
    ("Anna Jensen", "Bo Nielsen"),
    ("Carl Hansen", "Dorte Pedersen"),
    ("Erik Andersen", "Frida Christensen"),
    ("Gitte Larsen", "Hans Sørensen"),
    ("Ida Rasmussen", "Jens Jørgensen"),
    ("Karen Petersen", "Lars Madsen"),
    ("Mette Kristensen", "Niels Olsen"),
    ("Ole Thomsen", "Pia Poulsen"),
    ("Rikke Johansen", "Søren Møller"),
    ("Tove Mortensen", "Ulrik Knudsen"),
]


@dataclass(frozen=True)
class Demo:
    event_id: int
    section_id: int
    pairing_codes: dict[int, str]


def create_demo(engine: Engine, *, tables: int = 5, boards_per_round: int = 3) -> Demo:
    """Create the demo event in an empty (or fresh) database and start round 1."""
    migrate(engine)

    def work(session: Session) -> Demo:
        event = setup.create_event(session, name="Demo club night")
        movement = mitchell(tables, boards_per_round=boards_per_round)
        section = setup.create_section(session, event=event, letter="A", movement=movement)
        names = iter(DEMO_PAIRS * 4)
        for ref in movement.pairs():
            first, second = next(names)
            setup.set_pair_names(
                session,
                section=section,
                number=ref.number,
                direction=ref.direction,
                names=setup.PairNames(first, second),
            )
        td.start_round(session, section, 1)
        return Demo(event.id or 0, section.id or 0, td.pairing_codes(session, section))

    return transact(engine, work)

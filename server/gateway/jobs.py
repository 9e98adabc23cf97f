"""What the gateway's parts hand each other: a keypad's place, its binding, a job, its outcome."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from protocol.keypad_codec import KeypadCommand
from protocol.messages import Message
from server.live.bus import Delivery


class Station(NamedTuple):
    """A keypad as the gateway sees it: the port it is wired to and its bus address."""

    port: str
    address: int

    def __str__(self) -> str:
        return f"{self.port}#{self.address}"


@dataclass(frozen=True, slots=True)
class Binding:
    """The table a keypad's token belongs to (for pushes), and a next round it is waiting for."""

    section_id: int
    table: int
    next_round_from: int | None = None


Keep = Literal["keep"]
#: Handled.binding when the call did not look at the binding (a refused pairing code, say).
KEEP: Keep = "keep"


@dataclass(frozen=True, slots=True)
class KeypadJob:
    """One command of one keypad to run against the database.

    ``news``: the reply is not an answer the keypad waits for but news for it (a refresh after
    its link came back, a next round the TD has just released), so an unchanged one is not sent.
    ``retry``: a NextRound the gateway makes again on the keypad's behalf.
    """

    station: Station
    command: KeypadCommand
    number: int
    news: bool = False
    retry: bool = False


@dataclass(slots=True)
class Handled:
    """What a command did, committed: the reply to queue (None: none), the binding now, and the
    pushes for everyone else watching the table."""

    reply: Message | None
    binding: Binding | Keep | None = KEEP
    pushes: list[Delivery] = field(default_factory=list)

"""App-wide Textual messages."""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from .events import ClientEvent


@dataclass
class ClientNotice(Message):
    """Something changed in the client (link, round, refusal): the app routes it to the screens."""

    event: ClientEvent

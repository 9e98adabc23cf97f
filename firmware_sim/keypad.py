"""A keypad's main loop without I/O: the Device wired to its link endpoint through the codec."""

from __future__ import annotations

from typing import Protocol

from protocol.keypad_codec import CodecError, KeypadReply, decode, encode
from protocol.link import Delivered, LinkDown, LinkEvent, LinkUp, PeerRestarted
from protocol.messages import (
    Ack,
    ConflictRaised,
    DealAck,
    Error,
    Paired,
    ResultAck,
    ResultChanged,
    RoundChanged,
    RoundInfo,
    TableSettings,
)

from .device import Device, Key

_REPLIES = (
    Paired,
    RoundInfo,
    ResultAck,
    Ack,
    Error,
    ResultChanged,
    RoundChanged,
    ConflictRaised,
    TableSettings,
    DealAck,
)


class KeypadLink(Protocol):
    """The link endpoint a keypad uses: a protocol.link PointToPointLink or BusDevice."""

    def send(self, msg_type: int, payload: bytes = b"") -> None:
        """Queue a message."""

    def events(self) -> list[LinkEvent]:
        """Take the link's events."""

    def receive_bytes(self, data: bytes) -> None:
        """Feed received bytes."""

    def poll(self, now: float | None = None) -> bytes:
        """Bytes to write now."""

    def next_deadline(self) -> float | None:
        """When poll next has something to do."""

    @property
    def pending(self) -> int:
        """Messages queued or in flight."""


class Keypad:
    """What the firmware's loop does between reading and writing the UART."""

    def __init__(self, device: Device, link: KeypadLink) -> None:
        self.device = device
        self.link = link
        self.bad_messages = 0

    def boot(self) -> None:
        """Power on the device and queue what it sends first."""
        self.device.boot()
        self.pump()

    def press(self, key: Key | str) -> None:
        """A key press, with any command it produces queued on the link."""
        self.device.press(key)
        self.pump()

    def pump(self) -> float | None:
        """Hand link events to the device and its commands to the link (a NullModem hook)."""
        for event in self.link.events():
            if isinstance(event, Delivered):
                try:
                    message = decode(event.msg_type, event.payload)
                except CodecError:
                    self.bad_messages += 1
                    continue
                if isinstance(message, _REPLIES):
                    self.device.receive(_reply(message))
                else:
                    self.bad_messages += 1  # a command sent to a keypad: not for us
            elif isinstance(event, LinkUp | LinkDown):
                self.device.link_status(isinstance(event, LinkUp))
            elif isinstance(event, PeerRestarted):
                self.device.peer_restarted()
        for command in self.device.outgoing():
            self.link.send(*encode(command))
        return None


def _reply(message: object) -> KeypadReply:
    assert isinstance(message, _REPLIES)
    return message

"""One gateway port's link, sans I/O: a PointToPointLink, or a BusMaster for an RS-485 bus."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from protocol.framing import Decoder, Frame
from protocol.link import BusEvent, BusMaster, Clock, LinkConfig, PointToPointLink

log = logging.getLogger(__name__)


class SerialLine:
    """The link endpoint of one port, with one interface for both kinds of wiring.

    Point to point, the keypad's address is learnt from its first frame (or given, from the
    binding a restarted gateway reloads, so it can greet the keypad at once). If another keypad
    turns up on the cable, the link starts afresh for it.
    """

    def __init__(
        self,
        name: str,
        now: Clock,
        *,
        bus: Sequence[int] | None = None,
        address: int | None = None,
        config: LinkConfig | None = None,
    ) -> None:
        self.name = name
        self.config = config or LinkConfig()
        self._now = now
        self.bus = tuple(bus) if bus is not None else None
        self._master = BusMaster(self.bus, now, config=self.config) if self.bus else None
        self._link = None if self._master else self._new_link(address)
        self._sniffer = Decoder()
        self.swaps = 0

    def _new_link(self, address: int | None) -> PointToPointLink:
        return PointToPointLink(address, self._now, role="gateway", config=self.config)

    @property
    def is_bus(self) -> bool:
        """Whether this port is an RS-485 bus."""
        return self._master is not None

    @property
    def addresses(self) -> list[int]:
        """The keypads on this port (point to point: the one known so far, if any)."""
        if self._master is not None:
            return self._master.addresses
        assert self._link is not None
        return [] if self._link.address is None else [self._link.address]

    def receive_bytes(self, data: bytes) -> None:
        """Feed bytes read from the port."""
        if self._master is not None:
            self._master.receive_bytes(data)
            return
        assert self._link is not None
        known = self._link.address
        if known is not None:
            for item in self._sniffer.feed(data):
                if isinstance(item, Frame) and item.from_device and item.address != known:
                    log.warning(
                        "%s: keypad %d replaced keypad %d; new link", self.name, item.address, known
                    )
                    self.swaps += 1
                    self._link = self._new_link(None)
                    break
        self._link.receive_bytes(data)

    def poll(self, now: float | None = None) -> bytes:
        """The bytes to write to the port now."""
        endpoint = self._master or self._link
        assert endpoint is not None
        return endpoint.poll(now)

    def next_deadline(self) -> float | None:
        """When ``poll`` next has something to do."""
        endpoint = self._master or self._link
        assert endpoint is not None
        return endpoint.next_deadline()

    def send(self, address: int, msg_type: int, payload: bytes) -> bool:
        """Queue a message for the keypad at ``address``; False if it is not on this port."""
        if self._master is not None:
            if address not in self._master.addresses:
                return False
            self._master.send(address, msg_type, payload)
            return True
        assert self._link is not None
        if self._link.address is None:
            self._link.address = address  # a reloaded binding: greet that keypad
        if self._link.address != address:
            return False
        self._link.send(msg_type, payload)
        return True

    def events(self) -> list[BusEvent]:
        """The link events since the last call, each with its keypad's address."""
        if self._master is not None:
            return self._master.events()
        assert self._link is not None
        address = self._link.address
        return [BusEvent(address or 0, event) for event in self._link.events()]

    def pending(self, address: int) -> int:
        """Messages for ``address`` not yet acknowledged."""
        if self._master is not None:
            return self._master.pending(address)
        assert self._link is not None
        return self._link.pending if self._link.address == address else 0

"""Port specifications: ``URL`` (one keypad, point to point) or ``URL#1-8`` (an RS-485 bus).

A URL is anything pyserial's ``serial_for_url`` opens (``/dev/ttyUSB0``, ``loop://``,
``socket://host:port``, ``rfc2217://...``) or ``tcp-listen://host:port``, a TCP server that takes
one keypad connection at a time (pyserial's ``socket://`` only connects out). ``#`` never occurs
in pyserial URLs, so the bus addresses can follow it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from protocol.framing import MAX_ADDRESS


class PortSpecError(ValueError):
    """A port or address list that cannot be read."""


@dataclass(frozen=True, slots=True)
class PortSpec:
    """One port: its URL (also its name in the bindings) and, for a bus, the keypads to poll."""

    url: str
    bus: tuple[int, ...] | None = None

    def __str__(self) -> str:
        if self.bus is None:
            return self.url
        return f"{self.url}#{','.join(str(a) for a in self.bus)}"


def parse_addresses(text: str) -> tuple[int, ...]:
    """``"1-4,7"`` -> (1, 2, 3, 4, 7); addresses 1..127."""
    out: set[int] = set()
    for part in (p.strip() for p in text.split(",")):
        match = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
        if match is None:
            raise PortSpecError(f"{part!r} is not an address or a range like 1-8")
        low = int(match.group(1))
        high = int(match.group(2) or low)
        if not 1 <= low <= high <= MAX_ADDRESS:
            raise PortSpecError(f"{part!r}: addresses run from 1 to {MAX_ADDRESS}")
        out.update(range(low, high + 1))
    if not out:
        raise PortSpecError("no addresses given")
    return tuple(sorted(out))


def parse_port(text: str, default_bus: tuple[int, ...] | None = None) -> PortSpec:
    """A port spec; a port without its own ``#addresses`` gets ``default_bus``."""
    url, _, addresses = text.strip().partition("#")
    if not url:
        raise PortSpecError(f"{text!r} names no port")
    return PortSpec(url, parse_addresses(addresses) if addresses else default_bus)


def parse_ports(text: str, default_bus: tuple[int, ...] | None = None) -> list[PortSpec]:
    """Ports separated by white space or ``;`` (the TRAVELLER_GATEWAY_PORTS format)."""
    specs = [parse_port(p, default_bus) for p in re.split(r"[;\s]+", text) if p.strip()]
    urls = [s.url for s in specs]
    if len(set(urls)) != len(urls):
        raise PortSpecError("a port is listed twice")
    return specs

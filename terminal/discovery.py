"""Finding the server when no address is given or remembered: mDNS through protocol.discovery."""

from __future__ import annotations

import logging
from collections.abc import Sequence

log = logging.getLogger(__name__)


def discover(timeout: float = 3.0, *, interfaces: Sequence[str] | None = None) -> str | None:
    """The first Traveller server found on the LAN, or None (none found, or no zeroconf)."""
    if timeout <= 0:
        return None
    try:
        from protocol.discovery import find_servers  # noqa: PLC0415 (optional: zeroconf)
    except ImportError:  # zeroconf is not installed on this device
        log.info("mDNS discovery needs the zeroconf package")
        return None
    try:
        found = find_servers(timeout, interfaces=interfaces)
    except OSError as error:  # no network, or multicast not allowed
        log.info("mDNS discovery failed: %s", error)
        return None
    return found[0] if found else None

"""Finding a Traveller server on the LAN (mDNS/DNS-SD ``_traveller._tcp``): the client side.

The service type and its TXT keys (``scheme``, ``path``, ``protocol``) are part of the wire
contract, so browsing lives here, where every client (the terminal, the keypad gateway) may
import it; the server's advertising side is ``server.site.discovery``. Needs ``zeroconf``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence

from zeroconf import (
    InterfaceChoice,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceListener,
    Zeroconf,
)

SERVICE_TYPE = "_traveller._tcp.local."


def interface_choice(interfaces: Sequence[str] | None) -> InterfaceChoice | list[str]:
    """Every interface, or only the addresses given (e.g. ``["127.0.0.1"]`` in tests)."""
    return InterfaceChoice.All if interfaces is None else list(interfaces)


class _Collector(ServiceListener):
    def __init__(self) -> None:
        self.names: list[str] = []

    def add_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        if name not in self.names:
            self.names.append(name)

    def update_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        self.add_service(zc, type_, name)

    def remove_service(self, zc: Zeroconf, type_: str, name: str) -> None:
        if name in self.names:
            self.names.remove(name)


def _text(info: ServiceInfo, key: bytes, default: str) -> str:
    value = info.properties.get(key)
    return value.decode("utf-8", "replace") if value else default


def urls_of(info: ServiceInfo) -> Iterator[str]:
    """The base URLs (one per address) of a resolved service."""
    scheme = _text(info, b"scheme", "http")
    path = _text(info, b"path", "/").rstrip("/")
    for address in info.parsed_addresses(IPVersion.V4Only):
        yield f"{scheme}://{address}:{info.port}{path}"


def find_servers(timeout: float = 3.0, *, interfaces: Sequence[str] | None = None) -> list[str]:
    """Browse the LAN for ``timeout`` seconds; the base URLs of the Traveller servers found
    (e.g. ``["http://192.168.1.10:8000"]``), each server's addresses together, by name."""
    zc = Zeroconf(interfaces=interface_choice(interfaces), ip_version=IPVersion.V4Only)
    collector = _Collector()
    browser = ServiceBrowser(zc, SERVICE_TYPE, collector)
    try:
        time.sleep(timeout)
        urls: list[str] = []
        for name in sorted(collector.names):
            info = zc.get_service_info(SERVICE_TYPE, name, timeout=1000)
            if info is not None:
                urls += [u for u in urls_of(info) if u not in urls]
        return urls
    finally:
        browser.cancel()
        zc.close()

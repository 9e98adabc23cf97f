"""mDNS/DNS-SD: the server advertises ``_traveller._tcp`` and terminals find it by browsing.

Only zeroconf and the standard library are imported, so the module can move to a package the
terminal may import without changing.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from zeroconf import (
    InterfaceChoice,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceListener,
    Zeroconf,
)

SERVICE_TYPE = "_traveller._tcp.local."
WILDCARDS = ("", "0.0.0.0", "::")


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback and link-local."""
    import ifaddr

    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str):
                addr = ipaddress.IPv4Address(ip.ip)
                if not (addr.is_loopback or addr.is_link_local) and ip.ip not in found:
                    found.append(ip.ip)
    return found


@dataclass
class Advertisement:
    """A registered service; ``close()`` withdraws it (goodbye packets) and stops zeroconf."""

    zeroconf: Zeroconf
    info: ServiceInfo

    @property
    def name(self) -> str:
        return self.info.name

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.zeroconf.unregister_service(self.info)
        self.zeroconf.close()

    def __enter__(self) -> Advertisement:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _interfaces(interfaces: Sequence[str] | None) -> InterfaceChoice | list[str]:
    return InterfaceChoice.All if interfaces is None else list(interfaces)


def advertise(
    port: int,
    *,
    host: str = "0.0.0.0",
    name: str | None = None,
    scheme: str = "http",
    path: str = "/",
    interfaces: Sequence[str] | None = None,
) -> Advertisement:
    """Announce a server listening on ``host:port``. A wildcard host announces every LAN
    address; ``interfaces`` limits where the announcements go (e.g. ``["127.0.0.1"]``)."""
    addresses = (lan_addresses() or ["127.0.0.1"]) if host in WILDCARDS else [host]
    if interfaces is None and host not in WILDCARDS:
        interfaces = [host]
    hostname = socket.gethostname().split(".")[0] or "traveller"
    label = name or f"Traveller on {hostname}"
    info = ServiceInfo(
        SERVICE_TYPE,
        f"{label}.{SERVICE_TYPE}",
        addresses=[socket.inet_aton(a) for a in addresses],
        port=port,
        properties={"path": path, "scheme": scheme, "protocol": "1"},
        server=f"{hostname}.local.",
    )
    zc = Zeroconf(interfaces=_interfaces(interfaces), ip_version=IPVersion.V4Only)
    try:
        zc.register_service(info, allow_name_change=True)
    except BaseException:
        zc.close()
        raise
    return Advertisement(zc, info)


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
    zc = Zeroconf(interfaces=_interfaces(interfaces), ip_version=IPVersion.V4Only)
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

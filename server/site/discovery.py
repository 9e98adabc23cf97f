"""mDNS/DNS-SD: the server advertises ``_traveller._tcp`` and terminals find it by browsing.

Browsing (``find_servers``, ``urls_of``, ``SERVICE_TYPE``) lives in ``protocol.discovery``, which
the terminal may import; it is re-exported here.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from collections.abc import Sequence
from dataclasses import dataclass

import ifaddr
from zeroconf import InterfaceChoice, IPVersion, ServiceInfo, Zeroconf

from protocol.discovery import SERVICE_TYPE, find_servers, urls_of

__all__ = ["SERVICE_TYPE", "Advertisement", "advertise", "find_servers", "lan_addresses", "urls_of"]

WILDCARDS = ("", "0.0.0.0", "::")


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback and link-local."""
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

"""Limits against guessing and flooding: failed TD logins (API and web login page), pairing
codes and Data Connector credentials per address and overall, open table websockets per
address. In memory, per server process (with N workers each counts alone). A terminal's wrong
E/W PINs and TD codes are counted on its token's row instead (server/limits/guesses.py).

Guessing is held by ``GuessLimiter``: an exponential back-off per address, and an overall
one for everyone, which never holds an address that has succeeded before nor one that has made
(almost) no mistakes (so the real TD, or the TD's new device, is not locked out by somebody
else's flood). Use from a route: ``with attempt(request, "pairing"): ...`` refuses (429
``rate_limited``) while the address must wait, and counts a failure when the block raises
UnauthorizedError or NotFoundError (a wrong password, an unknown code).
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from server.core.errors import NotFoundError, TravellerError, UnauthorizedError


class _Client(Protocol):
    @property
    def host(self) -> str: ...


class HTTPConnection(Protocol):
    """What the limits read of a request or websocket (starlette's HTTPConnection has it):
    the peer and the app. A protocol, so this module needs no web framework (the services use
    its windows)."""

    @property
    def client(self) -> _Client | None: ...

    @property
    def app(self) -> Any: ...


#: The app whose ``state`` keeps the limiters (a starlette or FastAPI app).
ASGIApp = Any

MAX_KEYS = 10_000  # addresses remembered per window; the oldest are forgotten first


class RateLimitedError(TravellerError):
    status = 429


class BackOff:
    """An exponential back-off per key: after ``free`` failures each new one doubles the wait
    (``base`` seconds, at most ``cap``), counted from the latest failure. A key's failures are
    forgotten after ``memory`` seconds without one; at most ``capacity`` keys are remembered
    (the longest quiet ones are forgotten first)."""

    def __init__(
        self,
        free: int,
        *,
        base: float = 30.0,
        cap: float = 900.0,
        memory: float = 86_400.0,
        capacity: int = 65_536,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free = free
        self.base = base
        self.cap = cap
        self.memory = memory
        self.capacity = capacity
        self.clock = clock
        self._keys: OrderedDict[str, tuple[int, float]] = OrderedDict()  # (failures, latest)

    def failures(self, key: str, now: float | None = None) -> int:
        """Failures of ``key`` still remembered."""
        now = self.clock() if now is None else now
        found = self._keys.get(key)
        if found is None or now - found[1] >= self.memory:
            return 0
        return found[0]

    def wait(self, key: str, now: float | None = None) -> float:
        """Seconds until ``key`` may try again; 0 when it may now."""
        now = self.clock() if now is None else now
        failures = self.failures(key, now)
        if failures < self.free:
            return 0.0
        found = self._keys[key]
        doublings = min(failures - self.free, 64)  # 2.0 ** 1024 would overflow
        hold = min(self.base * 2.0**doublings, self.cap)
        return max(0.0, found[1] + hold - now)

    def hit(self, key: str, now: float | None = None) -> None:
        now = self.clock() if now is None else now
        self._keys[key] = (self.failures(key, now) + 1, now)
        self._keys.move_to_end(key)
        while len(self._keys) > self.capacity:
            self._keys.popitem(last=False)
        self._prune(now)

    def _prune(self, now: float) -> None:
        """Drop the keys quiet for longer than ``memory`` (the oldest come first)."""
        while self._keys:
            oldest = next(iter(self._keys.values()))
            if now - oldest[1] < self.memory:
                return
            self._keys.popitem(last=False)

    def forget(self, key: str) -> None:
        self._keys.pop(key, None)

    def full(self, now: float | None = None) -> bool:
        """As many keys as it can remember (a flood from more addresses than that)."""
        self._prune(self.clock() if now is None else now)
        return len(self._keys) >= self.capacity


class GuessLimiter:
    """Failed guesses at one secret (the TD password, the pairing codes, the Data Connector's
    licence): each address backs off exponentially on its own, and everyone together backs
    off once ``overall`` failures have been made, so a slow guess from many addresses stops
    too.

    The overall back-off does not hold an address that has succeeded before (the TD's laptop,
    a paired terminal), nor one with fewer than ``exempt_below`` failures of its own: one
    address, or seven, flooding wrong guesses never locks the real TD (or the TD's new device,
    keying a right code) out from another address. Each fresh address thus brings
    ``exempt_below`` guesses past an overall hold; as addresses are remembered for a day that
    bounds a flood by the addresses it has, and if it has more than the limiter remembers the
    exemption is off until they are forgotten."""

    EVERYONE = "*"

    def __init__(
        self,
        per_client: int = 5,
        overall: int = 100,
        *,
        exempt_below: int = 2,
        cap: float = 900.0,
        memory: float = 86_400.0,
        capacity: int = 65_536,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.exempt_below = exempt_below
        self._client = BackOff(per_client, cap=cap, memory=memory, capacity=capacity, clock=clock)
        self._all = BackOff(overall, cap=cap, memory=memory, clock=clock)
        self._trusted = BackOff(1, memory=memory, capacity=capacity, clock=clock)

    def retry_after(self, client: str, now: float | None = None) -> int:
        """Whole seconds ``client`` waits before another attempt is heard (0: go ahead)."""
        wait = self._client.wait(client, now)
        if not self._exempt(client, now):
            wait = max(wait, self._all.wait(self.EVERYONE, now))
        return math.ceil(wait) if wait > 0 else 0

    def _exempt(self, client: str, now: float | None) -> bool:
        if self._trusted.failures(client, now):
            return True
        fresh = self._client.failures(client, now) < self.exempt_below
        return fresh and not self._client.full(now)

    def failed(self, client: str, now: float | None = None) -> None:
        self._client.hit(client, now)
        self._all.hit(self.EVERYONE, now)

    def succeeded(self, client: str, now: float | None = None) -> None:
        """A right guess wipes the address's mistakes and exempts it from the overall hold."""
        self._client.forget(client)
        self._trusted.hit(client, now)


class LoginLimiter(GuessLimiter):
    """Wrong TD passwords (the API's login and the web login page share one): five free per
    address, then 30 s, 1 min, 2 min ... up to 15 min; after 100 from everyone, addresses with
    wrong passwords of their own wait on the overall back-off too."""


def login_limiter(app: ASGIApp) -> LoginLimiter:
    """The app's one limiter of TD logins (the web login page and ``/api/v1/td/login``)."""
    state = app.state
    found: LoginLimiter | None = getattr(state, "traveller_logins", None)
    if found is None:
        found = LoginLimiter()
        state.traveller_logins = found
    return found


class ConnectionCap:
    """At most ``per_key`` open connections for each key (0: no cap)."""

    def __init__(self, per_key: int) -> None:
        self.per_key = per_key
        self.open: dict[str, int] = {}

    def acquire(self, key: str) -> bool:
        if self.per_key and self.open.get(key, 0) >= self.per_key:
            return False
        self.open[key] = self.open.get(key, 0) + 1
        return True

    def release(self, key: str) -> None:
        left = self.open.get(key, 0) - 1
        if left > 0:
            self.open[key] = left
        else:
            self.open.pop(key, None)


@dataclass
class Guards:
    """The limits of one app (kept on app.state)."""

    sockets_per_address: int = 128
    #: Unknown pairing codes: five free per address, then exponential; 100 overall.
    pairing: GuessLimiter = field(default_factory=GuessLimiter)
    #: Wrong Data Connector club ids or licence keys (a scoring program, not a person: it may
    #: retry its stored credentials a few times after the TD mistyped them).
    data_connector: GuessLimiter = field(default_factory=lambda: GuessLimiter(10, 100))
    sockets: ConnectionCap = field(init=False)

    def __post_init__(self) -> None:
        self.sockets = ConnectionCap(self.sockets_per_address)


def guards(app: ASGIApp) -> Guards:
    """The app's guards, created on first use (the socket cap from the app's settings)."""
    state = app.state
    found: Guards | None = getattr(state, "traveller_guards", None)
    if found is None:
        settings = getattr(getattr(state, "runtime", None), "settings", None)
        found = Guards(getattr(settings, "max_sockets_per_address", 128))
        state.traveller_guards = found
    return found


def address(conn: HTTPConnection) -> str:
    """The peer's address (behind a reverse proxy, run uvicorn with --proxy-headers)."""
    return conn.client.host if conn.client else "unknown"


def guesser(conn: HTTPConnection) -> str:
    """Who is guessing: the peer's IPv4 address, or its IPv6 /64 (a device picks any address
    of its network's /64 at will, so counting each would give it 2**64 fresh starts)."""
    host = address(conn)
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.ip_network(f"{ip}/64", strict=False))
    return str(ip)


@contextmanager
def attempt(conn: HTTPConnection, kind: str) -> Iterator[None]:
    """Refuse while the caller must wait after its (or everyone's) failed ``kind`` guesses
    (``td_login``, ``pairing``); count a new failure, or clear the caller's on success."""
    with guessing(conn, limiter_of(conn.app, kind)):
        yield


def limiter_of(app: ASGIApp, kind: str) -> GuessLimiter:
    if kind == "td_login":
        return login_limiter(app)
    found: GuessLimiter = getattr(guards(app), kind)
    return found


@contextmanager
def guessing(conn: HTTPConnection, limiter: GuessLimiter) -> Iterator[None]:
    """``attempt`` with a limiter in hand."""
    key = guesser(conn)
    wait = limiter.retry_after(key)
    if wait:
        raise RateLimitedError(
            "rate_limited",
            "Too many failed attempts from this device: try again in {wait} s.",
            wait=wait,
        )
    try:
        yield
    except (UnauthorizedError, NotFoundError):
        limiter.failed(key)
        raise
    limiter.succeeded(key)

"""Limits against guessing and flooding: failed TD logins (API and web login page) and pairing
codes per address, wrong E/W PINs per terminal, open table websockets per address. In memory,
per server process (with N workers each counts alone).

Use from a route: ``with attempt(request, "td_login"): ...`` refuses (429 ``rate_limited``)
while the address has too many recent failures, and counts a failure when the block raises
UnauthorizedError or NotFoundError (a wrong password, an unknown code).
"""

from __future__ import annotations

import hashlib
import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from starlette.requests import HTTPConnection
from starlette.types import ASGIApp

from server.errors import ForbiddenError, NotFoundError, TravellerError, UnauthorizedError

#: Failures allowed per address per window, by what is being guessed.
WINDOWS: dict[str, tuple[int, float]] = {
    "td_login": (10, 60.0),  # ten wrong passwords a minute
    "pairing": (20, 60.0),  # twenty unknown codes a minute: 10^6 codes take weeks
}
MAX_KEYS = 10_000  # addresses remembered per window; the oldest are forgotten first


class RateLimitedError(TravellerError):
    status = 429


class SlidingWindow:
    """At most ``limit`` events per ``window`` seconds for each key."""

    def __init__(
        self, limit: int, window: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self._events: OrderedDict[str, deque[float]] = OrderedDict()

    def _recent(self, key: str, now: float) -> deque[float]:
        events = self._events.get(key)
        if events is None:
            return deque()
        cutoff = now - self.window
        while events and events[0] <= cutoff:
            events.popleft()
        return events

    def wait(self, key: str, now: float | None = None) -> float:
        """Seconds until ``key`` may try again; 0 when it may now (``now``: the clock's)."""
        now = self.clock() if now is None else now
        events = self._recent(key, now)
        if len(events) < self.limit:
            return 0.0
        return max(0.0, events[0] + self.window - now)

    def hit(self, key: str, now: float | None = None) -> None:
        now = self.clock() if now is None else now
        events = self._recent(key, now)
        events.append(now)
        self._events[key] = events
        self._events.move_to_end(key)
        while len(self._events) > MAX_KEYS:
            self._events.popitem(last=False)

    def forget(self, key: str) -> None:
        """Clear ``key``'s events (a right password wipes its earlier mistakes)."""
        self._events.pop(key, None)


class LoginLimiter:
    """Wrong TD passwords at the web login: at most ``per_client`` a window from one address
    and ``overall`` from everyone (a slow brute force from many addresses also stops)."""

    EVERYONE = "*"

    def __init__(
        self,
        per_client: int = 5,
        overall: int = 30,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = SlidingWindow(per_client, window, clock)
        self._all = SlidingWindow(overall, window, clock)

    def retry_after(self, client: str, now: float | None = None) -> int:
        """Whole seconds to wait before another attempt is heard (0: go ahead)."""
        wait = max(self._client.wait(client, now), self._all.wait(self.EVERYONE, now))
        return int(wait) + 1 if wait > 0 else 0

    def failed(self, client: str, now: float | None = None) -> None:
        self._client.hit(client, now)
        self._all.hit(self.EVERYONE, now)

    def succeeded(self, client: str) -> None:
        self._client.forget(client)


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
    windows: dict[str, SlidingWindow] = field(
        default_factory=lambda: {k: SlidingWindow(*v) for k, v in WINDOWS.items()}
    )
    sockets: ConnectionCap = field(init=False)

    def __post_init__(self) -> None:
        self.sockets = ConnectionCap(self.sockets_per_address)


def guards(app: ASGIApp) -> Guards:
    """The app's guards, created on first use (the socket cap from the app's settings)."""
    state = app.state  # type: ignore[attr-defined]
    found: Guards | None = getattr(state, "traveller_guards", None)
    if found is None:
        settings = getattr(getattr(state, "runtime", None), "settings", None)
        found = Guards(getattr(settings, "max_sockets_per_address", 128))
        state.traveller_guards = found
    return found


def address(conn: HTTPConnection) -> str:
    """The peer's address (behind a reverse proxy, run uvicorn with --proxy-headers)."""
    return conn.client.host if conn.client else "unknown"


#: Wrong E/W PINs per table token: five in five minutes, then the table calls the TD.
PIN_GUESSES = SlidingWindow(5, 300.0)


@contextmanager
def pin_guesses(token: str) -> Iterator[None]:
    """Refuse confirmations from a terminal that keyed too many wrong PINs (a four-digit PIN
    would otherwise fall to a script in minutes); count each new wrong PIN."""
    key = hashlib.sha256(token.encode()).hexdigest()
    wait = PIN_GUESSES.wait(key)
    if wait:
        raise RateLimitedError(
            "pin_locked",
            f"Too many wrong PINs at this table: call the TD (or wait {math.ceil(wait)} s).",
        )
    try:
        yield
    except ForbiddenError as exc:
        if exc.code == "pin_wrong":
            PIN_GUESSES.hit(key)
        raise


@contextmanager
def attempt(conn: HTTPConnection, kind: str) -> Iterator[None]:
    """Refuse while ``address`` has too many recent ``kind`` failures; count new failures."""
    window = guards(conn.app).windows[kind]
    key = address(conn)
    wait = window.wait(key)
    if wait:
        raise RateLimitedError(
            "rate_limited",
            f"Too many failed attempts from this device: try again in {math.ceil(wait)} s.",
        )
    try:
        yield
    except (UnauthorizedError, NotFoundError):
        window.hit(key)
        raise

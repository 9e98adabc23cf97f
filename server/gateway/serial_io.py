"""Real ports: opened by URL, read in a thread each, reopened with backoff when they vanish.

A USB-serial adapter pulled out makes reads fail (``SerialException``) or its device file go
away; the worker logs it, closes the port and tries to open it again, 0.5 s then doubling up to
5 s, until the adapter is back. The link above never notices more than a pulled cable.
"""

from __future__ import annotations

import logging
import os
import select
import socket
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

log = logging.getLogger(__name__)

LISTEN_SCHEME = "tcp-listen://"
READ_TIMEOUT = 0.05  # longest a read blocks: how soon a stop or a vanished file is noticed
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 5.0


class SerialLike(Protocol):
    """What the worker needs of a port (pyserial's Serial, or TcpListenPort)."""

    @property
    def in_waiting(self) -> int:
        """Bytes that can be read without waiting."""

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes; waits at most the read timeout for the first."""

    def write(self, data: bytes) -> int | None:
        """Write bytes."""

    def close(self) -> None:
        """Release the port."""


class PortLostError(OSError):
    """The port went away (cable, adapter or peer)."""


class TcpListenPort:
    """``tcp-listen://host:port``: a TCP server taking one keypad connection at a time.

    pyserial's ``socket://`` only connects out, and a simulated keypad (``traveller keypad-sim
    --port socket://...``) connects out too, so the gateway listens. A client that disconnects
    is like a cable pulled: the next one is taken in its place.
    """

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.hostname is None or parts.port is None:
            raise ValueError(f"{url!r}: expected {LISTEN_SCHEME}host:port")
        self.url = url
        self._server = socket.create_server((parts.hostname, parts.port), reuse_port=False)
        self._server.setblocking(False)
        self._client: socket.socket | None = None

    @property
    def address(self) -> tuple[str, int]:
        """Where it listens (the port is known after binding port 0)."""
        host, port = self._server.getsockname()[:2]
        return str(host), int(port)

    @property
    def in_waiting(self) -> int:
        return 0

    def read(self, size: int = 1) -> bytes:
        sock = self._client or self._server
        ready, _, _ = select.select([sock], [], [], READ_TIMEOUT)
        if not ready:
            return b""
        if self._client is None:
            client, peer = self._server.accept()
            client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            log.info("%s: keypad connected from %s:%s", self.url, *peer[:2])
            self._client = client
            return b""
        try:
            data = self._client.recv(max(size, 4096))
        except OSError:
            data = b""
        if not data:
            log.warning("%s: keypad disconnected", self.url)
            self._client.close()
            self._client = None
        return data

    def write(self, data: bytes) -> int | None:
        client = self._client
        if client is None:
            return 0  # nobody on the line: the bytes are lost, as on a pulled cable
        try:
            client.sendall(data)
        except OSError:
            return 0
        return len(data)

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        self._server.close()


def check_pyserial(urls: list[str]) -> None:
    """Refuse to start without pyserial when a port needs it (say so, rather than retry)."""
    if all(url.startswith(LISTEN_SCHEME) for url in urls):
        return
    try:
        import serial  # noqa: F401, PLC0415 (optional: pyserial is the keypad extra)
    except ImportError as exc:
        raise RuntimeError(
            "the keypad gateway needs pyserial: pip install 'traveller[keypad]'"
        ) from exc


def open_port(url: str, baud: int) -> SerialLike:
    """Open a port by URL: ``tcp-listen://`` here, anything else through pyserial."""
    if url.startswith(LISTEN_SCHEME):
        return TcpListenPort(url)
    import serial  # noqa: PLC0415 (optional: pyserial is the keypad extra)

    options: dict[str, Any] = {"baudrate": baud, "timeout": READ_TIMEOUT, "write_timeout": 2.0}
    if "://" not in url:
        options["exclusive"] = True  # a second gateway (another worker) waits its turn
    port: SerialLike = serial.serial_for_url(url, **options)
    return port


def _device_id(url: str) -> tuple[int, int] | None:
    """The device a path names now (None: gone, or not a path); a replugged adapter differs."""
    if "://" in url:
        return None
    try:
        st = os.stat(url)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if not st.st_rdev else (st.st_rdev, st.st_ino)


class PortWorker:
    """Owns one port in a thread: opens it, reads it, reopens it after it vanished."""

    def __init__(
        self,
        url: str,
        on_bytes: Callable[[bytes], None],
        *,
        baud: int = 9600,
        on_state: Callable[[bool], None] | None = None,
        opener: Callable[[str, int], SerialLike] = open_port,
    ) -> None:
        self.url = url
        self.baud = baud
        self.on_bytes = on_bytes
        self.on_state = on_state
        self.opener = opener
        self.port: SerialLike | None = None
        self.opens = 0
        self.losses = 0
        self._broken = False
        self._failing = False
        self._device: tuple[int, int] | None = None
        self._checked = 0.0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, name=f"gateway {url}", daemon=True)

    @property
    def is_open(self) -> bool:
        """Whether the port is open now."""
        return self.port is not None

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self._close()

    def write(self, data: bytes) -> bool:
        """Write now (from any thread); False when the port is closed (the bytes are lost)."""
        with self._lock:
            port = self.port
            if port is None or self._broken:
                return False
            try:
                port.write(data)
            except Exception as exc:  # SerialException, OSError, SerialTimeoutException
                log.warning("%s: write failed: %s", self.url, exc)
                self._broken = True
                return False
        return True

    def _run(self) -> None:
        delay = BACKOFF_FIRST
        while not self._stop.is_set():
            if self.port is None:
                if self._open():
                    delay = BACKOFF_FIRST
                else:
                    self._stop.wait(delay)
                    delay = min(delay * 2, BACKOFF_MAX)
                continue
            try:
                data = self._read()
            except Exception as exc:
                self._lost(str(exc) or type(exc).__name__)
                continue
            if data:
                self.on_bytes(data)

    def _open(self) -> bool:
        try:
            port = self.opener(self.url, self.baud)
        except Exception as exc:
            # Said once (the adapter is not plugged in, say), then quietly retried.
            level = logging.DEBUG if self._failing else logging.WARNING
            log.log(level, "%s: cannot open (%s); trying again with backoff", self.url, exc)
            self._failing = True
            return False
        self._failing = False
        with self._lock:
            self.port, self._broken = port, False
        self.opens += 1
        self._device = _device_id(self.url)
        self._checked = time.monotonic()
        log.info("%s: port open%s", self.url, " again" if self.opens > 1 else "")
        if self.on_state is not None:
            self.on_state(True)
        return True

    def _read(self) -> bytes:
        port = self.port
        assert port is not None
        if self._broken:
            raise PortLostError("write failed")
        now = time.monotonic()
        if self._device is not None and now - self._checked >= 0.5:
            self._checked = now
            if _device_id(self.url) != self._device:
                raise PortLostError("device file gone or replaced")
        data = port.read(1)
        if data:
            waiting = port.in_waiting
            if waiting:
                data += port.read(waiting)
        return data

    def _lost(self, why: str) -> None:
        self.losses += 1
        log.warning("%s: port lost (%s); reopening with backoff", self.url, why)
        self._close()
        if self.on_state is not None:
            self.on_state(False)

    def _close(self) -> None:
        with self._lock:
            port, self.port = self.port, None
        if port is not None:
            try:
                port.close()
            except Exception as exc:
                log.debug("%s: close: %s", self.url, exc)

"""The fence around uvicorn's private API: ``GuardedHttp`` (server/limits/http_limits.py)
subclasses uvicorn's HTTP protocol classes, which are not a public interface. pyproject.toml pins
uvicorn to the range these tests were run with; an uvicorn outside it, or one whose protocols
lost what ``GuardedHttp`` uses, fails here with a message naming what changed, before a slow-loris
test (tests/security/test_floods.py) fails somewhere less clear."""

from __future__ import annotations

import asyncio
import importlib.metadata
import inspect
import tomllib
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from packaging.requirements import Requirement
from packaging.version import Version
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState

from server.core.config import Settings
from server.limits import http_limits
from server.limits.http_limits import GuardedHttp, uvicorn_options

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
WHERE = "GuardedHttp (server/limits/http_limits.py) relies on uvicorn's private protocol classes"
#: What GuardedHttp overrides and calls up to.
METHODS = ("connection_made", "data_received", "on_response_complete", "connection_lost")
#: What GuardedHttp reads on the protocol once the connection is made.
ATTRIBUTES = ("config", "loop", "server_state", "transport", "client", "cycle")
#: What GuardedHttp reads on the protocol's config.
CONFIG_ATTRIBUTES = ("proxy_headers", "forwarded_allow_ips")


def _protocols() -> list[type[asyncio.Protocol]]:
    found: list[type[asyncio.Protocol]] = [H11Protocol]
    try:
        from uvicorn.protocols.http.httptools_impl import (  # noqa: PLC0415 - optional
            HttpToolsProtocol,
        )
    except ImportError:  # httptools is in uvicorn[standard], but h11 alone serves too
        return found
    return [*found, HttpToolsProtocol]


def _uvicorn_requirement() -> Requirement:
    extras = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    for line in extras["optional-dependencies"]["server"]:
        requirement = Requirement(line)
        if requirement.name == "uvicorn":
            return requirement
    raise AssertionError("pyproject.toml's server extra names no uvicorn")


class FakeTransport(asyncio.Transport):
    """Enough of a socket transport for a protocol: records what is written."""

    def __init__(self, protocol: asyncio.BaseProtocol | None = None) -> None:
        super().__init__()
        self.protocol = protocol
        self.written = bytearray()
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("192.0.2.7", 40000), "sockname": ("127.0.0.1", 8000)}.get(
            name, default
        )

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self.written += bytes(data)

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_protocol(self) -> asyncio.BaseProtocol:
        assert self.protocol is not None
        return self.protocol

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.protocol = protocol

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _hello(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"hi"})


def _config() -> uvicorn.Config:
    options = uvicorn_options(Settings())
    config = uvicorn.Config(app=_hello, lifespan="off", log_level="warning", **options)
    config.load()
    return config


def test_the_installed_uvicorn_is_in_the_pinned_range() -> None:
    requirement = _uvicorn_requirement()
    assert any(spec.operator == "<" for spec in requirement.specifier), (
        f"pyproject.toml: {requirement} has no upper bound; {WHERE}, so pin the range tested"
    )
    installed = Version(importlib.metadata.version("uvicorn"))
    assert requirement.specifier.contains(installed, prereleases=True), (
        f"uvicorn {installed} is outside pyproject.toml's {requirement}: {WHERE}. "
        "Run tests/security (test_floods.py, this file) with it, then widen the pin."
    )


def test_uvicorn_config_takes_the_options_we_pass() -> None:
    accepted = inspect.signature(uvicorn.Config).parameters
    unknown = sorted(set(uvicorn_options(Settings())) - set(accepted))
    assert not unknown, f"uvicorn {uvicorn.__version__}'s Config no longer takes {unknown}"


@pytest.mark.parametrize("base", _protocols(), ids=lambda base: base.__name__)
async def test_each_uvicorn_protocol_still_has_what_guarded_http_uses(
    base: type[asyncio.Protocol],
) -> None:
    missing = [name for name in METHODS if not callable(getattr(base, name, None))]
    assert not missing, f"uvicorn {uvicorn.__version__}: {base.__name__} lost {missing}; {WHERE}"
    config = _config()
    missing = [name for name in CONFIG_ATTRIBUTES if not hasattr(config, name)]
    assert not missing, f"uvicorn {uvicorn.__version__}: Config lost {missing}; {WHERE}"
    protocol: Any = base(config=config, server_state=ServerState(), app_state={})  # type: ignore[call-arg]
    transport = FakeTransport(protocol)
    protocol.connection_made(transport)
    missing = [name for name in ATTRIBUTES if not hasattr(protocol, name)]
    assert not missing, (
        f"uvicorn {uvicorn.__version__}: a connected {base.__name__} has no {missing}; {WHERE}"
    )
    assert protocol.client == ("192.0.2.7", 40000)
    protocol.connection_lost(None)


async def test_guarded_http_times_a_request_head_and_lets_a_complete_one_run() -> None:
    """The behaviour GuardedHttp builds on uvicorn's internals: a new connection waits with a
    timer, a complete request head gets a new ``cycle`` (the request runs, the timer stops),
    and the completed response puts the connection back to waiting."""
    http_limits.uvicorn_options(Settings())
    protocol = GuardedHttp(config=_config(), server_state=ServerState(), app_state={})
    transport = FakeTransport(protocol)
    protocol.connection_made(transport)
    assert protocol._timer is not None, f"{WHERE}: no header timer after connection_made"
    protocol.data_received(b"GET / HTTP/1.1\r\nHost: x\r\n")
    assert protocol._timer is not None, f"{WHERE}: half a request head stopped the timer"
    protocol.data_received(b"\r\n")
    assert protocol._timer is None, (
        f"uvicorn {uvicorn.__version__}: a complete request head did not start a new cycle "
        f"(GuardedHttp watches `cycle`); {WHERE}"
    )
    for _ in range(50):
        await asyncio.sleep(0.01)
        if transport.written.endswith(b"hi"):
            break
    assert transport.written.startswith(b"HTTP/1.1 200"), transport.written
    assert protocol._timer is not None, (
        f"uvicorn {uvicorn.__version__}: on_response_complete did not run after the response "
        f"(GuardedHttp waits for the next request there); {WHERE}"
    )
    protocol.connection_lost(None)
    assert protocol._timer is None

"""`traveller terminal` with no --server: the remembered server, else one found by mDNS."""

from __future__ import annotations

import builtins
import socket
from pathlib import Path

import pytest

from terminal import cli, discovery
from terminal.config import ConfigStore, TerminalConfig


def test_a_given_or_remembered_server_is_used_without_looking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*_: object, **__: object) -> str:
        raise AssertionError("no discovery expected")

    monkeypatch.setattr(discovery, "discover", never)
    assert cli.find_server("http://given:8000", tmp_path, 3.0) == "http://given:8000"
    ConfigStore(tmp_path).save(TerminalConfig(server="http://remembered:8000"))
    assert cli.find_server("", tmp_path, 3.0) == ""  # the client reads the remembered one


def test_a_server_found_on_the_lan_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(discovery, "discover", lambda timeout: "http://192.0.2.7:8000")
    assert cli.find_server("", tmp_path, 1.0) == "http://192.0.2.7:8000"
    assert "Found http://192.0.2.7:8000" in capsys.readouterr().err
    monkeypatch.setattr(discovery, "discover", lambda timeout: None)
    assert cli.find_server("", tmp_path, 1.0) == ""
    assert cli.find_server("", tmp_path, 0) == ""


def test_without_zeroconf_discovery_finds_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_zeroconf(name: str, *args: object, **kw: object) -> object:
        if name == "protocol.discovery" or name.startswith("zeroconf"):
            raise ImportError(name)
        return real_import(name, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_zeroconf)
    assert discovery.discover(0.1) is None


def test_a_server_advertised_on_loopback_is_found() -> None:
    """The server's advertisement (server.site.discovery) and the terminal's browse agree."""
    advertise = pytest.importorskip("server.site.discovery").advertise
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with advertise(port, host="127.0.0.1", name=f"Terminal test {port}"):
        found = discovery.discover(2.0, interfaces=["127.0.0.1"])
    assert found is not None
    assert found.startswith("http://127.0.0.1:")

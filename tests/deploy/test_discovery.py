"""mDNS/DNS-SD on loopback: a server advertises `_traveller._tcp`, a terminal finds its URL."""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner
from zeroconf import ServiceInfo

from server.ops.doctor_cli import app as doctor_app
from server.site.discovery import SERVICE_TYPE, advertise, find_servers, urls_of
from tests.support.env import TD_PASSWORD
from tests.support.net import free_port
from tests.support.processes import ServerProcess, start_server

LOOPBACK = ["127.0.0.1"]
WITHIN = 20.0  # seconds of browsing again before a test gives up (never a timing assertion)


def browse_until(seen: Callable[[list[str]], bool], listen: float = 1.5) -> list[str]:
    """Browse loopback for ``listen`` seconds at a time until ``seen`` holds of the URLs found,
    for at most WITHIN seconds; the last URLs found. On a busy machine (a full parallel suite)
    the first answer, or the resolution of a name, can come after one browse has ended."""
    deadline = time.monotonic() + WITHIN
    while True:
        found = find_servers(listen, interfaces=LOOPBACK)
        if seen(found) or time.monotonic() > deadline:
            return found


def test_find_a_server_advertised_by_another_process(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """`traveller serve --mdns` in its own process; find_servers() returns a URL that works."""
    port = free_port()
    serve = "import typer; from server.ops.deploy_cli import serve; typer.run(serve)"
    server = start_server(
        ["-c", serve, "--host", "127.0.0.1", "--port", str(port), "--mdns"],
        tmp_path,
        {
            "TRAVELLER_TD_PASSWORD": TD_PASSWORD,
            "TRAVELLER_DATABASE_URL": f"sqlite:///{tmp_path / 'club.db'}",
        },
        port=port,
    )
    servers.append(server)
    server.wait_ready()
    found = browse_until(lambda urls: any(u.endswith(f":{port}") for u in urls))
    mine = [u for u in found if u.endswith(f":{port}")]
    assert mine == [f"http://127.0.0.1:{port}"], (found, server.output())
    assert "advertised by mDNS" in server.output()
    # The URL found is the server's: it answers its health check.
    assert ServerProcess(mine[0], server.proc, server.log).health()["status"] == "ok"


def test_advertise_in_process_and_withdraw() -> None:
    port = free_port()
    with advertise(port, host="127.0.0.1", name="Monday club", scheme="https") as ad:
        assert ad.name == f"Monday club.{SERVICE_TYPE}"
        url = f"https://127.0.0.1:{port}"
        found = browse_until(lambda urls: url in urls)
        assert url in found
    # After the goodbye packets the service is gone for a new browser.
    assert url not in find_servers(1.0, interfaces=LOOPBACK)


def test_urls_from_the_txt_record() -> None:
    info = ServiceInfo(
        SERVICE_TYPE,
        f"x.{SERVICE_TYPE}",
        addresses=[socket.inet_aton("192.0.2.7"), socket.inet_aton("198.51.100.3")],
        port=8443,
        properties={"scheme": "https", "path": "/club/"},
    )
    assert list(urls_of(info)) == [
        "https://192.0.2.7:8443/club",
        "https://198.51.100.3:8443/club",
    ]


def test_discover_command_prints_the_url() -> None:
    port = free_port()
    runner = CliRunner()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + WITHIN
    with advertise(port, host="127.0.0.1", name="Discover me"):
        while True:  # the command browses once; on a busy machine, run it again (see above)
            out = runner.invoke(
                doctor_app, ["discover", "--timeout", "1.5", "--interface", "127.0.0.1"]
            )
            if url in out.output.splitlines() or time.monotonic() > deadline:
                break
    assert out.exit_code == 0, out.output
    assert url in out.output.splitlines()

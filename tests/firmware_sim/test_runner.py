"""The runner on real pyserial ports: a pty pair with the fake gateway on the other end, loop://."""

from __future__ import annotations

import os
import select
import sys
import threading
import time
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from firmware_sim.cli import app
from firmware_sim.device import Device, Screen
from firmware_sim.fake_gateway import FakeGateway, FakeTables
from firmware_sim.runner import parse_script, render, run, typed_keys
from protocol.link import PointToPointLink


def test_parse_script() -> None:
    lines = ["; pair, then seats OK", "0003 ENT", "1 wait=0.5 enter back Up dn * #"]
    assert list(parse_script(lines)) == [
        "0", "0", "0", "3", "ENT", "1", "wait=0.5", "ENT", "BACK", "UP", "DOWN", "*", "#",
    ]  # fmt: skip
    with pytest.raises(ValueError, match="not a key"):
        list(parse_script(["F1"]))


def test_render_draws_the_lcd() -> None:
    assert render(("T3 Pair code:   ", "_               ")) == (
        "+----------------+\n|T3 Pair code:   |\n|_               |\n+----------------+"
    )


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="needs a Linux pty")
def test_runner_plays_a_board_over_a_pty_pair() -> None:
    import tty  # noqa: PLC0415  (POSIX only; the test runs only on Linux)

    master_fd, slave_fd = os.openpty()
    tty.setraw(slave_fd)
    path = os.ttyname(slave_fd)
    tables = FakeTables(tables=3, rounds=3, boards_per_round=2)  # table 3 plays boards 5, 6
    gateway = FakeGateway(tables, PointToPointLink(None, time.monotonic, role="gateway"))
    script = [
        "0003 ENT",
        "ENT",
        "4 4 * 3 8 ENT",
        "ENT",
        "; board 6 passed out",
        "0 ENT ENT",
    ]
    screens: list[str] = []
    finished: list[Device] = []

    def keypad() -> None:
        finished.append(run(path, 3, parse_script(script), out=screens.append, max_seconds=20))

    thread = threading.Thread(target=keypad, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    try:
        for _ in range(200_000):  # bounded; each pass waits at most 10 ms
            if not thread.is_alive() or time.monotonic() > deadline:
                break
            ready, _, _ = select.select([master_fd], [], [], 0.01)
            if ready:
                gateway.endpoint.receive_bytes(os.read(master_fd, 4096))
            gateway.pump()
            out = gateway.endpoint.poll()
            if out:
                os.write(master_fd, out)
        thread.join(timeout=5)
    finally:
        os.close(master_fd)
        os.close(slave_fd)
    assert finished, "the runner did not finish its script"
    device = finished[0]
    assert device.screen is Screen.SUMMARY
    assert set(tables.confirmed) == {(3, 5), (3, 6)}
    assert tables.confirmed[(3, 5)].ns_score == -500
    text = "\n".join(screens)
    for line in (
        "|T3 R1 NS3 EW6   |",
        "|T3 R1 B5 N/S 3-6|",
        "|4SX S -2 -500?  |",
        "|EW:ENT=OK BK=no |",
    ):
        assert line in text


def test_runner_over_loop_hears_only_its_own_echo() -> None:
    screens: list[str] = []
    device = run("loop://", 3, None, out=screens.append, max_seconds=0.2)
    assert screens[0].splitlines()[1] == "|T3 Pair code:   |"
    assert not device.link_up  # its own frames came back and were ignored


def test_cli_runs_a_script_file(tmp_path: Path) -> None:
    script = tmp_path / "keys.txt"
    script.write_text("; type a code\n12 BACK 3\n")
    result = CliRunner().invoke(
        app, ["--port", "loop://", "--table", "3", "--script", str(script), "--seconds", "2"]
    )
    assert result.exit_code == 0, result.output
    assert "|13_             |" in result.output


def test_cli_mounts_as_a_subcommand() -> None:
    main = typer.Typer()
    main.add_typer(app, name="keypad-sim")

    @main.command()
    def other() -> None:  # a second command, as the real CLI has
        """Another command."""

    script_result = CliRunner().invoke(
        main, ["keypad-sim", "--port", "loop://", "--table", "4", "--seconds", "0.1"], input=""
    )
    assert script_result.exit_code == 0, script_result.output
    assert "|T4 Pair code:   |" in script_result.output


def test_cli_refuses_a_bad_script(tmp_path: Path) -> None:
    script = tmp_path / "keys.txt"
    script.write_text("F1\n")
    result = CliRunner().invoke(app, ["--port", "loop://", "--table", "3", "--script", str(script)])
    assert result.exit_code != 0
    assert "not a key" in result.output


def test_runner_reopens_a_socket_port_when_the_gateway_restarts() -> None:
    """A gateway on ``tcp-listen://`` that restarts closes the keypad's socket: the simulator
    keeps running (as a keypad on a pulled cable) and connects again, its link talking to the
    new gateway, instead of dying with a traceback."""
    import socket  # noqa: PLC0415

    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(5)
    port = listener.getsockname()[1]
    screens: list[str] = []
    errors: list[BaseException] = []

    def keypad() -> None:
        try:
            run(f"socket://127.0.0.1:{port}", 3, None, out=screens.append, max_seconds=4)
        except BaseException as exc:  # the test reports it
            errors.append(exc)

    thread = threading.Thread(target=keypad, daemon=True)
    thread.start()
    try:
        first, _ = listener.accept()
        first.settimeout(3)
        assert first.recv(256)  # the keypad's link calls the gateway
        first.close()  # the gateway goes away
        second, _ = listener.accept()  # and comes back: the keypad connects again
        second.settimeout(3)
        assert second.recv(256)
        second.close()
    finally:
        listener.close()
    thread.join(timeout=8)
    assert errors == []
    assert any("lost" in s for s in screens)
    assert any("open again" in s for s in screens)


def test_a_typed_line_that_is_not_keys_is_told_and_left_out() -> None:
    """Keys typed while the keypad runs: a line with a word that is no key (an arrow key's
    escape, a typo) is left out with a message, and the lines after it are still read."""
    told: list[str] = []
    keys = list(typed_keys(["1 2", "\x1b[B 3", "F1", "ENT"], told.append))
    assert keys == ["1", "2", "ENT"]
    assert len(told) == 2
    assert f"{chr(27) + '[B'!r} is not a key" in told[0]
    assert "left out" in told[0]
    assert "'F1' is not a key" in told[1]

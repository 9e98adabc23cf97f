"""The firmware under MicroPython against the real server and gateway, through restarts: the
keypad's power is cut with an entry keyed while the cable was out, the gateway restarts while
the keypad is down and again while it is up, and every entry is stored once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.keypad_wire import FirmwareDriver, Wire
from tests.support.micropython import MicroPython

from .demo import Demo, start_demo

pytestmark = [pytest.mark.slow, pytest.mark.subprocess]


@pytest.fixture
def mp() -> Iterator[MicroPython]:
    with MicroPython() as interpreter:
        yield interpreter


def _restart(demo: Demo, folder: Path) -> Demo:
    log = demo.stop()
    assert "Traceback" not in log, log
    again = start_demo(folder, demo.ports)
    again.wait_ready()
    return again


def test_power_cut_and_gateway_restarts_lose_and_repeat_nothing(
    tmp_path: Path, mp: MicroPython
) -> None:
    demo = start_demo(tmp_path)
    wire = Wire(FirmwareDriver(mp, 1), 0)
    try:
        demo.wait_ready()
        wire.port = demo.serial_port
        wire.plug()
        wire.boot()
        wire.play(f"{demo.code(1)} ENT")
        wire.play("ENT")
        wire.play("4 4 3 1 0 ENT ENT")  # board 1, confirmed
        wire.play("3 5 1 9")  # board 2 ...
        wire.unplug()  # the cable is pulled
        wire.play("ENT", idle=False)  # ... sent into the void: kept on the flash
        wire.until(lambda: wire.driver.pending == 1, "the entry on the flash")
        wire.boot()  # the power is cut and comes back: RAM lost, the flash kept
        assert wire.driver.pending == 1
        demo = _restart(demo, tmp_path)  # the gateway restarts meanwhile
        wire.plug()
        wire.until(lambda: wire.driver.screen == "board" and wire.driver.idle, "the boards")
        assert demo.results()[1][3:7] == ("3NT", "N", 9, "entered")  # resent, stored
        wire.play("UP ENT ENT")  # back to board 2; East confirms
        demo = _restart(demo, tmp_path)  # the gateway restarts under a running keypad
        wire.play("2 3 2 8 ENT ENT")  # board 3
        results = demo.results()
        assert [r[2:7] for r in results] == [
            (1, "4S", "S", 10, "confirmed"),
            (2, "3NT", "N", 9, "confirmed"),
            (3, "2H", "E", 8, "confirmed"),
        ]
        entries = demo.rows(
            "SELECT action, count(*) FROM audit WHERE actor != 'td' GROUP BY action ORDER BY action"
        )
        assert entries == [("confirmed", 3), ("entered", 3)], entries
    finally:
        wire.unplug()
        log = demo.stop()
    assert "Traceback" not in log

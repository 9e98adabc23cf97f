"""The keypad firmware's core, running in MicroPython, plays a round against the real server and
gateway (`traveller demo` with the gateway on a loopback port) and the server stores the same
as when the simulator plays the same keys: a round entered and confirmed, a reject and the
correction, a TD call, a cable pull in the middle of an entry, and the next round."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.keypad_wire import Driver, FirmwareDriver, SimulatorDriver, Wire
from tests.support.micropython import MicroPython

from .demo import Demo, start_demo

pytestmark = pytest.mark.slow


@pytest.fixture
def mp() -> Iterator[MicroPython]:
    with MicroPython() as interpreter:
        yield interpreter


def play_round(wire: Wire, demo: Demo) -> None:
    """The simulator's key sequences (protocol/keys.md), the same for both keypads."""
    wire.plug()
    wire.boot()
    wire.play(f"{demo.code(1)} ENT")  # the pairing code
    wire.play("ENT")  # seats (§ 262A)
    wire.play("4 4 3 1 0 ENT ENT")  # board 1: 4S by South, 10 tricks; sent; East confirms
    wire.play("3 5 1 9 ENT BACK")  # board 2: 3NT by North, 9 tricks; East rejects
    wire.play("BACK 8 ENT ENT")  # North corrects it to 8 tricks; East confirms
    wire.play("* ENT")  # a TD call from board 3
    wire.play("ENT")  # "TD is called", ENT=continue
    wire.play("2 3")  # board 3: 2H ... and the cable is pulled mid-entry
    wire.unplug()
    wire.play("2 8 ENT", idle=False)  # by East, 8 tricks; sent into the void
    wire.until(lambda: wire.driver.screen == "sending", "the entry kept")
    assert wire.driver.pending == 1  # kept in the store until the server answers
    wire.plug()  # the cable is back: it goes out once, and East sees it
    wire.until(lambda: wire.driver.screen == "ew_confirm", "East's confirmation")
    wire.play("ENT")
    wire.play("ENT", idle=False)  # the summary: next round, which the TD has not started
    wire.until(lambda: wire.driver.screen == "next_wait", "the wait for the TD")
    demo.start_round(2)
    wire.until(lambda: wire.driver.screen == "seats", "round 2")
    wire.play("ENT 0 ENT")  # seats; board 1 of round 2 passed out
    wire.until(lambda: wire.driver.screen == "ew_confirm", "East's confirmation")
    wire.play("ENT")


def run(tmp: Path, make_driver: object) -> tuple[Demo, Wire, str]:
    demo = start_demo(tmp)
    try:
        demo.wait_ready()
        assert callable(make_driver)
        driver: Driver = make_driver()
        wire = Wire(driver, demo.serial_port)
        try:
            play_round(wire, demo)
        finally:
            wire.unplug()
    finally:
        log = demo.stop()
    return demo, wire, log


def test_the_firmware_plays_a_round_as_the_simulator_does(tmp_path: Path, mp: MicroPython) -> None:
    (tmp_path / "sim").mkdir()
    (tmp_path / "fw").mkdir()
    sim, sim_wire, sim_log = run(
        tmp_path / "sim", lambda: SimulatorDriver(1, tmp_path / "sim" / "keypad.json")
    )
    firmware = FirmwareDriver(mp, 1)
    fw, fw_wire, fw_log = run(tmp_path / "fw", lambda: firmware)
    assert "Traceback" not in sim_log + fw_log
    results = fw.results()
    assert results == sim.results()
    assert [r[:7] for r in results] == [
        (1, 1, 1, "4S", "S", 10, "confirmed"),
        (1, 1, 2, "3NT", "N", 8, "confirmed"),
        (1, 1, 3, "2H", "E", 8, "confirmed"),
        (1, 2, results[3][2], "PASS", None, 0, "confirmed"),
    ]
    assert fw.audit() == sim.audit()
    assert fw.rows("SELECT count(*) FROM td_call") == [(1,)]
    assert fw.rows("SELECT count(*) FROM received_entry") == sim.rows(
        "SELECT count(*) FROM received_entry"
    )
    # The core's RAM under MicroPython after the round (code, tables, the round and the store's
    # copy in RAM), against the RP2040's 264 KB of SRAM, of which MicroPython's heap gets about
    # 190 KB: the core must leave room for the board layer and for compiling at import.
    used = firmware.heap() - firmware.baseline
    print(f"firmware RAM: {firmware.imported} bytes imported, {used} bytes after the round")
    assert used < 128 * 1024
    # The same screens before every key, but the pairing code (each demo has its own).
    code_fw, code_sim = fw.code(1), sim.code(1)
    assert [
        (k, (a.replace(code_fw, "CODE"), b.replace(code_fw, "CODE")))
        for k, (a, b) in fw_wire.pressed
    ][len(code_fw) :] == [
        (k, (a.replace(code_sim, "CODE"), b.replace(code_sim, "CODE")))
        for k, (a, b) in sim_wire.pressed
    ][len(code_sim) :]

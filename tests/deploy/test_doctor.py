"""`traveller doctor` against a running demo server: a clear report, and failures found."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from server.core.db import make_engine, migrate
from server.ops.doctor_cli import app as doctor_app
from server.site.doctor import (
    Check,
    Probe,
    check_clock,
    check_database,
    check_serial,
    check_terminals,
    report,
    run_checks,
)
from tests.support.net import free_port
from tests.support.processes import ServerProcess, start_server

NOBODY = 65534


@pytest.fixture
def demo(tmp_path: Path, servers: list[ServerProcess]) -> ServerProcess:
    port = free_port()
    data = tmp_path / "data"
    server = start_server(
        ["-m", "server.ops.cli", "demo", "--port", str(port), "--data-dir", str(data)],
        tmp_path,
        {},
        port=port,
        name="demo",
    )
    servers.append(server)
    server.wait_ready()
    codes = dict(re.findall(r"table (\d+): (\d{10})", server.output()))
    server.extra.update(codes=codes, database_url=f"sqlite:///{data / 'demo.db'}", data=data)
    return server


def test_doctor_reports_a_healthy_demo_site(demo: ServerProcess, tmp_path: Path) -> None:
    # Table 1's terminal pairs and talks to the server, so the doctor has a terminal to see.
    r = httpx.post(f"{demo.base}/api/v1/table/pair", json={"code": demo.extra["codes"]["1"]})
    r.raise_for_status()
    headers = {"Authorization": f"Bearer {r.json()['token']}"}
    r = httpx.post(
        f"{demo.base}/api/v1/table/commands", json={"type": "get_round"}, headers=headers
    )
    r.raise_for_status()
    keypad = tmp_path / "traveller-keypad-1"
    keypad.write_bytes(b"")  # stands in for the udev rule's /dev/traveller-keypad-1
    checks = run_checks(
        demo.base,
        demo.extra["database_url"],
        demo.extra["data"],
        expect_ports=1,
        serial_patterns=[str(tmp_path / "traveller-keypad*")],
    )
    by_name = {c.name: c for c in checks}
    assert [c.status for c in checks] == ["ok"] * 6, report(checks)
    assert "pushes local" in by_name["server reachable"].detail
    assert " the server (±" in by_name["clock skew (this machine vs server)"].detail
    assert "schema" in by_name["database writable"].detail
    assert by_name["terminals seen"].detail.startswith("1 of 1 paired tables seen")
    assert "MiB free" in by_name["free disk"].detail
    assert str(keypad) in by_name["serial ports"].detail
    text = report(checks)
    assert text.endswith("Ready for the club night.")
    # The write probe left nothing behind.
    with sqlite3.connect(demo.extra["data"] / "demo.db") as conn:
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    assert "traveller_doctor_probe" not in names


def test_doctor_command_exit_codes(demo: ServerProcess, tmp_path: Path) -> None:
    runner = CliRunner()
    db = demo.extra["database_url"]
    out = runner.invoke(doctor_app, ["doctor", "--server", demo.base, "--database-url", db])
    assert out.exit_code == 0, out.output
    assert "OK    server reachable" in out.output
    assert "Ready" in out.output
    dead = f"http://127.0.0.1:{free_port()}"
    out = runner.invoke(
        doctor_app,
        ["doctor", "--server", dead, "--database-url", db, "--expect-ports", "8", "--timeout", "2"],
    )
    assert out.exit_code == 1
    assert "FAIL  server reachable" in out.output
    assert "FAIL  serial ports" in out.output
    assert "0 of 8 expected" in out.output
    assert "problem(s): server reachable, serial ports" in out.output


def test_doctor_finds_a_locked_or_broken_database(tmp_path: Path, demo: ServerProcess) -> None:
    """A writer that never lets go (a stuck process), or a file that is not a database."""
    db = demo.extra["data"] / "demo.db"
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        locked = check_database(f"sqlite:///{db}", timeout=0.5)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert locked.status == "fail"
    assert "locked" in locked.detail
    assert check_database(f"sqlite:///{db}").status == "ok"
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"x" * 4096)
    assert check_database(f"sqlite:///{junk}").status == "fail"
    assert check_database(f"sqlite:///{tmp_path / 'absent.db'}").status == "skip"


def test_clock_skew_verdicts() -> None:
    now = time.time()

    def probe_at(offset: float) -> Probe:
        when = datetime.fromtimestamp(now + offset, UTC).isoformat()
        return Probe({"status": "ok", "time": when}, now - 0.01, now + 0.01, None)

    assert check_clock(probe_at(0.3)).status == "ok"
    warn = check_clock(probe_at(-12))
    assert (warn.status, warn.detail.split(" s ")[1][:8]) == ("warn", "ahead of")
    assert check_clock(probe_at(600)).status == "fail"
    date_only = Probe({"status": "ok"}, now, now, "Mon, 01 Jan 2001 00:00:00 GMT")
    assert check_clock(date_only).status == "fail"
    assert check_clock(None).status == "skip"


def test_serial_ports_need_access(tmp_path: Path) -> None:
    port = tmp_path / "ttyUSB0"
    port.write_bytes(b"")
    assert check_serial(None, [str(tmp_path / "none*")]).status == "skip"
    ok = check_serial(1, [str(tmp_path / "tty*")])
    assert ok == Check("serial ports", "ok", f"1: {port}")
    if os.geteuid() != 0:
        os.chmod(port, 0o000)
        assert check_serial(None, [str(tmp_path / "tty*")]).status == "fail"


@pytest.fixture
def shared_dir() -> Iterator[Path]:
    """A folder another user can reach (pytest's tmp_path lives under a 0700 folder)."""
    path = Path(tempfile.mkdtemp(prefix="traveller-doctor-", dir="/tmp"))
    path.chmod(0o777)
    yield path
    shutil.rmtree(path)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root checks a file as its owner")
def test_root_checks_a_sqlite_database_as_the_user_that_owns_it(shared_dir: Path) -> None:
    """`sudo traveller doctor` must answer for the service user and leave no root-owned -wal."""
    db = shared_dir / "traveller.db"
    engine = make_engine(f"sqlite:///{db}")
    migrate(engine)
    engine.dispose()
    for path in shared_dir.iterdir():
        os.chown(path, NOBODY, NOBODY)
    ok = check_database(f"sqlite:///{db}")
    assert ok.status == "ok", ok
    assert ok.detail.endswith(f"[as uid {NOBODY}]")
    assert check_terminals(f"sqlite:///{db}").status == "ok"
    assert {p.stat().st_uid for p in shared_dir.iterdir()} == {NOBODY}
    db.chmod(0o444)  # e.g. a file copied in by hand: root could write it, the server cannot
    refused = check_database(f"sqlite:///{db}")
    assert refused.status == "fail"
    assert "readonly" in refused.detail


def test_sudo_doctor_reads_the_service_settings(demo: ServerProcess, tmp_path: Path) -> None:
    """`sudo traveller doctor` alone: port and database come from the 0600 environment file."""
    env = tmp_path / "traveller.env"
    port = demo.base.rsplit(":", 1)[1]
    env.write_text(
        "# the service's settings\n"
        f"TRAVELLER_PORT={port}\n"
        f'TRAVELLER_DATABASE_URL="{demo.extra["database_url"]}"\n'
        "TRAVELLER_TD_PASSWORD=not-needed-here\n"
    )
    env.chmod(0o600)
    out = CliRunner().invoke(doctor_app, ["doctor", "--env-file", str(env)])
    assert out.exit_code == 0, out.output
    assert f"http://127.0.0.1:{port}" in out.output
    assert "OK    database writable" in out.output


def _usb_port(sys_root: Path, name: str, vendor: str, product: str) -> None:
    """A tty in a fake sysfs: /sys/class/tty/NAME/device -> the USB interface, whose parent
    device has idVendor and idProduct (as Linux lays them out)."""
    device = sys_root / "devices" / "usb1" / f"1-{len(name)}"
    interface = device / f"{device.name}:1.0"
    interface.mkdir(parents=True)
    (device / "idVendor").write_text(vendor + "\n")
    (device / "idProduct").write_text(product + "\n")
    tty = sys_root / "class" / "tty" / name
    tty.mkdir(parents=True)
    (tty / "device").symlink_to(interface)


def test_doctor_names_a_connected_pico_keypad(tmp_path: Path) -> None:
    sys_root = tmp_path / "sys"
    pico, ftdi = tmp_path / "dev" / "ttyACM0", tmp_path / "dev" / "ttyUSB10"
    pico.parent.mkdir()
    pico.write_bytes(b"")
    ftdi.write_bytes(b"")
    _usb_port(sys_root, "ttyACM0", "2E8A", "0005")  # MicroPython's USB CDC on a Pico
    _usb_port(sys_root, "ttyUSB10", "0403", "6001")
    checks = run_checks(
        None,
        None,
        tmp_path,
        expect_ports=2,
        serial_patterns=[str(tmp_path / "dev" / "tty*")],
        sys_root=sys_root,
    )
    serial = {c.name: c for c in checks}["serial ports"]
    assert serial == Check(
        "serial ports", "ok", f"2: {pico} (Raspberry Pi Pico), {ftdi} (FTDI adapter)"
    )


def test_doctor_points_out_a_pico_waiting_to_be_flashed(tmp_path: Path) -> None:
    sys_root = tmp_path / "sys"
    bootsel = sys_root / "bus" / "usb" / "devices" / "1-1"
    bootsel.mkdir(parents=True)
    (bootsel / "idVendor").write_text("2e8a\n")
    (bootsel / "idProduct").write_text("0003\n")
    check = check_serial(None, [str(tmp_path / "none*")], sys_root)
    assert check.status == "warn"
    assert "1 Pico(s) in BOOTSEL" in check.detail
    (bootsel / "idProduct").write_text("0005\n")  # flashed: MicroPython runs, no warning
    assert check_serial(None, [str(tmp_path / "none*")], sys_root).status == "skip"

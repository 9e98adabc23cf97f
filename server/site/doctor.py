"""`traveller doctor`: checks a site (server, database, disk, clocks, serial ports) and reports.

Imports only the standard library at module level, so it also runs on a terminal that
installed ``traveller[terminal]``: the database check is skipped where SQLAlchemy is missing.
"""

from __future__ import annotations

import email.utils
import glob
import json
import os
import shutil
import sqlite3
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

Status = Literal["ok", "warn", "fail", "skip"]
MARK: dict[Status, str] = {"ok": "OK  ", "warn": "WARN", "fail": "FAIL", "skip": "--  "}

#: Where keypads show up: USB serial adapters, the udev rule's names, the Pi's own UART.
SERIAL_PATTERNS = (
    "/dev/traveller-keypad*",
    "/dev/serial/by-id/*",
    "/dev/ttyUSB*",
    "/dev/ttyACM*",
    "/dev/ttyAMA0",
)


#: Keypads and USB-serial adapters by their USB vendor id (sysfs ``idVendor``): a Raspberry Pi
#: Pico running the keypad firmware (deploy/keypad) shows up as a CDC-ACM port of vendor 2e8a.
USB_VENDORS = {
    "2e8a": "Raspberry Pi Pico",
    "0403": "FTDI adapter",
    "10c4": "CP210x adapter",
    "1a86": "CH340 adapter",
    "067b": "PL2303 adapter",
    "2341": "Arduino",
}
PICO_VENDOR = "2e8a"
#: A Pico (RP2040, RP2350) held in BOOTSEL: a USB drive waiting for MicroPython, no serial port.
PICO_BOOTSEL_PRODUCTS = ("0003", "000f")
SYS = Path("/sys")


#: What `traveller demo` leaves in its data folder (the default one, from where it was
#: started): its port and database, read by `traveller doctor` started in the same place.
DEMO_SITE = Path(".traveller") / "demo.env"


def read_site(path: Path) -> dict[str, str]:
    """KEY=VALUE lines of a systemd environment file (comments and blanks skipped; {} when
    there is no such file)."""
    values: dict[str, str] = {}
    try:
        text = path.read_text()
    except OSError:
        return values
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, _sep, value = line.partition("=")
            values[key.strip()] = value.strip().strip("\"'")
    return values


def write_site(path: Path, values: dict[str, str]) -> None:
    """Write KEY=VALUE lines readable by :func:`read_site` (owner only: it holds a password)."""
    text = "# Written by `traveller demo` for `traveller doctor`.\n"
    text += "".join(f"{key}={value}\n" for key, value in values.items())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)


@dataclass(frozen=True)
class Check:
    """One line of the report."""

    name: str
    status: Status
    detail: str


@dataclass
class Probe:
    """What the server said to one health request, timed on this machine's clock."""

    health: dict[str, Any]
    sent: float
    received: float
    date_header: str | None

    @property
    def rtt(self) -> float:
        return self.received - self.sent


def probe(url: str, timeout: float = 5.0, cafile: str | None = None) -> Probe:
    """GET ``url``/api/v1/health (raises OSError or ValueError when that fails); ``cafile``
    trusts a self-signed certificate."""
    context = ssl.create_default_context(cafile=cafile) if cafile else None
    sent = time.time()
    health = f"{url.rstrip('/')}/api/v1/health"
    with urllib.request.urlopen(health, timeout=timeout, context=context) as reply:
        body = json.loads(reply.read().decode())
        date = reply.headers.get("Date")
    return Probe(body, sent, time.time(), date)


def check_server(
    url: str, timeout: float = 5.0, cafile: str | None = None
) -> tuple[Check, Probe | None]:
    name = "server reachable"
    try:
        p = probe(url, timeout, cafile)
    except (OSError, ValueError) as exc:
        reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
        return Check(name, "fail", f"{url}: {reason}"), None
    if p.health.get("status") != "ok":
        return Check(name, "fail", f"{url} answers but is not healthy: {p.health}"), p
    extra = f", pid {p.health['pid']}" if "pid" in p.health else ""
    fanout = p.health.get("fanout", "local")
    detail = f"{url} in {p.rtt * 1000:.0f} ms (protocol {p.health.get('protocol')}{extra}, "
    return Check(name, "ok", detail + f"pushes {fanout})"), p


def server_time(p: Probe) -> float | None:
    """The server's clock as a Unix time: its health ``time``, else the HTTP Date header."""
    if "time" in p.health:
        return datetime.fromisoformat(str(p.health["time"])).timestamp()
    if p.date_header:
        return email.utils.parsedate_to_datetime(p.date_header).timestamp()
    return None


def check_clock(p: Probe | None, warn: float = 5.0, fail: float = 60.0) -> Check:
    """This machine's clock against the server's (run doctor on each terminal for its own)."""
    name = "clock skew (this machine vs server)"
    if p is None:
        return Check(name, "skip", "server not reachable")
    theirs = server_time(p)
    if theirs is None:
        return Check(name, "skip", "the server tells no time")
    skew = (p.sent + p.received) / 2 - theirs
    side = "ahead of" if skew > 0 else "behind"
    detail = f"{abs(skew):.2f} s {side} the server (±{p.rtt / 2:.2f} s)"
    if abs(skew) > fail:
        return Check(name, "fail", detail + "; set the time (timedatectl / chrony)")
    if abs(skew) > warn:
        return Check(name, "warn", detail + "; audit timestamps will disagree")
    return Check(name, "ok", detail)


def _sqlite_file(database_url: str) -> Path | None:
    if not database_url.startswith("sqlite") or "///" not in database_url:
        return None
    path = database_url.split("///", 1)[1].split("?", 1)[0]
    return None if path in ("", ":memory:") else Path(path)


def _connect(database_url: str, timeout: float = 5.0) -> Any:
    """A DB-API connection by the plain drivers (sqlite3, psycopg), no SQLAlchemy needed."""
    file = _sqlite_file(database_url)
    if file is not None:
        return sqlite3.connect(file, timeout=timeout, isolation_level=None)
    # psycopg is the server extra: ImportError on a terminal, and the caller skips.
    import psycopg  # noqa: PLC0415

    dsn = "postgresql://" + database_url.split("://", 1)[1]
    return psycopg.connect(dsn, connect_timeout=max(1, round(timeout)))


def _shown(database_url: str) -> str:
    """The URL without credentials."""
    scheme, _, rest = database_url.partition("://")
    return f"{scheme}://{rest.split('@')[-1]}"


def _no_database(database_url: str | None) -> str | None:
    if not database_url:
        return "no database URL (TRAVELLER_DATABASE_URL)"
    file = _sqlite_file(database_url)
    if file is None and not database_url.startswith("postgresql"):
        return f"cannot check {_shown(database_url)}"
    if file is not None and not file.is_file():
        return f"no database at {file} on this machine"
    return None


def _owner_of(database_url: str) -> int | None:
    """The uid to check a SQLite file as, when root runs the doctor on a file it does not own:
    the service user must be able to write, and root must not leave root-owned -wal files."""
    file = _sqlite_file(database_url)
    if file is None or os.geteuid() != 0 or not file.is_file():
        return None
    uid = file.stat().st_uid
    return None if uid == 0 else uid


def _as_owner(check: str, database_url: str, uid: int) -> Check:
    """Run one database check in a forked child under the file owner's uid and gid."""
    file = _sqlite_file(database_url)
    assert file is not None
    gid = file.stat().st_gid
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: drop to the owner, check, report through the pipe, vanish
        code = 1
        try:
            os.close(read)
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            c: Check = globals()[check](database_url)
            os.write(write, json.dumps([c.name, c.status, c.detail]).encode())
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        out = pipe.read()
    os.waitpid(pid, 0)
    try:
        name, status, detail = json.loads(out)
    except ValueError:
        return Check(check, "fail", f"the check as uid {uid} did not finish")
    return Check(name, status, f"{detail} [as uid {uid}]")


def check_database(database_url: str | None, timeout: float = 5.0) -> Check:
    """Open the database and write inside a transaction that is rolled back."""
    name = "database writable"
    why = _no_database(database_url)
    if why is not None or database_url is None:
        return Check(name, "skip", why or "")
    uid = _owner_of(database_url)
    if uid is not None:
        return _as_owner("check_database", database_url, uid)
    shown = _shown(database_url)
    try:
        conn = _connect(database_url, timeout)
    except ImportError:
        return Check(name, "skip", "no PostgreSQL driver here (a terminal?)")
    except Exception as exc:
        return Check(name, "fail", f"{shown}: {_first_line(exc)}")
    try:
        sqlite = _sqlite_file(database_url) is not None
        if not sqlite and conn.execute("SELECT pg_is_in_recovery()").fetchone()[0]:
            return Check(name, "fail", f"{shown} is a read-only standby (promote it)")
        if sqlite:
            conn.execute("BEGIN IMMEDIATE")  # the write lock: fails if the file is read-only
        conn.execute("CREATE TABLE traveller_doctor_probe (x INTEGER)")
        conn.execute("INSERT INTO traveller_doctor_probe VALUES (1)")
        if sqlite:
            conn.execute("ROLLBACK")
        else:
            conn.rollback()
        version = conn.execute("SELECT version_num FROM alembic_version").fetchone()
    except Exception as exc:
        return Check(name, "fail", f"{shown}: {_first_line(exc)}")
    finally:
        conn.close()
    return Check(name, "ok", f"{shown} (schema {version[0] if version else 'none'})")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def check_disk(path: Path, warn_mb: int = 1024, fail_mb: int = 200) -> Check:
    """Free space where the database (and its backups) grow."""
    name = "free disk"
    where = path if path.exists() else next((p for p in path.parents if p.exists()), Path("/"))
    usage = shutil.disk_usage(where)
    free_mb = usage.free // 2**20
    detail = f"{free_mb} MiB free of {usage.total // 2**20} MiB at {where}"
    if free_mb < fail_mb:
        return Check(name, "fail", detail)
    if free_mb < warn_mb:
        return Check(name, "warn", detail)
    return Check(name, "ok", detail)


def check_terminals(database_url: str | None, stale_minutes: float = 15.0) -> Check:
    """The terminals the server has heard from (TableToken.last_seen, on the server's clock)."""
    name = "terminals seen"
    why = _no_database(database_url)
    if why is not None or database_url is None:
        return Check(name, "skip", why or "")
    uid = _owner_of(database_url)
    if uid is not None:
        return _as_owner("check_terminals", database_url, uid)
    query = (
        "SELECT t.number, max(k.last_seen) FROM table_token k "
        "JOIN bridge_table t ON t.id = k.table_id WHERE k.revoked_at IS NULL "
        "GROUP BY t.id, t.number ORDER BY t.number"
    )
    try:
        conn = _connect(database_url)
        try:
            rows = conn.execute(query).fetchall()
        finally:
            conn.close()
    except ImportError:
        return Check(name, "skip", "no PostgreSQL driver here")
    except Exception as exc:
        return Check(name, "fail", _first_line(exc))
    seen = [(int(n), _aware(s)) for n, s in rows if s is not None]
    if not seen:
        return Check(name, "ok" if not rows else "warn", f"{len(rows)} tables paired, none seen")
    now = datetime.now(UTC)
    stale = [n for n, s in seen if (now - s).total_seconds() > stale_minutes * 60]
    future = [n for n, s in seen if (s - now).total_seconds() > 5]
    newest = max(s for _, s in seen)
    detail = f"{len(seen)} of {len(rows)} paired tables seen, latest {newest:%H:%M:%S} UTC"
    if future:
        return Check(name, "warn", detail + f"; tables {future} seen in the future: clock jumped?")
    if stale:
        return Check(name, "warn", detail + f"; silent > {stale_minutes:g} min: tables {stale}")
    return Check(name, "ok", detail)


def _aware(value: Any) -> datetime:
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    assert isinstance(value, datetime)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def serial_ports(patterns: Sequence[str] = SERIAL_PATTERNS) -> list[str]:
    """Serial devices present (resolved, without duplicates), in pattern order."""
    found: list[str] = []
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            real = os.path.realpath(path)
            if real not in found:
                found.append(real)
    return found


def _read_id(path: Path) -> str | None:
    try:
        return path.read_text(encoding="ascii").strip().lower()
    except OSError:
        return None


def usb_vendor(port: str, sys_root: Path = SYS) -> str | None:
    """The USB vendor id of a serial port's device ("2e8a"), from sysfs; None when not USB."""
    folder = (sys_root / "class" / "tty" / Path(port).name / "device").resolve()
    for candidate in (folder, *list(folder.parents)[:3]):
        vendor = _read_id(candidate / "idVendor")
        if vendor is not None:
            return vendor
    return None


def picos_in_bootsel(sys_root: Path = SYS) -> int:
    """Picos plugged in while held in BOOTSEL (waiting for MicroPython's UF2)."""
    count = 0
    for device in sorted((sys_root / "bus" / "usb" / "devices").glob("*")):
        vendor, product = _read_id(device / "idVendor"), _read_id(device / "idProduct")
        count += vendor == PICO_VENDOR and product in PICO_BOOTSEL_PRODUCTS
    return count


def _port_label(port: str, sys_root: Path) -> str:
    vendor = usb_vendor(port, sys_root)
    return f"{port} ({USB_VENDORS[vendor]})" if vendor in USB_VENDORS else port


def check_serial(
    expect: int | None, patterns: Sequence[str] = SERIAL_PATTERNS, sys_root: Path = SYS
) -> Check:
    """Keypad ports present and usable by this user (the dialout group); a Raspberry Pi Pico
    keypad is named as one, and a Pico still waiting to be flashed is pointed out."""
    name = "serial ports"
    ports = serial_ports(patterns)
    blocked = [p for p in ports if not os.access(p, os.R_OK | os.W_OK)]
    detail = ", ".join(_port_label(p, sys_root) for p in ports) if ports else "none"
    bootsel = picos_in_bootsel(sys_root)
    if bootsel:
        return Check(
            name,
            "warn",
            f"{detail}; {bootsel} Pico(s) in BOOTSEL, not flashed yet: copy MicroPython's UF2 "
            "onto the RPI-RP2 drive (deploy/keypad/README.md)",
        )
    if blocked:
        return Check(name, "fail", f"{detail}; no access to {blocked} (add the user to dialout)")
    if expect is not None and len(ports) < expect:
        return Check(name, "fail", f"{len(ports)} of {expect} expected: {detail}")
    if not ports:
        return Check(name, "skip" if expect is None else "ok", "none (no serial keypads here)")
    return Check(name, "ok", f"{len(ports)}: {detail}")


def run_checks(
    server_url: str | None,
    database_url: str | None,
    data_dir: Path,
    *,
    expect_ports: int | None = None,
    serial_patterns: Sequence[str] = SERIAL_PATTERNS,
    sys_root: Path = SYS,
    timeout: float = 5.0,
    cafile: str | None = None,
) -> list[Check]:
    """Every check, in report order."""
    checks: list[Check] = []
    p: Probe | None = None
    if server_url:
        server, p = check_server(server_url, timeout, cafile)
        checks.append(server)
    else:
        checks.append(Check("server reachable", "fail", "no server found (give --server URL)"))
    checks.append(check_clock(p))
    steps: list[Callable[[], Check]] = [
        lambda: check_database(database_url),
        lambda: check_terminals(database_url),
        lambda: check_disk(data_dir),
        lambda: check_serial(expect_ports, serial_patterns, sys_root),
    ]
    checks += [step() for step in steps]
    return checks


def report(checks: Sequence[Check]) -> str:
    """The report a volunteer reads: one line per check and a verdict."""
    width = max(len(c.name) for c in checks)
    lines = [f"{MARK[c.status]}  {c.name:<{width}}  {c.detail}" for c in checks]
    failed = [c.name for c in checks if c.status == "fail"]
    warned = [c.name for c in checks if c.status == "warn"]
    if failed:
        lines.append(f"\n{len(failed)} problem(s): {', '.join(failed)}. See deploy/README.md.")
    elif warned:
        lines.append(f"\nReady, with {len(warned)} warning(s): {', '.join(warned)}.")
    else:
        lines.append("\nReady for the club night.")
    return "\n".join(lines)


def healthy(checks: Sequence[Check]) -> bool:
    return not any(c.status == "fail" for c in checks)

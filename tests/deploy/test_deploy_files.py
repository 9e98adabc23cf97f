"""The files in deploy/: scripts pass shellcheck, units pass `systemd-analyze verify`, the udev
rule parses, the kiosk loop restarts the terminal, the certificate script makes a certificate
the server serves, nginx and Caddy configurations are valid (nginx proxies a websocket), and
the PostgreSQL dump script rotates."""

from __future__ import annotations

import os
import re
import shutil
import ssl
import subprocess
import time
from contextlib import ExitStack
from pathlib import Path

import httpx
import pytest
import typer
from typer.testing import CliRunner

from server.core.config import Settings
from server.core.db import make_engine, migrate
from server.ops.deploy_cli import serve
from server.site.backup import BackupSettings
from server.site.doctor import SERIAL_PATTERNS, check_server
from tests.deploy.test_fanout import (
    enter_and_confirm,
    pair,
    setup_club,
    table_socket,
    wait_confirmed,
)
from tests.support.env import IN_CI, ROOT, TD_PASSWORD
from tests.support.net import free_port
from tests.support.processes import ServerProcess, start_process, start_server

DEPLOY = ROOT / "deploy"
UNITS = sorted((DEPLOY / "systemd").glob("traveller*.*"))


def _next_second() -> None:
    """Return once the wall clock shows a later second than now (a backup's name carries it)."""
    now = int(time.time())
    while int(time.time()) == now:
        time.sleep(max(0.0, now + 1 - time.time()) + 0.001)


def need(tool: str) -> str:
    """The tool's path; skips without it (CI installs it: a missing tool fails there)."""
    path = shutil.which(tool)
    if path is None:
        if IN_CI:
            pytest.fail(f"{tool} is not installed (.ci/run installs it)")
        pytest.skip(f"{tool} is not installed")
    return path


def scripts() -> list[Path]:
    return sorted(
        p
        for p in DEPLOY.rglob("*")
        if p.is_file() and p.read_bytes()[:2] == b"#!" and b"sh" in p.read_bytes().split(b"\n")[0]
    )


def test_the_scripts_are_shellcheck_clean() -> None:
    found = scripts()
    names = {p.name for p in found}
    assert {"install-server.sh", "setup-terminal.sh", "traveller-kiosk", "make-cert.sh"} <= names
    done = subprocess.run(
        [need("shellcheck"), "--severity=style", *map(str, found)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(os.access(p, os.X_OK) for p in found)


def test_the_units_pass_systemd_analyze_verify(tmp_path: Path) -> None:
    """`verify` checks the executables exist, so it runs in a root directory laid out like an
    installed machine: the system's units, stub executables, the units under /etc."""
    tool = need("systemd-analyze")
    root = tmp_path / "root"
    shutil.copytree("/usr/lib/systemd/system", root / "usr/lib/systemd/system", symlinks=True)
    for exe in ("opt/traveller/venv/bin/traveller", "opt/traveller/pgdump.sh"):
        (root / exe).parent.mkdir(parents=True, exist_ok=True)
        (root / exe).write_text("#!/bin/sh\n")
        (root / exe).chmod(0o755)
    system = root / "etc/systemd/system"
    system.mkdir(parents=True)
    for unit in UNITS:
        shutil.copy(unit, system)
    done = subprocess.run(
        [tool, "verify", f"--root={root}", *(f"/etc/systemd/system/{u.name}" for u in UNITS)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    # verify prints warnings (an unknown key, a bad value) without failing: none are allowed.
    assert (done.returncode, done.stdout + done.stderr) == (0, "")


def test_the_server_unit_runs_unprivileged_restarts_and_keeps_data_in_var_lib() -> None:
    unit = (DEPLOY / "systemd/traveller.service").read_text()
    for line in (
        "User=traveller",
        "Restart=on-failure",
        "StateDirectory=traveller",
        "WorkingDirectory=/var/lib/traveller",
        "EnvironmentFile=/etc/traveller/traveller.env",
        "NoNewPrivileges=yes",
        "ExecStart=/opt/traveller/venv/bin/traveller serve",
    ):
        assert line in unit.splitlines(), line
    gateway = (DEPLOY / "systemd/traveller-gateway.service").read_text().splitlines()
    assert {"User=traveller", "Restart=always", "SupplementaryGroups=dialout"} <= set(gateway)
    env = (DEPLOY / "env/traveller.env.example").read_text()
    assert "TRAVELLER_DATABASE_URL=sqlite:////var/lib/traveller/traveller.db" in env
    assert "TRAVELLER_BACKUP_DIR=/var/lib/traveller/backups" in env


def test_the_environment_example_names_only_known_settings() -> None:
    known = {f"TRAVELLER_{name.upper()}" for name in Settings.model_fields}
    known |= {f"TRAVELLER_BACKUP_{name.upper()}" for name in BackupSettings.model_fields}
    known |= {
        "TRAVELLER_WORKERS",
        "TRAVELLER_MDNS",
        "TRAVELLER_SSL_CERTFILE",
        "TRAVELLER_SSL_KEYFILE",
    }
    text = (DEPLOY / "env/traveller.env.example").read_text()
    names = set(re.findall(r"^#?(TRAVELLER_[A-Z_]+)=", text, re.MULTILINE))
    assert names
    assert names <= known, names - known


UDEV_KEYS = {
    "SUBSYSTEM",
    "KERNEL",
    "ENV",
    "ATTRS",
    "GOTO",
    "LABEL",
    "SYMLINK",
    "GROUP",
    "MODE",
}


def test_the_udev_rule_parses() -> None:
    """No udevadm verify in systemd 252: parse each rule as KEY{attr}op"value" pairs."""
    text = (DEPLOY / "udev/99-traveller-keypad.rules").read_text()
    pair = re.compile(r'\s*([A-Z_]+)(\{[A-Za-z_]+\})?(==|!=|\+=|:=|=)"([^"]*)"\s*(,|$)')
    labels, gotos = set(), set()
    rules = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    for line in rules:
        pos = 0
        while pos < len(line):
            m = pair.match(line, pos)
            assert m, f"cannot parse {line[pos:]!r} in {line!r}"
            key, _attr, op, value, _sep = m.groups()
            assert key in UDEV_KEYS, key
            if key == "LABEL":
                labels.add(value)
            if key == "GOTO":
                gotos.add(value)
            if key == "MODE":
                assert (op, value) == ("=", "0660")
            pos = m.end()
    assert gotos <= labels, gotos - labels
    assert 'SYMLINK+="traveller-keypad-' in text

    assert "/dev/traveller-keypad*" in SERIAL_PATTERNS


def _stub(tmp_path: Path, discover: str | None) -> Path:
    """A `traveller` that logs its arguments (and answers `discover` as told)."""
    stub = tmp_path / "traveller"
    answer = f'echo "{discover}"; exit 0' if discover else "exit 1"
    stub.write_text(
        "#!/usr/bin/env bash\n"
        f'if [ "$1" = discover ]; then {answer}; fi\n'
        f'echo "$*" >> "{tmp_path}/runs.log"\n'
        "exit 3\n"
    )
    stub.chmod(0o755)
    return stub


def _kiosk(tmp_path: Path, server: str, runs: int, discover: str | None) -> list[str]:
    env_file = tmp_path / "terminal.env"
    state = tmp_path / "state"
    env_file.write_text(f"TRAVELLER_SERVER={server}\nTRAVELLER_STATE_DIR={state}\n")
    done = subprocess.run(
        [str(DEPLOY / "pi/traveller-kiosk")],
        env={
            **os.environ,
            "TRAVELLER_KIOSK_ENV": str(env_file),
            "TRAVELLER_BIN": str(_stub(tmp_path, discover)),
            "TRAVELLER_KIOSK_RUNS": str(runs),
            "TRAVELLER_KIOSK_PAUSE": "0",
        },
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    log = tmp_path / "runs.log"
    return log.read_text().splitlines() if log.exists() else []


def test_the_kiosk_restarts_the_terminal_with_a_fixed_url(tmp_path: Path) -> None:
    runs = _kiosk(tmp_path, "http://192.0.2.10:8000", 3, discover=None)
    assert len(runs) == 3  # the terminal "crashed" (exit 3) and was started again, twice
    assert all(r.endswith("--server http://192.0.2.10:8000") for r in runs)
    assert all(f"--state-dir {tmp_path / 'state'}" in r for r in runs)


def test_the_kiosk_finds_the_server_by_mdns_or_uses_the_remembered_one(tmp_path: Path) -> None:
    runs = _kiosk(tmp_path, "auto", 2, discover="http://192.0.2.20:8000")
    assert [r.split("--server ")[1] for r in runs] == ["http://192.0.2.20:8000"] * 2
    (tmp_path / "runs.log").unlink()
    # Nobody answers and nothing is remembered: it waits (does not start a terminal) ...
    assert _kiosk(tmp_path, "auto", 2, discover=None) == []
    # ... but with a remembered server it starts the terminal on it (offline entry works).
    (tmp_path / "state" / "terminal.json").write_text('{"server": "http://192.0.2.20:8000"}')
    runs = _kiosk(tmp_path, "auto", 1, discover=None)
    assert len(runs) == 1
    assert "--server" not in runs[0]


def test_a_self_signed_certificate_serves_tls(tmp_path: Path, servers: list[ServerProcess]) -> None:
    need("openssl")
    tls = tmp_path / "tls"
    subprocess.run(
        [str(DEPLOY / "tls/make-cert.sh"), str(tls), "localhost", "127.0.0.1"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    assert oct((tls / "traveller.key").stat().st_mode & 0o777) == "0o600"
    port = free_port()
    serve = "import typer; from server.ops.deploy_cli import serve; typer.run(serve)"
    server = start_server(
        ["-c", serve, "--host", "127.0.0.1", "--port", str(port)],
        tmp_path,
        {
            "TRAVELLER_TD_PASSWORD": TD_PASSWORD,
            "TRAVELLER_DATABASE_URL": f"sqlite:///{tmp_path / 'club.db'}",
            "TRAVELLER_SSL_CERTFILE": str(tls / "traveller.crt"),
            "TRAVELLER_SSL_KEYFILE": str(tls / "traveller.key"),
        },
        port=port,
    )
    server.base = f"https://127.0.0.1:{port}"
    servers.append(server)
    trusted = ssl.create_default_context(cafile=str(tls / "traveller.crt"))
    with httpx.Client(verify=trusted, timeout=5) as client:
        deadline = time.monotonic() + 60
        while True:
            try:
                r = client.get(f"{server.base}/api/v1/health")
                break
            except httpx.ConnectError:
                assert server.proc.poll() is None, server.output()
                assert time.monotonic() < deadline, server.output()
                time.sleep(0.2)
        assert r.json()["status"] == "ok"
    server_check, _ = check_server(server.base, cafile=str(tls / "traveller.crt"))
    assert server_check.status == "ok", server_check
    assert check_server(server.base)[0].status == "fail"  # not trusted without the cert
    with pytest.raises(httpx.ConnectError):  # an unknown certificate is refused
        httpx.get(f"{server.base}/api/v1/health", timeout=5)


def test_the_caddyfile_is_valid(tmp_path: Path) -> None:
    caddy = need("caddy")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    env["XDG_CONFIG_HOME"] = str(tmp_path)
    done = subprocess.run(
        [caddy, "validate", "--config", str(DEPLOY / "proxy/Caddyfile"), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    fmt = subprocess.run(
        [caddy, "fmt", str(DEPLOY / "proxy/Caddyfile")], capture_output=True, text=True, check=True
    )
    assert fmt.stdout == (DEPLOY / "proxy/Caddyfile").read_text()


def test_nginx_proxies_the_api_and_a_websocket(
    tmp_path: Path, servers: list[ServerProcess]
) -> None:
    """deploy/proxy/nginx.conf as written (addresses moved to loopback ports): https in front,
    websocket upgrade through it, pushes arrive, port 80 redirects."""
    nginx = need("nginx")
    tls = tmp_path / "tls"
    subprocess.run(
        [str(DEPLOY / "tls/make-cert.sh"), str(tls), "traveller.congress.lan", "127.0.0.1"],
        check=True,
        capture_output=True,
        timeout=60,
    )
    app_port, https_port, http_port = free_port(), free_port(), free_port()
    serve = "import typer; from server.ops.deploy_cli import serve; typer.run(serve)"
    backend = start_server(
        ["-c", serve, "--host", "127.0.0.1", "--port", str(app_port)],
        tmp_path,
        {
            "TRAVELLER_TD_PASSWORD": TD_PASSWORD,
            "TRAVELLER_DATABASE_URL": f"sqlite:///{tmp_path / 'club.db'}",
        },
        port=app_port,
        name="backend",
    )
    servers.append(backend)
    site = (DEPLOY / "proxy/nginx.conf").read_text()
    site = site.replace("listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;")
    site = site.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
    site = site.replace("server 127.0.0.1:8000", f"server 127.0.0.1:{app_port}")
    site = site.replace("/etc/traveller/tls", str(tls))
    (tmp_path / "site.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/nginx-error.log;\n"
        "worker_processes 1;\nevents {}\n"
        f"http {{\n  access_log off;\n  include {tmp_path}/site.conf;\n}}\n"
    )
    conf = ["-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)]
    checked = subprocess.run([nginx, "-t", *conf], capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stderr
    proxy = start_process(
        [nginx, *conf, "-g", "daemon off;"], tmp_path, {}, port=https_port, name="nginx"
    )
    servers.append(proxy)
    backend.wait_ready()

    trusted = ssl.create_default_context(cafile=str(tls / "traveller.crt"))
    base = f"https://127.0.0.1:{https_port}"
    with httpx.Client(base_url=base, verify=trusted, timeout=10) as http:
        deadline = time.monotonic() + 30
        while True:
            try:
                assert http.get("/api/v1/health").json()["status"] == "ok"
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, (tmp_path / "nginx-error.log").read_text()
                time.sleep(0.2)
        _td, _section, codes = setup_club(http)
        token = pair(http, codes["1"])
        board = http.get(
            "/api/v1/table/round", headers={"Authorization": f"Bearer {token}"}
        ).json()["boards"][0]["board"]
        with ExitStack() as stack:
            proxy.base = base
            ws = table_socket(stack, proxy, token, ssl_context=trusted)
            assert enter_and_confirm(http, token, board)["state"] == "confirmed"
            wait_confirmed(ws, {board})
    r = httpx.get(f"http://127.0.0.1:{http_port}/api/v1/health", headers={"Host": "x"})
    assert r.status_code == 301
    assert r.headers["location"].startswith("https://")


@pytest.mark.postgres
def test_the_postgres_dump_script_dumps_and_rotates(pg_url: str, tmp_path: Path) -> None:
    need("pg_dump")

    engine = make_engine(pg_url)
    migrate(engine)
    engine.dispose()
    env = {
        **os.environ,
        "TRAVELLER_DATABASE_URL": pg_url,
        "TRAVELLER_PGDUMP_DIR": str(tmp_path / "dumps"),
        "TRAVELLER_BACKUP_KEEP": "2",
    }
    for _ in range(3):
        subprocess.run(
            [str(DEPLOY / "pgdump.sh")], env=env, check=True, capture_output=True, timeout=120
        )
        _next_second()  # the names carry the second
    dumps = sorted((tmp_path / "dumps").glob("traveller-*.dump"))
    assert len(dumps) == 2
    listing = subprocess.run(
        ["pg_restore", "--list", str(dumps[-1])], capture_output=True, text=True, check=True
    )
    assert "TABLE public result" in listing.stdout
    sqlite = {**env, "TRAVELLER_DATABASE_URL": "sqlite:////var/lib/traveller/traveller.db"}
    skipped = subprocess.run(
        [str(DEPLOY / "pgdump.sh")], env=sqlite, capture_output=True, text=True, check=True
    )
    assert "not PostgreSQL" in skipped.stderr


def test_serve_refuses_several_workers_on_sqlite(tmp_path: Path) -> None:
    app = typer.Typer()
    app.command()(serve)
    env = {"TRAVELLER_TD_PASSWORD": TD_PASSWORD}
    url = f"sqlite:///{tmp_path / 'x.db'}"
    out = CliRunner().invoke(app, ["--database-url", url, "--workers", "2"], env=env)
    assert out.exit_code == 2
    assert "several workers need PostgreSQL" in out.output
    out = CliRunner().invoke(app, ["--database-url", url], env={"TRAVELLER_TD_PASSWORD": ""})
    assert out.exit_code == 2
    assert "TRAVELLER_TD_PASSWORD" in out.output

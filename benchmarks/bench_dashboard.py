"""Dashboard latency: from a confirmation sent to the table API to the TD's grid cell changing
in a real (headless) Chromium, over many confirmations; prints the median and the p99.

    .venv/bin/python -m benchmarks.bench_dashboard [--confirmations 200] [--tables 30]

The server runs under uvicorn on a loopback port with a fresh SQLite file. North's entries go
through the table API untimed; each East confirmation is sent from the dashboard tab itself
(``fetch`` to ``/api/v1/table/commands`` with the table's token), so both ends of the
measurement read the same clock: ``performance.now()`` before the request, and again when a
MutationObserver sees the cell's confirmed count rise.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from playwright.sync_api import sync_playwright

from benchmarks.procs import free_port
from server.app import create_app
from server.core.config import Settings

PASSWORD = "bench-td-password"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]

CONFIRM_AND_WAIT = """
async ({token, board, version, table, round, expected, entry}) => {
  const selector = `tr[data-table="${table}"] td.cell[data-round="${round}"]`;
  const grid = document.getElementById("grid");
  const changed = new Promise((resolve) => {
    const check = () => {
      const cell = document.querySelector(selector);
      return cell && Number(cell.dataset.confirmed || 0) >= expected;
    };
    const observer = new MutationObserver(() => {
      if (check()) { observer.disconnect(); resolve(performance.now()); }
    });
    observer.observe(grid, {childList: true, subtree: true, attributes: true});
  });
  const start = performance.now();
  const reply = await fetch("/api/v1/table/commands", {
    method: "POST",
    headers: {"Authorization": "Bearer " + token, "Content-Type": "application/json"},
    body: JSON.stringify({type: "confirm_result", entry_id: entry, board, version}),
  });
  if (!reply.ok) { throw new Error(await reply.text()); }
  const end = await changed;
  return end - start;
}
"""


def _serve(db: Path) -> tuple[str, Any, threading.Thread]:
    app = create_app(Settings(td_password=PASSWORD, database_url=f"sqlite:///{db}"))
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    return f"http://127.0.0.1:{port}", server, thread


def _event(http: httpx.Client, tables: int, rounds: int) -> tuple[dict[str, str], int, dict]:
    token = http.post("/api/v1/td/login", json={"password": PASSWORD}).json()["token"]
    td = {"Authorization": f"Bearer {token}"}
    event = http.post("/api/v1/events", json={"name": "Benchmark night"}, headers=td).json()
    section = http.post(
        f"/api/v1/events/{event['id']}/sections",
        json={"movement": {"tables": tables, "boards_per_round": 3, "rounds": rounds}},
        headers=td,
    ).json()
    return td, section["id"], section["pairing_codes"]


def _command(http: httpx.Client, token: str, body: dict[str, Any]) -> dict[str, Any]:
    r = http.post("/api/v1/table/commands", json=body, headers={"Authorization": f"Bearer {token}"})
    r.raise_for_status()
    data: dict[str, Any] = r.json()
    return data


def run(confirmations: int = 200, tables: int = 30) -> list[float]:
    """The delays in milliseconds, one per confirmation."""
    rounds = max(1, -(-confirmations // (tables * 3)))
    with tempfile.TemporaryDirectory() as tmp:
        url, server, thread = _serve(Path(tmp) / "bench.db")
        http = httpx.Client(base_url=url, timeout=10)
        td, section_id, codes = _event(http, tables, rounds + 1)
        tokens = {
            int(t): http.post("/api/v1/table/pair", json={"code": c}).json()["token"]
            for t, c in codes.items()
        }
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            page = browser.new_page(base_url=url, viewport={"width": 1366, "height": 768})
            page.goto("/td/login?next=/td")
            page.fill("#password", PASSWORD)
            page.click("button[type=submit]")
            page.wait_for_url("**/td")
            page.goto(f"/td/s/{section_id}")
            page.wait_for_selector("#live-status.on")
            delays: list[float] = []
            for round_ in range(1, rounds + 1):
                http.post(f"/api/v1/sections/{section_id}/rounds/{round_}/start", headers=td)
                for table, token in sorted(tokens.items()):
                    if round_ > 1:
                        _command(http, token, {"type": "next_round"})
                    info = _command(http, token, {"type": "get_round"})
                    for done, status in enumerate(info["boards"], start=1):
                        if len(delays) >= confirmations:
                            break
                        board = status["board"]
                        ack = _command(
                            http,
                            token,
                            {
                                "type": "enter_result",
                                "entry_id": str(uuid.uuid4()),
                                "board": board,
                                "values": {"contract": "3NT", "declarer": "N", "tricks": 9},
                            },
                        )
                        delays.append(
                            page.evaluate(
                                CONFIRM_AND_WAIT,
                                {
                                    "token": token,
                                    "board": board,
                                    "version": ack["result"]["version"],
                                    "table": table,
                                    "round": round_,
                                    "expected": done,
                                    "entry": str(uuid.uuid4()),
                                },
                            )
                        )
                        if len(delays) >= confirmations:
                            break
                    # Keep playing the round out even after the count is reached (not timed).
            browser.close()
        http.close()
        server.should_exit = True
        thread.join(timeout=10)
    return delays


def summary(delays: list[float]) -> dict[str, float]:
    ordered = sorted(delays)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return {
        "confirmations": len(ordered),
        "median_ms": round(statistics.median(ordered), 1),
        "p99_ms": round(p99, 1),
        "max_ms": round(ordered[-1], 1),
        "min_ms": round(ordered[0], 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--confirmations", type=int, default=200)
    parser.add_argument("--tables", type=int, default=30)
    args = parser.parse_args()
    print(json.dumps(summary(run(args.confirmations, args.tables)), indent=2))


if __name__ == "__main__":
    main()

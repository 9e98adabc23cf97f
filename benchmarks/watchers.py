"""The people watching during the load test: TD dashboards (/td/s/{id}/live, with the TD's
session cookie) and public ranking pages (GET /results/{id}, then /results/{id}/live)."""

from __future__ import annotations

import asyncio
import bisect
import contextlib
import json
import time

import httpx
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from benchmarks.session import Samples

COOKIE = "traveller_td"  # server/web/auth.py: the TD session cookie holds the TD token


class Watchers:
    """M dashboards and P public pages spread over the sections; arrival times per section."""

    def __init__(self, base_url: str, td_token: str, sections: list[int], samples: Samples) -> None:
        self.base_url = base_url
        self.ws_base = base_url.replace("http://", "ws://", 1)
        self.td_token = td_token
        self.sections = sections
        self.samples = samples
        self.arrivals: dict[int, list[float]] = {s: [] for s in sections}
        self.public_updates = 0
        self._sockets: list[ClientConnection] = []
        self._tasks: list[asyncio.Task[None]] = []

    async def start(self, dashboards: int, public: int, http: httpx.AsyncClient) -> None:
        for i in range(dashboards):
            section = self.sections[i % len(self.sections)]
            ws = await connect(
                f"{self.ws_base}/td/s/{section}/live",
                additional_headers={"Cookie": f"{COOKIE}={self.td_token}"},
                max_size=2**24,
            )
            await self._first(ws, f"dashboard {section}")
            self._track(ws, section, dashboard=True)
        for i in range(public):
            section = self.sections[i % len(self.sections)]
            page = await http.get(f"{self.base_url}/results/{section}")
            if page.status_code != 200:
                self.samples.error(f"GET /results/{section}: {page.status_code}")
            ws = await connect(f"{self.ws_base}/results/{section}/live", max_size=2**24)
            await self._first(ws, f"public {section}")
            self._track(ws, section, dashboard=False)

    async def _first(self, ws: ClientConnection, what: str) -> None:
        body = json.loads(await asyncio.wait_for(ws.recv(), 30))
        if body.get("type") != "fragments":
            self.samples.error(f"{what}: first message {str(body)[:200]}")

    def _track(self, ws: ClientConnection, section: int, *, dashboard: bool) -> None:
        self._sockets.append(ws)

        async def read() -> None:
            try:
                async for _raw in ws:
                    if dashboard:
                        self.arrivals[section].append(time.perf_counter())
                    else:
                        self.public_updates += 1
            except ConnectionClosed as exc:
                self.samples.error(f"watcher of section {section} closed: {exc}")

        self._tasks.append(asyncio.create_task(read()))

    def latency(self, section: int, sent: float, acked: float) -> float | None:
        """From sending a command to the first dashboard update after its acknowledgement."""
        times = self.arrivals.get(section)
        if not times:
            return None
        i = bisect.bisect_right(times, acked)
        return times[i] - sent if i < len(times) else None

    async def stop(self) -> None:
        for task in self._tasks:
            task.cancel()
        for ws in self._sockets:
            with contextlib.suppress(Exception):
                await ws.close()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

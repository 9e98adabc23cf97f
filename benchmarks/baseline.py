"""The limit to compare with: a bare websocket echo that stores each message in SQLite
(one INSERT and COMMIT, WAL, synchronous=FULL like the server) before echoing it.

Run: ``python -m benchmarks.baseline --port 8765 --db /tmp/echo.db``.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sqlite3

from websockets.asyncio.server import ServerConnection, serve


def open_db(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("CREATE TABLE IF NOT EXISTS message (id INTEGER PRIMARY KEY, body TEXT NOT NULL)")
    return db


async def main(host: str, port: int, path: str) -> None:
    db = open_db(path)

    async def echo(ws: ServerConnection) -> None:
        async for raw in ws:
            text = raw if isinstance(raw, str) else raw.decode()
            db.execute("BEGIN")
            db.execute("INSERT INTO message (body) VALUES (?)", (text,))
            db.execute("COMMIT")
            await ws.send(text)

    stop = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set_result, None)
    async with serve(echo, host, port, max_size=2**16):
        print(f"echo on ws://{host}:{port}", flush=True)
        await stop
    db.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True)
    args = parser.parse_args()
    asyncio.run(main(args.host, args.port, args.db))

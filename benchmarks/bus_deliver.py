"""The push bus's CPU for one push, in this process: a server with ``--sections`` sections of
``--tables`` tables, one terminal socket a table and ``--views`` live views a section (the
TD's and the public's), each push to one table (delivered, and taken out of the inboxes every
500 pushes); and the count of a section's terminals the dashboard asks for at every delta
(``Bus.terminals``). Best of three runs of ``--pushes``.

Run from the repository root (the second form for another checkout, e.g. a worktree)::

    PYTHONPATH=. .venv/bin/python -m benchmarks.bus_deliver
    cp benchmarks/bus_deliver.py /tmp/before/benchmarks/
    cd /tmp/before && PYTHONPATH=. /path/to/.venv/bin/python -m benchmarks.bus_deliver
"""

from __future__ import annotations

import argparse
import asyncio
import time

from protocol.messages import Ack
from server.live.bus import Bus


async def measure(sections: int, tables: int, views: int, pushes: int) -> tuple[float, float]:
    """(µs a push delivered, µs a section's terminal count), the best of three."""
    bus = Bus()
    subs = [bus.subscribe(s, t) for s in range(1, sections + 1) for t in range(1, tables + 1)]
    subs += [bus.subscribe(s, None) for s in range(1, sections + 1) for _ in range(views)]
    message = Ack(detail="a result")
    deliver, count = [], []
    for _ in range(3):
        start = time.process_time()
        for i in range(pushes):
            bus.deliver([(1 + i % sections, 1 + i % tables, message)])
            if i % 500 == 499:  # keep the inboxes from filling (their oldest would be dropped)
                for sub in subs:
                    while not sub.queue.empty():
                        sub.queue.get_nowait()
        deliver.append(time.process_time() - start)
        start = time.process_time()
        for i in range(pushes):
            bus.terminals(1 + i % sections)
        count.append(time.process_time() - start)
    return 1e6 * min(deliver) / pushes, 1e6 * min(count) / pushes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=4)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--views", type=int, default=2)
    parser.add_argument("--pushes", type=int, default=20_000)
    args = parser.parse_args()
    for sections in sorted({args.sections, 10}):
        push, count = asyncio.run(measure(sections, args.tables, args.views, args.pushes))
        print(
            f"{sections} sections of {args.tables} tables, {args.views} views each: "
            f"{push:.1f} µs a push delivered, {count:.1f} µs a section's terminal count"
        )


if __name__ == "__main__":
    main()

"""Where a py-spy recording of the server spent its busy samples (``bench load --py-spy``).

Reads py-spy's raw format (one collapsed stack a line: ``frame;frame;... count``) and prints
the share of the busy samples under each of the server's own functions (inclusive), then the
top functions by their own samples. Samples of a thread waiting on a lock or a condition are
left out (:data:`WAITING`). Run from the repository root::

    .venv/bin/python -m benchmarks.profile_summary /tmp/spy-200t-1w.txt --top 25
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

#: Leaves of a thread that waits (py-spy counts a pool's waiting threads as busy on a loaded
#: machine): such samples are left out.
WAITING = ("Condition.wait (threading.py)", "Event.wait (threading.py)")

#: Frames counted inclusively: the server's own code (and the database driver's calls).
OURS = ("server/", "protocol/", "starlette/", "fastapi/", "uvicorn/", "sqlalchemy/", "websockets/")


def _function(frame: str) -> str:
    """``name (path/to/file.py:line)`` without the line, the path from its package on."""
    name, _, where = frame.partition(" (")
    path = where.rsplit(":", 1)[0]
    for root in OURS:
        at = path.find(root)
        if at >= 0:
            return f"{name} ({path[at:]})"
    return f"{name} ({Path(path).name})"


def summarise(path: Path) -> tuple[int, Counter[str], Counter[str]]:
    """Busy samples, inclusive samples a function, own samples a function."""
    total = 0
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [_function(f) for f in stack.split(";") if " (" in f]
        if not frames or frames[-1] in WAITING:
            continue
        total += count
        for name in set(frames):
            inclusive[name] += count
        own[frames[-1]] += count
    return total, inclusive, own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recording", type=Path)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--only", default="server/", help="Inclusive list: frames under this.")
    args = parser.parse_args()
    total, inclusive, own = summarise(args.recording)
    print(f"{total} busy samples")
    print("\ninclusive (the server's functions):")
    shown = [(n, c) for n, c in inclusive.most_common() if args.only in n][: args.top]
    for name, count in shown:
        print(f"{100 * count / total:5.1f} %  {name}")
    print("\nown samples:")
    for name, count in own.most_common(args.top):
        print(f"{100 * count / total:5.1f} %  {name}")


if __name__ == "__main__":
    main()

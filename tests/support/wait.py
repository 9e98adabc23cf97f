"""Waiting for a condition in a test, in one place: :func:`wait_until` from plain code and
:func:`wait_until_async` from a coroutine. Both poll ``condition`` until it holds and fail with
what was awaited once ``timeout`` seconds have passed (a loaded machine gets the whole of it:
nothing here is a timing assertion)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable


def wait_until(
    condition: Callable[[], object], timeout: float, what: str, *, every: float = 0.05
) -> None:
    """Poll ``condition`` every ``every`` seconds until it is true; AssertionError naming
    ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


async def wait_until_async(
    condition: Callable[[], object], timeout: float, what: str, *, every: float = 0.02
) -> None:
    """:func:`wait_until` for a coroutine: the event loop runs while it waits."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        await asyncio.sleep(every)

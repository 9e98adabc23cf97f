"""A cancelled wait stays cancelled, even when what it waited for arrives in the same step.

On Python 3.11 ``asyncio.wait_for`` swallows a cancellation that lands in the step its future
completes in, and returns the result instead. The terminal's link loop waited for each answer
that way, so ``SyncingClient.close()`` (cancel the loop, await it) could wait for ever: the
cancelled loop went on to wait for the next push. That is the hang the end-to-end restart test
showed twice in full runs. ``asyncio.timeout`` does not swallow it; ruff's banned-api rule
(TID251) keeps ``asyncio.wait_for`` out of the code.
"""

from __future__ import annotations

import asyncio

import pytest

from protocol.messages import Error, GetRound
from terminal.link import WebsocketLink


class _QuietSocket:
    """Takes what is sent and never answers: the test plays the reader."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send(self, text: str) -> None:
        self.sent.append(text)

    async def close(self) -> None:
        return None


async def test_a_request_cancelled_as_its_answer_arrives_is_cancelled() -> None:
    link = WebsocketLink("127.0.0.1:9")
    # An open link without a network: the socket the request sends on, and "not closed".
    link._ws = _QuietSocket()  # type: ignore[assignment]
    link._closed.clear()
    request = asyncio.create_task(link.request(GetRound()))
    await asyncio.sleep(0)  # the command is sent; the request now waits for its answer
    assert len(link._waiters) == 1
    # In one step: the reader hands over the answer, and close() cancels the loop.
    link._waiters[0].set_result(Error(code="late", message="the answer"))
    request.cancel()
    with pytest.raises(asyncio.CancelledError):
        await request

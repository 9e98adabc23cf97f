"""The terminal tests' helpers: an app on the fake server, seated at its first board."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from terminal.app import TravellerTerminal
from terminal.screens.confirm import ConfirmScreen
from terminal.testing.server import FakeClient, FakeServer


def make_app(
    server: FakeServer | None = None,
    *,
    table: int | None = 1,
    state_dir: Path | None = None,
    guard: float = 0.0,
) -> tuple[TravellerTerminal, FakeClient]:
    """A terminal app on a FakeClient (paired with ``table`` unless it is None)."""
    client = FakeClient(server or FakeServer(), table=table, state_dir=state_dir)
    return TravellerTerminal(client, confirm_guard=guard), client


async def settle(pilot: Pilot[None], client: FakeClient, *, online: bool = True) -> None:
    """Wait until the link is up (or down) and every queued command is answered, then redraw."""
    if online:
        await client.wait_for(lambda: client.online and client.waiting == 0)
    else:
        await client.wait_for(lambda: not client.online)
    await pilot.pause()


async def seated(pilot: Pilot[None], client: FakeClient) -> None:
    """From the start: wait for the round, then confirm the seats (Enter)."""
    await client.wait_for(lambda: client.round is not None)
    await pilot.pause()
    await pilot.press("enter")


async def checked(pilot: Pilot[Any]) -> None:
    """Wait for the app's workers, then redraw. With hand records the terminal sends North's
    entry and waits for the server's check in a worker before East's confirmation comes up; a
    key pressed meanwhile is refused ("Checking the entry with the server…")."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def wait_for_screen(pilot: Pilot[Any], kind: type) -> None:
    """Let the workers finish, then check that the screen is a ``kind``."""
    await checked(pilot)
    assert isinstance(pilot.app.screen, kind), pilot.app.screen


async def north_then_east(pilot: Pilot[Any], *north: str) -> None:
    """North's keys, ending with Enter; then, once East's confirmation is up, East's Enter."""
    await pilot.press(*north)
    await wait_for_screen(pilot, ConfirmScreen)
    await pilot.press("enter")


def screen_text(app: TravellerTerminal) -> str:
    """Every Static's text on the current screen, joined (for plain-word assertions)."""
    return "\n".join(str(w.render()) for w in app.screen.query(Static))

"""Snapshots of the issue 20 screens at 80x24: the auction, the play, the deal, and East's
confirmation with the auction and the play (pytest-textual-snapshot; --snapshot-update)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from textual.pilot import Pilot

from terminal import i18n
from terminal.testing.server import FakeServer

from .test_snapshots import SnapCompare, seated, snap
from .test_table_entry import DEAL, hand_keys

pytest.importorskip("pytest_textual_snapshot", reason="pip install pytest-textual-snapshot")

TAKES_ALL = {"auction_entry": "optional", "play_entry": "optional"}


@pytest.fixture
def english_afterwards() -> Iterator[None]:
    """The language is one setting per process: back to English after a shot in another."""
    yield
    i18n.set_language(None)


def test_auction_with_an_alert_and_a_refused_call(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("enter", "1", "1", "+", "1", "4", "*", "1", "3")

    assert snap(snap_compare, steps, FakeServer(**TAKES_ALL))


def test_play_after_two_tricks(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("1", "5", "3", "enter")
        await pilot.press("1", "6", "1", "2", "1", "8", "1", "1", "4")  # ♣6 ♣2 ♣8 ♣A
        await pilot.press("4", "1", "4", "4", "3", "4", "8", "4", "5")  # ♠A ♠3 ♠8 ♠5

    assert snap(snap_compare, steps, FakeServer(play_entry="optional"))


def test_deal_entry_at_east(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("enter", *hand_keys(DEAL[2:].split()[0]), "1", "2", "5")

    assert snap(snap_compare, steps, FakeServer(deal_entry=True))


def test_east_confirmation_with_the_auction_and_the_play(snap_compare: SnapCompare) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("enter", "1", "5", "0", "3", "5", "0", "0", "0")
        await pilot.press("3", "1", "2", "*", "9", "enter")

    assert snap(snap_compare, steps, FakeServer(**TAKES_ALL))


def test_danish_auction(snap_compare: SnapCompare, english_afterwards: Any) -> None:
    async def steps(pilot: Pilot[Any], client: Any) -> None:
        await seated(pilot, client)
        await pilot.press("enter", "1", "5", "*", "*", "0", "0")

    assert snap(snap_compare, steps, FakeServer(language="da", **TAKES_ALL))

"""What the client tells the terminal app: link status, round updates, refusals, conflicts."""

from __future__ import annotations

from dataclasses import dataclass

from protocol.messages import RoundInfo, TableSettings


@dataclass(frozen=True)
class StatusChanged:
    """The link went up or down, or the number of results waiting changed."""

    online: bool
    waiting: int


@dataclass(frozen=True)
class RoundUpdated:
    """The round as the terminal should show it now (server state plus results still queued)."""

    round: RoundInfo


@dataclass(frozen=True)
class CommandRefused:
    """The server refused a queued command; ``message`` is in plain words."""

    code: str
    message: str
    board: int | None = None


@dataclass(frozen=True)
class ConflictReported:
    """Two different results were entered for a board; the TD has been called."""

    board: int
    message: str


@dataclass(frozen=True)
class Unpaired:
    """The server no longer accepts this terminal's table token: it must be paired again."""

    message: str


@dataclass(frozen=True)
class SettingsUpdated:
    """The event's table settings changed (what is shown after confirmation, ranking...)."""

    settings: TableSettings


ClientEvent = (
    StatusChanged | RoundUpdated | CommandRefused | ConflictReported | Unpaired | SettingsUpdated
)

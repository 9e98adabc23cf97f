"""Where the terminal keeps its state: the server URL and table token, in a small JSON file."""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import asdict, dataclass, replace
from pathlib import Path

CONFIG_NAME = "terminal.json"
OUTBOX_NAME = "outbox.sqlite3"
LOCK_NAME = "terminal.lock"


def default_state_dir() -> Path:
    """``$TRAVELLER_STATE_DIR``, or ``$XDG_CONFIG_HOME/traveller``, or ``~/.config/traveller``."""
    explicit = os.environ.get("TRAVELLER_STATE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "traveller"


@dataclass(frozen=True)
class TerminalConfig:
    """What the terminal remembers between starts: where the server is and which table it is."""

    server: str = ""
    token: str | None = None
    table: int | None = None
    event: str | None = None
    section: str | None = None
    #: The language the players chose at this table, and the event they chose it for (the
    #: choice lasts for that event's session; a new event starts in its own language).
    language: str | None = None
    language_event: str | None = None

    @property
    def paired(self) -> bool:
        """True once a pairing code has been exchanged for a table token."""
        return bool(self.token)

    def with_server(self, server: str) -> TerminalConfig:
        """The same table on another server URL (the token is kept; the server may refuse it)."""
        return replace(self, server=server.rstrip("/"))

    def chosen_language(self) -> str | None:
        """The players' language for this table, if they chose one in this event."""
        return self.language if self.language and self.language_event == self.event else None

    def with_language(self, language: str) -> TerminalConfig:
        """Remember the players' language for this table and event."""
        return replace(self, language=language, language_event=self.event)

    def unpaired(self) -> TerminalConfig:
        """Forget the table token (it was revoked or has expired)."""
        return replace(self, token=None)


class ConfigStore:
    """Reads and writes ``terminal.json`` in the state directory (written atomically)."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir
        self.path = state_dir / CONFIG_NAME

    def load(self) -> TerminalConfig:
        """The saved configuration, or an empty one when there is none (or it is unreadable)."""
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return TerminalConfig()
        if not isinstance(data, dict):
            return TerminalConfig()
        known = {k: v for k, v in data.items() if k in TerminalConfig.__dataclass_fields__}
        try:
            return TerminalConfig(**known)
        except TypeError:
            return TerminalConfig()

    def save(self, config: TerminalConfig) -> None:
        """Write the configuration; a crash mid-write leaves the old file intact."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(config), indent=2), encoding="utf-8")
        os.replace(tmp, self.path)


class StateDirBusyError(Exception):
    """Another terminal process holds the state directory (its table token and outbox)."""

    def __init__(self, state_dir: Path, pid: int | None) -> None:
        super().__init__(f"{state_dir} is in use by process {pid}")
        self.state_dir = state_dir
        self.pid = pid


class StateLock:
    """One terminal per state directory: a second one on the same machine would silently be
    the same table and share its outbox. The lock is the kernel's (flock), so it goes with the
    process, even after kill -9, and a restart is never refused by a stale lock file."""

    def __init__(self, state_dir: Path) -> None:
        state_dir.mkdir(parents=True, exist_ok=True)
        self.path = state_dir / LOCK_NAME
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.read(fd, 32).decode(errors="replace").strip()
            os.close(fd)
            raise StateDirBusyError(state_dir, int(holder) if holder.isdigit() else None) from None
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
        self._fd: int | None = fd

    def release(self) -> None:
        """Let another terminal use the directory (the process ending does it too)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

"""The io tests' helpers: the fixture files' folder, a comparable view of an event, and
`traveller score` mounted as the CLI mounts it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from server.io.cli import score
from server.io.model import EventFile

DATA = Path(__file__).resolve().parents[1] / "data"


def content(event: EventFile, *, rounds: bool = True) -> dict[str, Any]:
    """What must survive an export and re-import: pairs, names, boards and every line."""
    lines = sorted(
        (
            line.section or "",
            line.board,
            str(line.ns),
            str(line.ew),
            line.contract or "",
            line.declarer or "",
            -1 if line.tricks is None else line.tricks,
            line.lead or "",
            line.artificial or (),
            (line.round or 0, line.table or 0) if rounds else (),
        )
        for line in event.lines
    )
    return {
        "pairs": sorted((str(p.key), p.names) for p in event.pairs),
        "lines": lines,
    }


def score_cli() -> typer.Typer:
    """The command mounted as the lead mounts it: `traveller score FILE`."""
    app = typer.Typer()
    app.command("score")(score)

    @app.command("calc")
    def calc() -> None:  # a second command, so "score" must be named as on the real CLI
        """Placeholder."""

    return app

"""The io tests' helpers: the fixture files' folder, a comparable view of an event, and
`traveller score` mounted as the CLI mounts it."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import typer

from server.io.cli import score
from server.io.model import BoardRecord, EventFile, Line, PairEntry, PairKey, TeamLine
from server.io.pbn_syntax import Game

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


def pairs_event(lines: list[TeamLine], games: list[Game]) -> EventFile:
    """The real file's tables as a pairs event: each record a table of its board, its deal the
    board's hand record."""
    event = EventFile(name="RealBridge as pairs", date="2021.08.23", source="test")
    tables: Counter[int] = Counter()
    for game, team in zip(games, lines, strict=True):
        tables[team.board] += 1
        number = tables[team.board]
        ns, ew = PairKey(None, 2 * number - 1), PairKey(None, 2 * number)
        for key in (ns, ew):
            if event.pair(key) is None:
                event.pairs.append(
                    PairEntry(key, (f"Player {key.number}a", f"Player {key.number}b"))
                )
        event.lines.append(
            Line(
                team.board,
                ns,
                ew,
                contract=team.contract,
                declarer=team.declarer,
                tricks=team.tricks,
                table=number,
                round=1,
                auction=team.auction,
                play=team.play,
            )
        )
        event.boards.setdefault(
            team.board,
            BoardRecord(
                team.board, game.tags["Dealer"], game.tags["Vulnerable"], game.tags["Deal"]
            ),
        )
    return event

"""`traveller score FILE`: score an event file offline and print the ranking and travellers.

Only typer and the standard library are imported here; the readers load when the command runs.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path

import typer


class OutputFormat(StrEnum):
    """How `traveller score` prints."""

    JSON = "json"
    CSV = "csv"
    TEXT = "text"


class MethodChoice(StrEnum):
    """The methods `traveller score --method` accepts."""

    MP = "mp"
    MP_AMERICAN = "mp-american"
    IMPS = "imps"
    BUTLER = "butler"
    CROSS_IMPS = "cross-imps"
    TOTAL = "total"


app = typer.Typer(add_completion=False, help="Score event files offline.")


@app.command("score")
def score(
    file: Path = typer.Argument(..., help="A PBN, USEBIO (.xml), CSV or Bridgemate .bws file."),
    method: MethodChoice | None = typer.Option(
        None, "--method", "-m", help="Scoring method; default: the one the file names."
    ),
    output: OutputFormat = typer.Option(OutputFormat.TEXT, "--format", "-f", help="Output."),
    across: bool | None = typer.Option(
        None, "--across/--per-section", help="Compare across sections (default: per section)."
    ),
) -> None:
    """Score an event from its travellers (never from the totals in the file)."""
    from .errors import EventFileError
    from .scorefile import load, score_event, to_json, to_text
    from .spelling import cli_method

    try:
        event = load(file)
        chosen = cli_method(method.value) if method is not None else None
        report = score_event(event, chosen, across_sections=across)
    except EventFileError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(2) from None
    except Exception as exc:  # the CLI reports, never prints a traceback
        typer.echo(f"error: {file}: cannot score it ({type(exc).__name__}: {exc})", err=True)
        raise typer.Exit(2) from None
    if output is OutputFormat.JSON:
        typer.echo(json.dumps(to_json(report), indent=2, ensure_ascii=False))
    elif output is OutputFormat.CSV:
        from .csv_io import write_ranking_csv

        typer.echo(write_ranking_csv(report), nl=False)
    else:
        typer.echo(to_text(report), nl=False)


def main() -> None:
    """Run the score command on its own (python -m server.io.cli FILE)."""
    app()


if __name__ == "__main__":
    main()

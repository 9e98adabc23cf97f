"""`traveller score FILE`: score an event file offline and print the ranking and travellers.

Only typer and the standard library are imported here; the readers load when the command runs
(``score_run``).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path

import typer


class OutputFormat(StrEnum):
    """How `traveller score` prints."""

    JSON = "json"
    CSV = "csv"
    TEXT = "text"


def _method(value: str | None) -> str | None:
    """The --method given: "teams" or a scoring method's key (server/scoring/methods.py),
    checked when the command runs (the registry loads only then)."""
    if value is None or value == "teams":
        return value
    from .spelling import SpellingError, cli_method  # noqa: PLC0415

    try:
        return cli_method(value).value
    except SpellingError as error:
        raise typer.BadParameter(str(error)) from None


app = typer.Typer(add_completion=False, help="Score event files offline.")


@app.command("score")
def score(
    file: Path = typer.Argument(..., help="A PBN, USEBIO (.xml), CSV or Bridgemate .bws file."),
    method: str | None = typer.Option(
        None,
        "--method",
        "-m",
        callback=_method,
        help="Scoring method (a wrong one lists them), or teams; default: the one the file names.",
    ),
    output: OutputFormat = typer.Option(OutputFormat.TEXT, "--format", "-f", help="Output."),
    across: bool | None = typer.Option(
        None, "--across/--per-section", help="Compare across sections (default: per section)."
    ),
    integer_vp: bool = typer.Option(
        False, "--integer-vp", help="Teams: the WBF integer VP scale (default: two decimals)."
    ),
    strict: bool = typer.Option(
        False, "--strict", help="Refuse the file (exit 1) if any line of it is refused."
    ),
    profile: str | None = typer.Option(
        None,
        "--profile",
        "-p",
        help="Conventions of a federation or program: dbf (default), ebu, abf, acbl, ffb, "
        "nz, brian, pianola, ruter.",
    ),
) -> None:
    """Score an event from its travellers (never from the totals in the file).

    A PBN team event ([HomeTeam]/[VisitTeam] on every table) is scored as team matches in
    IMPs and VPs unless a pairs method is asked for. Every line is read or refused with its
    place; the summary and the reader's notes go to stderr. The exit code is non-zero only
    when nothing usable is left (2) or, with --strict, when a line was refused (1).
    """
    # Lazy for start-up: every `traveller` command mounts this module (server/ops/cli.py), and
    # the readers and the scorer load only when `score` runs.
    from . import score_run  # noqa: PLC0415

    score_run.run(
        file,
        method,
        output.value,
        across,
        integer_vp,
        strict,
        profile,
    )


def _suggest(program: str, used: str, chosen: bool) -> None:
    """Name the profile of the program that wrote the file, on stderr (``score_run.suggest``)."""
    from .score_run import suggest  # noqa: PLC0415 (lazy for start-up, as in score)

    suggest(program, used, chosen)


def main() -> None:
    """Run the score command on its own (python -m server.io.cli FILE)."""
    app()


if __name__ == "__main__":
    main()

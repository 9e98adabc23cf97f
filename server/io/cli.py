"""`traveller score FILE`: score an event file offline and print the ranking and travellers.

Only typer and the standard library are imported here; the readers load when the command runs.
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path

import typer

from server.i18n.cli_words import _


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
    TEAMS = "teams"


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
    from server.scoring.profiles import get_profile

    from .errors import EventFileError
    from .formats import load
    from .scorefile import score_event
    from .spelling import cli_method

    try:
        chosen_profile = get_profile(profile)
    except ValueError as exc:
        typer.echo(_("error: {message}").format(message=exc), err=True)
        raise typer.Exit(2) from None
    try:
        event = load(file)
        if event.teams is None and not any(line.played for line in event.lines):
            _print_summary(event)
            typer.echo(_("error: {file}: no result to score").format(file=file), err=True)
            raise typer.Exit(2)
        if strict and event.refused:
            _print_summary(event)
            typer.echo(_("error: {file}: lines refused (--strict)").format(file=file), err=True)
            raise typer.Exit(1)
        teams = method is MethodChoice.TEAMS or (method is None and event.teams is not None)
        if teams:
            from .teamfile import score_team_event

            team_report = score_team_event(event, integer_scale=integer_vp)
        else:
            chosen = cli_method(method.value) if method is not None else None
            report = score_event(event, chosen, across_sections=across, profile=chosen_profile)
    except EventFileError as exc:
        typer.echo(_("error: {message}").format(message=exc), err=True)
        raise typer.Exit(2) from None
    except typer.Exit:
        raise
    except Exception as exc:  # the CLI reports, never prints a traceback
        reason = f"{type(exc).__name__}: {exc}"
        typer.echo(
            _("error: {file}: cannot score it ({reason})").format(file=file, reason=reason),
            err=True,
        )
        raise typer.Exit(2) from None
    if teams:
        _print_teams(team_report, output)
    else:
        _suggest(event.program, chosen_profile.name, profile is not None)
        _print_pairs(report, output)
    if output is OutputFormat.TEXT or event.refused or event.notes:
        _print_summary(event)  # JSON carries the counts itself; stderr stays quiet if clean


def _print_pairs(report: object, output: OutputFormat) -> None:
    from .csv_io import write_ranking_csv
    from .report import ScoreReport
    from .scorefile import to_json, to_text

    assert isinstance(report, ScoreReport)
    if output is OutputFormat.JSON:
        typer.echo(json.dumps(to_json(report), indent=2, ensure_ascii=False))
    elif output is OutputFormat.CSV:
        typer.echo(write_ranking_csv(report), nl=False)
    else:
        typer.echo(to_text(report), nl=False)


def _print_summary(event: object) -> None:
    """ "412 lines read, 2 refused: line 88: ..." and the reader's notes, on stderr."""
    from .model import EventFile

    assert isinstance(event, EventFile)
    read = len(event.teams.lines) if event.teams is not None else len(event.lines)
    summary = _("{read} lines read, {refused} refused").format(
        read=read, refused=len(event.refused)
    )
    typer.echo(summary + (":" if event.refused else ""), err=True)
    for refusal in event.refused:
        typer.echo(f"  {refusal}", err=True)
    for note in event.notes:
        typer.echo(_("note: {note}").format(note=note), err=True)


def _suggest(program: str, used: str, chosen: bool) -> None:
    """Name the profile of the program that wrote the file, on stderr (the output stays
    clean for JSON and CSV), unless that is the profile used."""
    from server.scoring.profiles import suggest_profile

    suggested = suggest_profile(program)
    if suggested is None or suggested.name == used:
        return
    if chosen:
        line = _("note: {program} wrote this file; its profile is {profile} ({title})")
    else:
        line = _(
            "note: {program} wrote this file; to reproduce its figures use "
            "--profile {profile} ({title})"
        )
    named = f'"{program.strip().rstrip(".")}"'  # a program's name may end its own sentence
    typer.echo(line.format(program=named, profile=suggested.name, title=suggested.title), err=True)


def _print_teams(report: object, output: OutputFormat) -> None:
    from .teamfile import TeamReport, team_to_csv, team_to_json, team_to_text

    assert isinstance(report, TeamReport)
    if output is OutputFormat.JSON:
        typer.echo(json.dumps(team_to_json(report), indent=2, ensure_ascii=False))
    elif output is OutputFormat.CSV:
        typer.echo(team_to_csv(report), nl=False)
    else:
        typer.echo(team_to_text(report), nl=False)


def main() -> None:
    """Run the score command on its own (python -m server.io.cli FILE)."""
    app()


if __name__ == "__main__":
    main()

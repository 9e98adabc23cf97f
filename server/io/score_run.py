"""What `traveller score` does once it runs: read the file, score it, print the ranking, the
summary and the reader's notes. ``server/io/cli.py`` is the command's surface and loads this
module only when the command runs, so every other `traveller` command starts without the
readers."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from server.i18n.cli_words import _
from server.scoring import get_profile, suggest_profile

from .csv_io import write_ranking_csv
from .errors import EventFileError
from .formats import load
from .model import EventFile
from .report import ScoreReport
from .scorefile import score_event, to_json, to_text
from .spelling import cli_method
from .teamfile import TeamReport, score_team_event, team_to_csv, team_to_json, team_to_text


def run(
    file: Path,
    method: str | None,
    output: str,
    across: bool | None,
    integer_vp: bool,
    strict: bool,
    profile: str | None,
) -> None:
    """Score ``file`` as `traveller score` documents it (``method`` and ``output`` are the
    command's option values, "teams" and "json" ...); exits through typer.Exit."""
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
        teams = method == "teams" or (method is None and event.teams is not None)
        if teams:
            team_report = score_team_event(event, integer_scale=integer_vp)
        else:
            chosen = cli_method(method) if method is not None else None
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
        suggest(event.program, chosen_profile.name, profile is not None)
        _print_pairs(report, output)
    if output == "text" or event.refused or event.notes:
        _print_summary(event)  # JSON carries the counts itself; stderr stays quiet if clean


def _print_pairs(report: ScoreReport, output: str) -> None:
    if output == "json":
        typer.echo(json.dumps(to_json(report), indent=2, ensure_ascii=False))
    elif output == "csv":
        typer.echo(write_ranking_csv(report), nl=False)
    else:
        typer.echo(to_text(report), nl=False)


def _print_summary(event: EventFile) -> None:
    """ "412 lines read, 2 refused: line 88: ..." and the reader's notes, on stderr."""
    read = len(event.teams.lines) if event.teams is not None else len(event.lines)
    summary = _("{read} lines read, {refused} refused").format(
        read=read, refused=len(event.refused)
    )
    typer.echo(summary + (":" if event.refused else ""), err=True)
    for refusal in event.refused:
        typer.echo(f"  {refusal}", err=True)
    for note in event.notes:
        typer.echo(_("note: {note}").format(note=note), err=True)


def suggest(program: str, used: str, chosen: bool) -> None:
    """Name the profile of the program that wrote the file, on stderr (the output stays
    clean for JSON and CSV), unless that is the profile used."""
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


def _print_teams(report: TeamReport, output: str) -> None:
    if output == "json":
        typer.echo(json.dumps(team_to_json(report), indent=2, ensure_ascii=False))
    elif output == "csv":
        typer.echo(team_to_csv(report), nl=False)
    else:
        typer.echo(team_to_text(report), nl=False)

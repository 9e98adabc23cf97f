"""`traveller movement ...`: show any movement offered with its validation and balance report."""

from __future__ import annotations

from typing import Literal

import typer

from server.movements.balance import comparison_balance, player_balance
from server.movements.bridgemate import to_round_data, write_round_data_csv
from server.movements.bridgescorer import bundled_names
from server.movements.catalog import KINDS, build
from server.movements.exchange import format_boards, write_csv, write_json
from server.movements.guide import render_grid, render_pair_card, render_table_card
from server.movements.individual import validate_individual
from server.movements.individual_pairs import as_partnerships
from server.movements.model import IndividualMovement, Movement, PairRef
from server.movements.validate import MovementError, validate

app = typer.Typer(help="Show, check and export movements.", no_args_is_help=True)


@app.command()
def show(
    kind: str = typer.Argument(..., help=f"One of: {', '.join(KINDS)}."),
    tables: int | None = typer.Option(None, "--tables", "-t", help="Number of tables."),
    pairs: int | None = typer.Option(
        None, "--pairs", "-p", help="Pairs (players for individuals)."
    ),
    rounds: int | None = typer.Option(None, "--rounds", "-r", help="Rounds (default: all)."),
    boards_per_round: int = typer.Option(2, "--boards-per-round", "-b"),
    even: str = typer.Option("skip", help="Even-table Mitchell: skip or relay."),
    arrow_switch: int = typer.Option(0, "--arrow-switch", help="Arrow-switch the last N rounds."),
    name: str | None = typer.Option(None, "--name", help="Bundled movement name (part of it)."),
    output: str = typer.Option("grid", "--format", help="grid, csv, json or round-data."),
    table_cards: bool = typer.Option(False, "--table-cards", help="Print every table's card."),
    pair_card: str | None = typer.Option(None, "--pair-card", help="Print one pair's card."),
) -> None:
    """Print a movement, then whether it is valid and how well balanced it is."""
    if even not in ("skip", "relay"):
        raise typer.BadParameter("--even must be skip or relay")
    cure: Literal["skip", "relay"] = "relay" if even == "relay" else "skip"
    try:
        m = build(
            kind,
            tables=tables,
            pairs=pairs,
            rounds=rounds,
            boards_per_round=boards_per_round,
            even=cure,
            arrow_switch_rounds=arrow_switch,
            name=name,
        )
    except ValueError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(2) from error
    if isinstance(m, IndividualMovement):
        _show_individual(m)
        return
    if output == "csv":
        typer.echo(write_csv(m), nl=False)
    elif output == "json":
        typer.echo(write_json(m))
    elif output == "round-data":
        typer.echo(write_round_data_csv(to_round_data(m)), nl=False)
    else:
        typer.echo(render_grid(m))
    if table_cards:
        for t in range(1, m.tables + 1):
            typer.echo("\n" + render_table_card(m, t))
    if pair_card:
        typer.echo("\n" + render_pair_card(m, PairRef.parse(pair_card)))
    if output == "grid":
        typer.echo("\n" + report(m))


def report(m: Movement) -> str:
    """The validation and balance report printed under the grid."""
    try:
        validate(m)
        verdict = "valid"
    except MovementError as error:
        verdict = f"INVALID: {error}"
    lines = [
        f"Validation: {verdict}",
        f"Tables {m.tables}, rounds {m.rounds}, boards {format_boards(m.boards())} "
        f"({len(m.boards())}), pairs {len(m.pairs())}",
    ]
    if m.shared_tables:
        lines.append(f"Tables sharing boards: {m.shared_tables}")
    for number, tables in enumerate(m.circuits, start=1):
        lines.append(f"Board circuit {number} (its own copy of the boards): tables {tables}")
    result = comparison_balance(m)
    lines.append(f"Balance (one winner): {result.balance:.1f}%")
    if result.field_balance is not None:
        lines.append(f"Balance (two winners, per direction): {result.field_balance:.1f}%")
    lines.append("Boards compared with each other pair (fewest-most):")
    for p in result.pairs:
        low, high = result.spread(p)
        lines.append(f"  {p!s:>5}: {low}-{high}")
    return "\n".join(lines)


def _show_individual(m: IndividualMovement) -> None:
    typer.echo(m.name)
    for a in m.assignments:
        typer.echo(
            f"round {a.round:>2} table {a.table}: N {a.north} S {a.south} - "
            f"E {a.east} W {a.west}  boards {format_boards(a.boards)}"
        )
    try:
        validate_individual(m)
        typer.echo("\nValidation: valid")
    except MovementError as error:
        typer.echo(f"\nValidation: INVALID: {error}")
    partners = m.partners()
    typer.echo(f"Partnerships: {len(partners)}, most with one partner: {max(partners.values())}")
    typer.echo(f"Balance (player against player): {player_balance(as_partnerships(m)):.1f}%")


@app.command("list")
def list_movements() -> None:
    """List the movement kinds and the bundled movements."""
    typer.echo("Kinds (and the options each reads):")
    for kind in KINDS.values():
        options = ", ".join("--" + option.replace("_", "-") for option in kind.options)
        typer.echo(f"  {kind.name}: {options}")
    typer.echo("Bundled (use: show bundled --name NAME):")
    for n in bundled_names():
        typer.echo(f"  {n}")

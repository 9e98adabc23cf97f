"""Teams sections made by the set-up wizard (a round robin, a Swiss), and a table's boards of
a round stored as confirmed results, straight in the database."""

from __future__ import annotations

from sqlmodel import Session, select

from server.core.models import MovementAssignment, Result, Section
from server.movements.advice import proposal_for
from server.services.event import event_wizard, setup


def teams_section(
    session: Session, kind: str, pairs: int, name: str, teams: dict[int, str] | None = None
) -> Section:
    """A teams section of the wizard's movement ``kind`` (2 boards a round), its teams named
    as given."""
    proposal = proposal_for(kind, pairs, boards_per_round=2)
    assert proposal is not None
    made = event_wizard.create(
        session,
        name=name,
        settings=event_wizard.WizardSettings(scoring="imps"),
        sections=[event_wizard.SectionPlan("A", proposal.movement, {}, teams or {})],
    )
    return setup.get_section(session, made.section_ids[0])


def round_robin(session: Session, pairs: int) -> Section:
    return teams_section(session, "teams-round-robin", pairs, "Teams", {1: "Aces"})


def play(
    session: Session, section: Section, round_: int, table: int, contract: str, tricks: int
) -> None:
    cell = session.exec(
        select(MovementAssignment).where(
            MovementAssignment.section_id == section.id,
            MovementAssignment.round == round_,
            MovementAssignment.table_number == table,
        )
    ).one()
    for board in cell.boards_listed():
        session.add(
            Result(
                section_id=section.id or 0,
                table_number=table,
                round=round_,
                board=board,
                ns_pair_id=cell.ns_pair_id,
                ew_pair_id=cell.ew_pair_id,
                contract=contract,
                declarer="N",
                tricks=tricks,
                state="confirmed",
            )
        )

"""A round-robin teams section made by the set-up wizard, and a table's boards of a round
stored as confirmed results, straight in the database."""

from __future__ import annotations

from sqlmodel import Session, select

from server.core.models import MovementAssignment, Result, Section
from server.movements.advice import proposal_for
from server.services.event import event_wizard, setup


def round_robin(session: Session, pairs: int) -> Section:
    proposal = proposal_for("teams-round-robin", pairs, boards_per_round=2)
    assert proposal is not None
    made = event_wizard.create(
        session,
        name="Teams",
        settings=event_wizard.WizardSettings(scoring="imps"),
        sections=[event_wizard.SectionPlan("A", proposal.movement, {}, {1: "Aces"})],
    )
    return setup.get_section(session, made.section_ids[0])


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

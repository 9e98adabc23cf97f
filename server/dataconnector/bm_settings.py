"""Bridgemate 2 and 3 settings onto Traveller's event settings; the rest kept and reported.

Applied: lead card entry (the event's ``lead_required``; and per section whether the lead is
checked against the hand record), the result entry method (``tricks_style``) and player number
entry at the table (``player_numbers``). Every other setting is kept as sent."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlmodel import Session

from protocol.messages import SettingsChanged
from server.core.models import LEAD_CHECK, DcSession
from server.dataconnector import checks
from server.dataconnector.movement import round_pushes
from server.dataconnector.store import event_of, load, same_session, save, section_of, sections_of
from server.dataconnector.wire import PROGRAM
from server.services import audit
from server.services.event import event_settings
from server.services.table.table_commands import Push

#: Result entry method (BM2 EnterResultsMethod, BM3 BM3ResultMethod) -> Traveller tricks style:
#: 0 up/down tricks, 1 number of tricks, 2 American style (made/down: relative to the contract).
TRICKS_STYLE = {0: "relative", 1: "absolute", 2: "relative"}

#: Per model: its label, and the settings Traveller applies (lead card entry, the result entry
#: method, player numbers at the table and whether the lead is checked against the deal).
MODELS = {
    "bm2": (
        "Bridgemate 2",
        frozenset(
            {
                "LeadCard",
                "BM2ValidateLeadCard",
                "EnterResultsMethod",
                "MemberNumbers",
                "BM2NumberEntryEachRound",
            }
        ),
    ),
    "bm3": (
        "Bridgemate 3",
        frozenset({"BM3LeadCardEntry", "BM3ResultMethod", "BM3PlayerNumberEntry"}),
    ),
}
ENVELOPE = frozenset({"SessionGuid", "SectionLetters", "ValidationMessages"})
#: BM3LeadCardEntry: 0 no lead, 1 the lead without validation, 2 validated (must comply),
#: 3 validated (a warning). Traveller's lead check (docs/rules.md § 11: refused twice, then taken
#: and flagged for the TD) serves 2 and 3.
BM3_LEAD_UNCHECKED = 1
#: BM3PlayerNumberEntry (Bm3PlayerRegistrationOption) -> Traveller's player numbers setting.
BM3_PLAYER_NUMBERS = {0: "off", 1: "first_round", 2: "every_round"}
#: Where the section's choice to check the lead against the deal is kept (DcSession.data).


def _bm3(raw: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    lead = raw.get("BM3LeadCardEntry")
    if isinstance(lead, int):
        out["lead_required"] = lead != 0
        out[LEAD_CHECK] = lead != BM3_LEAD_UNCHECKED
    method = raw.get("BM3ResultMethod")
    if isinstance(method, int) and method in TRICKS_STYLE:
        out["tricks_style"] = TRICKS_STYLE[method]
    numbers = raw.get("BM3PlayerNumberEntry")
    if isinstance(numbers, int) and numbers in BM3_PLAYER_NUMBERS:
        out["player_numbers"] = BM3_PLAYER_NUMBERS[numbers]
    return out


def _bm2(raw: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if "LeadCard" in raw:
        out["lead_required"] = bool(raw["LeadCard"])
        out[LEAD_CHECK] = not raw["LeadCard"] or bool(raw.get("BM2ValidateLeadCard"))
    method = raw.get("EnterResultsMethod")
    if isinstance(method, int) and method in TRICKS_STYLE:
        out["tricks_style"] = TRICKS_STYLE[method]
    if "MemberNumbers" in raw:
        every = bool(raw.get("BM2NumberEntryEachRound"))
        out["player_numbers"] = (
            ("every_round" if every else "first_round") if raw["MemberNumbers"] else "off"
        )
    return out


def _mapped(model: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """The Traveller settings these Bridgemate settings ask for (event fields and the
    section's lead check)."""
    return _bm3(raw) if model == "bm3" else _bm2(raw)


def settings_pushes(session: Session, dcs: DcSession) -> list[Push]:
    """Every table of the session told its (new) settings and round."""
    event = event_of(session, dcs)
    pushes = []
    for section in sections_of(session, dcs):
        settings = event_settings.table_settings(session, event, section)
        pushes.append(Push(section.id or 0, None, SettingsChanged(settings=settings)))
        pushes += round_pushes(session, section)
    return pushes


def put_settings(
    session: Session, dcs: DcSession, model: str, dtos: Sequence[Mapping[str, Any]]
) -> str:
    """Apply what Traveller has (lead card entry, tricks style), keep every setting as sent,
    and say which ones Traveller does not use."""
    check = checks.bridgemate2 if model == "bm2" else checks.bridgemate3
    label, used = MODELS[model]
    checks.require([p for raw in dtos for p in check(raw)], f"{label} settings")
    same_session([str(raw.get("SessionGuid") or "") for raw in dtos], dcs)
    event = event_of(session, dcs)
    data = load(dcs)
    lines = []
    seen: dict[str, tuple[str, Any]] = {}
    for raw in dtos:
        section = section_of(session, dcs, str(raw.get("SectionLetters") or ""))
        kept = {k: v for k, v in raw.items() if k not in ENVELOPE}
        mine = data["settings"].setdefault(section.letter, {})
        mine[model] = kept
        applied = _mapped(model, raw)
        if LEAD_CHECK in applied:
            mine[LEAD_CHECK] = applied[LEAD_CHECK]
        conflicts = [
            f"Traveller has one {key} per event: section {seen[key][0]}'s {seen[key][1]!r} "
            f"is replaced by {value!r}"
            for key, value in applied.items()
            if key != LEAD_CHECK and key in seen and seen[key][1] != value
        ]
        for key, value in applied.items():
            if key != LEAD_CHECK:
                setattr(event, key, value)
                seen[key] = (section.letter, value)
        unused = {
            k: "****" if k.endswith("PINcode") else v  # the TD's PIN is not echoed
            for k, v in kept.items()
            if k not in used
        }
        audit.record(
            session,
            actor=PROGRAM,
            action="dc_settings",
            section_id=section.id,
            new={"model": label, "applied": applied, "kept_unused": unused},
        )
        done = ", ".join(f"{k}={v!r}" for k, v in applied.items()) or "nothing"
        rest = ", ".join(f"{k}={v!r}" for k, v in sorted(unused.items())) or "none"
        lines.append(
            f"Section {section.letter} ({label}): applied {done}; "
            f"kept but not used by Traveller: {rest}."
            + (" " + "; ".join(conflicts) if conflicts else "")
        )
    session.add(event)
    save(session, dcs, data)
    return " ".join(lines)

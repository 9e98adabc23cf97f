"""Bridgemate 2 and 3 settings onto Traveller's event settings; the rest kept and reported."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlmodel import Session

from server.dataconnector import checks
from server.dataconnector.store import event_of, load, same_session, save, section_of
from server.dataconnector.wire import PROGRAM
from server.models import DcSession
from server.services import audit

#: Result entry method (BM2 EnterResultsMethod, BM3 BM3ResultMethod) -> Traveller tricks style:
#: 0 up/down tricks, 1 number of tricks, 2 American style (made/down: relative to the contract).
TRICKS_STYLE = {0: "relative", 1: "absolute", 2: "relative"}

#: Per model: the setting for lead card entry and the one for the result entry method.
MODELS = {
    "bm2": ("Bridgemate 2", "LeadCard", "EnterResultsMethod"),
    "bm3": ("Bridgemate 3", "BM3LeadCardEntry", "BM3ResultMethod"),
}
ENVELOPE = frozenset({"SessionGuid", "SectionLetters", "ValidationMessages"})


def _mapped(model: str, raw: Mapping[str, Any]) -> dict[str, Any]:
    """The Traveller event settings these Bridgemate settings ask for."""
    _label, lead_key, method_key = MODELS[model]
    out: dict[str, Any] = {}
    if lead_key in raw:
        out["lead_required"] = bool(raw[lead_key])  # BM3: 1-3 all ask for the lead card
    method = raw.get(method_key)
    if isinstance(method, int) and method in TRICKS_STYLE:
        out["tricks_style"] = TRICKS_STYLE[method]
    return out


def put_settings(
    session: Session, dcs: DcSession, model: str, dtos: Sequence[Mapping[str, Any]]
) -> str:
    """Apply what Traveller has (lead card entry, tricks style), keep every setting as sent,
    and say which ones Traveller does not use."""
    check = checks.bridgemate2 if model == "bm2" else checks.bridgemate3
    label, lead_key, method_key = MODELS[model]
    checks.require([p for raw in dtos for p in check(raw)], f"{label} settings")
    same_session([str(raw.get("SessionGuid") or "") for raw in dtos], dcs)
    event = event_of(session, dcs)
    data = load(dcs)
    lines = []
    seen: dict[str, tuple[str, Any]] = {}
    for raw in dtos:
        section = section_of(session, dcs, str(raw.get("SectionLetters") or ""))
        kept = {k: v for k, v in raw.items() if k not in ENVELOPE}
        data["settings"].setdefault(section.letter, {})[model] = kept
        applied = _mapped(model, raw)
        conflicts = [
            f"Traveller has one {key} per event: section {seen[key][0]}'s {seen[key][1]!r} "
            f"is replaced by {value!r}"
            for key, value in applied.items()
            if key in seen and seen[key][1] != value
        ]
        for key, value in applied.items():
            setattr(event, key, value)
            seen[key] = (section.letter, value)
        unused = {
            k: "****" if k.endswith("PINcode") else v  # the TD's PIN is not echoed
            for k, v in kept.items()
            if k not in (lead_key, method_key)
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
            f"Section {section.letter} ({label}): applied to the event {done}; "
            f"kept but not used by Traveller: {rest}."
            + (" " + "; ".join(conflicts) if conflicts else "")
        )
    session.add(event)
    save(session, dcs, data)
    return " ".join(lines)

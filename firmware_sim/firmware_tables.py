"""The tables the MicroPython keypad firmware (deploy/keypad/firmware) reads, generated from
protocol/ and the keypad's texts, so the firmware never carries a hand-made copy of them.

MicroPython has no pydantic, dataclasses, enum or typing at run time, so it cannot import
protocol/ itself. This module turns what it needs into plain literals (tuples, dicts, strings,
bytes): the frame layouts of ``protocol.keypad_codec.FRAMES`` as nested tuples that the
firmware's one encoder and decoder read, the frame and link constants, the key grammar's key
tables, the Law 77 scores of every contract and trick count, the states and the keypad's texts
in every language. ``python -m firmware_sim.firmware_tables`` writes the file;
``tests/keypad_firmware/test_tables.py`` fails when the file in the repository differs from
what this module writes now.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path
from typing import Final

from protocol import framing, languages, link
from protocol import keys as grammar
from protocol.bridge.score import contract_score
from protocol.frame_fields import (
    Absent,
    Bits,
    Choice,
    EnumBits,
    Field,
    FlagBit,
    FlagByte,
    Int,
    Kind,
    ListOf,
    OneOf,
    OptText,
    PresentBit,
    Struct,
    Text,
    Time,
    ZeroIsNone,
)
from protocol.keypad_codec import FRAMES, TEXT_LIMIT, Calls
from protocol.messages import COMPLETE_STATES

from . import i18n
from .device import AUTH_ERRORS, REFUSAL_TEXTS

#: Where the generated module lives in the repository.
TARGET: Final = Path(__file__).resolve().parents[1] / "deploy/keypad/firmware/kp_tables.py"
_STRAIN_CLASSES: Final = ("C", "H", "NT")  # the minors, the majors and notrump score alike
_DOUBLINGS: Final = ("", "X", "XX")

Spec = str | tuple[object, ...]


def kind_spec(kind: Kind) -> Spec:
    """One value's kind as plain data: "u8", ("list", item), ("struct", parts, fixed), ..."""
    if isinstance(kind, Int):
        return "i16" if kind.signed else ("u8" if kind.size == 1 else "u16")
    if isinstance(kind, FlagByte):
        return "flag"
    if isinstance(kind, Text):
        return "text" if kind.cut is None else ("cut", kind.cut)
    if isinstance(kind, OptText | Time):
        return "opt"
    if isinstance(kind, Choice):
        return ("choice", tuple(kind.options))
    if isinstance(kind, ZeroIsNone):
        return ("zero", kind_spec(kind.kind))
    if isinstance(kind, ListOf):
        return ("list", kind_spec(kind.item))
    if isinstance(kind, OneOf):
        return (
            "one_of",
            tuple((a.of.__name__, kind_spec(a.kind)) for a in kind.alternatives),
        )
    if isinstance(kind, Calls):
        return "calls"
    if isinstance(kind, Struct):
        return ("struct", tuple(_part_spec(p) for p in kind.parts), tuple(kind.fixed.items()))
    raise TypeError(f"no firmware spec for {type(kind).__name__}")


def _part_spec(part: Field | Bits | Absent) -> tuple[object, ...]:
    if isinstance(part, Field):
        return ("field", part.name, kind_spec(part.kind), part.on.value)
    if isinstance(part, Absent):
        return ("absent", part.name)
    bits: list[tuple[object, ...]] = []
    for bit in part.bits:
        if isinstance(bit, FlagBit):
            bits.append(("flag", bit.name, 1))
        elif isinstance(bit, PresentBit):
            bits.append(("present", bit.name, 1))
        else:
            assert isinstance(bit, EnumBits)
            bits.append(("enum", bit.name, bit.width, tuple(bit.options)))
    return ("bits", part.label, tuple(bits))


def frame_specs() -> dict[int, tuple[str, Spec]]:
    """Each frame TYPE's message type name and payload layout."""
    specs: dict[int, tuple[str, Spec]] = {}
    for code, struct in FRAMES.items():
        name = struct.model.model_fields["type"].default
        specs[int(code)] = (str(name), kind_spec(struct))
    return specs


def score_table() -> bytes:
    """The declaring side's Law 77 score, big-endian i16, for every level 1-7, strain class
    (C, H, NT), doubling ("", X, XX), vulnerability (no, yes) and tricks 0-13, in that order."""
    out = bytearray()
    for level in range(1, 8):
        for strain in _STRAIN_CLASSES:
            for doubling in _DOUBLINGS:
                for vulnerable in (False, True):
                    for tricks in range(14):
                        score = contract_score(f"{level}{strain}{doubling}", tricks, vulnerable)
                        out += score.to_bytes(2, "big", signed=True)
    return bytes(out)


def tables() -> dict[str, object]:
    """Every table the firmware reads, by the name it has there."""
    config = link.LinkConfig()
    return {
        "FRAMES": frame_specs(),
        "TEXT_LIMIT": TEXT_LIMIT,
        "START": framing.START,
        "ESCAPE": framing.ESCAPE,
        "ESCAPE_XOR": framing.ESCAPE_XOR,
        "MAX_PAYLOAD": framing.MAX_PAYLOAD,
        "FROM_DEVICE": framing.FROM_DEVICE,
        "HEADER_LEN": framing.HEADER_LEN,
        "FIRST_MESSAGE_TYPE": framing.FIRST_MESSAGE_TYPE,
        "CONTROL_FRAME_LEN": link.CONTROL_FRAME_LEN,
        "FRAME_TYPES": {t.name: int(t) for t in framing.FrameType},
        "CRC_TABLE": tuple(framing.crc16(bytes([b]), 0) for b in range(256)),
        "LINK_MS": {
            "ack_timeout": round(config.ack_timeout * 1000),
            "max_timeout": round(config.max_timeout * 1000),
            "frame_gap": round(config.frame_gap * 1000),
            "reply_timeout": round(config.reply_timeout * 1000),
            "silence_timeout": round(config.silence_timeout * 1000),
        },
        "LINK_BACKOFF": int(config.backoff),
        "LINK_RETRY_LIMIT": config.retry_limit,
        "LINK_FAST_RESENDS": config.fast_resends,
        "LINK_BAUD": config.baud,
        "STRAIN_KEYS": dict(grammar.STRAIN_KEYS),
        "DECLARER_KEYS": dict(grammar.DECLARER_KEYS),
        "SUIT_KEYS": dict(grammar.SUIT_KEYS),
        "HIGH_RANKS": dict(grammar.HIGH_RANKS),
        "GRAMMAR": {
            "double": grammar.DOUBLE,
            "over": grammar.OVER,
            "under": grammar.UNDER,
            "made": grammar.MADE,
            "passed": grammar.PASSED,
        },
        "SCORE_STRAINS": {"C": 0, "D": 0, "H": 1, "S": 1, "NT": 2},
        "SCORE_DOUBLINGS": {d: i for i, d in enumerate(_DOUBLINGS)},
        "SCORES": score_table(),
        "COMPLETE_STATES": tuple(sorted(str(state) for state in COMPLETE_STATES)),
        "AUTH_ERRORS": tuple(sorted(AUTH_ERRORS)),
        "REFUSAL_TEXTS": dict(REFUSAL_TEXTS),
        "LANGUAGES": tuple(languages.LANGUAGES),
        "SOURCE": languages.SOURCE,
        "SEATS": {lang: dict(seats) for lang, seats in i18n.SEATS.items()},
        "TEXTS": dict(sorted(i18n.catalogue_texts().items())),
        "CHARSET": "".join(sorted(i18n.CHARSET)),
    }


def render() -> str:
    """The generated module's text."""
    lines = [
        '"""GENERATED by `python -m firmware_sim.firmware_tables` from protocol/ and the keypad\'s',
        "texts: do not edit. tests/keypad_firmware/test_tables.py checks it is up to date.",
        '"""',
        "",
    ]
    for name, value in tables().items():
        text = repr(value)
        ast.literal_eval(text)  # plain literals only: MicroPython reads them as they are
        lines.append(f"{name} = {text}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the tables (or, with ``--check``, exit 1 when the file is not up to date)."""
    args = sys.argv[1:] if argv is None else argv
    text = render()
    if "--check" in args:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != text:
            print(f"{TARGET} is out of date: run python -m firmware_sim.firmware_tables")
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The firmware's generated tables are what protocol/ says now, and the firmware reads them as
protocol/ does: every frame vector, every key sequence and every Law 77 score, under MicroPython."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest

from firmware_sim import firmware_tables
from protocol import keys as grammar
from protocol.bridge import TableResult, Vulnerability, result_ns_score
from protocol.keypad_codec import decode, encode
from protocol.messages import BoardResultView
from tests.protocol.test_keypad_vectors import VECTORS
from tests.support.micropython import MicroPython

pytestmark = pytest.mark.subprocess


@pytest.fixture(scope="module")
def mp() -> Iterator[MicroPython]:
    with MicroPython() as interpreter:
        interpreter.run("import kp_codec, kp_grammar, kp_score, json")
        yield interpreter


def test_the_generated_file_is_up_to_date() -> None:
    """Regenerating gives the file in the repository, byte for byte."""
    assert firmware_tables.TARGET.read_text(encoding="utf-8") == firmware_tables.render()
    assert firmware_tables.main(["--check"]) == 0


def test_a_stale_file_is_found(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "kp_tables.py"
    stale.write_text(firmware_tables.render().replace("'0-7=enter *=TD'", "'0-7=ENTER'"))
    monkeypatch.setattr(firmware_tables, "TARGET", stale)
    assert firmware_tables.main(["--check"]) == 1


def _same(expected: object, got: object) -> bool:
    """``got`` (the firmware's dict) is ``expected`` (protocol's JSON) less what the frame does
    not carry: the protocol version, a nested message's type, fields left at their defaults."""
    if isinstance(expected, dict) and isinstance(got, dict):
        missing = expected.keys() - got.keys()
        tagged = [k for k in missing if k not in ("v", "type")]
        if any(expected[k] not in (None, [], "", False) for k in tagged):
            return False
        return all(k in expected and _same(expected[k], v) for k, v in got.items())
    if isinstance(expected, list) and isinstance(got, list):
        return len(expected) == len(got) and all(map(_same, expected, got))
    return expected == got


def _has_auction(message: Any) -> bool:
    values = getattr(message, "values", None)
    return values is not None and values.auction is not None


@pytest.mark.parametrize(
    ("message", "kind", "payload"), VECTORS, ids=[kind.name for _, kind, _ in VECTORS]
)
def test_the_firmware_codec_reads_and_writes_every_vector(
    mp: MicroPython, message: Any, kind: int, payload: str
) -> None:
    data = bytes.fromhex(payload)
    if kind >= 0x20:  # the gateway's messages: the firmware decodes them as protocol/ does
        got = mp.value(f"kp_codec.decode({int(kind)}, bytes.fromhex({payload!r}))")
        decoded = decode(kind, data)
        expected = decoded.model_dump(mode="json")
        if got.get("expires_at") is not None:  # the firmware keeps the time as its ISO text
            when = getattr(decoded, "expires_at", None)
            assert datetime.fromisoformat(got["expires_at"]) == when
            expected["expires_at"] = got["expires_at"]
        assert _same(expected, got), (expected, got)
        again = f"kp_codec.encode(json.loads({json.dumps(json.dumps(got))}))[1].hex()"
        assert mp.value(again) == payload.replace(" ", "")
    elif _has_auction(message):  # the firmware keys no auction, and says so
        sent = json.dumps(json.dumps(message.model_dump(mode="json")))
        with pytest.raises(AssertionError, match="does not key the auction"):
            mp.run(f"kp_codec.encode(json.loads({sent}))")
    else:  # the keypad's commands: byte for byte what protocol/ encodes
        sent = json.dumps(json.dumps(message.model_dump(mode="json")))
        code, body = mp.value(
            f"(lambda m: [m[0], m[1].hex()])(kp_codec.encode(json.loads({sent})))"
        )
        assert (code, bytes.fromhex(body)) == encode(message)


def test_a_damaged_payload_is_a_codec_error(mp: MicroPython) -> None:
    for kind, payload in ((0x21, "00 03"), (0x22, "09 6b"), (0x2F, ""), (0x23, "ff 02 6f 6b 00")):
        lines = mp.run(
            "try:\n"
            f"    kp_codec.decode({kind}, bytes.fromhex({payload!r}))\n"
            "    print('decoded')\n"
            "except kp_codec.CodecError as e:\n"
            "    print('refused')\n"
        )
        assert lines == ["refused"]


_KEYS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "+", "-")


def _python_draft(board: int, style: str, lead: bool, keys: list[str]) -> dict[str, Any]:
    draft = grammar.Draft(board, style, lead)  # type: ignore[arg-type]
    refusals: list[str] = []
    for key in keys:
        try:
            draft = grammar.press(draft, key)
        except grammar.KeyRefusedError as refused:
            draft = refused.kept(draft)  # what a device keeps
            refusals.append(refused.code)
    values = draft.values()
    return {
        "step": draft.step,
        "keys": list(draft.keys),
        "values": None if values is None else values.model_dump(mode="json"),
        "complete": draft.complete,
        "refusals": refusals,
        "back": list(grammar.backspace(draft).keys),
    }


_MP_DRAFT = """
def play(board, style, lead, keys):
    draft = kp_grammar.Draft(board, style, lead)
    refusals = []
    for key in keys:
        try:
            draft = kp_grammar.press(draft, key)
        except kp_grammar.KeyRefusedError as refused:
            draft = refused.kept(draft)
            refusals.append(refused.code)
    return {"step": draft.step, "keys": draft.keys, "values": draft.values(),
            "complete": draft.complete, "refusals": refusals,
            "back": kp_grammar.backspace(draft).keys}
"""


def test_the_firmware_keys_a_result_as_the_grammar_does(mp: MicroPython) -> None:
    """Random key sequences (the keypad's keys, both trick styles, with and without the lead)
    give the same draft, the same refusals and the same backspace under MicroPython; a refused
    second tricks digit takes its 1 back on both."""
    rng = random.Random(33)
    cases: list[tuple[str, bool, list[str]]] = [
        ("absolute", False, ["7", "5", "1", "1", "4"]),
        ("absolute", False, ["7", "5", "1", "1", "9", "3"]),
        ("absolute", True, ["3", "5", "1", "4", "1", "4", "1", "5", "-"]),
    ]
    for _ in range(400):
        style = rng.choice(("absolute", "relative"))
        lead = rng.random() < 0.3
        first = [rng.choice("01234567"), rng.choice("12345"), rng.choice("1234")]
        keys = first[: rng.randint(0, 3)] + [rng.choice(_KEYS) for _ in range(rng.randint(0, 6))]
        cases.append((style, lead, keys))
    mp.run(_MP_DRAFT)
    got = mp.value(f"[play(5, s, l, k) for s, l, k in json.loads({json.dumps(json.dumps(cases))})]")
    expected = [_python_draft(5, style, lead, keys) for style, lead, keys in cases]
    for case, mine, theirs in zip(cases, got, expected, strict=True):
        assert mine == theirs, case


def test_keys_for_a_stored_result_are_the_grammars(mp: MicroPython) -> None:
    views = [
        {"contract": "4SX", "declarer": "S", "tricks": 8, "result": "-2", "lead": "HQ"},
        {"contract": "3NT", "declarer": "N", "tricks": 10, "result": "+1", "lead": "C7"},
        {"contract": "PASS", "declarer": None, "tricks": 0, "result": None, "lead": None},
        {"contract": "7CXX", "declarer": "W", "tricks": 13, "result": "=", "lead": "DT"},
    ]
    for view in views:
        model = BoardResultView(board=1, round=1, table=1, state="rejected", version=1, **view)
        for style in ("absolute", "relative"):
            for lead in (False, True):
                mine = mp.value(
                    f"kp_grammar.keys_for(json.loads({json.dumps(json.dumps(view))}), "
                    f"{style!r}, {lead})"
                )
                assert mine == list(grammar.keys_for(model, style, lead))  # type: ignore[arg-type]


def test_every_law_77_score_is_the_bridge_domains(mp: MicroPython) -> None:
    """All 7 x 5 x 3 contracts, 4 declarers, 4 vulnerabilities, 0-13 tricks."""
    got = mp.value(
        "[kp_score.ns_score('%d%s%s' % (l, s, d), decl, t, v) for l in range(1, 8) "
        "for s in ('C', 'D', 'H', 'S', 'NT') for d in ('', 'X', 'XX') "
        "for decl in 'NESW' for v in ('NONE', 'NS', 'EW', 'BOTH') for t in range(14)]"
    )
    expected = [
        result_ns_score(TableResult.make(f"{level}{strain}{dbl}", decl, tricks), Vulnerability(v))
        for level in range(1, 8)
        for strain in ("C", "D", "H", "S", "NT")
        for dbl in ("", "X", "XX")
        for decl in "NESW"
        for v in ("NONE", "NS", "EW", "BOTH")
        for tricks in range(14)
    ]
    assert got == expected

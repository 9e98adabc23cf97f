"""Bad input under MicroPython: a key bounce, a half-received frame, a power cut during a flash
write and a full flash each leave the keypad working and lose no entry it said it kept. (The
gateway restarting is played against the real gateway in test_restarts.py.)"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from protocol.framing import Decoder, Frame, FrameType
from protocol.keypad_codec import encode
from protocol.messages import BoardResultView, Paired, ResultAck
from tests.protocol.test_keypad_vectors import ROUND, VIEW
from tests.support.micropython import MicroPython

pytestmark = pytest.mark.subprocess


@pytest.fixture
def mp() -> Iterator[MicroPython]:
    with MicroPython() as interpreter:
        interpreter.run("import json, kp_debounce, kp_store, kp_faults, kp_keypad")
        yield interpreter


def _samples(pattern: str, start: int = 0) -> list[tuple[bool, int]]:
    """One sample a millisecond: "#" the contact reads closed, "." open."""
    return [(char == "#", start + i) for i, char in enumerate(pattern)]


def _pressed(mp: MicroPython, samples: list[tuple[bool, int]]) -> list[str]:
    mp.run("bouncer = kp_debounce.Debouncer(20)\nkeys = []")
    for down, now in samples:
        mp.run(f"keys += bouncer.sample({['5'] if down else []}, {now})")
    result: list[str] = mp.value("keys")
    return result


def test_a_bouncing_key_counts_once(mp: MicroPython) -> None:
    chatter = "#.#..#.##.#" + "#" * 40 + ".#.#..#" + "." * 40  # closes, is held, opens
    assert _pressed(mp, _samples(chatter)) == ["5"]
    assert _pressed(mp, _samples(chatter + chatter)) == ["5", "5"]  # pressed twice: twice
    assert _pressed(mp, _samples("....#####....." + "." * 30)) == []  # a 5 ms glitch: nothing
    assert _pressed(mp, _samples("#" * 500)) == ["5"]  # held: no repeat


def _gateway_frame(seq: int, message: object) -> bytes:
    kind, payload = encode(message)  # type: ignore[arg-type]
    return Frame(address=1, seq=seq, type=kind, payload=payload, from_device=False).encode()


def _frames(data: bytes) -> list[Frame]:
    return [f for f in Decoder().feed(data) if isinstance(f, Frame)]


_BOOT = """
flash = kp_faults.FlashInRam()
kp = kp_keypad.Keypad(1, flash, "abcd1234", 7)
def step(hex_in, now, key=None):
    return kp.step(bytes.fromhex(hex_in), now, key).hex()
"""


def test_a_half_received_frame_is_nakked_and_the_whole_one_taken(mp: MicroPython) -> None:
    mp.run(_BOOT)
    frame = _gateway_frame(0, ROUND)
    half = frame[: len(frame) // 2]
    assert mp.value(f"step({half.hex()!r}, 0)") is not None
    # The line goes quiet mid-frame: the keypad says so (NAK) instead of waiting.
    quiet = _frames(bytes.fromhex(mp.value("step('', 200)")))
    assert FrameType.NAK in [f.type for f in quiet]
    assert mp.value("kp.device.round") is None  # nothing half-read was taken
    # The gateway sends it again, whole, after stray bytes: taken once, acknowledged.
    stray_then_whole = (b"\x00\x41" + frame).hex()
    again = _frames(bytes.fromhex(mp.value(f"step({stray_then_whole!r}, 300)")))
    assert (FrameType.ACK, 0) in [(f.type, f.seq) for f in again]
    assert mp.value("kp.device.round['round']") == ROUND.round
    assert mp.value("kp.bad_messages") == 0


def _paired_with_round(mp: MicroPython) -> None:
    mp.run(_BOOT)
    paired = Paired(token="tok", event="", section="", table=3).model_dump_json()
    mp.run(f"kp.device.receive(json.loads({paired!r}))")
    missing = [b for b in ROUND.boards if b.state == "missing"]
    plain = {"lead_required": False, "tricks_style": "absolute", "confirm_pin_required": False}
    round_json = ROUND.model_copy(update={"table": 1, "boards": missing, **plain})
    mp.run(f"kp.device.receive(json.loads({round_json.model_dump_json()!r}))")
    mp.run("kp.device.press('ENT')")  # seats


def test_every_power_cut_during_a_write_keeps_the_entries_it_said_it_kept(
    mp: MicroPython,
) -> None:
    """A first entry is stored; the power goes at every byte of the second entry's write; after
    the reboot the first is there, whole, once, and the keypad goes on."""
    mp.run(
        "flash = kp_faults.FlashInRam()\n"
        "store = kp_store.Store(flash, 1, 'abcd1234')\n"
        "first = {'type': 'call_td', 'entry_id': store.new_entry_id(), 'reason': ''}\n"
        "store.add(first)\n"
        "size = len(flash.files[kp_store.SLOTS[store._slot]])\n"
    )
    size = mp.value("size")
    mp.run(
        "kept = []\n"
        f"for cut in range({size + 40}):\n"
        "    disk = kp_faults.FlashInRam()\n"
        "    disk.files = dict(flash.files)\n"
        "    s = kp_store.Store(disk, 1)\n"
        "    second = {'type': 'call_td', 'entry_id': s.new_entry_id(), 'reason': ''}\n"
        "    disk.cut_after = cut\n"
        "    try:\n"
        "        s.add(second)\n"
        "        done = True\n"
        "    except kp_faults.PowerCutError:\n"
        "        done = False\n"
        "    again = kp_store.Store(disk, 1)\n"
        "    ids = [c['entry_id'] for c in again.pending()]\n"
        "    kept.append([done, ids, again.counter])\n"
    )
    survivors = mp.value("kept")
    first = mp.value("first['entry_id']")
    for cut, (done, ids, counter) in enumerate(survivors):
        assert ids[0] == first, cut  # the stored entry, always
        assert ids.count(first) == 1, cut
        assert len(ids) == (2 if done else 1), cut  # the second only if its write finished
        assert counter >= 2, cut  # an id once handed out is never handed out again


def test_a_full_flash_still_sends_the_entry_and_says_so(mp: MicroPython) -> None:
    _paired_with_round(mp)
    mp.run("flash.full = True")
    mp.run("for key in ('4', '4', '3', '1', '0', 'ENT'):\n    kp.device.press(key)")
    assert mp.value("kp.device.screen") == "sending"
    assert mp.value("kp.store.full") is True
    assert mp.value("kp.device.display[1].strip()") == "Flash full"
    sent = mp.value("[c['type'] for c in kp.device.outgoing()]")
    assert "enter_result" in sent  # kept in RAM and sent all the same
    entry_id = mp.value("kp.store.pending()[0]['entry_id']")
    stored = BoardResultView.model_validate(
        {**VIEW.model_dump(), "table": 1, "board": 6, "state": "entered"}
    )
    ack = ResultAck(entry_id=entry_id, duplicate=False, result=stored)
    mp.run("flash.full = False")
    mp.run(f"kp.device.receive(json.loads({ack.model_dump_json()!r}))")
    assert mp.value("kp.store.pending()") == []
    assert mp.value("kp.store.full") is False  # room again: the store is written again
    assert mp.value("kp_store.Store(flash, 1).pending()") == []

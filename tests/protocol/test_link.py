"""The point-to-point link under a fake clock: ACK, timeouts with backoff, NAK, duplicates, wrap."""

from __future__ import annotations

import itertools

import pytest

from firmware_sim.faults import FaultInjector
from firmware_sim.nullmodem import NullModem, VirtualClock
from protocol.framing import CorruptFrame, Decoder, Frame, FrameType, encode
from protocol.link import (
    Acked,
    Delivered,
    LinkConfig,
    LinkDown,
    LinkEvent,
    LinkUp,
    PeerRestarted,
    PointToPointLink,
)

CONFIG = LinkConfig(ack_timeout=0.1, backoff=2.0, max_timeout=0.8, retry_limit=5, baud=None)


def frames(data: bytes) -> list[Frame]:
    return [f for f in Decoder().feed(data) if isinstance(f, Frame)]


def pump(a: PointToPointLink, b: PointToPointLink, rounds: int = 10) -> None:
    """Exchange bytes on a perfect wire until both sides are quiet."""
    for _ in range(rounds):
        ab, ba = a.poll(), b.poll()
        if not ab and not ba:
            return
        b.receive_bytes(ab)
        a.receive_bytes(ba)


@pytest.fixture
def clock() -> VirtualClock:
    return VirtualClock(100.0)


def pair(clock: VirtualClock) -> tuple[PointToPointLink, PointToPointLink]:
    keypad = PointToPointLink(3, clock, role="device", config=CONFIG, session=0xAAAA)
    gateway = PointToPointLink(3, clock, role="gateway", config=CONFIG, session=0xBBBB)
    return keypad, gateway


def test_session_starts_with_sync_then_data_is_delivered_and_acked(clock: VirtualClock) -> None:
    keypad, gateway = pair(clock)
    keypad.send(0x12, b"hello")
    first = frames(keypad.poll())
    assert [f.type for f in first] == [FrameType.SYNC]
    assert first[0].payload == (0xAAAA).to_bytes(4, "big")
    assert first[0].from_device
    gateway.receive_bytes(encode(first[0]))
    keypad.receive_bytes(gateway.poll())  # SYNC_ACK, then the gateway's own SYNC
    data = frames(keypad.poll())
    assert [(f.type, f.seq, f.payload) for f in data] == [
        (FrameType.SYNC_ACK, 0, b"\0\0\xbb\xbb"),
        (0x12, 0, b"hello"),
    ]
    gateway.receive_bytes(encode(data[1]))
    assert gateway.events() == [LinkUp(), Delivered(0x12, b"hello")]
    keypad.receive_bytes(gateway.poll())
    assert Acked(0x12, b"hello") in keypad.events()
    assert keypad.pending == 0


def test_retransmission_backs_off_exponentially_then_reports_link_down(
    clock: VirtualClock,
) -> None:
    keypad = PointToPointLink(3, clock, config=CONFIG, session=1)
    keypad.send(0x12, b"x")
    sent_at = []
    for _ in range(2000):  # 10 ms steps for 20 s of virtual time
        if keypad.poll():
            sent_at.append(round(clock.t - 100.0, 3))
        clock.t += 0.01
    gaps = [round(b - a, 2) for a, b in itertools.pairwise(sent_at)]
    # 0.1, 0.2, 0.4 then capped at 0.8; after 5 unanswered sends the link is down, and a keypad
    # keeps probing every max_timeout (its entries are never dropped).
    assert gaps[:6] == [0.1, 0.2, 0.4, 0.8, 0.8, 0.8]
    assert set(gaps[6:]) == {0.8}
    assert keypad.events() == [LinkDown()]
    assert not keypad.up


def test_wire_time_is_added_to_the_timeout(clock: VirtualClock) -> None:
    slow = PointToPointLink(3, clock, config=LinkConfig(ack_timeout=0.1, baud=1200), session=1)
    wire = slow.poll()  # the SYNC: 11 bytes + a 7-byte ACK at 1200 baud = 0.15 s
    assert slow.next_deadline() == pytest.approx(100.0 + 0.1 + len(wire + bytes(7)) * 10 / 1200)


def test_duplicates_are_dropped_but_acknowledged(clock: VirtualClock) -> None:
    keypad, gateway = pair(clock)
    pump(keypad, gateway)
    keypad.send(0x13, b"entry")
    data = keypad.poll()
    gateway.receive_bytes(data)
    gateway.receive_bytes(data)
    gateway.receive_bytes(data)
    acks = frames(gateway.poll())
    assert [(f.type, f.seq) for f in acks] == [(FrameType.ACK, 0)] * 3
    assert [e for e in gateway.events() if isinstance(e, Delivered)] == [Delivered(0x13, b"entry")]
    assert gateway.stats["duplicates"] == 2


def test_sequence_numbers_wrap_after_255(clock: VirtualClock) -> None:
    keypad, gateway = pair(clock)
    seqs: list[int] = []
    got: list[bytes] = []
    for i in range(300):
        keypad.send(0x13, i.to_bytes(2, "big"))
    for _ in range(2000):
        out = keypad.poll()
        seqs += [f.seq for f in frames(out) if f.type == 0x13]
        gateway.receive_bytes(out)
        keypad.receive_bytes(gateway.poll())
        got += [e.payload for e in gateway.events() if isinstance(e, Delivered)]
        if len(got) == 300:
            break
    assert got == [i.to_bytes(2, "big") for i in range(300)]
    assert seqs[254:258] == [254, 255, 0, 1]


def test_nak_on_a_damaged_frame_triggers_an_immediate_resend(clock: VirtualClock) -> None:
    keypad, gateway = pair(clock)
    pump(keypad, gateway)
    keypad.send(0x13, b"entry")
    data = bytearray(keypad.poll())
    data[-3] ^= 0xFF
    gateway.receive_bytes(bytes(data))
    nak = frames(gateway.poll())
    assert [f.type for f in nak] == [FrameType.NAK]
    clock.t += 0.001  # long before the 0.1 s timeout
    keypad.receive_bytes(encode(nak[0]))
    resend = frames(keypad.poll())
    assert [(f.type, f.payload) for f in resend] == [(0x13, b"entry")]


def test_a_nak_with_nothing_in_flight_is_harmless(clock: VirtualClock) -> None:
    keypad, gateway = pair(clock)
    pump(keypad, gateway)
    keypad.receive_bytes(encode(Frame(3, 0, FrameType.NAK)))
    assert keypad.poll() == b""


def test_restarted_sender_is_not_mistaken_for_duplicates(clock: VirtualClock) -> None:
    """A keypad that reboots starts again at sequence 0; SYNC stops the gateway dropping it."""
    keypad, gateway = pair(clock)
    keypad.send(0x13, b"before reboot")
    pump(keypad, gateway)
    assert Delivered(0x13, b"before reboot") in gateway.events()
    rebooted = PointToPointLink(3, clock, config=CONFIG, session=0xCCCC)
    rebooted.send(0x13, b"after reboot")  # sequence 0 again, which the gateway has seen
    pump(rebooted, gateway)
    events = gateway.events()
    assert Delivered(0x13, b"after reboot") in events
    assert PeerRestarted(0xCCCC) in events


def test_restarted_gateway_is_reported_to_the_keypad(clock: VirtualClock) -> None:
    keypad, gateway = pair(clock)
    pump(keypad, gateway)
    keypad.events()
    new_gateway = PointToPointLink(3, clock, role="gateway", config=CONFIG, session=0xDDDD)
    new_gateway.send(0x21, b"round")
    pump(keypad, new_gateway)
    assert keypad.events() == [PeerRestarted(0xDDDD), Delivered(0x21, b"round")]


def test_frames_for_other_addresses_and_echoes_are_ignored(clock: VirtualClock) -> None:
    keypad, _ = pair(clock)
    keypad.receive_bytes(encode(Frame(4, 0, 0x21, b"not mine")))
    keypad.receive_bytes(encode(Frame(3, 0, 0x13, b"my own echo", from_device=True)))
    assert keypad.events() == []


def test_gateway_learns_the_keypad_address(clock: VirtualClock) -> None:
    keypad = PointToPointLink(9, clock, config=CONFIG, session=1)
    gateway = PointToPointLink(None, clock, role="gateway", config=CONFIG, session=2)
    keypad.send(0x12)
    pump(keypad, gateway)
    assert gateway.address == 9
    assert Delivered(0x12, b"") in gateway.events()


def test_a_frame_ahead_of_the_window_is_ignored(clock: VirtualClock) -> None:
    keypad, gateway = pair(clock)
    pump(keypad, gateway)
    gateway.receive_bytes(encode(Frame(3, 40, 0x13, b"from nowhere", from_device=True)))
    assert gateway.poll() == b""  # no ACK: a genuine sender would retry and resync
    assert gateway.stats["ignored"] == 1


def test_send_refuses_control_types_and_oversized_payloads(clock: VirtualClock) -> None:
    keypad, _ = pair(clock)
    with pytest.raises(ValueError, match="application type"):
        keypad.send(FrameType.ACK)
    with pytest.raises(ValueError, match="exceeds"):
        keypad.send(0x13, bytes(256))


def test_cable_pull_reports_down_then_up_and_loses_nothing(clock: VirtualClock) -> None:
    keypad, gateway = pair(clock)
    k2g, g2k = FaultInjector(seed=1), FaultInjector(seed=2)
    k2g.pull_cable(101.0, 10.0)
    g2k.pull_cable(101.0, 10.0)
    got: list[bytes] = []
    seen: list[LinkEvent] = []

    def app() -> float | None:
        seen.extend(e for e in keypad.events() if isinstance(e, LinkUp | LinkDown))
        got.extend(e.payload for e in gateway.events() if isinstance(e, Delivered))
        return None

    line = NullModem(keypad, gateway, clock, a_to_b=k2g, b_to_a=g2k, hooks=[app])
    for i in range(40):
        keypad.send(0x13, bytes([i]))
        line.advance(100.0 + 0.5 * (i + 1))
    assert line.run(lambda: len(got) == 40 and keypad.pending == 0, max_time=200)
    assert got == [bytes([i]) for i in range(40)]
    assert seen == [LinkUp(), LinkDown(), LinkUp()]


def test_corrupt_frame_from_the_decoder_is_what_triggers_the_nak() -> None:
    assert Decoder().feed(bytes([0x7E, 0, 0, 3, 0x13, 0, 0])) == [
        CorruptFrame("crc", bytes([0, 0, 3, 0x13, 0, 0]))
    ]


def test_nak_prompted_resends_do_not_back_off_and_are_capped(clock: VirtualClock) -> None:
    keypad, gateway = pair(clock)
    pump(keypad, gateway)
    keypad.send(0x13, b"entry")
    assert frames(keypad.poll())
    nak = encode(Frame(3, 0, FrameType.NAK))
    resent = 0
    for _ in range(6):  # a burst of NAKs: only fast_resends (3) of them resend at once
        clock.t += 0.001
        keypad.receive_bytes(nak)
        resent += len(frames(keypad.poll()))
    assert resent == CONFIG.fast_resends
    # The wait after them is still the first one (0.1 s): a NAK proves the line is alive.
    assert keypad.next_deadline() == pytest.approx(clock.t - 0.003 + 0.1, abs=0.002)


def test_a_frame_cut_off_by_a_quiet_line_is_nakked_after_the_gap(clock: VirtualClock) -> None:
    keypad, gateway = pair(clock)
    pump(keypad, gateway)
    gateway.send(0x22, b"stored")
    data = gateway.poll()
    keypad.receive_bytes(data[:-4])  # the rest is lost: nothing else comes
    assert keypad.poll() == b""
    assert keypad.next_deadline() == pytest.approx(clock.t + CONFIG.frame_gap)
    clock.t += CONFIG.frame_gap
    assert [f.type for f in frames(keypad.poll())] == [FrameType.NAK]
    gateway.receive_bytes(encode(Frame(3, 0, FrameType.NAK, from_device=True)))
    assert [f.payload for f in frames(gateway.poll())] == [b"stored"]  # resent at once


def test_stray_bytes_on_a_quiet_line_are_nakked_once(clock: VirtualClock) -> None:
    keypad, gateway = pair(clock)
    pump(keypad, gateway)
    keypad.receive_bytes(b"\x01\x02noise")
    clock.t += CONFIG.frame_gap
    assert [f.type for f in frames(keypad.poll())] == [FrameType.NAK]
    clock.t += CONFIG.frame_gap
    assert keypad.poll() == b""

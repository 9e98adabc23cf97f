"""The fault injector: seeded, frame-aware, with wire time and cable pulls."""

from __future__ import annotations

from firmware_sim.faults import FaultInjector, Faults
from protocol.framing import Decoder, Frame, encode

FRAMES = [encode(Frame(3, i, 0x13, bytes(20))) for i in range(200)]


def send_all(line: FaultInjector, gap: float = 0.1) -> list[tuple[float, bytes]]:
    for i, frame in enumerate(FRAMES):
        line.write(frame, i * gap)
    out = []
    t = 0.0
    while (when := line.next_arrival()) is not None:
        t = when
        out.append((t, line.read(t)))
    return out


def received(line: FaultInjector) -> list[int]:
    data = b"".join(chunk for _, chunk in send_all(line))
    return [f.seq for f in Decoder().feed(data) if isinstance(f, Frame)]


def test_a_clean_line_delivers_everything_in_order() -> None:
    assert received(FaultInjector()) == list(range(200))


def test_the_same_seed_gives_the_same_faults() -> None:
    faults = Faults(corrupt=0.01, drop=0.1, duplicate=0.1, delay=0.1)
    assert received(FaultInjector(faults, seed=7)) == received(FaultInjector(faults, seed=7))
    assert received(FaultInjector(faults, seed=7)) != received(FaultInjector(faults, seed=8))


def test_corruption_rate_is_per_byte() -> None:
    line = FaultInjector(Faults(corrupt=0.01), seed=1)
    send_all(line)
    total = sum(len(f) for f in FRAMES)
    assert 0.5 * total / 100 < line.stats.corrupted < 1.5 * total / 100


def test_drop_and_duplicate_whole_frames() -> None:
    dropping = FaultInjector(Faults(drop=0.2), seed=2)
    seqs = received(dropping)
    assert len(seqs) == 200 - dropping.stats.dropped
    assert seqs == sorted(seqs)
    doubling = FaultInjector(Faults(duplicate=0.2), seed=3)
    seqs = received(doubling)
    assert len(seqs) == 200 + doubling.stats.duplicated
    assert sorted(set(seqs)) == list(range(200))


def test_delays_reorder_frames() -> None:
    line = FaultInjector(Faults(delay=0.2, delay_max=1.0), seed=4)
    seqs = received(line)
    assert sorted(seqs) == list(range(200))
    assert seqs != list(range(200))


def test_wire_time_at_9600_baud() -> None:
    line = FaultInjector(baud=9600)
    frame = FRAMES[0]
    line.write(frame, 0.0)
    line.write(frame, 0.0)  # queued behind the first
    char = 10 / 9600
    assert line.next_arrival() == len(frame) * char  # the whole first frame is in
    assert line.idle_at == 2 * len(frame) * char
    assert line.read(3 * char) == frame[:3]  # bytes arrive one by one in between
    assert line.read(len(frame) * char) == frame[3:]
    assert line.next_arrival() == 2 * len(frame) * char


def test_cable_pull_loses_what_is_sent_meanwhile() -> None:
    line = FaultInjector()
    line.pull_cable(5.0, 10.0)
    seqs = received(line)  # frame i is sent at 0.1 * i seconds
    assert seqs == list(range(50)) + list(range(150, 200))
    assert line.unplugged(5.0)
    assert not line.unplugged(15.0)

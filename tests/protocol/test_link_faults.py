"""The link over a faulty line in virtual time: every message arrives exactly once, in order."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_sim.faults import FaultInjector, Faults
from firmware_sim.nullmodem import NullModem, VirtualClock
from protocol.link import Delivered, LinkConfig, PointToPointLink

faults = st.builds(
    Faults,
    corrupt=st.sampled_from([0.0, 0.001, 0.01, 0.03]),
    drop=st.sampled_from([0.0, 0.05, 0.2]),
    duplicate=st.sampled_from([0.0, 0.05, 0.2]),
    delay=st.sampled_from([0.0, 0.05, 0.2]),
    delay_max=st.sampled_from([0.05, 0.4]),
)


def run_line(
    fault: Faults, seed: int, count: int, *, baud: int | None = 9600
) -> tuple[list[bytes], list[bytes], NullModem]:
    clock = VirtualClock()
    keypad = PointToPointLink(3, clock, role="device", session=seed)
    gateway = PointToPointLink(3, clock, role="gateway", session=seed + 1)
    for i in range(count):
        keypad.send(0x13, b"up%d" % i)
        gateway.send(0x22, b"down%d" % i)
    up: list[bytes] = []
    down: list[bytes] = []

    def app() -> float | None:
        up.extend(e.payload for e in gateway.events() if isinstance(e, Delivered))
        down.extend(e.payload for e in keypad.events() if isinstance(e, Delivered))
        return None

    line = NullModem(
        keypad,
        gateway,
        clock,
        a_to_b=FaultInjector(fault, seed=seed, baud=baud),
        b_to_a=FaultInjector(fault, seed=seed + 7, baud=baud),
        hooks=[app],
    )
    line.run(lambda: keypad.pending == gateway.pending == 0, max_time=3600)
    line.advance(clock.t + 5.0)  # let late duplicates and delayed frames wash through
    return up, down, line


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(faults, st.integers(0, 2**16))
def test_exactly_once_in_order_under_loss_duplication_reordering_corruption(
    fault: Faults, seed: int
) -> None:
    up, down, _ = run_line(fault, seed, 30)
    assert up == [b"up%d" % i for i in range(30)]
    assert down == [b"down%d" % i for i in range(30)]


def test_heavy_faults_over_a_long_run_wrap_the_sequence_numbers() -> None:
    fault = Faults(corrupt=0.01, drop=0.1, duplicate=0.1, delay=0.1, delay_max=0.3)
    up, down, line = run_line(fault, 42, 600)
    assert up == [b"up%d" % i for i in range(600)]
    assert down == [b"down%d" % i for i in range(600)]
    stats = line.a_to_b.stats
    assert stats.corrupted
    assert stats.dropped
    assert stats.duplicated
    assert stats.delayed


def test_instant_wire_with_reordering() -> None:
    fault = Faults(delay=0.3, delay_max=1.0, duplicate=0.2)
    up, down, _ = run_line(fault, 5, 100, baud=None)
    assert up == [b"up%d" % i for i in range(100)]
    assert down == [b"down%d" % i for i in range(100)]


def test_the_link_config_timeout_grows_and_is_capped() -> None:
    config = LinkConfig(ack_timeout=0.1, backoff=3.0, max_timeout=1.0)
    assert [config.timeout(n) for n in (1, 2, 3, 4)] == [0.1, 0.30000000000000004, 0.9, 1.0]

"""The same screens in every language: the firmware's Device (under MicroPython) and the
simulator's, each wired to its own fake server through the keypad codec, take the same keys and
show the same two LCD lines after every key, in English, Danish, Norwegian, German and Russian,
with tricks keyed absolute or relative and with East's PIN."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest

from firmware_sim import i18n
from firmware_sim.device import Device
from firmware_sim.fake_gateway import FakeTables
from firmware_sim.store import MemoryStore
from protocol.keypad_codec import KeypadCommand, KeypadReply, decode, encode
from protocol.messages import NextPosition
from tests.support.micropython import MicroPython

pytestmark = pytest.mark.subprocess

KEYS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#", "ENT", "BACK", "UP", "DOWN")
WEIGHTS = (3, 4, 3, 3, 3, 2, 2, 2, 1, 1, 2, 1, 6, 2, 1, 1)

_MP_SETUP = """
import kp_codec, kp_device, kp_store, kp_faults
dev = kp_device.Device(3, kp_store.Store(kp_faults.FlashInRam(), 3, '00000000'), language=LANG)
def out():
    print(json.dumps([[t, p.hex()] for t, p in (kp_codec.encode(c) for c in dev.outgoing())]))
def take(t, h):
    dev.receive(kp_codec.decode(t, bytes.fromhex(h)))
def show():
    print(json.dumps(dev.display))
"""


@pytest.fixture(scope="module")
def mp() -> Iterator[MicroPython]:
    with MicroPython() as interpreter:
        interpreter.run("import json")
        yield interpreter


def _wire(message: KeypadReply | KeypadCommand) -> tuple[int, bytes]:
    return encode(message)


class Pair:
    """The two keypads and their two fake servers."""

    def __init__(self, mp: MicroPython, lang: str, style: str, pin: str | None) -> None:
        self.mp = mp
        settings = {"tricks_style": style, "confirm_pin": pin, "language": None}
        self.sim_tables = FakeTables(tables=3, rounds=3, boards_per_round=3, **settings)  # type: ignore[arg-type]
        self.fw_tables = FakeTables(tables=3, rounds=3, boards_per_round=3, **settings)  # type: ignore[arg-type]
        self.sim = Device(3, MemoryStore(3), language=lang)
        self.sim_bound: int | None = None
        self.fw_bound: int | None = None
        mp.run(_MP_SETUP.replace("LANG", repr(lang)))

    def flush(self) -> None:
        for _ in range(50):
            commands = self.sim.outgoing()
            if not commands:
                break
            for command in commands:
                self.sim_bound, reply = self.sim_tables.handle(self.sim_bound, command)
                self.sim.receive(decode(*_wire(reply)))  # type: ignore[arg-type]
        for _ in range(50):
            sent = json.loads(self.mp.run("out()")[-1])
            if not sent:
                return
            for kind, payload in sent:
                command = decode(kind, bytes.fromhex(payload))
                self.fw_bound, reply = self.fw_tables.handle(self.fw_bound, command)  # type: ignore[arg-type]
                kind_back, body = _wire(reply)
                self.mp.run(f"take({kind_back}, {body.hex()!r})")

    def boot(self) -> None:
        self.sim.boot()
        self.mp.run("dev.boot()")
        self.flush()

    def press(self, key: str, *, answered: bool = True) -> None:
        """``key`` on both keypads, and what they send answered (unless not ``answered``)."""
        self.sim.press(key)
        self.mp.run(f"dev.press({key!r})")
        if answered:
            self.flush()

    def moving(self, moves: list[NextPosition]) -> None:
        """Both servers describe the round with pairs going on as ``moves`` say."""
        for tables in (self.sim_tables, self.fw_tables):
            plain = tables.round_info
            tables.round_info = (  # type: ignore[method-assign]
                lambda table, plain=plain: plain(table).model_copy(update={"next": moves})
            )

    def lines(self) -> tuple[tuple[str, str], tuple[str, str]]:
        fw = json.loads(self.mp.run("show()")[-1])
        return self.sim.display, (fw[0], fw[1])


@pytest.mark.parametrize(
    ("lang", "style", "pin"),
    [(lang, "absolute", None) for lang in i18n.LANGUAGES]
    + [("da", "relative", None), ("en", "relative", "1234"), ("ru", "absolute", "1234")],
)
def test_the_firmware_shows_what_the_simulator_shows(
    mp: MicroPython, lang: str, style: str, pin: str | None
) -> None:
    pair = Pair(mp, lang, style, pin)
    pair.boot()
    rng = random.Random(f"{lang}-{style}-{pin}")
    script = ["0", "0", "0", "3", "ENT", "ENT"]
    script += rng.choices(KEYS, WEIGHTS, k=250)
    if pin:
        script += ["4", "4", "3", "1", "0", "ENT", "1", "2", "3", "4", "ENT"]
    seen = set()
    for step, key in enumerate(script):
        pair.press(key)
        sim, fw = pair.lines()
        assert fw == sim, (step, key, script[: step + 1])
        seen.add(pair.sim.screen)
    assert len(seen) >= 5, seen  # the keys went through several screens, not one
    assert pair.fw_tables.results == pair.sim_tables.results  # and stored the same
    assert pair.sim_tables.results  # some results were keyed, sent and stored


MOVES = {
    "howell": [
        NextPosition(pair="5", table=4, seat="EW", boards=[10, 11, 12]),
        NextPosition(pair="4", table=2, seat="NS", boards=[4, 5, 6]),
    ],
    "sit-out": [
        NextPosition(pair="10 NS", table=10, seat="NS", boards=[1]),
        NextPosition(pair="9 EW", table=None),
    ],
    "one": [NextPosition(pair="3", table=2, seat="EW", boards=[1])],
    "none": [],
    "individual": [
        NextPosition(pair="1", table=2, seat="E", boards=[3, 4], player=True),
        NextPosition(pair="12", table=None, player=True),
        NextPosition(pair="3", table=3, seat="S", boards=[5, 6], player=True),
        NextPosition(pair="4", table=1, seat="W", boards=[1, 2], player=True),
    ],
}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_the_move_screen_is_the_simulators(mp: MicroPython, lang: str) -> None:
    """Each pair named with its next table and side (a sit-out as such), an individual's
    players with their next table and seat, or the wait for the TD without the movement's
    word, as the simulator shows them in every language."""
    for name, moves in MOVES.items():
        pair = Pair(mp, lang, "absolute", None)
        pair.moving(moves)
        pair.boot()
        for key in ["0", "0", "0", "3", "ENT", "ENT"] + ["0", "ENT", "ENT"] * 3:
            pair.press(key)
        pair.press("ENT", answered=False)  # NextRound, the TD not yet answering
        assert pair.sim.screen == "next_wait", name
        sim, fw = pair.lines()
        assert fw == sim, name


def test_a_result_takes_7_keys_on_the_firmware_with_the_auction_and_play_optional(
    mp: MicroPython,
) -> None:
    """The firmware keys neither the auction nor the play: an event that takes both as optional
    still has 4♠ by South made and East's OK in `4 4 3 1 0 ENT ENT`, on the screens the
    simulator shows."""
    pair = Pair(mp, "en", "absolute", None)
    for tables in (pair.sim_tables, pair.fw_tables):
        tables.auction_entry = "optional"
        tables.play_entry = "optional"
    pair.boot()
    for key in ("0", "0", "0", "3", "ENT", "ENT"):
        pair.press(key)
    presses = ["4", "4", "3", "1", "0", "ENT", "ENT"]
    for key in presses:
        pair.press(key)
    stored = pair.fw_tables.results[(3, 7)]
    assert (stored.contract, stored.declarer, stored.tricks, stored.state) == (
        "4S", "S", 10, "confirmed",
    )  # fmt: skip
    assert pair.sim_tables.results == pair.fw_tables.results
    assert len(presses) == 7

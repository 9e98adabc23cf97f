"""The pieces of a payload layout: a layout that cannot be read both ways fails when declared."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from protocol.frame_fields import (
    TEXT,
    U8,
    Bits,
    CodecError,
    EnumBits,
    Field,
    FlagBit,
    On,
    PresentBit,
    Reader,
    Struct,
    Writer,
)


class Sample(BaseModel):
    first: int
    note: str | None = None
    shown: bool = False


def test_a_flagged_field_needs_its_presence_bit_before_it() -> None:
    with pytest.raises(ValueError, match="no PresentBit"):
        Struct(Sample, (Field("note", TEXT, On.FLAGGED), Bits("flags", (PresentBit("note"),))))


def test_every_name_is_a_field_of_the_model() -> None:
    with pytest.raises(ValueError, match="Sample has no field shwn, nte"):
        Struct(Sample, (Bits("flags", (FlagBit("shwn"),)), Field("nte", TEXT)))


def test_a_trailing_field_must_be_the_last() -> None:
    with pytest.raises(ValueError, match="trailing, not last"):
        Struct(Sample, (Field("note", TEXT, On.TRAILING), Field("first", U8)))


def test_bits_must_fit_one_byte() -> None:
    with pytest.raises(ValueError, match="more than 8 bits"):
        Bits("flags", tuple(FlagBit(f"b{n}") for n in range(9)))
    with pytest.raises(ValueError, match="does not fit in 1 bits"):
        Bits("flags", (EnumBits("x", ("a", "b", "c"), 1),))


SAMPLE = Struct(
    Sample,
    (
        Field("first", U8),
        Bits("the sample's flags", (PresentBit("note"), FlagBit("shown"))),
        Field("note", TEXT, On.FLAGGED),
    ),
)


@pytest.mark.parametrize(
    ("sample", "payload"),
    [
        (Sample(first=7), "07 00"),
        (Sample(first=7, shown=True), "07 02"),
        (Sample(first=7, note="ab"), "07 01 02 61 62"),
    ],
)
def test_one_layout_encodes_and_decodes(sample: Sample, payload: str) -> None:
    w = Writer()
    SAMPLE.put(w, sample)
    assert bytes(w.buf) == bytes.fromhex(payload)
    r = Reader(bytes.fromhex(payload))
    assert SAMPLE.get(r) == sample
    r.end()


def test_a_bit_beyond_the_declared_ones_is_a_codec_error() -> None:
    with pytest.raises(CodecError, match="unused bits set in the sample's flags"):
        SAMPLE.get(Reader(bytes.fromhex("07 04")))

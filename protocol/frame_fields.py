"""The pieces a keypad frame's payload is declared with, and the one encoder and decoder of them.

A payload layout is written once, as a :class:`Struct`: a pydantic model and a tuple of parts
in wire order. :meth:`Struct.put` encodes a model with it and :meth:`Struct.get` decodes one, so
the two directions cannot disagree. Payloads are big-endian and built from these kinds:

* :data:`U8` / :data:`U16` / :data:`I16`: unsigned or signed integers of 1 or 2 bytes;
  :data:`FLAG`: a u8 that is 0 or 1;
* :class:`Text`: a u8 byte count then that many UTF-8 bytes; :data:`OPT_TEXT`: the same, 0xFF
  meaning None; :data:`TIME`: an ISO 8601 time as OPT_TEXT;
* :class:`Choice`: a u8 index into a tuple of values; :class:`ZeroIsNone`: 0 on the wire for None;
* :class:`ListOf`: a u8 count then the items; :class:`OneOf`: a u8 tag then the tagged kind;
* a nested :class:`Struct`.

A struct's parts are a :class:`Field` (one attribute of the model, in one kind), a :class:`Bits`
byte (:class:`FlagBit`, small :class:`EnumBits` values and :class:`PresentBit`, from bit 0 up) or
an :class:`Absent` attribute that a frame never carries. A field is on the wire always, only
when its PresentBit is set (``FLAGGED``), or only when bytes are left (``TRAILING``: the last
field of a frame, which an older peer leaves out). Decoding a payload that does not follow its
layout raises :class:`CodecError`, and nothing else.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import ClassVar, Final

from pydantic import BaseModel


class CodecError(ValueError):
    """A payload that cannot be decoded, or a message that cannot be encoded into one frame."""


# ------------------------------------------------------------------------------ bytes


class Writer:
    """The payload being encoded."""

    def __init__(self) -> None:
        self.buf = bytearray()

    def u8(self, value: int) -> None:
        if not 0 <= value <= 0xFF:
            raise CodecError(f"{value} does not fit in one byte")
        self.buf.append(value)

    def u16(self, value: int) -> None:
        if not 0 <= value <= 0xFFFF:
            raise CodecError(f"{value} does not fit in 0..65535")
        self.buf += value.to_bytes(2, "big")

    def i16(self, value: int) -> None:
        if not -0x8000 <= value <= 0x7FFF:
            raise CodecError(f"{value} does not fit in -32768..32767")
        self.buf += value.to_bytes(2, "big", signed=True)

    def text(self, value: str, limit: int = 0xFF) -> None:
        data = value.encode("utf-8")
        if len(data) > limit:
            raise CodecError(f"text of {len(data)} bytes exceeds {limit}: {value[:20]!r}")
        self.buf.append(len(data))
        self.buf += data


class Reader:
    """The payload being decoded."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def _take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise CodecError("payload ends too early")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def u8(self) -> int:
        return self._take(1)[0]

    def u16(self) -> int:
        return int.from_bytes(self._take(2), "big")

    def i16(self) -> int:
        return int.from_bytes(self._take(2), "big", signed=True)

    def text(self, n: int | None = None) -> str:
        """Text of ``n`` bytes, or of the length in the next byte."""
        try:
            return self._take(self.u8() if n is None else n).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CodecError("text is not UTF-8") from exc

    def more(self) -> bool:
        return self.pos < len(self.data)

    def end(self) -> None:
        if self.pos != len(self.data):
            raise CodecError(f"{len(self.data) - self.pos} bytes left over")


def _int(value: object) -> int:
    if not isinstance(value, int):
        raise CodecError(f"{value!r} is not a whole number")
    return value


def _str(value: object) -> str:
    if not isinstance(value, str):
        raise CodecError(f"{value!r} is not text")
    return value


# ------------------------------------------------------------------------------ kinds


class Kind(ABC):
    """How one value goes on the wire."""

    @abstractmethod
    def put(self, w: Writer, value: object) -> None:
        """Append ``value``."""

    @abstractmethod
    def get(self, r: Reader) -> object:
        """Read a value."""


@dataclass(frozen=True, slots=True)
class Int(Kind):
    """An integer of ``size`` bytes (1 or 2), big-endian."""

    size: int
    signed: bool = False

    def put(self, w: Writer, value: object) -> None:
        number = _int(value)
        if self.size == 1 and not self.signed:
            w.u8(number)
        elif self.signed:
            w.i16(number)
        else:
            w.u16(number)

    def get(self, r: Reader) -> int:
        if self.size == 1 and not self.signed:
            return r.u8()
        return r.i16() if self.signed else r.u16()

    def __post_init__(self) -> None:
        if (self.size, self.signed) not in ((1, False), (2, False), (2, True)):
            raise ValueError(f"no integer kind of {self.size} bytes, signed={self.signed}")


@dataclass(frozen=True, slots=True)
class FlagByte(Kind):
    """A bool as a whole byte, 0 or 1."""

    def put(self, w: Writer, value: object) -> None:
        w.u8(int(bool(value)))

    def get(self, r: Reader) -> bool:
        value = r.u8()
        if value > 1:
            raise CodecError(f"flag byte {value} is neither 0 nor 1")
        return bool(value)


@dataclass(frozen=True, slots=True)
class Text(Kind):
    """UTF-8 text after its byte count; ``cut`` keeps only its first characters."""

    cut: int | None = None

    def put(self, w: Writer, value: object) -> None:
        text = _str(value)
        w.text(text if self.cut is None else text[: self.cut])

    def get(self, r: Reader) -> str:
        return r.text()


@dataclass(frozen=True, slots=True)
class OptText(Kind):
    """Text or None: a count of 0xFF means None (so the text holds at most 254 bytes)."""

    def put(self, w: Writer, value: object) -> None:
        if value is None:
            w.u8(0xFF)
        else:
            w.text(_str(value), 0xFE)

    def get(self, r: Reader) -> str | None:
        n = r.u8()
        return None if n == 0xFF else r.text(n)


@dataclass(frozen=True, slots=True)
class Time(Kind):
    """A time (or None) in ISO 8601, as OPT_TEXT."""

    def put(self, w: Writer, value: object) -> None:
        if value is not None and not isinstance(value, datetime):
            raise CodecError(f"{value!r} is not a time")
        OPT_TEXT.put(w, None if value is None else value.isoformat())

    def get(self, r: Reader) -> datetime | None:
        text = OPT_TEXT.get(r)
        if text is None:
            return None
        try:
            return datetime.fromisoformat(text)
        except ValueError as exc:
            raise CodecError(f"{text!r} is not an ISO 8601 time") from exc


def _index(value: object, options: tuple[object, ...]) -> int:
    try:
        return options.index(value)
    except ValueError:
        raise CodecError(f"{value!r} is not one of {options}") from None


@dataclass(frozen=True, slots=True)
class Choice(Kind):
    """One of ``options``, as its index in one byte."""

    options: tuple[object, ...]

    def put(self, w: Writer, value: object) -> None:
        w.u8(_index(value, self.options))

    def get(self, r: Reader) -> object:
        index = r.u8()
        if index >= len(self.options):
            raise CodecError(f"choice {index} out of range")
        return self.options[index]


@dataclass(frozen=True, slots=True)
class ZeroIsNone(Kind):
    """A number that is never 0, or None sent as 0."""

    kind: Kind

    def put(self, w: Writer, value: object) -> None:
        self.kind.put(w, 0 if value is None else value)

    def get(self, r: Reader) -> object:
        return self.kind.get(r) or None


@dataclass(frozen=True, slots=True)
class ListOf(Kind):
    """Up to 255 items: the count in one byte, then each item."""

    item: Kind

    def put(self, w: Writer, value: object) -> None:
        if not isinstance(value, list | tuple):
            raise CodecError(f"{value!r} is not a list")
        w.u8(len(value))
        for item in value:
            self.item.put(w, item)

    def get(self, r: Reader) -> list[object]:
        return [self.item.get(r) for _ in range(r.u8())]


@dataclass(frozen=True, slots=True)
class Alternative:
    """One kind of a :class:`OneOf`: values of type ``of``, named for the error messages."""

    name: str
    of: type
    kind: Kind


@dataclass(frozen=True, slots=True)
class OneOf(Kind):
    """A value of one of several types: the alternative's index in one byte, then the value."""

    alternatives: tuple[Alternative, ...]

    def put(self, w: Writer, value: object) -> None:
        for tag, alternative in enumerate(self.alternatives):
            if isinstance(value, alternative.of):
                w.u8(tag)
                alternative.kind.put(w, value)
                return
        raise CodecError(f"{value!r} is of none of the kinds {self._names()}")

    def get(self, r: Reader) -> object:
        tag = r.u8()
        if tag >= len(self.alternatives):
            raise CodecError(f"tag {tag} is none of {self._names()}")
        return self.alternatives[tag].kind.get(r)

    def _names(self) -> str:
        return ", ".join(f"{tag} ({a.name})" for tag, a in enumerate(self.alternatives))


U8: Final = Int(1)
U16: Final = Int(2)
I16: Final = Int(2, signed=True)
FLAG: Final = FlagByte()
TEXT: Final = Text()
OPT_TEXT: Final = OptText()
TIME: Final = Time()


# ------------------------------------------------------------------------- structures


class On(StrEnum):
    """When a :class:`Field` is on the wire."""

    ALWAYS = "always"
    #: Only when the field's :class:`PresentBit`, earlier in the struct, is set (else None).
    FLAGGED = "flagged"
    #: Only when bytes are left in the payload (else None): the last field of a frame.
    TRAILING = "trailing"


@dataclass(frozen=True, slots=True)
class Field:
    """The model's attribute ``name`` in ``kind``."""

    name: str
    kind: Kind
    on: On = On.ALWAYS

    def put(self, w: Writer, model: BaseModel) -> None:
        value = getattr(model, self.name)
        if self.on is On.ALWAYS or value is not None:
            self.kind.put(w, value)

    def get(self, r: Reader, values: dict[str, object], present: set[str]) -> None:
        on_wire = (
            self.on is On.ALWAYS
            or (self.on is On.FLAGGED and self.name in present)
            or (self.on is On.TRAILING and r.more())
        )
        values[self.name] = self.kind.get(r) if on_wire else None


@dataclass(frozen=True, slots=True)
class Absent:
    """An attribute no frame carries: encoding a model where it is not None fails with ``why``."""

    name: str
    why: str

    def put(self, w: Writer, model: BaseModel) -> None:
        if getattr(model, self.name) is not None:
            raise CodecError(self.why)

    def get(self, r: Reader, values: dict[str, object], present: set[str]) -> None:
        """Nothing on the wire: the model's default."""


@dataclass(frozen=True, slots=True)
class FlagBit:
    """One bit: the bool attribute ``name``."""

    name: str
    width: ClassVar[int] = 1

    def code(self, value: object) -> int:
        return int(bool(value))

    def read(self, code: int, values: dict[str, object], present: set[str]) -> bool:
        values[self.name] = bool(code)
        return True


@dataclass(frozen=True, slots=True)
class EnumBits:
    """``width`` bits: the index of the attribute ``name`` in ``options``."""

    name: str
    options: tuple[object, ...]
    width: int

    def code(self, value: object) -> int:
        return _index(value, self.options)

    def read(self, code: int, values: dict[str, object], present: set[str]) -> bool:
        """False for a code beyond the options."""
        if code >= len(self.options):
            return False
        values[self.name] = self.options[code]
        return True


@dataclass(frozen=True, slots=True)
class PresentBit:
    """One bit: whether the attribute ``name`` is not None, so whether its FLAGGED field follows."""

    name: str
    width: ClassVar[int] = 1

    def code(self, value: object) -> int:
        return int(value is not None)

    def read(self, code: int, values: dict[str, object], present: set[str]) -> bool:
        if code:
            present.add(self.name)
        return True


Bit = FlagBit | EnumBits | PresentBit


@dataclass(frozen=True, slots=True)
class Bits:
    """One byte of bit fields, from bit 0 up; a set bit beyond them fails to decode."""

    label: str
    bits: tuple[Bit, ...]

    def __post_init__(self) -> None:
        if sum(bit.width for bit in self.bits) > 8:
            raise ValueError(f"{self.label}: more than 8 bits")
        for bit in self.bits:
            if isinstance(bit, EnumBits) and len(bit.options) > 1 << bit.width:
                raise ValueError(f"{self.label}: {bit.name} does not fit in {bit.width} bits")

    def put(self, w: Writer, model: BaseModel) -> None:
        byte = shift = 0
        for bit in self.bits:
            byte |= bit.code(getattr(model, bit.name)) << shift
            shift += bit.width
        w.u8(byte)

    def get(self, r: Reader, values: dict[str, object], present: set[str]) -> None:
        """Read the byte into ``values``, and the names of the fields that follow into
        ``present``."""
        byte = r.u8()
        shift = 0
        for bit in self.bits:
            if not bit.read(byte >> shift & (1 << bit.width) - 1, values, present):
                raise CodecError(f"unused bits set in {self.label}")
            shift += bit.width
        if byte >> shift:
            raise CodecError(f"unused bits set in {self.label}")


Part = Field | Bits | Absent


@dataclass(frozen=True, slots=True)
class Struct(Kind):
    """A model as its ``parts`` in wire order; ``fixed`` are the attributes a decoded model
    gets that the frame does not carry."""

    model: type[BaseModel]
    parts: tuple[Part, ...]
    fixed: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = [
            *(bit.name for part in self.parts if isinstance(part, Bits) for bit in part.bits),
            *(part.name for part in self.parts if not isinstance(part, Bits)),
            *self.fixed,
        ]
        unknown = [name for name in names if name not in self.model.model_fields]
        if unknown:
            raise ValueError(f"{self.model.__name__} has no field {', '.join(unknown)}")
        flagged: set[str] = set()
        for index, part in enumerate(self.parts):
            if isinstance(part, Bits):
                flagged |= {bit.name for bit in part.bits if isinstance(bit, PresentBit)}
            elif isinstance(part, Field):
                if part.on is On.FLAGGED and part.name not in flagged:
                    raise ValueError(f"{self.model.__name__}.{part.name}: no PresentBit before it")
                if part.on is On.TRAILING and index != len(self.parts) - 1:
                    raise ValueError(f"{self.model.__name__}.{part.name}: trailing, not last")

    def put(self, w: Writer, value: object) -> None:
        """The one encoder: each part of ``value`` in order."""
        if not isinstance(value, self.model):
            raise CodecError(f"{type(value).__name__} is not a {self.model.__name__}")
        for part in self.parts:
            part.put(w, value)

    def get(self, r: Reader) -> BaseModel:
        """The one decoder: each part in order, then the model validated."""
        values = dict(self.fixed)
        present: set[str] = set()
        for part in self.parts:
            part.get(r, values, present)
        return self.model.model_validate(values)

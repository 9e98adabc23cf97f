"""Frame payloads <-> messages for MicroPython (protocol/keypad_codec.py): one encoder and one
decoder that read the layouts of kp_tables.FRAMES, generated from protocol's FRAMES.

A message is a dict with its ``type`` ("enter_result", "round_info", ...) and its fields, as the
JSON messages of protocol/messages.py. ``decode`` raises only CodecError.
"""

import kp_tables as T

FRAMES = T.FRAMES
TYPES = {name: code for code, (name, _) in FRAMES.items()}


class CodecError(ValueError):
    """A payload that cannot be decoded, or a message that cannot be encoded."""


# ------------------------------------------------------------------------------ encoding


def _u8(out, value):
    if not isinstance(value, int) or not 0 <= value <= 0xFF:
        raise CodecError("not a byte: %r" % (value,))
    out.append(value)


def _u16(out, value):
    if not isinstance(value, int) or not 0 <= value <= 0xFFFF:
        raise CodecError("not a u16: %r" % (value,))
    out.append(value >> 8)
    out.append(value & 0xFF)


def _text(out, value, limit=0xFF):
    if not isinstance(value, str):
        raise CodecError("not text: %r" % (value,))
    data = value.encode("utf-8")
    if len(data) > limit:
        raise CodecError("text too long")
    out.append(len(data))
    out.extend(data)


def _put(out, kind, value):
    if isinstance(kind, str):
        if kind == "u8":
            _u8(out, value)
        elif kind == "u16":
            _u16(out, value)
        elif kind == "i16":
            if not isinstance(value, int) or not -0x8000 <= value <= 0x7FFF:
                raise CodecError("not an i16: %r" % (value,))
            _u16(out, value & 0xFFFF)
        elif kind == "flag":
            out.append(1 if value else 0)
        elif kind == "text":
            _text(out, value)
        elif kind == "opt":
            if value is None:
                out.append(0xFF)
            else:
                _text(out, value, 0xFE)
        elif kind == "calls":
            raise CodecError("the keypad firmware does not key the auction")
        else:
            raise CodecError("unknown kind " + kind)
        return
    tag = kind[0]
    if tag == "struct":
        if not isinstance(value, dict):
            raise CodecError("not a struct: %r" % (value,))
        _put_struct(out, kind, value)
    elif tag == "choice":
        if value not in kind[1]:
            raise CodecError("%r is not one of %r" % (value, kind[1]))
        out.append(kind[1].index(value))
    elif tag == "cut":
        _text(out, value[: kind[1]])
    elif tag == "zero":
        _put(out, kind[1], 0 if value is None else value)
    elif tag == "list":
        _u8(out, len(value))
        for item in value:
            _put(out, kind[1], item)
    elif tag == "one_of":
        for index, (type_name, alternative) in enumerate(kind[1]):
            if (type_name == "int") == isinstance(value, int):
                out.append(index)
                _put(out, alternative, value)
                return
        raise CodecError("%r fits no alternative" % (value,))
    else:
        raise CodecError("unknown kind " + tag)


def _put_struct(out, kind, value):
    for part in kind[1]:
        tag = part[0]
        if tag == "field":
            name, sub, on = part[1], part[2], part[3]
            field = value.get(name)
            if on == "always" or field is not None:
                _put(out, sub, field)
        elif tag == "absent":
            if value.get(part[1]) is not None:
                raise CodecError(part[1] + " is never carried")
        else:
            byte = shift = 0
            for bit in part[2]:
                got = value.get(bit[1])
                if bit[0] == "flag":
                    code = 1 if got else 0
                elif bit[0] == "present":
                    code = 0 if got is None else 1
                else:
                    if got not in bit[3]:
                        raise CodecError("%r is not one of %r" % (got, bit[3]))
                    code = bit[3].index(got)
                byte |= code << shift
                shift += bit[2]
            out.append(byte)


def encode(message):
    """(frame TYPE, payload) of a message dict."""
    code = TYPES.get(message.get("type"))
    if code is None:
        raise CodecError("not a keypad message: %r" % (message.get("type"),))
    out = bytearray()
    _put(out, FRAMES[code][1], message)
    if len(out) > T.MAX_PAYLOAD:
        raise CodecError("payload too long")
    return code, bytes(out)


# ------------------------------------------------------------------------------ decoding


class _Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def take(self, n):
        if self.pos + n > len(self.data):
            raise CodecError("payload ends too early")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def u8(self):
        return self.take(1)[0]

    def u16(self):
        chunk = self.take(2)
        return chunk[0] << 8 | chunk[1]

    def text(self, n):
        try:
            return str(self.take(n), "utf-8")
        except UnicodeError:
            raise CodecError("text is not UTF-8") from None

    def more(self):
        return self.pos < len(self.data)


def _get(r, kind):
    if isinstance(kind, str):
        if kind == "u8":
            return r.u8()
        if kind == "u16":
            return r.u16()
        if kind == "i16":
            value = r.u16()
            return value - 0x10000 if value & 0x8000 else value
        if kind == "flag":
            value = r.u8()
            if value > 1:
                raise CodecError("flag byte %d" % value)
            return bool(value)
        if kind == "text":
            return r.text(r.u8())
        if kind == "opt":
            n = r.u8()
            return None if n == 0xFF else r.text(n)
        raise CodecError("the keypad firmware cannot read " + kind)
    tag = kind[0]
    if tag == "struct":
        return _get_struct(r, kind)
    if tag == "choice":
        index = r.u8()
        if index >= len(kind[1]):
            raise CodecError("choice %d out of range" % index)
        return kind[1][index]
    if tag == "cut":
        return r.text(r.u8())
    if tag == "zero":
        return _get(r, kind[1]) or None
    if tag == "list":
        return [_get(r, kind[1]) for _ in range(r.u8())]
    if tag == "one_of":
        index = r.u8()
        if index >= len(kind[1]):
            raise CodecError("tag %d out of range" % index)
        return _get(r, kind[1][index][1])
    raise CodecError("unknown kind " + tag)


def _get_struct(r, kind):
    values = dict(kind[2])
    present = set()
    for part in kind[1]:
        tag = part[0]
        if tag == "field":
            name, sub, on = part[1], part[2], part[3]
            wired = (
                on == "always"
                or (on == "flagged" and name in present)
                or (on == "trailing" and r.more())
            )
            values[name] = _get(r, sub) if wired else None
        elif tag == "bits":
            byte = r.u8()
            shift = 0
            for bit in part[2]:
                code = byte >> shift & ((1 << bit[2]) - 1)
                if bit[0] == "flag":
                    values[bit[1]] = bool(code)
                elif bit[0] == "present":
                    if code:
                        present.add(bit[1])
                else:
                    if code >= len(bit[3]):
                        raise CodecError("unused bits set in " + part[1])
                    values[bit[1]] = bit[3][code]
                shift += bit[2]
            if byte >> shift:
                raise CodecError("unused bits set in " + part[1])
    return values


def decode(code, payload):
    """The message dict in a frame of TYPE ``code``."""
    entry = FRAMES.get(code)
    if entry is None:
        raise CodecError("unknown message type %d" % code)
    r = _Reader(bytes(payload))
    try:
        message = _get(r, entry[1])
    except (IndexError, TypeError, ValueError) as error:
        if isinstance(error, CodecError):
            raise
        raise CodecError(str(error)) from None
    if r.more():
        raise CodecError("bytes left over")
    message["type"] = entry[0]
    return message


#: The messages a keypad takes from the gateway (0x20..).
REPLIES = tuple(name for code, (name, _) in FRAMES.items() if code >= 0x20)

"""The 2x16 LCD's text for MicroPython (firmware_sim/lcd.py and i18n.py): fitting lines into
16 characters, a result in one line, and the keypad's texts in its five languages (the texts
and seat letters come from kp_tables, generated from the keypad's gettext catalogues)."""

import kp_tables as T

WIDTH = 16
_CHARSET = T.CHARSET
_INDEX = {lang: i - 1 for i, lang in enumerate(T.LANGUAGES)}


def text(lang, message, **fields):
    """``message`` in ``lang`` (English for an unknown language or text), fields filled in."""
    index = _INDEX.get(lang, -1)
    entry = T.TEXTS.get(message)
    shown = entry[index] if entry is not None and index >= 0 else message
    return shown.format(**fields) if fields else shown


def seat(lang, letter):
    """A seat's local letter ("E" is "Ø" in Danish)."""
    return T.SEATS.get(lang, T.SEATS[T.SOURCE]).get(letter, letter)


def fit(*candidates):
    """The first candidate that fits 16 characters (the last one cut, if none does)."""
    for candidate in candidates:
        if len(candidate) <= WIDTH:
            return candidate
    return candidates[-1][:WIDTH]


def lcd(line):
    """A line as the LCD shows it: printable ASCII and the ROM's letters, padded to 16."""
    shown = "".join(c if " " <= c <= "~" or c in _CHARSET else "?" for c in line)
    shown = fit(shown)
    return shown + " " * (WIDTH - len(shown))


def pair_label(pair):
    return "-" if pair is None else str(pair["number"])


def signed(points):
    return "%+d" % points if points else "0"


def result_line(view, lang=T.SOURCE):
    """A stored result (a BoardResultView dict) in 16 characters: "4SX S -2 -500"."""
    board = text(lang, "B{board}", board=view["board"])
    adjusted = view.get("adjusted")
    if adjusted:
        return fit("%s adj %s" % (board, adjusted), adjusted)
    contract = view.get("contract")
    if contract is None:
        state = text(lang, view["state"].replace("_", " "))
        return fit("%s %s" % (board, state), state)
    score = "" if view.get("ns_score") is None else signed(view["ns_score"])
    if view.get("declarer") is None:
        return fit(("%s %s" % (contract, score)).strip())
    res = view.get("result") or ""
    decl = seat(lang, view["declarer"])
    return fit(
        ("%s %s %s %s" % (contract, decl, res, score)).strip(),
        ("%s %s%s %s" % (contract, decl, res, score)).strip(),
        ("%s%s%s %s" % (contract, decl, res, score)).strip(),
    )

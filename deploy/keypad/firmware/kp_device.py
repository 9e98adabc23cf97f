"""The keypad firmware's core for MicroPython: keys and messages in, 2x16 LCD and commands out.

The same screens, keys and texts as the simulator (firmware_sim/device.py): the pairing code,
the seat check (§ 262A), North's entry in the one key grammar (kp_grammar) with the score,
East's confirmation or reject (§ 262B3), the round summary that gates the next round (§ 262C),
the TD call, and the language keys before the boards. Commands with an entry id stay in the
store (kp_store, on flash) until the server answers them and are resent after a reboot.
No hardware and no clock here: kp_keypad wires it to the link, kp_board to the pins.

Not keyed on this firmware: the auction and the deal (events that ask for them need the
terminal); messages are dicts as in protocol/messages.py.
"""

import kp_tables as T
from kp_grammar import (
    DOUBLE,
    OVER,
    UNDER,
    Draft,
    KeyRefusedError,
    backspace,
    keys_for,
    press,
    replay,
)
from kp_lcd import WIDTH, fit, lcd, pair_label, result_line, seat, signed, text
from kp_score import ns_score, result_text

COMPLETE = T.COMPLETE_STATES
AUTH_ERRORS = T.AUTH_ERRORS
STORED = ("enter_result", "correct_result", "confirm_result", "reject_result", "call_td")
WAITING = ("pairing", "loading", "wait_round", "sending", "confirming", "next_wait", "td_wait")
ENTRY_KEYS = {"*": DOUBLE, "UP": OVER, "DOWN": UNDER}
KEY_NAMES = {
    "ENTER": "ENT",
    "E": "ENT",
    "BK": "BACK",
    "CLEAR": "BACK",
    "CLR": "BACK",
    "C": "BACK",
    "DN": "DOWN",
    "U": "UP",
    "D": "DOWN",
}
KEYS = ("0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#", "ENT", "BACK", "UP", "DOWN")


def parse_key(token):
    """A key name: a digit, *, #, ENT/ENTER, BACK/BK/CLEAR/CLR, UP, DOWN/DN."""
    name = token.strip().upper()
    name = KEY_NAMES.get(name, name)
    if name not in KEYS:
        raise ValueError("%r is not a key" % token)
    return name


def _digit(key):
    return len(key) == 1 and key.isdigit()


def _words(state):
    return state.replace("_", " ")


class Device:
    """The keypad: ``press`` keys, ``receive`` messages, read ``display`` and ``outgoing``."""

    def __init__(self, table, store, name=None, language="en"):
        self.table = table
        self.default_language = language if language in T.LANGUAGES else T.SOURCE
        self.store = store
        self.name = name or "keypad-t%d" % table
        self.screen = "pair"
        self.round = None
        self.link_up = False
        self.stored_count = 0
        self.settings = {}
        self._out = []
        self._buffer = ""
        self._note = ""
        self._index = 0
        self._summary_index = -1
        self._draft = None
        self._awaiting = None
        self._pending_view = None
        self._message = ("", "")
        self._after_message = "board"
        self._before_td = "board"
        self._resend_after_round = False

    # ------------------------------------------------------------------ inputs and outputs

    @property
    def language(self):
        event = self.round.get("language") if self.round is not None else None
        for language in (self.store.language, event):
            if language in T.LANGUAGES:
                return language
        return self.default_language

    def switch_language(self, step=1):
        codes = T.LANGUAGES
        index = codes.index(self.language) if self.language in codes else 0
        self.store.save_language(codes[(index + step) % len(codes)])

    def _language_key(self, key):
        if key in ("UP", "DOWN"):
            self.switch_language(1 if key == "DOWN" else -1)
            return True
        return False

    def boot(self):
        """Power on: resume with the stored pairing and resend unanswered commands."""
        if self.store.token:
            self._go("loading")
            self._hello()
            self._resend_pending()
            self._send({"type": "get_round"})
            self._send({"type": "get_table_settings"})
        else:
            self._go("pair")

    def outgoing(self):
        out, self._out = self._out, []
        return out

    @property
    def busy(self):
        return self.screen in WAITING

    @property
    def display(self):
        top, bottom = self._render()
        return lcd(top), lcd(bottom)

    def link_status(self, up):
        self.link_up = up

    def peer_restarted(self):
        if self.store.token:
            self._hello()
            self._resend_pending()

    # ------------------------------------------------------------------------------ helpers

    def _send(self, command):
        if command["type"] in STORED:
            self.store.add(command)
        self._out.append(command)

    def _hello(self):
        """Introduce ourselves with the stored token; this firmware reads an individual's
        players' next positions (protocol/keypad_codec.without_player_positions)."""
        self._send({"type": "hello", "token": self.store.token, "player_positions": True})

    def _resend_pending(self):
        self._out.extend(self.store.pending())

    def _go(self, screen):
        self.screen = screen
        self._buffer = ""

    def _show(self, title, body, then):
        self._message = (title, body)
        self._after_message = then
        self._go("message")

    @property
    def _boards(self):
        return self.round["boards"] if self.round else []

    def _status(self, board):
        for status in self._boards:
            if status["board"] == board:
                return status
        return None

    @property
    def selected(self):
        boards = self._boards
        return boards[self._index % len(boards)] if boards else None

    def saved_boards(self):
        return {c["board"] for c in self.store.pending() if c["type"] == "enter_result"}

    def _first_open(self):
        saved = self.saved_boards()
        for i, status in enumerate(self._boards):
            if status["state"] not in COMPLETE and status["board"] not in saved:
                return i
        return None

    def _continue(self):
        index = self._first_open()
        if index is None:
            self._summary_index = -1
            self._go("summary")
        else:
            self._index = index
            self._go("board")

    def _update(self, view):
        """Fold one board's result into the round (protocol/board_rules.fold)."""
        info = self.round
        if info is None or view["round"] != info["round"] or view["table"] != info["table"]:
            return
        for status in info["boards"]:
            old = status.get("result")
            if status["board"] == view["board"] and (
                old is None or old["version"] <= view["version"]
            ):
                status["state"] = view["state"]
                status["result"] = view
                status["deal"] = None
        info["complete"] = all(b["state"] in COMPLETE for b in info["boards"])

    # --------------------------------------------------------------------------------- keys

    def press(self, key):
        """One key press (ignored while waiting for the server)."""
        key = parse_key(key)
        self._note = ""
        handler = getattr(self, "_key_" + self.screen, None)
        if handler is not None:
            handler(key)

    def _key_pair(self, key):
        if self._language_key(key):
            return
        if _digit(key) and len(self._buffer) < 12:
            self._buffer += key
        elif key == "BACK":
            self._buffer = self._buffer[:-1]
        elif key == "ENT" and len(self._buffer) >= 4:
            code = self._buffer
            self._send(
                {
                    "type": "pair_terminal",
                    "code": code,
                    "device": self.name,
                    "player_positions": True,
                }
            )
            self._go("pairing")
            self._buffer = code

    def _key_seats(self, key):
        if key == "ENT" and self.round is not None:
            self.store.save_pairing(self.store.token, self.round["round"])
            self._continue()
        elif key == "*":
            self._ask_td("seats")
        else:
            self._language_key(key)

    def _key_wait_round(self, key):
        self._language_key(key)

    def _key_board(self, key):
        status = self.selected
        if status is None:
            return
        state = status["state"]
        if key in ("UP", "DOWN"):
            self._index = (self._index + (1 if key == "DOWN" else -1)) % len(self._boards)
        elif key == "#":
            self._summary()
        elif key == "*":
            self._ask_td("board")
        elif status["board"] in self.saved_boards():
            return
        elif state in ("missing", "rejected") and (key == "ENT" or _digit(key)):
            keys = []
            if state == "rejected" and status.get("result") is not None and key == "ENT":
                keys = self._keys_of(status["result"])
            self._start_entry(status["board"], keys)
            if _digit(key):
                self._key_entry(key)
        elif key == "ENT" and state == "entered" and status.get("result") is not None:
            self._ask_east(status["result"])

    def _start_entry(self, board, keys=()):
        info = self.round
        fresh = Draft(board)
        if info is not None:
            fresh = Draft(board, info["tricks_style"], info["lead_required"])
        self._draft = replay(fresh, keys)
        self._go("entry")

    def _keys_of(self, view):
        info = self.round
        if info is None:
            return keys_for(view)
        return keys_for(view, info["tricks_style"], info["lead_required"])

    def _key_entry(self, key):
        draft = self._draft
        if key == "BACK":
            if draft.keys:
                self._draft = backspace(draft)
            else:
                self._go("board")
        elif key == "ENT":
            if draft.complete:
                self._send_entry(draft)
        elif key == "#":
            self._summary()
        elif _digit(key) or key in ENTRY_KEYS:
            try:
                self._draft = press(draft, ENTRY_KEYS.get(key, key))
            except KeyRefusedError as refusal:
                self._draft = refusal.kept(draft)
                words = T.REFUSAL_TEXTS.get(refusal.code)
                if words is not None:
                    self._note = self._t(words, tricks=refusal.tricks)

    def _relative(self):
        return self.round is not None and self.round["tricks_style"] == "relative"

    def _send_entry(self, draft):
        entry = {
            "type": "enter_result",
            "entry_id": self.store.new_entry_id(),
            "board": draft.board,
            "ruling_pending": False,
            "values": draft.values(),
        }
        self._awaiting = entry["entry_id"]
        self._send(entry)
        self._go("sending")

    def _key_sending(self, key):
        if key == "BACK":
            self._awaiting = None
            self._go("board")

    @property
    def _pin_required(self):
        return self.round is not None and self.round["confirm_pin_required"]

    def _ask_east(self, view):
        self._pending_view = view
        self._go("ew_confirm")

    def _key_ew_confirm(self, key):
        view = self._pending_view
        if key == "ENT":
            if not self._pin_required:
                self._confirm(None)
            elif self._buffer:
                self._confirm(self._buffer)
        elif key == "BACK" and self._buffer:
            self._buffer = self._buffer[:-1]
        elif key == "BACK":
            reject = {
                "type": "reject_result",
                "entry_id": self.store.new_entry_id(),
                "board": view["board"],
                "version": view["version"],
                "reason": "",
            }
            self._awaiting = reject["entry_id"]
            self._send(reject)
            self._go("confirming")
        elif _digit(key) and self._pin_required and len(self._buffer) < 8:
            self._buffer += key
        elif key == "#":
            self._summary()
        elif key in ("UP", "DOWN"):
            self._go("board")

    def _confirm(self, pin):
        view = self._pending_view
        confirm = {
            "type": "confirm_result",
            "entry_id": self.store.new_entry_id(),
            "board": view["board"],
            "version": view["version"],
            "pin": pin,
        }
        self._awaiting = confirm["entry_id"]
        self._send(confirm)
        self._go("confirming")

    def _summary(self):
        self._summary_index = -1
        self._go("summary")

    @property
    def _last_round(self):
        return self.round is not None and self.round["round"] >= self.round["rounds"]

    def _key_summary(self, key):
        n = len(self._boards)
        info = self.round
        if key in ("UP", "DOWN") and n:
            step = 1 if key == "DOWN" else -1
            self._summary_index = (self._summary_index + 1 + step) % (n + 1) - 1
        elif key == "#":
            self._summary()
        elif key == "ENT" and info is not None and info["complete"]:
            if not self._last_round:
                self._send({"type": "next_round"})
                self._go("next_wait")
        elif key == "ENT":
            self._continue()
        elif key == "BACK":
            self._go("board")
        elif key == "*":
            self._ask_td("summary")

    def _ask_td(self, back):
        self._before_td = back
        self._go("call_td")

    def _key_call_td(self, key):
        if key == "ENT":
            call = {"type": "call_td", "entry_id": self.store.new_entry_id(), "reason": ""}
            self._awaiting = call["entry_id"]
            self._send(call)
            self._go("td_wait")
        elif key == "BACK":
            self._go(self._before_td)

    def _key_message(self, key):
        if key in ("ENT", "BACK"):
            self._go(self._after_message)

    # ------------------------------------------------------------------------ server input

    def receive(self, message):
        """A message dict from the server (through the gateway)."""
        kind = message["type"]
        if kind == "paired":
            self._on_paired(message)
        elif kind == "round_info":
            self._on_round(message)
        elif kind == "round_changed":
            self._on_round(message["round"])
        elif kind == "result_ack":
            self._on_result_ack(message)
        elif kind == "result_changed":
            self._update(message["result"])
        elif kind == "conflict_raised":
            self._update(message["result"])
            if self.screen not in WAITING:
                board = message["result"]["board"]
                self._show(
                    self._t("B{board} conflict", board=board), self._t("TD is called"), "board"
                )
        elif kind == "ack":
            self._on_ack(message)
        elif kind == "error":
            self._on_error(message)
        elif kind == "table_settings":
            self.settings = message
        elif kind == "deal_ack":
            pass  # the deal is not keyed on this firmware

    def _on_paired(self, message):
        self.store.save_pairing(message["token"], None)
        self.store.save_language(None)
        self._send({"type": "get_round"})
        self._send({"type": "get_table_settings"})
        self._go("loading")

    def _on_round(self, info):
        previous = self.round
        self.round = info
        if self._resend_after_round:
            self._resend_after_round = False
            self._resend_pending()
        new_round = previous is None or previous["round"] != info["round"]
        if info["round"] == 0:
            self._go("wait_round")
        elif self.screen in ("loading", "wait_round", "next_wait") or (
            new_round and self.screen not in WAITING
        ):
            if self.screen == "next_wait" and not new_round:
                return
            if info["round"] != self.store.seated_round:
                self._go("seats")
            else:
                self._continue()

    def _on_result_ack(self, ack):
        self.store.remove(ack["entry_id"])
        view = ack["result"]
        self._update(view)
        if ack["entry_id"] != self._awaiting:
            return
        self._awaiting = None
        if self.screen == "sending":
            self.stored_count += 1
            if view["state"] == "entered":
                self._ask_east(view)
            elif view["state"] == "conflict":
                board = view["board"]
                self._show(
                    self._t("B{board} conflict", board=board), self._t("TD is called"), "board"
                )
            else:
                self._continue()
        elif self.screen == "confirming":
            if view["state"] == "rejected":
                self._start_entry(view["board"], self._keys_of(view))
                self._note = self._t("EW rejected")
            else:
                self._continue()

    def _on_ack(self, ack):
        if ack.get("entry_id") is not None:
            self.store.remove(ack["entry_id"])
        if self.screen == "td_wait" and ack.get("entry_id") == self._awaiting:
            self._awaiting = None
            self._show(self._t("TD is called"), self._t("ENT=continue"), self._before_td)
        elif self.screen == "next_wait":
            self._send({"type": "get_round"})

    def _on_error(self, error):
        code = error["code"]
        if code == "not_paired" and self.store.token and self.screen != "pairing":
            self._hello()
            self._resend_after_round = True
            return
        if code in AUTH_ERRORS:
            self.store.save_pairing(None, None)
            self._awaiting = None
            self._show(self._t("Pair again"), error["message"], "pair")
            return
        entry_id = error.get("entry_id")
        if entry_id is not None:
            self.store.remove(entry_id)
        if self.screen == "pairing":
            self._show(self._t("Pairing refused"), error["message"], "pair")
        elif entry_id is not None and entry_id == self._awaiting:
            self._awaiting = None
            refused = fit(self._t("Refused: {code}", code=code), self._t("Refused"))
            self._show(refused, error["message"], "board")
        elif self.screen == "next_wait":
            self._show(self._t("Round not done"), error["message"], "summary")

    # ------------------------------------------------------------------------------ display

    def _render(self):
        line1, line2 = getattr(self, "_show_" + self.screen)()
        if self._note:
            line2 = self._note
        return line1, line2

    def _header(self, board):
        info = self.round
        t = self._t("T{table}", table=self.table)
        if info is None:
            return t
        r, ns_word = self._t("R{round}", round=info["round"]), self._t("N/S")
        ns, ew = pair_label(info.get("ns")), pair_label(info.get("ew"))
        if board is None:
            return fit("%s %s %s %s-%s" % (t, r, ns_word, ns, ew), "%s %s %s-%s" % (t, r, ns, ew))
        b = self._t("B{board}", board=board)
        return fit(
            "%s %s %s %s %s-%s" % (t, r, b, ns_word, ns, ew),
            "%s %s %s %s-%s" % (t, r, b, ns, ew),
            "%s%s%s %s-%s" % (t, r, b, ns, ew),
            "%s %s %s" % (t, r, b),
        )

    def _show_pair(self):
        return self._t("T{table} Pair code:", table=self.table), self._buffer + "_"

    def _show_pairing(self):
        return self._t("T{table} Pairing...", table=self.table), self._buffer

    def _show_loading(self):
        line2 = self._t("Connecting...") if self.link_up else self._t("No link yet")
        return self._t("T{table}", table=self.table) + " Traveller", line2

    def _show_wait_round(self):
        return self._t("T{table}", table=self.table) + " Traveller", self._t("Wait for round 1")

    def _show_seats(self):
        info = self.round
        t, r = self._t("T{table}", table=self.table), self._t("R{round}", round=info["round"])
        ns = self._t("NS") + pair_label(info.get("ns"))
        ew = self._t("EW") + pair_label(info.get("ew"))
        return fit("%s %s %s %s" % (t, r, ns, ew), "%s %s %s" % (r, ns, ew)), self._t("ENT=OK *=TD")

    def _show_board(self):
        status = self.selected
        if status is None:
            return self._header(None), self._t("No boards")
        state = status["state"]
        result = status.get("result")
        if status["board"] in self.saved_boards():
            hint = self._t("Saved, sending")
        elif state == "missing":
            hint = self._t("0-7=enter *=TD")
        elif state == "rejected":
            hint = self._t("Rejected ENT=fix")
        elif state == "entered":
            hint = self._t("ENT=EW confirm")
        elif state == "conflict":
            hint = self._t("Conflict: TD")
        elif result is not None and result.get("contract") is not None:
            hint = result_line(result, self.language)
        else:
            hint = self._t(_words(state))
        return self._header(status["board"]), hint

    def _draft_text(self):
        draft = self._draft
        out = self._t("B{board}", board=draft.board)
        if draft.level:
            out += " %d%s%s" % (draft.level, draft.strain or "", draft.doubling)
        if draft.declarer is not None:
            out += " " + seat(self.language, draft.declarer)
        if draft.lead_suit is not None:
            out += " %s%s" % (draft.lead_suit, draft.lead_rank or ("1" if draft.lead_high else ""))
        return out

    def _show_entry(self):
        draft = self._draft
        step = draft.step
        if step == "done":
            return self._preview_line("?"), self._t("ENT=send BK=edit")
        shown = self._draft_text()
        if step == "level":
            return self._t("B{board} contract", board=draft.board), self._t("Level 1-7 0=pass")
        if step == "strain":
            return shown, "1C 2D 3H 4S 5NT"
        if step == "declarer":
            return fit(shown + " *=X", shown), self._t("Decl 1N 2E 3S 4W")
        if step == "lead":
            wanted = "Lead 1C 2D 3H 4S" if draft.lead_suit is None else "Card 2-9 0 11-14"
            return shown, self._t(wanted)
        if self._relative():
            return fit(shown + " 0 ^+ v-", shown), self._t("Result: {entry}_", entry=draft.tricks)
        return shown, self._t("Tricks 0-13: {entry}_", entry=draft.tricks)

    def _preview_line(self, mark=""):
        draft = self._draft
        taken = draft.taken()
        if taken is None or draft.passed:
            return "PASS 0" + mark
        status = self._status(draft.board)
        vul = status["vulnerability"] if status else "NONE"
        contract = draft.contract
        score = signed(ns_score(contract, draft.declarer, taken, vul))
        d = seat(self.language, draft.declarer)
        res = result_text(contract, taken)
        return fit(
            "%s %s %s %s%s" % (contract, d, res, score, mark),
            "%s %s%s %s%s" % (contract, d, res, score, mark),
            "%s%s%s %s%s" % (contract, d, res, score, mark),
        )

    def _show_sending(self):
        return self._preview_line(), self._sending()

    def _show_ew_confirm(self):
        line1 = result_line(self._pending_view, self.language)
        if not self._pin_required:
            return line1, self._t("EW:ENT=OK BK=no")
        if not self._buffer:
            return line1, self._t("EW PIN, then ENT")
        return line1, "*" * len(self._buffer) + "_"

    def _show_confirming(self):
        return result_line(self._pending_view, self.language), self._sending()

    def _show_summary(self):
        info = self.round
        boards = info["boards"]
        done = sum(1 for b in boards if b["state"] in COMPLETE)
        if self._summary_index < 0 or not boards:
            line1 = fit(
                self._t(
                    "R{round} done {done}/{total}",
                    round=info["round"],
                    done=done,
                    total=len(boards),
                )
            )
            if not info["complete"]:
                return line1, self._t("ENT=boards ^v")
            return line1, self._t("Last round ^v" if self._last_round else "ENT=next round")
        status = boards[self._summary_index % len(boards)]
        result = status.get("result")
        if result is not None and result.get("contract") is not None:
            line2 = result_line(result, self.language)
        else:
            line2 = self._t(_words(status["state"]))
        board = self._t("B{board}", board=status["board"])
        return fit("%s %s" % (board, self._t(_words(status["state"])))), line2

    def _show_next_wait(self):
        """Where each pair of the table goes next, a line a pair and named by its number:
        "Pair 5>T4 EW" is pair 5 to table 4 as E/W, whichever seat it has now. In an
        individual, two players a line (N and E, then S and W): "3>T2E 7 out". Without the
        movement's word: wait for the TD."""
        info = self.round
        done = fit(self._t("R{round} done, wait", round=info["round"]))
        if any(p.get("player") for p in info["next"]):
            moves = [self._move(p) for p in info["next"][:4]]
            return fit(" ".join(moves[:2])), fit(" ".join(moves[2:]))
        moves = [self._move(p) for p in info["next"][:2]]
        if not moves:
            return done, self._t("for the TD")
        return (moves[0], moves[1]) if len(moves) == 2 else (done, moves[0])

    def _move(self, position):
        side = position.get("seat")
        if position.get("player"):
            player = position["pair"]
            if position.get("table") is None or side is None:
                return self._t("{player} out", player=player)
            return self._t(
                "{player}>T{table}{seat}",
                player=player,
                table=position["table"],
                seat=seat(self.language, side),
            )
        pair = position["pair"].replace(" ", "")  # "3 NS" -> "3NS", as the seat screen shows
        if position.get("table") is None or side is None:
            return fit(self._t("Pair {pair} out", pair=pair))
        side = "".join(seat(self.language, letter) for letter in side)
        return fit(
            self._t("Pair {pair}>T{table} {side}", pair=pair, table=position["table"], side=side)
        )

    def _show_call_td(self):
        return self._t("Call the TD?"), self._t("ENT=yes BACK=no")

    def _show_td_wait(self):
        return self._t("Calling the TD"), self._sending()

    def _show_message(self):
        return self._message

    def _sending(self):
        if self.store.full:
            return self._t("Flash full")
        return self._t("Sending...") if self.link_up else self._t("Saved, no link")

    def _t(self, message, **fields):
        return text(self.language, message, **fields)


__all__ = ["WIDTH", "Device", "parse_key"]

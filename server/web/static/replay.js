// The trick-by-trick replay of a table's play (public/_replay.html, server/services/results/replay.py).
// The page lists every trick (the lead, the cards under W N E S, the winner); this script reads
// that list and steps through it card by card: the cards of the current trick around the table,
// the cards played taken out of the hands, the tricks each side has won, the claim at the end.
// Without it the list is all there is. No dependencies, nothing fetched.
(function () {
  "use strict";

  var ORDER = ["N", "E", "S", "W"];

  function clockwiseFrom(leader) {
    var first = Math.max(0, ORDER.indexOf(leader));
    return [0, 1, 2, 3].map(function (k) { return ORDER[(first + k) % 4]; });
  }

  function each(nodes, fn) { Array.prototype.forEach.call(nodes, fn); }

  function setUp(box) {
    var rows = Array.prototype.slice.call(box.querySelectorAll("table.tricks tbody tr[data-trick]"));
    var steps = [];
    var lastOf = [];
    rows.forEach(function (row, index) {
      clockwiseFrom(row.getAttribute("data-leader")).forEach(function (seat) {
        var card = row.querySelector('.pc[data-seat="' + seat + '"]');
        if (card) steps.push({ trick: index, seat: seat, card: card.getAttribute("data-card"), el: card });
      });
      lastOf.push(steps.length);
    });
    var stage = box.querySelector(".replay-stage");
    if (!stage || !steps.length) return;
    stage.hidden = false;
    box.classList.add("live");
    var at = 0;
    var hands = box.querySelectorAll(".rhand");
    var handCards = box.querySelectorAll(".rhand .c");
    var suits = box.querySelectorAll(".rhand .suit");
    var slots = {};
    each(box.querySelectorAll(".replay-trick .slot"), function (slot) {
      slots[slot.getAttribute("data-slot")] = slot;
    });
    var label = box.querySelector(".replay-at");
    var format = label ? label.getAttribute("data-format") || "{n}" : "{n}";
    var counts = { ns: box.querySelector('[data-count="ns"]'), ew: box.querySelector('[data-count="ew"]') };
    var buttons = {};
    each(box.querySelectorAll("button[data-step]"), function (button) {
      buttons[button.getAttribute("data-step")] = button;
    });
    var end = box.querySelector(".replay-end");

    function show() {
      var played = {};
      for (var i = 0; i < at; i++) played[steps[i].card] = true;
      each(handCards, function (card) {
        card.classList.toggle("gone", played[card.getAttribute("data-card")] === true);
      });
      each(suits, function (suit) {
        suit.classList.toggle("is-void", !suit.querySelector(".c:not(.gone)"));
      });

      var current = at > 0 ? steps[at - 1].trick : 0;
      var done = at > 0 && at === lastOf[current];
      var row = rows[current];
      var winner = done ? row.getAttribute("data-winner") : "";
      ORDER.forEach(function (seat) {
        slots[seat].textContent = "";
        slots[seat].className = "slot slot-" + seat.toLowerCase();
      });
      for (var k = 0; k < at; k++) {
        var step = steps[k];
        if (step.trick !== current) continue;
        var slot = slots[step.seat];
        slot.textContent = step.el.textContent;
        slot.classList.add("filled", "suit-" + step.card.charAt(0).toLowerCase());
        if (step.seat === row.getAttribute("data-leader")) slot.classList.add("lead");
        if (step.seat === winner) slot.classList.add("won");
      }

      var ns = 0;
      var ew = 0;
      var finished = at === steps.length;
      var completeRows = 0;
      rows.forEach(function (r, index) {
        if (at >= lastOf[index] && r.getAttribute("data-winner")) {
          ns = Number(r.getAttribute("data-ns"));
          ew = Number(r.getAttribute("data-ew"));
          completeRows = index + 1;
        }
      });
      if (finished) {
        ns = Number(box.getAttribute("data-ns"));
        ew = Number(box.getAttribute("data-ew"));
      }
      if (counts.ns) counts.ns.textContent = String(ns);
      if (counts.ew) counts.ew.textContent = String(ew);
      if (label) label.textContent = format.replace("{n}", String(at === 0 ? 1 : current + 1));
      box.setAttribute("data-at", String(at));
      box.setAttribute("data-tricks-done", String(completeRows));

      var next = finished ? "" : steps[at].seat;
      each(hands, function (hand) {
        hand.classList.toggle("to-play", hand.getAttribute("data-seat") === next);
      });
      steps.forEach(function (s, index) { s.el.classList.toggle("ahead", index >= at); });
      rows.forEach(function (r, index) {
        r.classList.toggle("now", at > 0 && index === current);
        var count = r.querySelector("td.num .count");
        if (count) count.classList.toggle("ahead", at < lastOf[index]);
      });
      if (end) end.classList.toggle("ahead", !finished);
      if (buttons.start) buttons.start.disabled = at === 0;
      if (buttons.back) buttons.back.disabled = at === 0;
      if (buttons.next) buttons.next.disabled = finished;
      if (buttons.end) buttons.end.disabled = finished;
    }

    function go(to) {
      at = Math.max(0, Math.min(steps.length, to));
      show();
    }

    var moves = {
      start: function () { go(0); },
      back: function () { go(at - 1); },
      next: function () { go(at + 1); },
      end: function () { go(steps.length); },
    };
    Object.keys(buttons).forEach(function (name) {
      buttons[name].addEventListener("click", function () { moves[name](); });
    });
    box.addEventListener("keydown", function (event) {
      var keys = { ArrowRight: "next", ArrowLeft: "back", Home: "start", End: "end" };
      var name = keys[event.key];
      if (!name) return;
      event.preventDefault();
      moves[name]();
    });
    rows.forEach(function (row, index) {
      row.classList.add("jump");
      row.addEventListener("click", function () { go(lastOf[index]); });
    });
    show();
  }

  function start() { each(document.querySelectorAll("[data-replay]"), setUp); }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();

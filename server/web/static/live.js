// Traveller live pages: swap server-rendered fragments pushed over a websocket, tick the
// round timers, fill CSRF tokens into forms and ask before destructive actions.
// No framework, no build step; served from the package under a strict CSP.
(function () {
  "use strict";

  var csrfMeta = document.querySelector('meta[name="csrf-token"]');
  var csrf = csrfMeta ? csrfMeta.getAttribute("content") : "";

  // ----------------------------------------------------------------- forms
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    if (form.hasAttribute("data-once") && form.getAttribute("data-sent")) {
      event.preventDefault(); // a double click sends the form once
      return;
    }
    var question = form.getAttribute("data-confirm");
    if (question && !window.confirm(question)) {
      event.preventDefault();
      return;
    }
    // Asked and answered here: the server need not ask again on a page of its own.
    var answers = question ? form.querySelectorAll("input[data-confirmed]") : [];
    for (var j = 0; j < answers.length; j++) answers[j].value = "yes";
    if (form.hasAttribute("data-once")) form.setAttribute("data-sent", "1");
    var fields = form.querySelectorAll("input[data-csrf]");
    for (var i = 0; i < fields.length; i++) {
      if (!fields[i].value) fields[i].value = csrf;
    }
  });

  window.addEventListener("pageshow", function (event) {
    if (!event.persisted) return; // back to a page kept in memory: its forms may send again
    var sent = document.querySelectorAll("form[data-sent]");
    for (var i = 0; i < sent.length; i++) sent[i].removeAttribute("data-sent");
  });

  // ----------------------------------------------------------------- round timers
  function two(n) {
    return n < 10 ? "0" + n : "" + n;
  }

  function tick() {
    var now = Date.now();
    var timers = document.querySelectorAll(".timer[data-since]");
    for (var i = 0; i < timers.length; i++) {
      var el = timers[i];
      var since = Date.parse(el.getAttribute("data-since"));
      if (isNaN(since)) continue;
      var seconds = Math.max(0, Math.floor((now - since) / 1000));
      var text = Math.floor(seconds / 60) + ":" + two(seconds % 60);
      if (el.textContent !== text) el.textContent = text;
      var limit = parseInt(el.getAttribute("data-limit") || "0", 10);
      var done = el.getAttribute("data-done") === "1";
      var row = el.closest("tr");
      if (row) row.classList.toggle("late", limit > 0 && !done && seconds > limit);
    }
  }
  tick();
  window.setInterval(tick, 1000);

  // ----------------------------------------------------------------- live fragments
  var path = document.body.getAttribute("data-live");
  if (!path) return;
  var status = document.getElementById("live-status");
  var delay = 500;
  var updates = 0;

  function show(state) {
    if (!status) return;
    status.classList.toggle("on", state === "on");
    status.classList.toggle("off", state === "off");
    // The words come from the page (data-on, data-off, data-wait), in its language.
    var key = state === "on" ? "on" : state === "off" ? "off" : "wait";
    var english = { on: "live", off: "reconnecting…", wait: "connecting…" };
    status.textContent = status.getAttribute("data-" + key) || english[key];
  }

  function apply(fragments) {
    for (var name in fragments) {
      if (!Object.prototype.hasOwnProperty.call(fragments, name)) continue;
      var target = document.querySelector('[data-fragment="' + name + '"]');
      if (target) target.innerHTML = fragments[name];
    }
    updates += 1;
    document.body.setAttribute("data-updates", String(updates));
    tick();
    document.dispatchEvent(new CustomEvent("traveller:updated", { detail: fragments }));
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + path);
    show("connecting");
    socket.onopen = function () {
      delay = 500;
      show("on");
    };
    socket.onmessage = function (event) {
      var message;
      try {
        message = JSON.parse(event.data);
      } catch (e) {
        return;
      }
      if (message && message.type === "fragments") apply(message.fragments || {});
    };
    socket.onclose = function () {
      show("off");
      window.setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }
  connect();
})();

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
    tickIn(document, Date.now());
  }

  // The timers under ``root`` (the page, or a fragment not yet on it) as at ``now``.
  function tickIn(root, now) {
    var timers = root.querySelectorAll(".timer[data-since]");
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

  // At most one call of ``fn`` every ``ms`` milliseconds, the last one always made: the live
  // feed's deltas can come many times a second, and each may not cost a request.
  function throttled(fn, ms) {
    var last = 0;
    var timer = null;
    return function () {
      var wait = last + ms - Date.now();
      if (wait <= 0) {
        last = Date.now();
        fn();
      } else if (timer === null) {
        timer = window.setTimeout(function () {
          timer = null;
          last = Date.now();
          fn();
        }, wait);
      }
    };
  }

  // ----------------------------------------------------------------- TD calls alert
  // On every TD page: ask for the open TD calls every few seconds; while any are open show
  // the alert (its words come rendered from the server, in the page's language), beep with a
  // short Web Audio tone when the count grows (unless the TD switched the sound off) and, if
  // the TD allowed it, raise a browser notification. A call stays until acknowledged.
  var onTdPage = /^\/td(\/|$)/.test(location.pathname) && !/^\/td\/login/.test(location.pathname);
  var callsSeen = null;
  var audio = null;

  function soundOn() {
    try {
      return window.localStorage.getItem("traveller-call-sound") !== "off";
    } catch (e) {
      return true;
    }
  }

  function beep() {
    if (!soundOn()) return;
    var Ctx = window.AudioContext || window.webkitAudioContext;
    if (!Ctx) return;
    try {
      audio = audio || new Ctx();
      var osc = audio.createOscillator();
      var gain = audio.createGain();
      osc.type = "sine";
      osc.frequency.value = 880;
      gain.gain.setValueAtTime(0.0001, audio.currentTime);
      gain.gain.exponentialRampToValueAtTime(0.25, audio.currentTime + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, audio.currentTime + 0.35);
      osc.connect(gain);
      gain.connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.4);
      document.body.setAttribute("data-beeps", String(1 + parseInt(document.body.getAttribute("data-beeps") || "0", 10)));
    } catch (e) {
      /* no sound on this browser */
    }
  }

  function notify(box) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    var text = box.querySelector(".call-alert-text");
    var button = box.querySelector(".call-alert-notify");
    try {
      new Notification(button ? button.getAttribute("data-title") : "TD", {
        body: text ? text.textContent : "",
        tag: "traveller-td-call",
      });
    } catch (e) {
      /* notifications refused */
    }
  }

  function dressAlert(box) {
    var sound = box.querySelector(".call-alert-sound");
    if (sound) {
      sound.textContent = sound.getAttribute(soundOn() ? "data-on" : "data-off");
      sound.setAttribute("aria-pressed", soundOn() ? "true" : "false");
    }
    var ask = box.querySelector(".call-alert-notify");
    if (ask) ask.hidden = !("Notification" in window) || Notification.permission !== "default";
  }

  function showCalls(data) {
    var holder = document.getElementById("call-alert"); // the slot of td/base.html
    if (!holder) return;
    var count = data.count || 0;
    holder.innerHTML = count ? data.alert || "" : "";
    holder.hidden = !count;
    document.body.setAttribute("data-calls", String(count));
    var box = holder.firstElementChild;
    if (box) dressAlert(box);
    if (callsSeen !== null && count > callsSeen && box) {
      beep();
      notify(box);
    }
    callsSeen = count;
  }

  function askCalls() {
    var xhr = new XMLHttpRequest();
    xhr.open("GET", "/td/calls.json");
    xhr.setRequestHeader("Accept", "application/json");
    xhr.onload = function () {
      if (xhr.status !== 200) return;
      try {
        showCalls(JSON.parse(xhr.responseText));
      } catch (e) {
        /* not JSON: logged out */
      }
    };
    xhr.send();
  }

  if (onTdPage) {
    document.addEventListener("click", function (event) {
      var target = event.target;
      if (!(target instanceof HTMLElement)) return;
      if (target.classList.contains("call-alert-sound")) {
        try {
          window.localStorage.setItem("traveller-call-sound", soundOn() ? "off" : "on");
        } catch (e) {
          /* private mode: the choice lasts this page */
        }
        dressAlert(target.parentElement);
      } else if (target.classList.contains("call-alert-notify") && "Notification" in window) {
        Notification.requestPermission().then(function () {
          dressAlert(target.parentElement);
        });
      }
    });
    document.addEventListener("traveller:updated", throttled(askCalls, 2000));
    askCalls();
    window.setInterval(askCalls, 5000);
  }

  // ----------------------------------------------------------------- room view
  // The big-type room view asks for its body again when the live feed moves, and every 15
  // seconds (a table becomes late with no change to push).
  var roomSource = document.body.getAttribute("data-room");
  function refreshRoom() {
    var target = document.querySelector("[data-room-body]");
    if (!roomSource || !target) return;
    var xhr = new XMLHttpRequest();
    xhr.open("GET", roomSource);
    xhr.onload = function () {
      if (xhr.status === 200 && target.innerHTML !== xhr.responseText) {
        target.innerHTML = xhr.responseText;
        document.body.setAttribute("data-room-updates", String(1 + parseInt(document.body.getAttribute("data-room-updates") || "0", 10)));
      }
    };
    xhr.send();
  }
  if (roomSource) {
    document.addEventListener("traveller:updated", throttled(refreshRoom, 2000));
    window.setInterval(refreshRoom, 15000);
  }

  // ----------------------------------------------------------------- the grid's rounds
  // A grid wider than its card (a phone, many rounds) scrolls so the current round shows, on
  // opening and whenever the round moves on; between those the TD's own scrolling stays.
  var shownRound = null;
  function showCurrentRound() {
    var wrap = document.querySelector(".grid-scroll");
    var current = wrap && wrap.querySelector("thead th.r.cur");
    if (!current) return;
    var round = current.textContent;
    if (round === shownRound) return;
    shownRound = round;
    if (wrap.scrollWidth <= wrap.clientWidth) return;
    var sticky = wrap.querySelector("thead th.t");
    var left = current.offsetLeft - (sticky ? sticky.offsetWidth : 0);
    var right = current.offsetLeft + current.offsetWidth;
    if (left < wrap.scrollLeft || right > wrap.scrollLeft + wrap.clientWidth) {
      wrap.scrollLeft = Math.max(0, right - wrap.clientWidth + current.offsetWidth);
    }
  }
  showCurrentRound();
  document.addEventListener("traveller:updated", showCurrentRound);

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

  // A fragment replaces what the page shows only where it differs: the whole page that comes
  // when the socket opens is mostly what was just loaded, and replacing a button or a link the
  // TD is pressing loses the press (pressed on the old one, released on the new one, no
  // click). What the page changes by itself (its timers, a late row) is changed in both, at
  // one moment, before they are compared.
  var parser = document.createElement("template");
  function swap(name, html) {
    var target = document.querySelector('[data-fragment="' + name + '"]');
    if (!target) return;
    parser.innerHTML = html;
    var now = Date.now();
    tickIn(parser.content, now);
    tickIn(target, now);
    if (parser.innerHTML !== target.innerHTML) target.innerHTML = html;
    parser.innerHTML = "";
  }

  function swapAll(fragments) {
    for (var name in fragments) {
      if (Object.prototype.hasOwnProperty.call(fragments, name)) swap(name, fragments[name]);
    }
  }

  function apply(fragments) {
    swapAll(fragments);
    updated(fragments);
  }

  function updated(detail) {
    updates += 1;
    document.body.setAttribute("data-updates", String(updates));
    tick();
    document.dispatchEvent(new CustomEvent("traveller:updated", { detail: detail }));
  }

  // A delta: the grid rows of the tables whose result changed, the totals, a fragment that
  // moved. False (nothing changed) when a row is not on the page: the page is asked again.
  function applyDelta(delta) {
    var rows = delta.rows || {};
    var swaps = [];
    for (var table in rows) {
      if (!Object.prototype.hasOwnProperty.call(rows, table)) continue;
      var old = document.querySelector('[data-fragment="grid"] tr[data-table="' + table + '"]');
      var holder = document.createElement("tbody");
      holder.innerHTML = rows[table];
      var fresh = holder.querySelector("tr");
      if (!old || !fresh) return false;
      swaps.push([old, fresh]);
    }
    for (var i = 0; i < swaps.length; i++) swaps[i][0].replaceWith(swaps[i][1]);
    var totals = delta.totals || {};
    for (var key in totals) {
      if (!Object.prototype.hasOwnProperty.call(totals, key)) continue;
      var value = document.querySelector('[data-total="' + key + '"]');
      if (!value) continue; // a count the page has no tile for
      value.textContent = String(totals[key]);
      var tile = value.closest(".tile");
      var flag = tile ? tile.getAttribute("data-flag") : null;
      if (flag) tile.classList.toggle(flag, totals[key] > 0);
    }
    swapAll(delta.fragments || {});
    document.body.setAttribute("data-deltas", String(1 + parseInt(document.body.getAttribute("data-deltas") || "0", 10)));
    updated(delta);
    return true;
  }

  function connect() {
    var scheme = location.protocol === "https:" ? "wss://" : "ws://";
    var socket = new WebSocket(scheme + location.host + path);
    // Every message is numbered; a page that misses one, or cannot apply a delta, asks for
    // the whole page and ignores the rest until it comes.
    var seq = null;
    var waiting = false;
    function askPage() {
      waiting = true;
      document.body.setAttribute("data-refreshes", String(1 + parseInt(document.body.getAttribute("data-refreshes") || "0", 10)));
      try {
        socket.send(JSON.stringify({ type: "refresh" }));
      } catch (e) {
        /* closing: the next socket starts with the whole page */
      }
    }
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
      if (!message || (message.type !== "fragments" && message.type !== "delta")) return;
      var number = typeof message.seq === "number" ? message.seq : null;
      if (message.type === "fragments" && (message.full || number === null)) {
        seq = number;
        waiting = false;
        apply(message.fragments || {});
        return;
      }
      if (waiting || seq === null || number === null || number <= seq) return; // in the page already
      if (number !== seq + 1) return askPage(); // one went missing
      if (message.type === "fragments") apply(message.fragments || {});
      else if (!applyDelta(message)) return askPage();
      seq = number;
    };
    socket.onclose = function () {
      show("off");
      window.setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    };
  }
  connect();
})();

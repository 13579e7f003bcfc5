// Dune Table Companion: the little glue htmx does not do by itself.
(function () {
  "use strict";
  var pending = false;       // a live refresh waiting for the player to finish typing
  var openDetails = [];      // sections the player had open, kept open across refreshes

  function resync() { if (window.htmx) { htmx.trigger(document.body, "resync"); } }

  function editing() {
    var a = document.activeElement, v = document.getElementById("view");
    return !!(a && v && v.contains(a) && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName) && a.type !== "hidden");
  }

  // A phone that sleeps loses its event stream (iOS Safari drops it in the background).
  // When it wakes, fetch the view again at once; the SSE extension reconnects on its own.
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { resync(); }
  });
  window.addEventListener("pageshow", function (e) { if (e.persisted) { resync(); } });
  window.addEventListener("online", resync);
  document.addEventListener("htmx:sseOpen", function () { document.body.classList.remove("offline"); });
  document.addEventListener("htmx:sseError", function () { document.body.classList.add("offline"); });

  // Another phone's change must not wipe a form this player is filling in: the refresh waits
  // until the player leaves the field (their own submit refreshes the view anyway).
  // Whose turn it is still follows live meanwhile: only that line is fetched and replaced.
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (e.detail.elt && e.detail.elt.id === "view" && editing()) {
      e.preventDefault();
      pending = true;
      whoseTurnOnly(e.detail.elt);
    }
  });
  function whoseTurnOnly(view) {
    var line = document.getElementById("whose-turn"), url = view.getAttribute("hx-get");
    if (!line || !url || !window.fetch) { return; }
    fetch(url, { headers: { "HX-Request": "true" }, credentials: "same-origin" }).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (html) {
      if (!html) { return; }
      var box = document.createElement("div");
      box.innerHTML = html;
      var fresh = box.querySelector("#whose-turn"), old = document.getElementById("whose-turn");
      if (fresh && old && old.outerHTML !== fresh.outerHTML) { old.replaceWith(fresh); }
    }).catch(function () {});
  }
  document.addEventListener("focusout", function () {
    setTimeout(function () { if (pending && !editing()) { pending = false; resync(); } }, 250);
  });

  // A form that frees something for good (Re-issue a seat) asks first: data-confirm="sentence".
  document.addEventListener("submit", function (e) {
    var f = e.target;
    var ask = f && f.getAttribute && f.getAttribute("data-confirm");
    if (ask && !window.confirm(ask)) { e.preventDefault(); e.stopImmediatePropagation(); }
  }, true);

  // A fold whose content loads when opened ("Enter by hand") is rendered open and whole by the
  // server when the phone says it is open: a refresh, or the answer to an entry, keeps it as it was.
  document.addEventListener("htmx:configRequest", function (e) {
    var target = e.detail.target;
    if (!target || target.id !== "view") { return; }
    var open = Array.prototype.map.call(document.querySelectorAll("#view details[open][id]"),
      function (d) { return d.id; });
    if (open.length) { e.detail.headers["X-Open-Folds"] = open.join(","); }
    // the parts this page shows (the board, my panel: data-etag): an answer whose part is the
    // same sends it empty (data-same); the board also as X-Have-Board
    var have = [];
    Array.prototype.forEach.call(document.querySelectorAll("#view [id][data-etag]:not([data-same])"), function (el) {
      have.push(el.id + "=" + el.getAttribute("data-etag"));
      if (el.id === "board") { e.detail.headers["X-Have-Board"] = el.getAttribute("data-etag"); }
    });
    if (have.length) { e.detail.headers["X-Have-Parts"] = have.join(","); }
  });
  // ...and the page keeps the part it has in place of the empty one (the board's zoom and scroll,
  // what is typed in the panel); a kept part's forms take the revision the answer shows
  var keptParts = {};
  document.addEventListener("htmx:beforeSwap", function (e) {
    if (e.detail.target && e.detail.target.id === "view") {
      keptParts = {};
      Array.prototype.forEach.call(document.querySelectorAll("#view [id][data-etag]:not([data-same])"), function (el) {
        keptParts[el.id] = el;
      });
    }
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    if (!e.detail.target || e.detail.target.id !== "view") { return; }
    var kept = keptParts, missing = false;
    keptParts = {};
    Array.prototype.forEach.call(document.querySelectorAll("#view [id][data-same]"), function (same) {
      var old = kept[same.id];
      if (old && old.getAttribute("data-etag") === same.getAttribute("data-etag")) {
        var rev = same.getAttribute("data-revision");
        if (rev) {
          Array.prototype.forEach.call(old.querySelectorAll("input[name='revision']"), function (i) { i.value = rev; });
        }
        same.replaceWith(old);
        if (window.htmx) { htmx.process(old); }
      } else {  // (not expected: the page said which part it had) fetch the view again, whole
        same.removeAttribute("data-etag");
        missing = true;
      }
    });
    if (missing) { resync(); }
  });

  // ...and a closed one loads its content the first time it is opened (toggle does not bubble:
  // caught on the way down). No trigger filter: the page's CSP allows no string evaluation.
  document.addEventListener("toggle", function (e) {
    var d = e.target;
    if (!d || d.tagName !== "DETAILS" || !d.open || !d.hasAttribute("data-lazy") || !window.htmx) { return; }
    var body = d.querySelector("[hx-trigger='lazy-open']");
    if (body && !body.hasAttribute("data-loaded")) { htmx.trigger(body, "lazy-open"); }
  }, true);
  document.addEventListener("htmx:afterSwap", function (e) {
    var t = e.detail.target;
    if (t && t.getAttribute && t.getAttribute("hx-trigger") === "lazy-open") { t.setAttribute("data-loaded", ""); }
  });

  // Keep open sections open across refreshes.
  document.addEventListener("htmx:beforeSwap", function (e) {
    if (e.detail.target && e.detail.target.id === "view") {
      openDetails = Array.prototype.map.call(
        document.querySelectorAll("#view details[open] > summary"),
        function (s) { return s.textContent.trim(); });
    }
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    if (e.detail.target && e.detail.target.id === "view") {
      Array.prototype.forEach.call(document.querySelectorAll("#view details > summary"), function (s) {
        if (openDetails.indexOf(s.textContent.trim()) >= 0) { s.parentElement.open = true; }
      });
    }
  });

  // A storage fault (HTTP 503: disk full, read-only, database unreachable) shows one sentence in a
  // box over the page with a Retry; the page underneath, and everything typed in it, stays as it was.
  var lastFault = null;
  function dropFault() {
    var old = document.getElementById("storage-fault");
    if (old) { old.parentNode.removeChild(old); }
  }
  document.addEventListener("htmx:beforeSwap", function (e) {
    if (!e.detail.xhr || e.detail.xhr.status !== 503) { return; }
    e.detail.shouldSwap = false;
    var cfg = e.detail.requestConfig || {};
    lastFault = {elt: cfg.elt || e.detail.elt, verb: cfg.verb || "get", path: cfg.path};
    var holder = document.createElement("div");
    holder.innerHTML = e.detail.xhr.responseText;
    var box = holder.querySelector("#storage-fault");
    if (!box) { return; }
    dropFault();
    box.classList.add("floating");
    document.body.appendChild(box);
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    var xhr = e.detail.xhr;
    if (xhr && xhr.status < 400 && document.querySelector("#storage-fault.floating")) { dropFault(); }
  });
  document.addEventListener("click", function (e) {
    var t = e.target;
    if (!t || !t.closest) { return; }
    if (t.closest("[data-storage-dismiss]")) { dropFault(); return; }
    var retry = t.closest("[data-storage-retry]");
    if (!retry) { return; }
    var box = retry.closest("#storage-fault");
    var fault = box && box.classList.contains("floating") ? lastFault : null;
    dropFault();
    if (!fault) {  // a whole page answered 503: load it again (or go back to the form that sent it)
      if ((box && box.getAttribute("data-method")) === "GET") { window.location.reload(); } else { window.history.back(); }
      return;
    }
    var elt = fault.elt;
    if (elt && elt.tagName === "FORM" && elt.requestSubmit) { elt.requestSubmit(); }
    else if (window.htmx && fault.path) { htmx.ajax(fault.verb.toUpperCase(), fault.path, {source: elt}); }
  });
})();

// -- taps instead of typing: steppers, the sheet for refusals, toasts, the map as a picker ----------
(function () {
  "use strict";

  function fire(input) {
    input.dispatchEvent(new Event("input", { bubbles: true }));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function clamp(input, n) {
    var lo = parseInt(input.min || "0", 10), hi = parseInt(input.max || "999", 10);
    if (isNaN(n)) { n = lo; }
    return Math.max(lo, Math.min(hi, n));
  }

  // the Fremen split: the stepper marked data-rest takes what the others leave of data-total
  function rest(box) {
    var total = parseInt(box.getAttribute("data-total"), 10), used = 0, restInput = box.querySelector("[data-rest] input.count");
    if (!restInput) { return; }
    Array.prototype.forEach.call(box.querySelectorAll("input.count"), function (i) {
      if (i !== restInput) { used += parseInt(i.value || "0", 10) || 0; }
    });
    restInput.value = Math.max(0, total - used);
  }

  document.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest("[data-stepper] button[data-step], [data-stepper] button[data-set]") : null;
    if (b) {
      var input = b.closest("[data-stepper]").querySelector("input.count");
      var v = parseInt(input.value || "0", 10) || 0;
      input.value = clamp(input, b.hasAttribute("data-set") ? parseInt(b.getAttribute("data-set"), 10)
                                                            : v + parseInt(b.getAttribute("data-step"), 10));
      var box = b.closest("[data-total]");
      if (box && !b.closest("[data-rest]")) { rest(box); }
      fire(input);
      return;
    }
    var close = e.target.closest ? e.target.closest("[data-close-sheet]") : null;
    if (close) { clearSheet(); }
  });
  document.addEventListener("input", function (e) {
    var box = e.target.closest && e.target.closest("[data-total]");
    if (box && e.target.classList.contains("count") && !e.target.closest("[data-rest]")) { rest(box); }
  });

  function clearSheet() {
    var sheet = document.getElementById("sheet");
    if (sheet) { sheet.innerHTML = ""; }
    var inline = document.getElementById("sheet-inline");
    if (inline) { inline.remove(); }
  }

  // A new entry clears the last refusal; a refusal lands in the sheet (the form keeps its values).
  document.addEventListener("htmx:beforeRequest", function (e) {
    var elt = e.detail.elt;
    if (elt && elt.tagName === "FORM" && (elt.getAttribute("hx-post") || "").indexOf("/act") > 0 &&
        !elt.closest("#sheet, #sheet-inline")) {
      clearSheet();
    }
  });

  // Success is shown where the player looks: a short toast (the card itself changes too).
  var toastTimer = null;
  document.body && document.body.addEventListener("entry-done", function (e) {
    var t = document.getElementById("toast");
    if (!t || !e.detail || !e.detail.text) { return; }
    clearSheet();  // the entry went in (an override from the sheet, too): the refusal is over
    t.textContent = "✓ " + e.detail.text;
    t.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { t.hidden = true; }, 2600);
  });

  // A correction of the past (an amendment) is toasted once on every phone, live: the newest one
  // the page shows (#amend-note) is compared with the newest this tab has seen for the table
  // (at first sight of a table, everything up to the page's revision counts as seen).
  function amendToast() {
    var note = document.getElementById("amend-note"), view = document.getElementById("view");
    if (!view) { return; }  // only a table page (its live part) counts what this tab has seen
    var key = "amend-seen:" + location.pathname.split("/").slice(0, 3).join("/");
    var seen = parseInt(sessionStorage.getItem(key) || "", 10);
    if (isNaN(seen)) { seen = parseInt(view.getAttribute("data-revision") || "0", 10); }
    var seq = note ? parseInt(note.getAttribute("data-seq"), 10) : 0;
    sessionStorage.setItem(key, String(Math.max(seen, seq)));
    if (note && seq > seen) {
      document.body.dispatchEvent(new CustomEvent("entry-done", { detail: { text: note.getAttribute("data-text") } }));
    }
  }
  document.addEventListener("DOMContentLoaded", amendToast);
  document.addEventListener("htmx:afterSettle", function (e) {
    if (e.target && e.target.id === "view") { amendToast(); }
  });

  // Nothing jumps: the page keeps its scroll position across every swap (scroll anchoring is off in
  // the CSS; this also undoes any jump a browser makes while the content under it changes).
  // A view swapped part by part settles once per part: the scroll is read before the first of
  // them and put back, and the map lit again, once, in the frame after the last (reading the
  // scroll after each part made the browser lay the page out again for each).
  // A scroll the player makes while a swap settles (a push landing mid-fling) is theirs: the page is
  // not put back under their thumb.
  var keep = null, pending = false, light = false, scrolled = false;
  document.addEventListener("htmx:beforeSwap", function () { if (!pending) { keep = window.scrollY; scrolled = false; } });
  ["touchmove", "wheel", "keydown"].forEach(function (name) {
    document.addEventListener(name, function () { if (keep !== null) { scrolled = true; } }, {capture: true, passive: true});
  });
  document.addEventListener("htmx:afterSettle", function (e) {
    if (touchesMap(e.target)) { light = true; }
    if (!pending) { pending = true; requestAnimationFrame(settled); }
  });
  function settled() {
    pending = false;
    if (keep !== null && !scrolled && Math.abs(window.scrollY - keep) > 1) { window.scrollTo(0, keep); }
    keep = null;
    scrolled = false;
    if (light) { light = false; lightMap(); }
  }

  // The map's lights come from the map itself and the places the phase card, the reach card and the
  // shipment offer: a settled part that holds none of them (a spice line, the banner) leaves them
  // as they are.
  var LIGHTS = "svg.dune-map, #now, #reach, #reach-card, #ship-places";
  function touchesMap(t) {
    if (!t || !t.closest || t === document.body || t.id === "view") { return true; }
    return !!(t.closest(LIGHTS) || t.querySelector(LIGHTS));
  }

  // -- the map (map.js draws it; CONTRACTS 1): light legal places, pick by tapping a piece --------
  function mapSvg() { return document.querySelector("#view svg.dune-map, svg.dune-map"); }

  function lightMap() {
    var svg = mapSvg();
    if (!svg || !window.DuneMap) { return; }
    var lit = [], mine = [];
    var reach = document.getElementById("reach-card");
    var pool = reach ? reach.querySelectorAll("button.place[data-piece]")
                     : document.querySelectorAll("#ship-places button.place[data-piece], #now .setup button.place[data-piece]");
    Array.prototype.forEach.call(pool, function (b) { lit.push(b.getAttribute("data-piece")); });
    Array.prototype.forEach.call(document.querySelectorAll("#now .stack-pick[data-piece]"), function (b) {
      mine.push(b.getAttribute("data-piece"));
    });
    window.DuneMap.show(svg, lit, mine, reach ? reach.getAttribute("data-from") : null);
  }
  document.addEventListener("DOMContentLoaded", lightMap);

  document.addEventListener("piece-tap", function (e) {
    var piece = e.detail && e.detail.piece;
    if (!piece) { return; }
    var esc = window.CSS && CSS.escape ? CSS.escape(piece) : piece.replace(/"/g, '\\"');
    var reach = document.getElementById("reach-card");
    // a legal destination of the stack picked (or of a shipment): tapping it there is the same tap
    var target = reach && reach.querySelector('button.place[data-piece="' + esc + '"]');
    if (target) { target.click(); return; }
    // one of my stacks: pick it as "from" (its legal destinations light up)
    var stack = document.querySelector('#now .stack-pick[data-piece="' + esc + '"]');
    if (stack) { stack.click(); return; }
    // else a place to ship to (with the forces on the stepper)
    target = document.querySelector('#ship-places button.place[data-piece="' + esc + '"]') ||
             document.querySelector('#now .setup button.place[data-piece="' + esc + '"]');
    if (target) { target.click(); }
  });
})();

// -- the sealed battle plan builder: strength and spice cost live as the player taps ---------------
// (the same arithmetic as the server, from the costs it sent; the server stays the judge)
(function () {
  "use strict";
  function num(form, name) {
    var i = form.querySelector('input[name="' + name + '"]');
    return i ? (parseInt(i.value || "0", 10) || 0) : 0;
  }
  function update(form) {
    var costs = (form.getAttribute("data-costs") || "").split(",").map(function (x) { return parseInt(x, 10) || 0; });
    var worth = parseInt(form.getAttribute("data-worth") || "1", 10);
    var spice = parseInt(form.getAttribute("data-spice") || "0", 10);
    var forces = num(form, "forces"), starred = num(form, "starred");
    var bonus = parseInt(form.getAttribute("data-bonus") || "0", 10) || 0;  // the Ecaz alliance bonus
    var troops = forces + starred, dial = forces + starred * worth + bonus;
    var cost = troops < costs.length ? costs[troops] : costs[costs.length - 1] + troops - costs.length + 1;
    var f = form.querySelector('input[name="fighter"]:checked');
    var leader = f ? (parseInt(f.getAttribute("data-strength") || "0", 10) || 0) : 0;
    var kh = form.querySelector("input[data-kh]:checked") && f && f.value ? 2 : 0;
    function out(key, v) { var el = form.querySelector('[data-out="' + key + '"]'); if (el) { el.textContent = v; } }
    out("dial", Math.min(dial, 20));
    out("total", Math.min(dial, 20) + leader + kh);
    out("cost", cost);
    var warn = form.querySelector('[data-out="warn"]');
    if (warn) { warn.hidden = cost <= spice; }
    form.classList.toggle("over", cost > spice);
  }
  function all() { Array.prototype.forEach.call(document.querySelectorAll("form[data-plan-builder]"), update); }
  document.addEventListener("input", function (e) {
    var form = e.target.closest && e.target.closest("form[data-plan-builder]");
    if (form) { update(form); }
  });
  document.addEventListener("change", function (e) {
    var form = e.target.closest && e.target.closest("form[data-plan-builder]");
    if (form) { update(form); }
  });
  document.addEventListener("DOMContentLoaded", all);
  document.addEventListener("htmx:afterSettle", all);
})();

// The revival card says what the revival costs (free and paid forces, spice) before the tap that
// spends it: the same arithmetic as the server's, from the figures it sent; the server stays the judge.
(function () {
  "use strict";
  function update(form) {
    var out = form.querySelector("#revival-cost");
    if (!out) { return; }
    var free = parseInt(out.getAttribute("data-free"), 10) || 0, per = parseInt(out.getAttribute("data-per"), 10) || 0;
    var n = 0;
    Array.prototype.forEach.call(form.querySelectorAll('input[name="forces"], input[name="starred"]'), function (i) {
      n += parseInt(i.value || "0", 10) || 0;
    });
    var paid = Math.max(0, n - free);
    out.querySelector('[data-out="revival"]').textContent =
      (n - paid) + " free" + (paid ? ", " + paid + " paid: " + paid * per + " spice" : ": no spice");
  }
  function changed(e) {
    var form = e.target.closest && e.target.closest("form.revive");
    if (form) { update(form); }
  }
  document.addEventListener("input", changed);
  document.addEventListener("change", changed);
})();

// A refresh from another phone (the other side sealing, say) must not wipe a plan being built:
// the builder's choices are put back after the swap.
(function () {
  "use strict";
  var kept = {};
  document.addEventListener("htmx:beforeSwap", function (e) {
    kept = {};
    if (!e.detail.target || e.detail.target.id !== "view") { return; }
    var elt = e.detail.requestConfig && e.detail.requestConfig.elt;
    Array.prototype.forEach.call(document.querySelectorAll("#view form[data-plan-builder]"), function (form) {
      if (elt && (elt === form || form.contains(elt))) { return; }  // its own submit: the server's answer wins
      var v = {};
      Array.prototype.forEach.call(form.querySelectorAll("input[name]"), function (i) {
        if (i.type === "radio" || i.type === "checkbox") { if (i.checked) { v[i.name + "=" + i.value] = true; } }
        else if (i.type !== "hidden") { v[i.name] = i.value; }
      });
      kept[form.id] = v;
    });
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    if (!e.detail.target || e.detail.target.id !== "view") { return; }
    Object.keys(kept).forEach(function (id) {
      var form = document.getElementById(id), v = kept[id];
      if (!form) { return; }
      Array.prototype.forEach.call(form.querySelectorAll("input[name]"), function (i) {
        if (i.disabled) { return; }  // fixed by a Prescience answer or forbidden by the Voice: the server's choice stands
        if (i.type === "radio" || i.type === "checkbox") {
          if (v[i.name + "=" + i.value]) { i.checked = true; }
          else if (i.type === "checkbox") { i.checked = false; }
        } else if (i.type !== "hidden" && v.hasOwnProperty(i.name)) { i.value = v[i.name]; }
      });
      var open = form.querySelectorAll("details");
      Array.prototype.forEach.call(open, function (d) { if (d.querySelector("input:checked")) { d.open = true; } });
      form.dispatchEvent(new Event("change", { bubbles: true }));
    });
    kept = {};
  });
})();

// A plan half built survives a reload: the builder's choices are kept in this phone's
// sessionStorage, keyed by table, seat and battle (data-plan-key), and put back when the builder is
// rendered again. They never leave the phone: the server sees the plan only when it is sealed.
(function () {
  "use strict";
  var store;
  try { store = window.sessionStorage; } catch (e) { store = null; }
  if (!store) { return; }
  function read(form) {
    var v = {};
    Array.prototype.forEach.call(form.querySelectorAll("input[name]"), function (i) {
      if (i.type === "radio" || i.type === "checkbox") { if (i.checked) { v[i.name + "=" + i.value] = true; } }
      else if (i.type !== "hidden") { v[i.name] = i.value; }
    });
    return v;
  }
  function save(form) {
    var key = form.getAttribute("data-plan-key");
    if (key && !form.closest("details.reseal")) { try { store.setItem(key, JSON.stringify(read(form))); } catch (e) { /* full: nothing kept */ } }
  }
  function restore(form) {
    var key = form.getAttribute("data-plan-key"), raw = key && store.getItem(key), v;
    if (key && form.closest("details.reseal")) { store.removeItem(key); return; }  // sealed: the draft is done with
    if (!raw || form.hasAttribute("data-restored")) { return; }
    form.setAttribute("data-restored", "");
    try { v = JSON.parse(raw); } catch (e) { return; }
    Array.prototype.forEach.call(form.querySelectorAll("input[name]"), function (i) {
      if (i.disabled) { return; }  // fixed by a power: the server's choice stands
      if (i.type === "radio") { if (v[i.name + "=" + i.value]) { i.checked = true; } }
      else if (i.type === "checkbox") { i.checked = !!v[i.name + "=" + i.value]; }
      else if (i.type !== "hidden" && v.hasOwnProperty(i.name)) { i.value = v[i.name]; }
    });
    Array.prototype.forEach.call(form.querySelectorAll("details"), function (d) {
      if (d.querySelector("input:checked")) { d.open = true; }
    });
    form.dispatchEvent(new Event("change", { bubbles: true }));
  }
  function builder(e) { return e.target.closest && e.target.closest("form[data-plan-builder]"); }
  function later(e) { var form = builder(e); if (form) { setTimeout(function () { save(form); }, 0); } }
  document.addEventListener("input", later);
  document.addEventListener("change", later);
  document.addEventListener("click", later);  // the stepper's buttons set the value without an event
  function all() { Array.prototype.forEach.call(document.querySelectorAll("form[data-plan-builder]"), restore); }
  document.addEventListener("DOMContentLoaded", all);
  document.addEventListener("htmx:afterSettle", all);
})();

/* The live status line (issue 24): screen readers hear one short line when the phase card changes
 * (#now's data-status, else its first heading), not the whole card re-read on every refresh. */
(function () {
  "use strict";
  function line() {
    var now = document.getElementById("now");
    if (!now) return "";
    if (now.dataset.status) return now.dataset.status;
    var h = now.querySelector("h2, h3");
    return h ? h.textContent.replace(/\s+/g, " ").trim() : "";
  }
  var last = null;
  function update() {
    var out = document.getElementById("now-status");
    if (!out) return;
    var text = line();
    if (last === null) { last = text; return; }   // the page as loaded: nothing to announce
    if (text && text !== last) { out.textContent = text; }
    last = text;
  }
  document.addEventListener("DOMContentLoaded", update);
  document.addEventListener("htmx:afterSettle", update);
})();

// The battle panel loads by itself into the view (#battle): a refresh from another phone brings a
// new, empty one. What the player had in its dial calculator is carried over: the old panel stays on
// screen (values and all) until the new one, asked for with those values, is in; its folds stay as
// they were. (Their own change of territory or opponent re-renders the panel with the form anyway.)
(function () {
  "use strict";
  var carried = null;   // {values, nodes, folds} from the panel being replaced, until the new one asks
  function foldOpen(el) { var d = el.parentElement && el.parentElement.closest("details"); return !d || d.open; }
  document.addEventListener("htmx:beforeSwap", function (e) {
    if (!e.detail.target || e.detail.target.id !== "view" || !e.detail.shouldSwap) { return; }
    carried = null;
    var box = document.querySelector("#view #battle"), form = box && box.querySelector("#dial-form");
    if (!form || !foldOpen(box)) { return; }
    var values = {}, folds = {};
    Array.prototype.forEach.call(form.querySelectorAll("input[name], select[name]"), function (i) {
      if (i.type !== "hidden" && i.value !== "") { values[i.name] = i.value; }
    });
    Array.prototype.forEach.call(box.querySelectorAll("details[class]"), function (d) { folds[d.className] = d.open; });
    carried = {values: values, nodes: Array.prototype.slice.call(box.childNodes), folds: folds, asked: false};
  });
  document.addEventListener("htmx:afterSwap", function (e) {
    if (!carried || !carried.nodes || !e.detail.target || e.detail.target.id !== "view") { return; }  // (once: oob parts too)
    var box = document.querySelector("#view #battle");
    if (!box || !foldOpen(box)) { carried = null; return; }
    box.innerHTML = "";
    carried.nodes.forEach(function (n) { box.appendChild(n); });  // nothing flashes empty meanwhile
    carried.nodes = null;
  });
  document.addEventListener("htmx:configRequest", function (e) {
    if (!carried || carried.asked || !e.detail.elt || e.detail.elt.id !== "battle") { return; }
    carried.asked = true;
    Object.keys(carried.values).forEach(function (k) { e.detail.parameters[k] = carried.values[k]; });
  });
  // (the panel so loaded is the one its fold shows: its own load-on-first-open, still armed, does nothing)
  document.addEventListener("htmx:beforeRequest", function (e) {
    var cfg = e.detail.requestConfig, ev = cfg && cfg.triggeringEvent;
    if (e.detail.elt && e.detail.elt.id === "battle" && e.detail.elt.hasAttribute("data-carried") && ev && ev.type === "toggle") {
      e.preventDefault();
    }
  });
  document.addEventListener("htmx:afterSettle", function (e) {
    var t = e.target;
    if (!carried || !t || !t.id) { return; }
    if (t.id === "view" && !carried.asked && !carried.sent && window.htmx) {  // a fold reopened before its trigger was set up
      var box = document.querySelector("#view #battle");
      if (box && box.getAttribute("hx-get")) {
        box.setAttribute("data-carried", "");
        carried.sent = true;  // (settled once per part of the answer: asked once)
        htmx.ajax("GET", box.getAttribute("hx-get"), {source: box, target: box, swap: "innerHTML"});
      }
      else { carried = null; }
    } else if (t.id === "battle" && carried.asked) {
      var folds = carried.folds;
      carried = null;
      Array.prototype.forEach.call(t.querySelectorAll("details[class]"), function (d) {
        if (folds.hasOwnProperty(d.className)) { d.open = folds[d.className]; }
      });
    }
  });
})();

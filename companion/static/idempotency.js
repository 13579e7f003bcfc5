// Dune Table Companion: every tap lands exactly once.
// - Keys: every write a phone sends (hx-post) carries an Idempotency-Key header, made for that form
//   as rendered and that body (the same submit retried, by the Retry button or the browser coming
//   back online, sends the same key), so the server records it once and answers a repeat with
//   "already recorded". A new render of the form is a new element, hence a new key.
// - In flight: the form (or button) that sent a write is disabled until its answer is in.
// - After a swap: for GUARD_MS a tap on a control that appeared where the tapped control was is
//   ignored (a double tap lands on the fresh "Bought a card", the Override, the vote), except the
//   same stepper (- / +), where deliberate repeated taps count.
// - [data-arm]: an irreversible control that may appear where another was (a vote, an override)
//   stays disabled for ARM_MS after it appears.
(function () {
  "use strict";
  var GUARD_MS = 500, ARM_MS = 600;

  function random(n) {
    var out = "", a = new Uint8Array(n), abc = "abcdefghijklmnopqrstuvwxyz0123456789";
    (window.crypto || window.msCrypto).getRandomValues(a);
    for (var i = 0; i < n; i++) { out += abc[a[i] % abc.length]; }
    return out;
  }

  function hash(text) {  // FNV-1a, 32 bits: tells two bodies of one form apart
    var h = 0x811c9dc5;
    for (var i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return ("0000000" + h.toString(16)).slice(-8);
  }

  function bodyText(detail) {
    var pairs = [];
    var fd = detail.formData;
    if (fd && fd.forEach) {
      fd.forEach(function (v, k) { if (k !== "csrf_token") { pairs.push(k + "=" + v); } });
    } else {
      var p = detail.parameters || {};
      Object.keys(p).forEach(function (k) { if (k !== "csrf_token") { pairs.push(k + "=" + p[k]); } });
    }
    pairs.sort();
    return pairs.join("&");
  }

  function writing(detail) {
    var verb = (detail.verb || (detail.requestConfig && detail.requestConfig.verb) || "get").toLowerCase();
    return verb !== "get";
  }

  // the key: made once per rendered form (its element) and body; a retry passes it explicitly
  document.addEventListener("htmx:configRequest", function (e) {
    var d = e.detail;
    if (!d || !writing(d) || !d.elt) { return; }
    d.headers = d.headers || {};
    if (d.headers["Idempotency-Key"]) { return; }
    var elt = d.elt;
    if (!elt.__keyBase) { elt.__keyBase = random(16); }
    d.headers["Idempotency-Key"] = elt.__keyBase + "." + hash(bodyText(d));
  });

  // in flight: the form that sent it is disabled until the answer is in, and a live refresh of
  // the view waits for that answer (which refreshes the view itself): the form stays in place, so
  // a lost answer is still said beside it, with its Retry
  // (a held refresh is fetched after the answer only if the table moved past what the answer
  // showed: a second swap of the view just after the answer would take the next tap with it)
  var inFlight = 0, heldRefresh = -1, HELD_UNKNOWN = Infinity;
  function shownRevision() {
    var el = document.querySelector("#view [data-shown-revision]");
    return el ? parseInt(el.getAttribute("data-shown-revision"), 10) : -1;
  }
  function announcedRevision(d) {  // the revision a stream "changed" carries, else unknown
    var t = (d.requestConfig && d.requestConfig.triggeringEvent) || d.triggeringEvent;
    var n = t && t.type === "sse:changed" && t.detail ? parseInt(t.detail.data, 10) : NaN;
    return isNaN(n) ? HELD_UNKNOWN : n;
  }
  function fingerDown() { return touching || (downAt >= 0 && clock() - downAt < 350 && !clickedSinceDown); }
  document.addEventListener("htmx:beforeRequest", function (e) {
    var d = e.detail || {};
    if (!(d.elt && d.elt.id === "view" && !writing(d.requestConfig || d))) { return; }
    if (inFlight > 0) {
      e.preventDefault();
      heldRefresh = Math.max(heldRefresh, announcedRevision(d));
    } else if (fingerDown()) {
      // a finger is on the screen: the live refresh waits for the tap to land (replacing the
      // control under a finger between touchstart and click loses the tap)
      e.preventDefault();
      if (!fingerTimer) {
        fingerTimer = setTimeout(function () { fingerTimer = null; htmx.trigger(document.body, "resync"); }, 400);
      }
    }
  });
  function holder(elt) { return (elt && elt.closest && elt.closest("form")) || elt; }
  document.addEventListener("htmx:beforeSend", function (e) {
    var d = e.detail || {};
    if (!writing(d.requestConfig || d) || !d.elt || !d.xhr) { return; }
    var box = holder(d.elt), held = [];
    inFlight++;
    if (box !== document.body && box.id !== "view") {  // (a retry sent from the page holds nothing)
      box.inert = true;
      box.classList.add("sending");
      box.setAttribute("aria-busy", "true");
      var sub = d.requestConfig && d.requestConfig.triggeringEvent && d.requestConfig.triggeringEvent.submitter;
      [d.elt, sub].forEach(function (b) {
        if (b && b !== box && "disabled" in b && !b.disabled) { b.disabled = true; held.push(b); }
      });
    }
    // the end of this request, whatever happened to it (its form may be swapped away by its own
    // answer, so no htmx event of that form reaches the document): let the form and the view go
    d.xhr.addEventListener("loadend", function () {
      inFlight = Math.max(0, inFlight - 1);
      if (box !== document.body && box.id !== "view") {
        box.inert = false;
        box.classList.remove("sending");
        box.removeAttribute("aria-busy");
        held.forEach(function (b) { b.disabled = false; });
      }
      if (inFlight === 0 && heldRefresh >= 0) {
        var wanted = heldRefresh;
        heldRefresh = -1;
        setTimeout(function () { if (wanted > shownRevision()) { htmx.trigger(document.body, "resync"); } }, 0);
      }
    });
  });

  // after a swap: a tap where the last tap landed, on a control that was not there, is ignored
  var last = null, swapAt = 0;
  var CONTROL = "button, input[type=submit], input[type=radio], input[type=checkbox], a.button, summary, select";

  // a stepper's button (the form's - / + of [data-stepper], or the panel's "pay 1 spice" / "+1"
  // steppers, each a tiny form): the same one again is a deliberate repeated tap, never ignored
  function stepperOf(c) {
    var box = c.closest && c.closest("[data-stepper]");
    if (box && (c.hasAttribute("data-step") || c.hasAttribute("data-set"))) {
      var input = box.querySelector("input");
      return (input ? input.name : "") + "|" + (c.getAttribute("data-step") || "set" + c.getAttribute("data-set"));
    }
    var panel = c.closest && c.closest(".stepper");
    if (panel && c.getAttribute("aria-label")) { return "panel|" + c.getAttribute("aria-label"); }
    return null;
  }

  function overlaps(a, b) {
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }

  // (the swaps that put a new control under the finger: the answers to writes, a tap's own answer)
  // Times are the events' own stamps (when the finger came down, not when a busy phone got round
  // to the tap): a second tap made while the first was in flight and delivered after the answer
  // came is ignored too.
  var swapTarget = null, downAt = -1, touching = false, clickedSinceDown = true, fingerTimer = null;
  function clock() { return window.performance && performance.now ? performance.now() : Date.now(); }
  document.addEventListener("htmx:afterSwap", function (e) {
    var d = e.detail || {};
    if (writing(d.requestConfig || d)) {
      swapAt = clock();
      swapTarget = d.target || e.target;
      window.__tapGuardUntil = Date.now() + GUARD_MS;  // (browser tests that tap faster than a person wait for it)
    }
  });
  function down(e) { downAt = e.timeStamp || clock(); clickedSinceDown = false; }
  document.addEventListener("touchstart", function (e) { touching = true; down(e); }, { capture: true, passive: true });
  ["touchend", "touchcancel"].forEach(function (n) {
    document.addEventListener(n, function () { touching = false; }, { capture: true, passive: true });
  });
  document.addEventListener("pointerdown", down, true);
  document.addEventListener("mousedown", down, true);
  document.addEventListener("click", function (e) {
    clickedSinceDown = true;
    var c = e.target && e.target.closest ? e.target.closest(CONTROL) : null;
    if (!c) { return; }
    var at = e.timeStamp || clock();
    if (downAt >= 0 && downAt <= at && at - downAt < 1500) { at = downAt; }
    var rect = c.getBoundingClientRect(), stepper = stepperOf(c);
    if (last && swapAt > last.t && at > last.t && at < swapAt + GUARD_MS && swapAt - last.t < 5000 &&
        c !== last.el && swapTarget && swapTarget.contains(c) &&
        !(stepper && stepper === last.stepper) && overlaps(rect, last.rect)) {
      e.preventDefault();
      e.stopImmediatePropagation();
      return;
    }
    last = { el: c, rect: rect, t: at, stepper: stepper };
  }, true);

  // [data-arm]: waits ARM_MS after it appears before it takes a tap
  function arm(root) {
    if (!root || !root.querySelectorAll) { return; }
    var found = Array.prototype.slice.call(root.querySelectorAll("[data-arm]"));
    if (root.matches && root.matches("[data-arm]")) { found.push(root); }
    found.forEach(function (b) {
      if (b.__armed) { return; }
      b.__armed = true;
      b.disabled = true;
      b.classList.add("arming");
      setTimeout(function () { b.disabled = false; b.classList.remove("arming"); }, ARM_MS);
    });
  }
  document.addEventListener("htmx:load", function (e) { arm(e.target); });
  document.addEventListener("DOMContentLoaded", function () { arm(document.body); });
})();

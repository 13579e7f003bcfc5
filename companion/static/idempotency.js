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
  var inFlight = 0, heldRefresh = false;
  document.addEventListener("htmx:beforeRequest", function (e) {
    var d = e.detail || {};
    if (inFlight > 0 && d.elt && d.elt.id === "view" && !writing(d.requestConfig || d)) {
      e.preventDefault();
      heldRefresh = true;
    }
  });
  function holder(elt) { return (elt && elt.closest && elt.closest("form")) || elt; }
  document.addEventListener("htmx:beforeSend", function (e) {
    var d = e.detail || {};
    if (!writing(d.requestConfig || d) || !d.elt) { return; }
    var box = holder(d.elt);
    inFlight++;
    box.__inFlight = true;
    if (box === document.body || box.id === "view") { return; }  // a retry sent from the page: nothing to hold
    box.inert = true;
    box.classList.add("sending");
    box.setAttribute("aria-busy", "true");
    if (box !== d.elt && "disabled" in d.elt && !d.elt.disabled) { d.elt.disabled = true; d.elt.__sendDisabled = true; }
    var sub = d.requestConfig && d.requestConfig.triggeringEvent && d.requestConfig.triggeringEvent.submitter;
    if (sub && !sub.disabled) { sub.disabled = true; sub.__sendDisabled = true; }
    box.__sending = sub || null;
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    var d = e.detail || {};
    if (!d.elt) { return; }
    var box = holder(d.elt);
    if (!box || !box.__inFlight) { return; }
    box.__inFlight = false;
    inFlight = Math.max(0, inFlight - 1);
    if (inFlight === 0 && heldRefresh) {
      heldRefresh = false;
      setTimeout(function () { htmx.trigger(document.body, "resync"); }, 0);
    }
    box.inert = false;
    box.classList.remove("sending");
    box.removeAttribute("aria-busy");
    [d.elt, box.__sending].forEach(function (b) {
      if (b && b.__sendDisabled) { b.disabled = false; b.__sendDisabled = false; }
    });
  });

  // after a swap: a tap where the last tap landed, on a control that was not there, is ignored
  var last = null, swapAt = 0;
  var CONTROL = "button, input[type=submit], input[type=radio], input[type=checkbox], a.button, summary, select";

  function stepperOf(c) {
    var box = c.closest && c.closest("[data-stepper]");
    if (!box || !c.hasAttribute("data-step") && !c.hasAttribute("data-set")) { return null; }
    var input = box.querySelector("input");
    return (input ? input.name : "") + "|" + (c.getAttribute("data-step") || "set" + c.getAttribute("data-set"));
  }

  function overlaps(a, b) {
    return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  }

  document.addEventListener("htmx:afterSwap", function () { swapAt = Date.now(); });
  document.addEventListener("click", function (e) {
    var c = e.target && e.target.closest ? e.target.closest(CONTROL) : null;
    if (!c) { return; }
    var now = Date.now(), rect = c.getBoundingClientRect(), stepper = stepperOf(c);
    if (last && now - swapAt < GUARD_MS && last.t <= swapAt && swapAt - last.t < 3000 && c !== last.el &&
        !(stepper && stepper === last.stepper) && overlaps(rect, last.rect)) {
      e.preventDefault();
      e.stopImmediatePropagation();
      return;
    }
    last = { el: c, rect: rect, t: now, stepper: stepper };
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

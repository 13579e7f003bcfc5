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
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (e.detail.elt && e.detail.elt.id === "view" && editing()) {
      e.preventDefault();
      pending = true;
    }
  });
  document.addEventListener("focusout", function () {
    setTimeout(function () { if (pending && !editing()) { pending = false; resync(); } }, 250);
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

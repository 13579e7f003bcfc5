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
})();

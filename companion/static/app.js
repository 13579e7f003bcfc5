// Dune Table Companion: the little glue htmx does not do by itself.
(function () {
  "use strict";
  // A phone that sleeps loses its event stream (iOS Safari drops it in the background).
  // When it wakes, fetch the view again at once; the SSE extension reconnects on its own.
  function resync() { if (window.htmx) { htmx.trigger(document.body, "resync"); } }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") { resync(); }
  });
  window.addEventListener("pageshow", function (e) { if (e.persisted) { resync(); } });
  window.addEventListener("online", resync);
  // Reconnected streams resync too (the server sends the current revision on connect).
  document.addEventListener("htmx:sseOpen", function () { document.body.classList.remove("offline"); });
  document.addEventListener("htmx:sseError", function () { document.body.classList.add("offline"); });
  // Never keep private pages in htmx's history cache.
  document.addEventListener("htmx:configRequest", function () {
    if (window.htmx) { htmx.config.historyCacheSize = 0; }
  });
})();

// One refresh per change on a phone's table page. The stream announces each new revision
// (event: changed, data: N) and #view refetches on it; the view answer also carries the
// proposals (an out-of-band part), so that is the page's only request. Here the page does not
// fetch a revision it already shows (the answer to its own entry brought it), and a change
// announced while its own entry is on its way waits for that answer, then fetches only if the
// table moved on meanwhile.
(function () {
  "use strict";
  var posting = [], deferred = -1;  // the entries on their way (their xhr: an answer may be retargeted)

  function shown() {
    var el = document.querySelector("#view [data-shown-revision]");
    return el ? parseInt(el.getAttribute("data-shown-revision"), 10) : -1;
  }
  function announced(e) {  // the revision an sse:changed trigger carries, else null
    var t = e.detail && e.detail.triggeringEvent;
    if (!t || t.type !== "sse:changed" || !t.detail) { return null; }
    var n = parseInt(t.detail.data, 10);
    return isNaN(n) ? null : n;
  }
  function entryToView(e) {
    var cfg = e.detail && e.detail.requestConfig;
    return !!(cfg && cfg.verb && cfg.verb !== "get" && e.detail.target && e.detail.target.id === "view");
  }

  document.addEventListener("htmx:confirm", function (e) {
    if (!e.detail.elt || e.detail.elt.id !== "view") { return; }
    var rev = announced(e);
    if (rev === null) { return; }
    if (rev <= shown()) { e.preventDefault(); return; }
    var now = Date.now();  // an entry held back before it was sent never ends: forget it after a while
    posting = posting.filter(function (p) { return now - p.at < 15000; });
    if (posting.length) { deferred = Math.max(deferred, rev); e.preventDefault(); }
  });
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (entryToView(e) && !e.defaultPrevented && e.detail.xhr) { posting.push({xhr: e.detail.xhr, at: Date.now()}); }
  });
  // every request ends here (answered, refused into the sheet, failed, timed out or aborted)
  document.addEventListener("htmx:afterRequest", function (e) {
    var xhr = e.detail && e.detail.xhr, before = posting.length;
    posting = posting.filter(function (p) { return p.xhr !== xhr; });
    if (posting.length === before) { return; }
    if (!posting.length) {
      var missed = deferred > shown();
      deferred = -1;
      if (missed && window.htmx) { htmx.trigger(document.body, "resync"); }
    }
  });
})();

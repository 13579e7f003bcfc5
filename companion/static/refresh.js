// One refresh per change on a phone's table page, and most often no request at all. The stream
// announces each new revision (event: changed, data: N) and #view refetches on it; the view answer
// also carries the proposals (an out-of-band part), so that is the page's only request. Here the
// page does not fetch a revision it already shows (the answer to its own entry brought it), and a
// change announced while its own entry is on its way waits for that answer, then fetches only if
// the table moved on meanwhile.
//
// A seat's stream (?parts=view) brings the view itself instead (event: view, id: its revision;
// companion/web/push.py): the page swaps it as its own refresh, through the same events (htmx's
// beforeSwap/afterSwap/afterSettle on #view), without a request. It fetches as before instead when
// it cannot take it now: the player is typing, an entry of its own is on its way, a fold that
// loads when opened (or the battle plan) is open, or the push says a part is unchanged that this
// page does not show.
(function () {
  "use strict";
  var posting = [], deferred = -1;  // the entries on their way (their xhr: an answer may be retargeted)

  // (before htmx connects the stream) the stream is told which parts this page shows: its first
  // push leaves those out when they are unchanged
  var live = document.getElementById("live"), connect = live && live.getAttribute("sse-connect");
  if (connect && /[?&]parts=view(&|$)/.test(connect)) {
    var have = Array.prototype.map.call(document.querySelectorAll("#view [id][data-etag]:not([data-same])"), function (el) {
      return el.id + "=" + el.getAttribute("data-etag");
    });
    if (have.length) { live.setAttribute("sse-connect", connect + "&have=" + encodeURIComponent(have.join(","))); }
  }

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

  function pushedView(e) {  // {rev, html} when the trigger is a view the stream brought, else null
    var t = e.detail && e.detail.triggeringEvent;
    if (!t || t.type !== "sse:view" || !t.detail || typeof t.detail.data !== "string") { return null; }
    var m = /data-shown-revision="(\d+)"/.exec(t.detail.data);
    return m ? {rev: parseInt(m[1], 10), html: t.detail.data} : null;
  }
  function editing() {
    var a = document.activeElement, v = document.getElementById("view");
    return !!(a && v && v.contains(a) && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName) && a.type !== "hidden");
  }
  // the page can take a pushed view as it is: nothing typed or open that a refresh asks for by
  // itself, and every part the push calls unchanged is the one this page shows
  function takes(html) {
    if (editing() || document.querySelector("#view details[open] [hx-trigger='lazy-open'], #view details[open] #battle")) {
      return false;
    }
    var same = /<[^>]*\sdata-same[\s>=][^>]*>/g, m;
    while ((m = same.exec(html))) {
      var id = /(?:^|[^\w-])id="([^"]+)"/.exec(m[0]), etag = /\bdata-etag="([^"]+)"/.exec(m[0]);
      var el = id && document.getElementById(id[1]);
      if (!el || !etag || el.hasAttribute("data-same") || el.getAttribute("data-etag") !== etag[1]) { return false; }
    }
    return true;
  }
  // swapped as htmx swaps an answer for #view: the same events, so every part of the page that
  // keeps something across a refresh (open folds, a plan being built, the scroll) keeps it here
  function swapPushed(view, html) {
    var info = {elt: view, target: view, requestConfig: {elt: view, target: view, verb: "get", path: view.getAttribute("hx-get")},
      xhr: {status: 200, responseText: html, getResponseHeader: function () { return null; }},
      serverResponse: html, shouldSwap: true, isError: false, ignoreTitle: true, successful: true, failed: false,
      pathInfo: {requestPath: view.getAttribute("hx-get")}, boosted: false};
    if (!htmx.trigger(view, "htmx:beforeSwap", info) || !info.shouldSwap) { return; }
    htmx.swap(view, info.serverResponse, {swapStyle: info.swapOverride || "innerHTML", swapDelay: 0, settleDelay: 20,
      ignoreTitle: true}, {eventInfo: info, contextElement: view});
  }

  document.addEventListener("htmx:confirm", function (e) {
    if (!e.detail.elt || e.detail.elt.id !== "view") { return; }
    var push = pushedView(e), rev = push ? push.rev : announced(e);
    if (rev === null) { return; }
    if (rev <= shown()) { e.preventDefault(); return; }
    var now = Date.now();  // an entry held back before it was sent never ends: forget it after a while
    posting = posting.filter(function (p) { return now - p.at < 15000; });
    if (posting.length) { deferred = Math.max(deferred, rev); e.preventDefault(); return; }
    if (push) {
      e.preventDefault();  // no request: the stream brought the view
      if (takes(push.html)) { swapPushed(e.detail.elt, push.html); } else if (window.htmx) { htmx.trigger(document.body, "resync"); }
    }
  });
  // a view fetched before a newer one was pushed never replaces it (revisions only grow)
  document.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail, cfg = d && d.requestConfig;
    if (!d || !d.target || d.target.id !== "view" || !cfg || cfg.verb !== "get" || !d.xhr || d.xhr.status !== 200) { return; }
    var m = /data-shown-revision="(\d+)"/.exec(d.serverResponse || "");
    if (m && parseInt(m[1], 10) < shown()) { d.shouldSwap = false; }
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

// Dune Table Companion: failures are shown where they happened, never swallowed.
// Every htmx request that fails (server stopped, Wi-Fi lost, 5xx, a timeout) puts a notice next to
// the element that made it, saying what happened and offering Retry (which sends the same request
// again, with what the player typed: a failed request never swaps anything away). A live stream
// that drops shows a bar with "Retry now". The notice goes away when that element's next request works.
(function () {
  "use strict";
  var TIMEOUT_MS = 15000;

  function tableCode() {
    var m = /^\/t\/([A-Za-z0-9]{5})(\/|$)/.exec(location.pathname);
    return m ? m[1].toUpperCase() : null;
  }

  function serverMessage(xhr) {
    if (!xhr || !xhr.responseText) { return ""; }
    try {
      var body = JSON.parse(xhr.responseText);
      var msg = (body && (body.message || (body.error && body.error.message))) || "";
      return typeof msg === "string" ? msg : "";
    } catch (err) {
      var text = xhr.responseText.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
      return text.length <= 160 ? text : "";
    }
  }

  function describe(kind, detail) {
    var cfg = detail.requestConfig || {};
    var writing = cfg.verb && cfg.verb.toLowerCase() !== "get";
    var xhr = detail.xhr;
    if (kind === "send") {
      return writing ? "No answer: the companion cannot be reached (server stopped or Wi-Fi lost), so this phone " +
                       "cannot tell whether the entry landed. Retry is safe: it is recorded once, never twice."
                     : "Could not refresh: the companion cannot be reached (server stopped or Wi-Fi lost).";
    }
    if (kind === "timeout") {
      return writing ? "No answer from the companion in time. Retry is safe: the entry is recorded once, never twice."
                     : "No answer from the companion in time.";
    }
    var status = xhr ? xhr.status : 0;
    var said = serverMessage(xhr);
    if (status === 401) {
      return "This phone no longer holds a seat at this table (was it re-issued to another phone?).";
    }
    if (status >= 500) {
      return (said || "The companion hit an error") + " (error " + status + ")." +
             (writing ? " Your entry was not saved." : "");
    }
    return (said || "The companion refused the request") + " (error " + status + ").";
  }

  function anchorFor(elt) {
    // refresh containers (their content is replaced): the notice goes just before them;
    // forms and buttons: just after the form, where the player is looking
    if (!elt || !elt.isConnected) { return null; }
    if (elt.id === "view" || elt.id === "seats" || elt.hasAttribute("hx-trigger") &&
        /sse:|load|every/.test(elt.getAttribute("hx-trigger"))) {
      return { node: elt, where: "beforebegin" };
    }
    // a small form (a +1 stepper inside a half-width box): climb to a block wide enough to read in
    var node = elt.closest("form") || elt;
    var wide = Math.min(320, window.innerWidth * 0.7);
    while (node.parentElement && node.parentElement !== document.body && node.parentElement.id !== "view" &&
           node.getBoundingClientRect().width < wide) {
      node = node.parentElement;
    }
    return { node: node, where: "afterend" };
  }

  function clear(elt) {
    if (elt && elt.__failNotice) {
      elt.__failNotice.remove();
      elt.__failNotice = null;
    }
  }

  function keyOf(cfg) { return (cfg && cfg.headers && cfg.headers["Idempotency-Key"]) || null; }

  function show(kind, e) {
    var detail = e.detail || {};
    var elt = detail.elt;
    var cfg0 = detail.requestConfig || {};
    // a write whose answer never came (it may have landed): its notice floats above the page, so
    // that live refreshes of the view keep it, until that same request (same key) is answered
    var lost = kind !== "response" && writing(cfg0) && keyOf(cfg0);
    var anchor = lost ? { node: document.body, where: "beforeend" } : anchorFor(elt);
    if (!anchor) { return; }
    clear(elt);
    if (lost) {
      Array.prototype.forEach.call(document.querySelectorAll(".req-failed.lost"), function (n) {
        if (n.__key === lost) { n.remove(); }
      });
    }
    var box = document.createElement("div");
    box.className = "req-failed";
    box.setAttribute("data-kind", kind);
    box.setAttribute("role", "alert");
    var p = document.createElement("p");
    p.textContent = describe(kind, detail);
    box.appendChild(p);
    var status = detail.xhr ? detail.xhr.status : 0;
    var code = tableCode();
    if (status === 401 && code) {
      var join = document.createElement("a");
      join.className = "button";
      join.href = "/t/" + code + "/join";
      join.textContent = "Join again";
      box.appendChild(join);
    } else if (status === 403 && /csrf/i.test(p.textContent)) {
      var reload = document.createElement("button");
      reload.type = "button";
      reload.textContent = "Reload the page";
      reload.addEventListener("click", function () { location.reload(); });
      box.appendChild(reload);
    } else {
      var retry = document.createElement("button");
      retry.type = "button";
      retry.className = "retry";
      retry.textContent = "Retry";
      var cfg = detail.requestConfig || {};
      var again = resend(elt, cfg);
      retry.addEventListener("click", function () {
        retry.disabled = true;
        retry.textContent = "Retrying…";
        again().then(function () {
          retry.disabled = false;
          retry.textContent = "Retry";
        });
      });
      box.appendChild(retry);
      // a write whose answer never came: sent again by itself when the phone is back online
      if (lost) { box.__resend = again; }
    }
    if (lost) {
      box.className += " lost floating";
      box.__key = lost;
    }
    anchor.node.insertAdjacentElement(anchor.where, box);
    if (!lost) { elt.__failNotice = box; }
  }

  function writing(cfg) { return !!cfg.verb && cfg.verb.toLowerCase() !== "get"; }

  // the same request again: the same fields (the tapped button's value too) and the same
  // Idempotency-Key, so a request that did land is answered "already recorded", never made twice
  function resend(elt, cfg) {
    var values = null, headers = {};
    var key = cfg.headers && cfg.headers["Idempotency-Key"];
    if (key) { headers["Idempotency-Key"] = key; }
    if (writing(cfg) && cfg.formData && cfg.formData.forEach) {
      values = {};
      cfg.formData.forEach(function (v, k) {
        if (!values.hasOwnProperty(k)) { values[k] = v; }
        else { values[k] = [].concat(values[k], v); }
      });
    }
    function answered() {  // this request got an answer (recorded, or refused): its notice is over
      Array.prototype.forEach.call(document.querySelectorAll(".req-failed.lost"), function (n) {
        if (n.__key === key) { n.remove(); }
      });
    }
    return function () {
      return send().then(answered, function () {});
    };
    function send() {
      if (!key && elt.isConnected && cfg.verb && cfg.path) {
        var ctx = { source: elt, headers: headers };
        if (values) { ctx.values = values; }
        return htmx.ajax(cfg.verb.toUpperCase(), cfg.path, ctx);
      }
      if (key && cfg.verb && cfg.path && document.getElementById("view")) {
        // the same request (fields and key), sent from the page: the form it came from may be
        // refreshed away meanwhile, and the answer (the fresh view, "already recorded") still lands
        var target = cfg.target && cfg.target.isConnected ? cfg.target : "#view";
        return htmx.ajax(cfg.verb.toUpperCase(), cfg.path,
                         { source: document.body, target: target, swap: "innerHTML", headers: headers,
                           values: values || {} });
      }
      htmx.trigger(document.body, "resync");
      return Promise.reject(new Error("nothing to send again"));
    }
  }

  // (capture: before app.js's refresh of the view, which then waits for this answer)
  window.addEventListener("online", function () {
    Array.prototype.forEach.call(document.querySelectorAll(".req-failed"), function (n) {
      if (n.__resend) { var again = n.__resend; n.__resend = null; again(); }
    });
  }, true);

  document.addEventListener("htmx:responseError", function (e) {
    var d = e.detail || {}, code = tableCode();
    // the seat was re-issued to another phone: this one goes to the join page on its next live
    // update (it must not keep showing that seat's private panel)
    if (d.xhr && d.xhr.status === 401 && code && d.elt && d.elt.id === "view") {
      location.assign("/t/" + code + "/join");
      return;
    }
    show("response", e);
  });
  document.addEventListener("htmx:sendError", function (e) { show("send", e); });
  document.addEventListener("htmx:timeout", function (e) { show("timeout", e); });
  document.addEventListener("htmx:afterRequest", function (e) {
    if (!e.detail || !e.detail.successful) { return; }
    clear(e.detail.elt);
    var key = keyOf(e.detail.requestConfig);
    // the companion answers again: every "cannot be reached" / "no answer" notice is out of date,
    // except a lost write's, which goes when that write itself is answered (recorded, or refused)
    Array.prototype.forEach.call(document.querySelectorAll('.req-failed[data-kind="send"], .req-failed[data-kind="timeout"]'),
      function (n) { if (!n.__key || n.__key === key) { n.remove(); } });
  });
  // a request that hangs (Wi-Fi that swallows packets) must end in a notice, not a spinner forever
  document.addEventListener("htmx:configRequest", function (e) {
    if (e.detail && !e.detail.timeout) { e.detail.timeout = TIMEOUT_MS; }
  });

  // the live stream: a bar at the top while it is down, with a button to try at once
  // one bar at most: an sseError that repeats while the stream is down never adds a second one,
  // and the bar goes as soon as the stream (or any refresh of the view) works again
  var bar = null, shown = null;
  function liveDown() {
    if (bar || shown) { return; }
    shown = setTimeout(function () {
      shown = null;
      if (document.querySelector(".live-failed")) { bar = document.querySelector(".live-failed"); return; }
      bar = document.createElement("div");
      bar.className = "live-failed";
      bar.setAttribute("role", "status");
      var p = document.createElement("span");
      p.textContent = "Live updates lost: reconnecting. This screen may be out of date.";
      var b = document.createElement("button");
      b.type = "button";
      b.className = "small retry";
      b.textContent = "Retry now";
      b.addEventListener("click", function () { htmx.trigger(document.body, "resync"); });
      bar.appendChild(p);
      bar.appendChild(b);
      document.body.appendChild(bar);
    }, 3000);  // a blip (phone waking up) reconnects within a second or two: say nothing
  }
  function liveUp() {
    clearTimeout(shown);
    shown = null;
    bar = null;
    Array.prototype.forEach.call(document.querySelectorAll(".live-failed"), function (n) { n.remove(); });
  }
  document.addEventListener("htmx:sseError", liveDown);
  document.addEventListener("htmx:sseOpen", liveUp);
  document.addEventListener("htmx:sseMessage", liveUp);
})();

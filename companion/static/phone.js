// Dune Table Companion: the phone as a table device.
// - "Keep screen on" (#wake-lock): the Screen Wake Lock API where the browser offers it; off by
//   default; the lock is re-requested when the page becomes visible again (browsers drop it when a
//   phone locks or the tab is hidden). Without the API the button says so and does nothing else.
// - Copy buttons ([data-copy="input-id"]): copy a join link (navigator.clipboard needs https or
//   localhost, so plain-http LAN pages fall back to selecting the text and execCommand("copy")).
(function () {
  "use strict";
  var KEY = "dune.keepScreenOn";

  function note(el, text, seconds) {
    if (!el) { return; }
    el.textContent = text;
    el.hidden = !text;
    clearTimeout(el.__hide);
    if (text && seconds) { el.__hide = setTimeout(function () { el.hidden = true; }, seconds * 1000); }
    if (!el.__tapToHide) {
      el.__tapToHide = true;
      el.addEventListener("click", function () { el.hidden = true; });
    }
  }

  // -- keep the screen on ------------------------------------------------------------------------
  function setupWakeLock() {
    var btn = document.getElementById("wake-lock");
    if (!btn) { return; }
    var info = document.getElementById("wake-note");
    var api = ("wakeLock" in navigator) && navigator.wakeLock && typeof navigator.wakeLock.request === "function";
    var wanted = false, sentinel = null;
    try { wanted = api && window.sessionStorage.getItem(KEY) === "1"; } catch (err) { wanted = false; }

    function render() {
      var on = wanted && sentinel !== null;
      btn.setAttribute("aria-pressed", on ? "true" : "false");
      btn.textContent = on ? "Screen stays on ✓" : "Keep screen on";
      btn.classList.toggle("on", on);
    }
    function remember() {
      try { window.sessionStorage.setItem(KEY, wanted ? "1" : "0"); } catch (err) { /* private mode */ }
    }
    function request() {
      if (!api || !wanted || sentinel || document.visibilityState !== "visible") { render(); return; }
      navigator.wakeLock.request("screen").then(function (s) {
        sentinel = s;
        s.addEventListener("release", function () { sentinel = null; render(); });
        note(info, "");
        render();
      }).catch(function (err) {
        sentinel = null;
        note(info, "The screen could not be kept on (" + (err && err.message || err) + "). " +
                   "Set a longer screen timeout in the phone's settings.", 12);
        render();
      });
    }
    btn.addEventListener("click", function () {
      if (!api) {
        note(info, "This browser cannot keep the screen on from a page served over the local network. " +
                   "Set a longer screen timeout in the phone's settings instead.", 12);
        render();
        return;
      }
      wanted = !wanted;
      remember();
      if (wanted) { request(); } else if (sentinel) { sentinel.release().catch(function () {}); sentinel = null; }
      render();
    });
    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState === "visible") { request(); }
    });
    render();
    request();
  }

  // -- copy a link ---------------------------------------------------------------------------------
  function setupCopy() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-copy]"), function (btn) {
      btn.addEventListener("click", function () {
        var input = document.getElementById(btn.getAttribute("data-copy"));
        if (!input) { return; }
        var status = btn.closest(".share") && btn.closest(".share").querySelector(".copy-note");
        function done(ok) {
          note(status, ok ? "Copied: paste it into a message to the players." :
                            "Select the link above and copy it (the browser did not allow copying).");
        }
        if (navigator.clipboard && window.isSecureContext) {
          navigator.clipboard.writeText(input.value).then(function () { done(true); }, function () { fallback(); });
        } else {
          fallback();
        }
        function fallback() {
          input.focus();
          input.select();
          var ok = false;
          try { ok = document.execCommand("copy"); } catch (err) { ok = false; }
          done(ok);
        }
      });
    });
  }

  function start() { setupWakeLock(); setupCopy(); }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();

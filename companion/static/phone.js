// Dune Table Companion: the phone as a table device.
// - "Keep screen on" (#wake-lock), off by default: the Screen Wake Lock API where the browser offers it
//   (it needs https or localhost, so phones on a plain-http LAN usually lack it); otherwise a tiny
//   silent video played muted in a loop (NoSleep.js's files, vendor/nosleep-0.12.0), which keeps
//   Android and iOS screens awake. Either is re-requested when the page becomes visible again
//   (browsers drop both when a phone locks). If neither works, the button says so and nothing else.
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
  function nativeLock() {
    var sentinel = null;
    return {
      name: "wake lock",
      active: function () { return sentinel !== null; },
      start: function (onLost) {
        if (sentinel) { return Promise.resolve(); }
        return navigator.wakeLock.request("screen").then(function (s) {
          sentinel = s;
          s.addEventListener("release", function () { sentinel = null; onLost(); });
        });
      },
      stop: function () {
        var s = sentinel;
        sentinel = null;
        if (s) { s.release().catch(function () {}); }
      }
    };
  }

  function videoLock() {
    var base = "/static/vendor/nosleep-0.12.0/no-sleep.";
    var video = null, lost = null;
    function make() {  // only when first wanted: a page load never fetches the video
      video = document.createElement("video");
      video.setAttribute("title", "Keep screen on");
      video.setAttribute("playsinline", "");
      video.setAttribute("aria-hidden", "true");
      video.muted = true;
      ["webm", "mp4"].forEach(function (kind) {
        var source = document.createElement("source");
        source.src = base + kind;
        source.type = "video/" + kind;
        video.appendChild(source);
      });
      video.addEventListener("loadedmetadata", function () {
        if (video.duration <= 1) {
          video.loop = true;
        } else {
          video.addEventListener("timeupdate", function () {
            if (video.currentTime > 0.5) { video.currentTime = Math.random(); }
          });
        }
      });
      video.addEventListener("pause", function () { if (lost) { lost(); } });
    }
    return {
      name: "silent video",
      active: function () { return !!video && !video.paused; },
      start: function (onLost) {
        if (!video) { make(); }
        lost = onLost;
        var played = video.play();
        return played && played.then ? played : Promise.resolve();
      },
      stop: function () { lost = null; if (video) { video.pause(); } }
    };
  }

  function setupWakeLock() {
    var btn = document.getElementById("wake-lock");
    if (!btn) { return; }
    var info = document.getElementById("wake-note");
    var api = ("wakeLock" in navigator) && navigator.wakeLock && typeof navigator.wakeLock.request === "function";
    var video = !api && typeof document.createElement("video").play === "function";
    var lock = api ? nativeLock() : (video ? videoLock() : null);
    var wanted = false;
    try { wanted = !!lock && window.sessionStorage.getItem(KEY) === "1"; } catch (err) { wanted = false; }

    function render() {
      var on = wanted && !!lock && lock.active();
      btn.setAttribute("aria-pressed", on ? "true" : "false");
      btn.textContent = on ? "Screen stays on ✓" : "Keep screen on";
      btn.classList.toggle("on", on);
    }
    function remember() {
      try { window.sessionStorage.setItem(KEY, wanted ? "1" : "0"); } catch (err) { /* private mode */ }
    }
    function request() {
      if (!lock || !wanted || lock.active() || document.visibilityState !== "visible") { render(); return; }
      lock.start(render).then(function () {
        note(info, "");
        render();
      }).catch(function (err) {
        note(info, "The screen could not be kept on (" + (err && err.message || err) + "). " +
                   "Set a longer screen timeout in the phone's settings instead.", 12);
        render();
      });
    }
    btn.addEventListener("click", function () {
      if (!lock) {
        note(info, "This browser cannot keep the screen on. " +
                   "Set a longer screen timeout in the phone's settings instead.", 12);
        render();
        return;
      }
      wanted = !wanted;
      remember();
      if (wanted) { request(); } else { lock.stop(); }
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

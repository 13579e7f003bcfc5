// Secret Harkonnen: a phone's role and what it knows show only while the player presses and holds
// "Press and hold to see your role" (templates/sh/view.html #me); letting go, sliding off, the page
// going to the background or a live refresh hide it again. Keyboard: hold Space or Enter.
(function () {
  "use strict";
  var holding = false;

  function show(on) {
    holding = on;
    var secret = document.getElementById("sh-secret"), button = document.getElementById("sh-hold");
    if (secret) { secret.hidden = !on; }
    if (button) { button.setAttribute("aria-pressed", on ? "true" : "false"); }
  }
  function onButton(e) { return e.target && e.target.closest && e.target.closest("#sh-hold"); }

  document.addEventListener("pointerdown", function (e) {
    if (onButton(e)) {
      e.preventDefault();
      var b = onButton(e);
      if (b.setPointerCapture) { try { b.setPointerCapture(e.pointerId); } catch (err) { /* ignore */ } }
      show(true);
    }
  });
  ["pointerup", "pointercancel", "lostpointercapture"].forEach(function (n) {
    document.addEventListener(n, function () { if (holding) { show(false); } });
  });
  document.addEventListener("pointerleave", function (e) { if (holding && onButton(e)) { show(false); } }, true);
  document.addEventListener("contextmenu", function (e) { if (onButton(e)) { e.preventDefault(); } });
  document.addEventListener("keydown", function (e) {
    if ((e.key === " " || e.key === "Enter") && onButton(e)) { e.preventDefault(); show(true); }
  });
  document.addEventListener("keyup", function (e) {
    if ((e.key === " " || e.key === "Enter") && holding) { show(false); }
  });
  window.addEventListener("blur", function () { if (holding) { show(false); } });
  document.addEventListener("visibilitychange", function () { if (holding) { show(false); } });
  // a live refresh renders the card hidden: still held, it stays shown
  document.addEventListener("htmx:afterSwap", function () { if (holding) { show(true); } });
})();

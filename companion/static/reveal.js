// The big screen holds a reveal (votes shown together, a policy enacted) for a few seconds so the
// room sees it at once, then the board comes back. Only reveals that happen after the page loaded
// are shown: a reload never replays an old one. Markup: templates/sh/reveal.html.
(function () {
  "use strict";
  var seen = "";
  var timer = null;

  function current() { return document.querySelector(".sh-reveal[data-reveal]"); }

  function check(first) {
    var el = current();
    var key = el ? el.getAttribute("data-reveal") : "";
    if (first) { seen = key; return; }  // what the page loaded with is old news
    if (!el || key === seen) return;
    seen = key;
    el.hidden = false;
    el.classList.add("show");
    document.body.classList.add("revealing");
    if (timer) clearTimeout(timer);
    var hold = parseInt(el.getAttribute("data-hold"), 10) || 7000;
    timer = setTimeout(function () {
      var now = current();
      if (now) { now.hidden = true; now.classList.remove("show"); }
      document.body.classList.remove("revealing");
      timer = null;
    }, hold);
  }

  document.addEventListener("DOMContentLoaded", function () { check(true); });
  document.addEventListener("htmx:afterSwap", function () { check(false); });
})();

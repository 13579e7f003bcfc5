/* The board screen's announcements (issue 24): each item of #announce-data (a storm move, a worm, a Nexus,
 * a battle's reveal with both plans, a traitor, a battle's outcome, a win) that this screen has not shown yet is shown once in #announce, big, for a few
 * seconds, then the board returns. Items already there when the page opens are not shown again.
 * "Speak announcements" (off by default, remembered by this browser) also reads them aloud with the
 * browser's speechSynthesis. */
(function () {
  "use strict";
  var SHOW_MS = 6000;
  var queue = [], showing = false, timer = null;
  function box() { return document.getElementById("announce"); }
  function key() { var b = box(); return "announce-seen:" + (b ? b.dataset.table : ""); }
  function items() {
    var el = document.getElementById("announce-data");
    if (!el) return [];
    try { return JSON.parse(el.dataset.items || "[]") || []; } catch (e) { return []; }
  }
  function seen() { return Number(sessionStorage.getItem(key()) || 0); }
  function speaking() { return localStorage.getItem("announce-speak") === "on"; }
  function speak(text) {
    if (!speaking() || !window.speechSynthesis || !window.SpeechSynthesisUtterance) return;
    try { window.speechSynthesis.speak(new SpeechSynthesisUtterance(text)); } catch (e) { /* no voice */ }
  }
  function next() {
    var b = box();
    if (!b) return;
    var item = queue.shift();
    if (!item) { b.hidden = true; showing = false; return; }
    showing = true;
    b.dataset.kind = item.kind;
    b.dataset.id = item.id;
    b.querySelector(".announce-title").textContent = item.title;
    var text = b.querySelector(".announce-text"), list = b.querySelector(".announce-lines");
    // lines (a battle's two plans, each side's losses) one per line, else the text
    text.textContent = item.lines && item.lines.length && list ? "" : (item.text || "");
    text.hidden = !text.textContent;
    if (list) {
      list.textContent = "";
      (item.lines || []).forEach(function (l) { var li = document.createElement("li"); li.textContent = l; list.appendChild(li); });
      list.hidden = !list.children.length;
    }
    b.hidden = false;
    speak(item.speech || item.title);
    clearTimeout(timer);
    timer = setTimeout(next, SHOW_MS);
  }
  function check(first) {
    var all = items(), last = seen();
    var max = all.reduce(function (m, x) { return Math.max(m, x.id); }, last);
    if (!first) {
      all.forEach(function (x) { if (x.id > last) queue.push(x); });
    }
    sessionStorage.setItem(key(), String(max));
    if (!showing && queue.length) next();
  }
  document.addEventListener("DOMContentLoaded", function () {
    if (!box()) return;
    // a reload keeps what this screen has already shown; a fresh screen starts from now
    check(sessionStorage.getItem(key()) === null);
    var btn = document.getElementById("speak");
    if (btn) {
      var sync = function () { btn.setAttribute("aria-pressed", speaking() ? "true" : "false"); btn.classList.toggle("on", speaking()); };
      sync();
      btn.addEventListener("click", function () {
        localStorage.setItem("announce-speak", speaking() ? "off" : "on");
        sync();
        if (!speaking() && window.speechSynthesis) window.speechSynthesis.cancel();
      });
    }
    box().addEventListener("click", function () { clearTimeout(timer); next(); });
  });
  document.addEventListener("htmx:afterSettle", function (e) {
    if (e.target && e.target.id === "view") check(false);
  });
})();

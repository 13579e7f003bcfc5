// The rule page's "Show to table" button: says so once the table got it (no inline handler:
// the Content-Security-Policy allows scripts from this server's files only).
(function () {
  "use strict";
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    if (!form || !form.matches || !form.matches("form[data-done-text]") || !e.detail.successful) { return; }
    var button = form.querySelector("button");
    if (button) { button.textContent = form.getAttribute("data-done-text"); }
  });
})();

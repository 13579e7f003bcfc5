// Swap only the parts of the view that changed (an htmx extension, "view-parts", on <body>).
//
// A view is a row of parts, each an element with an id (the phase card, my panel, the folds, the
// board, the bottom bar). An answer for #view whose parts are the same row, by id, as the page
// shows is swapped part by part: a part the answer says is the same (data-same, with the etag the
// page shows) stays in the page untouched (not removed, not processed again, not laid out again:
// its zoom, what is typed in it and its open folds stay as they are; its forms take the answer's
// revision), and every other part replaces its old self alone (htmx's own outerHTML swap, so its
// old content is cleaned up and the new one processed as any swap's). Anything else (a part
// added or gone, a part without an id, a "same" part the page does not show) is the whole swap
// htmx always did (innerHTML), which app.js then completes.
//
// A changed part is patched one level down when it can be: if its own attributes (its etag aside)
// and its row of children are as in the page, each child whose markup is the same (the revision its
// forms carry aside) stays, and only the children that changed are swapped (htmx.swap, outerHTML).
// A bribe changes one line of a panel of three hundred elements: that line alone is replaced (and a
// changed child whose own attributes and row of children are as in the page is patched the same
// way, a few levels down: the spice figure alone, not the row of steppers around it). A
// changed child that is only text to read (nothing to tap or focus, no htmx attribute) is put in
// as it is, without htmx's swap machinery. A part that cannot be patched (text beside its children,
// as the banner has) but whose markup is the same (the revision aside) stays as it is.
(function () {
  "use strict";
  var STYLE = "view-parts";
  var api = null;

  function elementsOf(parent) {  // the element children, or null when text other than blanks is there
    var out = [];
    for (var n = parent.firstChild; n; n = n.nextSibling) {
      if (n.nodeType === 1) { out.push(n); } else if (n.nodeType === 3 && /\S/.test(n.nodeValue)) { return null; }
    }
    return out;
  }

  function sameRow(olds, news) {
    if (!olds || !news || !news.length || olds.length !== news.length) { return false; }
    for (var i = 0; i < news.length; i++) {
      var o = olds[i], n = news[i];
      if (!n.id || n.id !== o.id || n.tagName !== o.tagName || o.hasAttribute("data-same")) { return false; }
      if (n.hasAttribute("data-same") && n.getAttribute("data-etag") !== o.getAttribute("data-etag")) { return false; }
    }
    return true;
  }

  var REVISION = /( name="revision" value=")\d*(")/g;
  function markup(el) { return el.outerHTML.replace(REVISION, "$1$2"); }
  var REV_INPUT = "input[name='revision']";
  function revisionInputs(el) {  // the revision inputs in el, el itself included (a form patched field by field)
    var found = Array.prototype.slice.call(el.querySelectorAll(REV_INPUT));
    return el.matches(REV_INPUT) ? [el].concat(found) : found;
  }
  function setRevision(el, rev) {  // a kept element's forms take the revision the answer shows
    if (!rev) { return; }
    revisionInputs(el).forEach(function (x) { x.value = rev; });
  }
  function keepFor(old, neu) {  // the page keeps ``old`` (the same as ``neu``) with ``neu``'s revision
    var given = revisionInputs(neu)[0];
    setRevision(old, given && given.value);
  }
  function texts(el) {  // the element's own text, between its children
    var out = [];
    for (var n = el.firstChild; n; n = n.nextSibling) { if (n.nodeType === 3 && /\S/.test(n.nodeValue)) { out.push(n.nodeValue.trim()); } }
    return out.join("\u0000");
  }
  function sameAttributes(a, b) {
    if (a.attributes.length !== b.attributes.length) { return false; }
    for (var i = 0; i < b.attributes.length; i++) {
      var at = b.attributes[i];
      if (at.name !== "data-etag" && a.getAttribute(at.name) !== at.value) { return false; }
    }
    return true;
  }
  // A child with nothing a player can tap or focus and no attribute htmx acts on (a spice line, a
  // row of the factions' list) needs none of htmx's swap: no cleanup, no processing, no settling.
  var TAPPABLE = "a[href], button, input, select, textarea, details, summary, form, iframe, [tabindex], [contenteditable]";
  var HTMX_ATTR = /^(data-)?(hx-|sse-)/;
  function plain(el) {
    if (el.matches(TAPPABLE) || el.querySelector(TAPPABLE)) { return false; }
    var all = [el].concat(Array.prototype.slice.call(el.getElementsByTagName("*")));
    for (var i = 0; i < all.length; i++) {
      for (var k = 0; k < all[i].attributes.length; k++) {
        if (HTMX_ATTR.test(all[i].attributes[k].name)) { return false; }
      }
    }
    return true;
  }
  // old, neu: the page's part and the answer's, same tag and id; true when patched in place.
  // ``depth``: how many levels further down a changed child may itself be patched (a spice line
  // inside a row of forms: the line alone is put in, the forms beside it stay as they are).
  var DEPTH = 4;
  function patch(old, neu, depth) {
    if (!sameAttributes(old, neu) || texts(old) !== texts(neu)) { return false; }
    var oc = elementsOf(old), nc = elementsOf(neu);
    if (!oc || !nc || oc.length !== nc.length) { return false; }
    for (var i = 0; i < nc.length; i++) { if (oc[i].tagName !== nc[i].tagName) { return false; } }
    for (var j = 0; j < nc.length; j++) {
      if (markup(oc[j]) === markup(nc[j])) {
        keepFor(oc[j], nc[j]);
        continue;
      }
      if (plain(oc[j]) && plain(nc[j])) {  // text to read, nothing to tap, nothing htmx runs: put in as it is
        oc[j].replaceWith(nc[j]);
        continue;
      }
      if (depth > 0 && patch(oc[j], nc[j], depth - 1)) {  // the same element: only what changed inside it
        continue;
      }
      var piece = document.createDocumentFragment();
      piece.appendChild(nc[j]);
      htmx.swap(oc[j], piece, {swapStyle: "outerHTML"});  // cleans the old child up, processes the new one
    }
    if (neu.hasAttribute("data-etag")) { old.setAttribute("data-etag", neu.getAttribute("data-etag")); }
    return true;
  }

  window.htmx && htmx.defineExtension(STYLE, {
    init: function (internal) { api = internal; },  // (htmx calls it as the extension is defined)
    handleSwap: function (style, target, fragment, settleInfo) {
      if (style !== STYLE) { return false; }
      var olds = elementsOf(target), news = elementsOf(fragment);
      if (!sameRow(olds, news)) { return false; }  // htmx falls back to innerHTML
      for (var i = 0; i < news.length; i++) {
        var n = news[i];
        if (n.hasAttribute("data-same")) {
          setRevision(olds[i], n.getAttribute("data-revision"));
          n.remove();
        } else if (patch(olds[i], n, DEPTH)) {
          n.remove();
        } else if (markup(olds[i]) === markup(n)) {  // the same part, text and all (the banner): it stays
          keepFor(olds[i], n);
          n.remove();
        } else {
          api.oobSwap("outerHTML", n, settleInfo);  // cleans the old part up, processes the new one
        }
      }
      return [];  // handled (the new parts' load tasks are already queued by the swaps)
    }
  });

  // A part sent out of band (the proposals, with every answer for #view) that is the same as the
  // page shows (the revision its forms carry aside) stays as it is: its forms take the new revision.
  document.addEventListener("htmx:oobBeforeSwap", function (e) {
    var d = e.detail, frag = d && d.fragment;
    if (!d || !d.target || !frag || !d.shouldSwap) { return; }
    var neu = frag.nodeType === 11 ? frag.firstElementChild : frag;
    if (!neu || neu.id !== d.target.id || markup(neu) !== markup(d.target)) { return; }
    keepFor(d.target, neu);
    d.shouldSwap = false;
  });

  // every answer for #view (a refresh, an entry's answer) goes through the part-by-part swap
  document.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail;
    if (!d || !d.target || d.target.id !== "view" || !d.shouldSwap) { return; }
    if (d.swapOverride == null || d.swapOverride === "innerHTML") { d.swapOverride = STYLE; }
  });
})();

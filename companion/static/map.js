/* The map of Arrakis: taps on pieces, zoom for thumbs, and classes for the picker.
 *
 * - A tap on a [data-piece] inside svg.dune-map dispatches a bubbling CustomEvent "piece-tap"
 *   (detail.piece = the piece id) on that svg.
 * - On a narrow screen a tap on a piece smaller than a thumb first zooms (animated viewBox) so
 *   the pieces there are at least ~44 px; a tap on a piece that big selects it. The
 *   "Whole map" button zooms back out. When zoomed, dragging pans the map.
 * - window.DuneMap = {light(svg, pieces), mine(svg, pieces), pick(svg, piece), clear(svg)}.
 * The zoom survives htmx swaps of the map (live refreshes).
 */
(function () {
  "use strict";
  var THUMB = 44;          // px a piece must reach before a tap selects it
  var TARGET = 56;         // px the tapped piece gets after a zoom
  var NARROW = 700;        // px: maps narrower than this zoom before selecting
  var READ = 12.5;         // px the map's smallest text gets after a zoom (issue 24: at least 12)
  var zooms = {};          // map key -> viewBox kept across htmx swaps

  function maps() { return Array.prototype.slice.call(document.querySelectorAll("svg.dune-map")); }
  function keyOf(svg) {
    var host = svg.closest("[id]");
    var all = maps().filter(function (m) { return (m.closest("[id]") || null) === host; });
    return (host ? host.id : "") + "#" + all.indexOf(svg);
  }
  function parse(s) { return String(s || "").split(/[\s,]+/).map(Number); }
  function full(svg) {
    // the viewBox the server drew is the whole map
    if (!svg.dataset.full) svg.dataset.full = svg.getAttribute("viewBox") || "0 0 1000 1000";
    return parse(svg.dataset.full);
  }
  function getBox(svg) { full(svg); return parse(svg.getAttribute("viewBox")); }
  function setBox(svg, b) {
    var F = full(svg);   // remember the whole map before the first change
    svg.setAttribute("viewBox", b.map(function (x) { return Math.round(x * 10) / 10; }).join(" "));
    var zoomed = b[2] < F[2] - 0.5;
    svg.classList.toggle("zoomed", zoomed);
    var fig = svg.closest("figure");
    var btn = fig && fig.querySelector(".map-whole");
    if (btn) btn.hidden = !zoomed;
    zooms[keyOf(svg)] = zoomed ? b.slice() : null;
  }
  function clamp(svg, b) {
    var F = full(svg);
    var w = Math.min(F[2], b[2]), h = Math.min(F[3], b[3]);
    var x = Math.max(F[0], Math.min(F[0] + F[2] - w, b[0]));
    var y = Math.max(F[1], Math.min(F[1] + F[3] - h, b[1]));
    return [x, y, w, h];
  }
  function animate(svg, to, done) {
    var from = getBox(svg);
    var reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    if (reduce) { setBox(svg, to); if (done) done(); return; }
    var t0 = null, ms = 260;
    svg.dataset.animating = "1";
    function step(t) {
      if (t0 === null) t0 = t;
      var k = Math.min(1, (t - t0) / ms);
      var e = 1 - Math.pow(1 - k, 3);
      setBox(svg, from.map(function (f, i) { return f + (to[i] - f) * e; }));
      if (k < 1) { requestAnimationFrame(step); } else { delete svg.dataset.animating; if (done) done(); }
    }
    requestAnimationFrame(step);
  }
  function pxPerUnit(svg) {
    var r = svg.getBoundingClientRect();
    return r.width / getBox(svg)[2];
  }
  function pieceSizePx(svg, el) {
    var r = el.getBoundingClientRect();
    return Math.min(r.width, r.height);
  }
  function smallestFont(svg) {
    // the smallest text the map draws, in map units (names as drawn, chips, sector numbers)
    if (!svg.dataset.minFont) {
      var min = Infinity;
      Array.prototype.forEach.call(svg.querySelectorAll("text"), function (t) {
        if (!t.getClientRects().length) return;   // not drawn (the board screen's abbreviations)
        var fs = parseFloat(getComputedStyle(t).fontSize);
        if (fs && fs < min) min = fs;
      });
      svg.dataset.minFont = String(isFinite(min) ? min : 10);
    }
    return Number(svg.dataset.minFont);
  }
  function readable(svg) { return pxPerUnit(svg) * smallestFont(svg) >= READ - 0.01; }
  function zoomTo(svg, el, done) {
    var bb = el.getBBox();
    var width = svg.getBoundingClientRect().width || 1;
    var side = Math.max(1, Math.min(bb.width, bb.height));
    // the tapped piece gets TARGET px across its smaller side and the map's text READ px at least
    var w = Math.min(full(svg)[2], Math.max(150, side * width / TARGET), width * smallestFont(svg) / READ);
    var cx = bb.x + bb.width / 2, cy = bb.y + bb.height / 2;
    animate(svg, clamp(svg, [cx - w / 2, cy - w / 2, w, w]), done);
  }
  function whole(svg) { animate(svg, full(svg)); }

  function tapPiece(svg, el) {
    svg.dispatchEvent(new CustomEvent("piece-tap", { bubbles: true, detail: { piece: el.getAttribute("data-piece") } }));
  }

  var drag = null;
  document.addEventListener("pointerdown", function (e) {
    var svg = e.target.closest && e.target.closest("svg.dune-map.zoomed");
    if (!svg) return;
    drag = { svg: svg, x: e.clientX, y: e.clientY, box: getBox(svg), moved: false };
  });
  document.addEventListener("pointermove", function (e) {
    if (!drag) return;
    var dx = e.clientX - drag.x, dy = e.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 10) return;
    drag.moved = true;
    var k = 1 / pxPerUnit(drag.svg);
    setBox(drag.svg, clamp(drag.svg, [drag.box[0] - dx * k, drag.box[1] - dy * k, drag.box[2], drag.box[3]]));
  });
  document.addEventListener("pointerup", function () {
    if (drag && drag.moved) {
      var svg = drag.svg;
      svg.dataset.justDragged = "1";
      setTimeout(function () { delete svg.dataset.justDragged; }, 400);
    }
    drag = null;
  });
  document.addEventListener("pointercancel", function () { drag = null; });

  document.addEventListener("click", function (e) {
    var btn = e.target.closest && e.target.closest(".map-whole");
    if (btn) {
      var fig = btn.closest("figure");
      var m = fig && fig.querySelector("svg.dune-map");
      if (m) whole(m);
      return;
    }
    var el = e.target.closest && e.target.closest("svg.dune-map [data-piece]");
    if (!el) return;
    var svg = el.closest("svg.dune-map");
    if (svg.dataset.justDragged) { delete svg.dataset.justDragged; return; }
    if (svg.dataset.animating) return;
    var narrow = svg.getBoundingClientRect().width < NARROW;
    if (narrow && (pieceSizePx(svg, el) < THUMB || !readable(svg))) {
      zoomTo(svg, el);
      return;
    }
    tapPiece(svg, el);
  });

  function restore() {
    maps().forEach(function (svg) {
      var b = zooms[keyOf(svg)];
      if (b) setBox(svg, b);
    });
  }
  document.addEventListener("htmx:afterSettle", restore);

  function sel(svg, piece) {
    return svg.querySelector('[data-piece="' + String(piece).replace(/["\\]/g, "\\$&") + '"]');
  }
  // classes: {cls: [pieces]}; each piece gets each class exactly when listed, in one pass over the
  // map. A piece already as wanted is not touched: lighting the map again as it was (after every
  // refresh) changes nothing, so the map is neither restyled nor repainted (its dimming rule
  // reads :has(.lit), so clearing then lighting again repainted every piece twice).
  function setClasses(svg, classes) {
    var names = Object.keys(classes), want = {};
    names.forEach(function (cls) {
      want[cls] = {};
      (classes[cls] || []).forEach(function (p) { want[cls][p] = true; });
    });
    Array.prototype.forEach.call(svg.querySelectorAll("[data-piece]"), function (el) {
      var piece = el.getAttribute("data-piece");
      names.forEach(function (cls) {
        var on = !!want[cls][piece];
        if (el.classList.contains(cls) !== on) { el.classList.toggle(cls, on); }
      });
    });
  }
  function setClass(svg, cls, pieces) { var c = {}; c[cls] = pieces; setClasses(svg, c); }
  window.DuneMap = {
    light: function (svg, pieces) { setClass(svg, "lit", pieces); },
    mine: function (svg, pieces) { setClass(svg, "mine", pieces); },
    pick: function (svg, piece) { setClass(svg, "picked", piece ? [piece] : []); },
    clear: function (svg) { setClasses(svg, {lit: [], mine: [], picked: []}); },
    // the map's lights as a whole: lit, mine and picked pieces (anything not listed is off)
    show: function (svg, lit, mine, picked) { setClasses(svg, {lit: lit, mine: mine, picked: picked ? [picked] : []}); },
    zoomTo: function (svg, piece) { var el = sel(svg, piece); if (el) zoomTo(svg, el); },
    whole: whole
  };
})();

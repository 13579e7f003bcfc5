"""The map of Arrakis: geometry from the board data, the partial's markup, map.js in a phone.

The geometry checks read the drawn path data back (not the layout's own bookkeeping) wherever
they can: every piece drawn once, inside its own sector's wedge, rings growing outward from the
Polar Sink, one readable name per territory inside that territory.
"""
from __future__ import annotations

import math
import os
import re
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest

from companion.games.dune.rules.board import POLAR_SINK, load_board, split_piece
from companion.games.dune.web import board_map as bm
from companion.games.dune.web.board_svg import board_svg

from conftest import CHROMIUM, PHONE, LiveServer, create_table, join_seat

EPS = 0.25  # rounding of the drawn coordinates (one decimal) plus slack


# -- reading the SVG back ----------------------------------------------------------------------

class _SvgReader(HTMLParser):
    def __init__(self):
        super().__init__()
        self.pieces: list[dict] = []
        self.labels: list[dict] = []
        self._label = None
        self._stack: list[str] = []
        self.storm = []
        self.svg_attrs = {}
        self.abbrevs: list[dict] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self._stack.append(tag)
        if tag == "svg":
            self.svg_attrs = a
        if tag == "path" and "data-piece" in a:
            self.pieces.append({"id": a["data-piece"], "d": a["d"], "class": a.get("class", "").split()})
        if tag == "path" and "storm" in a.get("class", "").split():
            self.storm.append(a["d"])
        if tag == "text" and "ab" in a.get("class", "").split():   # a board-screen abbreviation
            self.abbrevs.append({"size": float(a["font-size"]), "x": float(a["x"]), "y": float(a["y"]), "text": ""})
        elif tag == "text" and "tl" in a.get("class", "").split():
            self._label = {"size": float(a["font-size"]), "lines": []}
        if tag == "tspan" and self._label is not None:
            self._label["lines"].append({"x": float(a["x"]), "y": float(a["y"]), "text": ""})

    def handle_endtag(self, tag):
        if self._stack:
            self._stack.pop()
        if tag == "text" and self._label is not None:
            self.labels.append(self._label)
            self._label = None

    def handle_data(self, data):
        if self._stack and self._stack[-1] == "text" and self.abbrevs and self._label is None \
                and not self.abbrevs[-1]["text"]:
            self.abbrevs[-1]["text"] = data
        if self._label is not None and self._label["lines"] and self._stack and self._stack[-1] == "tspan":
            self._label["lines"][-1]["text"] += data


def read_svg(markup: str) -> _SvgReader:
    r = _SvgReader()
    r.feed(str(markup))
    return r


def path_points(d: str) -> list[tuple[float, float]]:
    """End points of every M/L/A segment of a path (arcs give their radii separately)."""
    pts = []
    for cmd, args in re.findall(r"([MLAZ])([^MLAZ]*)", d):
        nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", args)]
        if cmd in "ML":
            pts.append((nums[0], nums[1]))
        elif cmd == "A":
            pts.append((nums[5], nums[6]))
    return pts


def arc_radii(d: str) -> list[float]:
    out = []
    for args in re.findall(r"A([^MLAZ]*)", d):
        nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", args)]
        out.append(nums[0])
    return out


def angle_in_sector(x: float, y: float, sector: int) -> bool:
    """Whether the direction of (x, y) from the centre lies inside the sector's 20° wedge.
    Sector 1 is centred straight down (SVG +y) and the numbers grow counter-clockwise on screen."""
    deg = math.degrees(math.atan2(y, x))           # SVG angle, clockwise from +x
    centre = 90 - (sector - 1) * 20
    off = (deg - centre + 180) % 360 - 180
    slack = math.degrees(EPS / max(math.hypot(x, y), 1))
    return abs(off) <= 10 + slack + 1e-6


def ring_distances(board) -> dict[str, int]:
    dist, frontier = {POLAR_SINK: 0}, [POLAR_SINK]
    while frontier:
        nxt = []
        for p in frontier:
            for n in board.piece_neighbours[p]:
                if n not in dist:
                    dist[n] = dist[p] + 1
                    nxt.append(n)
        frontier = nxt
    return dist


def empty_view(storm=18, **board):
    b = {"territories": {}, "discovery": {}, "markers": {}}
    b.update(board)
    return {"storm": {"sector": storm}, "board": b}


@pytest.fixture(scope="module")
def drawn():
    return read_svg(board_svg(empty_view(storm=5)))


# -- geometry ------------------------------------------------------------------------------------

def test_every_piece_of_the_board_is_drawn_exactly_once(drawn):
    board = load_board()
    ids = [p["id"] for p in drawn.pieces]
    assert sorted(ids) == sorted(board.all_pieces())
    assert len(ids) == len(set(ids)) == 86


def test_every_piece_lies_inside_its_own_sector_wedge(drawn):
    for p in drawn.pieces:
        name, sector = split_piece(p["id"])
        if sector is None:
            continue
        pts = path_points(p["d"])
        assert len(pts) == 4, p
        for x, y in pts:
            r = math.hypot(x, y)
            assert bm.R_SINK - EPS <= r <= bm.R_OUT + EPS, (p["id"], r)
            assert angle_in_sector(x, y, sector), (p["id"], x, y)
        # the arcs never bulge past the wedge: both are short (the small-arc flag is 0)
        assert re.findall(r"A[\d.\- ]+? 0 (\d) ", p["d"]) == ["0", "0"], p["d"]


def test_pieces_of_one_sector_do_not_overlap_and_fill_the_wedge():
    g = bm.geometry()
    board = load_board()
    for s in range(1, 19):
        ps = [g.pieces[p] for p in board.pieces_in_sector(s)]
        area = sum(p.area() for p in ps)
        wedge = math.radians(20) / 2 * (bm.R_OUT ** 2 - bm.R_SINK ** 2)
        assert area == pytest.approx(wedge, rel=1e-6), s
        for i, a in enumerate(ps):
            for b in ps[i + 1:]:
                radial = min(a.r1, b.r1) - max(a.r0, b.r0)
                angular = min(a.f1, b.f1) - max(a.f0, b.f0)
                assert radial <= 1e-6 or angular <= 1e-6, (a.id, b.id)


def test_polar_sink_is_the_circle_in_the_middle(drawn):
    sink = next(p for p in drawn.pieces if p["id"] == POLAR_SINK)
    radii = arc_radii(sink["d"])
    xs = [x for x, _ in path_points(sink["d"])]
    assert set(radii) == {bm.R_SINK}
    assert min(xs) == pytest.approx(-bm.R_SINK) and max(xs) == pytest.approx(bm.R_SINK)
    vb = [float(v) for v in drawn.svg_attrs["viewbox"].split()]
    assert vb[0] + vb[2] / 2 == 0 and vb[1] + vb[3] / 2 == 0   # the sink sits in the middle of the picture


def test_rings_grow_outward_from_the_polar_sink():
    """In every wedge a piece further from the Polar Sink (in piece steps) lies further out, and
    exactly the pieces that border the Polar Sink touch it."""
    g = bm.geometry()
    board = load_board()
    dist = ring_distances(board)
    for s in range(1, 19):
        ps = [g.pieces[p] for p in board.pieces_in_sector(s)]
        for a in ps:
            for b in ps:
                if dist[a.id] < dist[b.id]:
                    assert a.r1 <= b.r0 + 1e-6, (a.id, b.id)
            touches_sink = abs(a.r0 - bm.R_SINK) < 1e-6
            assert touches_sink == (POLAR_SINK in board.piece_neighbours[a.id]), a.id


def test_the_map_is_laid_out_as_the_printed_board():
    """Sector 1 at the bottom, the storm's way counter-clockwise: Cielago at the bottom, Tuek's
    Sietch lower right, Arrakeen upper right, Carthag at the top, Sietch Tabr upper left,
    Habbanya Sietch lower left."""
    g = bm.geometry()

    def clock(pid):  # clock-face hour of a piece's centroid (12 = up)
        x, y = g.pieces[pid].centroid()
        return (math.degrees(math.atan2(x, -y)) % 360) / 30

    assert abs(clock("Cielago North@1") - 6) < 0.5
    assert 3.5 < clock("Tuek's Sietch@4") < 5
    assert 0.5 < clock("Arrakeen@9") < 1.5
    assert clock("Carthag@10") < 0.5 or clock("Carthag@10") > 11.5
    assert 9.5 < clock("Sietch Tabr@13") < 10.5
    assert 7.5 < clock("Habbanya Sietch@16") < 8.5


def test_a_territory_spanning_sectors_keeps_its_pieces_together():
    """Neighbouring pieces of one territory share part of the sector line between them, so a
    territory reads as one region (False Wall West, The Minor Erg, Imperial Basin...)."""
    g = bm.geometry()
    board = load_board()
    for t in board.territories.values():
        for s1, s2 in zip(t.sectors, t.sectors[1:]):
            a, b = g.pieces[f"{t.name}@{s1}"], g.pieces[f"{t.name}@{s2}"]
            assert a.f1 == pytest.approx(1.0) and b.f0 == pytest.approx(0.0), (a.id, b.id)
            assert min(a.r1, b.r1) - max(a.r0, b.r0) > 0, (a.id, b.id)


def test_every_territory_is_named_once_inside_itself(drawn):
    board = load_board()
    g = bm.geometry()
    names = [" ".join(line["text"] for line in lab["lines"]) for lab in drawn.labels]
    assert sorted(names) == sorted(board.territories)
    for lab in drawn.labels:
        name = " ".join(line["text"] for line in lab["lines"])
        x = lab["lines"][0]["x"]
        y = (lab["lines"][0]["y"] + lab["lines"][-1]["y"]) / 2
        pieces = [p for p in g.pieces.values() if p.territory == name]
        largest = max(p.area() for p in pieces)
        assert any(p.contains(x, y) and p.area() == pytest.approx(largest) for p in pieces), (name, x, y)
        assert lab["size"] >= 10, name                   # readable once zoomed in


def test_names_drawn_small_have_a_room_sized_abbreviation_listed_on_the_board_screen(drawn):
    """Issue 24: on the board screen no name is under 14 units (14 px at 1920x1080): a territory whose
    name had to be drawn smaller gets an abbreviation at 14, in the same place, named in the side column."""
    from companion.games.dune.web.board_svg import ROOM_FONT, map_abbreviations
    small = sorted(" ".join(line["text"] for line in lab["lines"]) for lab in drawn.labels if lab["size"] < ROOM_FONT)
    listed = dict(map_abbreviations())
    assert small and sorted(listed.values()) == small
    assert len(set(listed)) == len(listed)                       # one meaning per abbreviation
    assert sorted(a["text"] for a in drawn.abbrevs) == sorted(listed)
    assert all(a["size"] >= ROOM_FONT for a in drawn.abbrevs)
    g = bm.geometry()
    for a in drawn.abbrevs:
        lab = g.labels[listed[a["text"]]]
        assert (a["x"], a["y"]) == (pytest.approx(lab.x, abs=0.1), pytest.approx(lab.y, abs=0.1))


def test_labels_do_not_overlap_in_the_whole_map():
    labels = list(bm.geometry().labels.values())
    for i, a in enumerate(labels):
        ax0, ay0, ax1, ay1 = a.box()
        for b in labels[i + 1:]:
            bx0, by0, bx1, by1 = b.box()
            overlap = min(ax1, bx1) - max(ax0, bx0) > 0 and min(ay1, by1) - max(ay0, by0) > 0
            assert not overlap, (a.territory, b.territory)


def test_storm_wedge_spice_and_forces_are_drawn():
    view = empty_view(storm=7, territories={
        "Arrakeen": {"spice": 0, "spice_by_sector": {}, "forces": {
            "atreides": {"forces": 10, "starred": 0, "advisors": 0,
                         "sectors": {"9": {"forces": 10, "starred": 0, "advisors": 0}}}}},
        "The Great Flat": {"spice": 10, "spice_by_sector": {"14": 10}, "forces": {}},
        "Polar Sink": {"spice": 0, "spice_by_sector": {}, "forces": {
            "fremen": {"forces": 2, "starred": 1, "advisors": 0,
                       "sectors": {"0": {"forces": 2, "starred": 1, "advisors": 0}}}}}})
    svg = str(board_svg(view))
    r = read_svg(svg)
    assert r.svg_attrs["data-storm"] == "7" and "storm over sector 7" in r.svg_attrs["aria-label"]
    assert len(r.storm) == 1 and all(angle_in_sector(x, y, 7) for x, y in path_points(r.storm[0]))
    in_storm = {p["id"] for p in r.pieces if "in-storm" in p["class"]}
    assert in_storm == set(load_board().pieces_in_sector(7))
    assert re.search(r'class="chip f-atreides">.*?>AT10</text>', svg)
    assert re.search(r'class="chip sp">.*?>10</text>', svg)
    assert re.search(r'class="chip f-fremen">.*?>FR3\*</text>', svg)


def test_map_markup_is_light():
    svg = str(board_svg(empty_view()))
    assert len(svg.encode()) < 30_000
    assert "style=" not in svg


# -- the partial in the app ----------------------------------------------------------------------

def test_partial_renders_every_piece_and_the_lit_mine_picked_classes(app):
    from flask import render_template
    view = empty_view()
    with app.test_request_context("/"):
        plain = render_template("dune/board_svg.html", s=view)
        html = render_template("dune/board_svg.html", s=view,
                               map_lit=["Arrakeen@9", "Old Gap@9"], map_mine=["Carthag@10"],
                               map_picked="Polar Sink")
    r = read_svg(html)
    assert sorted(p["id"] for p in r.pieces) == sorted(load_board().all_pieces())
    classes = {p["id"]: p["class"] for p in r.pieces}
    assert {pid for pid, c in classes.items() if "lit" in c} == {"Arrakeen@9", "Old Gap@9"}
    assert {pid for pid, c in classes.items() if "mine" in c} == {"Carthag@10"}
    assert {pid for pid, c in classes.items() if "picked" in c} == {"Polar Sink"}
    p = read_svg(plain)
    assert not any({"lit", "mine", "picked"} & set(x["class"]) for x in p.pieces)
    assert 'class="dune-map"' in html and 'class="map-whole"' in html


def test_board_screen_and_phone_page_show_the_map_and_load_map_js(app, client):
    t = create_table(client)
    board = join_seat(app, t.code, "board")
    html = board.get(f"/t/{t.code}/board").get_data(as_text=True)
    assert html.count('data-piece="') == 86
    assert 'src="/static/map.js"' in html and 'href="/static/map.css"' in html
    phone = join_seat(app, t.code, "atreides")
    assert phone.get(f"/t/{t.code}").get_data(as_text=True).count('data-piece="') == 86
    js = client.get("/static/map.js")
    assert js.status_code == 200 and "javascript" in js.content_type
    body = js.get_data(as_text=True)
    assert "piece-tap" in body and "window.DuneMap" in body
    assert client.get("/static/map.css").status_code == 200


# -- map.js in a 390 px phone (Debian chromium) ----------------------------------------------------

SHOTS = os.environ.get("MAP_SHOTS")


@pytest.mark.browser
@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"Debian chromium is not installed at {CHROMIUM}")
def test_phone_tap_zooms_then_selects_the_piece(tmp_path, browser):
    srv = LiveServer(tmp_path / "data").start()
    try:
        st, d = srv.request("POST", "/api/tables", {"factions": ["atreides", "harkonnen", "fremen", "emperor",
                                                                 "guild", "bg"], "turns": 10, "options": {}})
        code, host = d["table"], d["host_token"]

        def act(**e):
            e["revision"] = srv.request("GET", f"/api/tables/{code}/state", token=host)[1]["revision"]
            assert srv.request("POST", f"/api/tables/{code}/actions", e, host)[0] == 200

        act(type="forces.place", faction="atreides", territory="Arrakeen", forces=10)
        act(type="forces.place", faction="harkonnen", territory="Carthag", forces=10)
        act(type="forces.place", faction="fremen", territory="Sietch Tabr", forces=7)
        act(type="board.spice", territory="The Great Flat", amount=10)
        act(type="board.spice", territory="Cielago South", sector=1, amount=12)

        if SHOTS:
            big = browser.new_context(viewport={"width": 1280, "height": 800})
            bp = big.new_page()
            bp.goto(f"{srv.url}/t/{code}/join")
            bp.click('button[name="seat"][value="board"]')
            bp.wait_for_url(re.compile(r"/board$"))
            bp.locator("svg.dune-map").wait_for()
            bp.screenshot(path=str(Path(SHOTS) / "board-map.png"))
            big.close()

        ctx = browser.new_context(**PHONE)
        page = ctx.new_page()
        page.goto(f"{srv.url}/t/{code}/join")
        page.tap('button[name="seat"][value="atreides"]')
        page.wait_for_url(re.compile(rf"/t/{code}$"))
        svg = page.locator("svg.dune-map").first
        time.sleep(0.5)  # let the first live refresh land
        page.evaluate("() => document.querySelector('svg.dune-map').scrollIntoView({block: 'center'})")
        page.evaluate("""() => { window.__taps = [];
            document.addEventListener('piece-tap', e => window.__taps.push(
                [e.detail.piece, e.target.classList.contains('dune-map')])); }""")
        target = "Carthag@10"
        g = bm.geometry()
        cx, cy = g.pieces[target].centroid()

        def screen_point():
            return page.evaluate("""([x, y]) => { const s = document.querySelector('svg.dune-map');
                const p = s.createSVGPoint(); p.x = x; p.y = y; const q = p.matrixTransform(s.getScreenCTM());
                return [q.x, q.y]; }""", [cx, cy])

        def piece_px():
            box = page.locator(f'svg.dune-map [data-piece="{target}"]').first.bounding_box()
            return min(box["width"], box["height"])

        assert piece_px() < 44          # too small for a thumb on the whole map
        whole_box = svg.get_attribute("viewBox")
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "map-phone.png"))
        page.touchscreen.tap(*screen_point())
        page.wait_for_function("() => !document.querySelector('svg.dune-map').dataset.animating")
        time.sleep(0.05)
        assert svg.get_attribute("viewBox") != whole_box
        assert page.evaluate("window.__taps") == []          # the first tap only zoomed
        assert piece_px() >= 44
        assert page.locator(".map-whole").first.is_visible()
        if SHOTS:
            page.screenshot(path=str(Path(SHOTS) / "map-phone-zoomed.png"))
        # another phone's change redraws the map: the zoom stays where the thumb left it
        zoomed_box = svg.get_attribute("viewBox")
        page.evaluate("() => { document.querySelector('svg.dune-map').__old = true; }")
        act(type="board.spice", territory="Red Chasm", amount=8)
        page.wait_for_function("() => { const s = document.querySelector('svg.dune-map'); return s && !s.__old; }")
        page.wait_for_function("() => document.querySelector('svg.dune-map').classList.contains('zoomed')")
        assert svg.get_attribute("viewBox") == zoomed_box
        assert page.locator(".map-whole").first.is_visible()
        page.touchscreen.tap(*screen_point())
        page.wait_for_function("() => window.__taps.length > 0")
        assert page.evaluate("window.__taps") == [[target, True]]
        # DuneMap sets the classes client-side
        page.evaluate("""() => { const s = document.querySelector('svg.dune-map');
            DuneMap.light(s, ['Arrakeen@9', 'Old Gap@9']); DuneMap.pick(s, 'Carthag@10'); }""")
        assert page.locator("svg.dune-map .lit").count() == 2
        assert page.locator('svg.dune-map .picked').get_attribute("data-piece") == target
        page.evaluate("() => DuneMap.clear(document.querySelector('svg.dune-map'))")
        assert page.locator("svg.dune-map .lit, svg.dune-map .picked").count() == 0
        # the whole map again
        page.locator(".map-whole").first.tap()
        page.wait_for_function("() => !document.querySelector('svg.dune-map').dataset.animating")
        assert svg.get_attribute("viewBox") == whole_box
        assert not page.locator(".map-whole").first.is_visible()
        ctx.close()
    finally:
        srv.stop()


def test_markers_and_discovery_tokens_show_and_chips_do_not_cover_each_other():
    forces = {f: {"forces": 3, "starred": 0, "advisors": 0, "sectors": {str(s): {"forces": 3, "starred": 0, "advisors": 0}
                                                                         for s in (18, 1, 2)}}
              for f in ("emperor", "guild")}
    view = empty_view(territories={
        "Cielago North": {"spice": 8, "spice_by_sector": {"2": 8}, "forces": forces},
        "Cielago Depression": {"spice": 0, "spice_by_sector": {}, "forces": forces}},
        discovery={"Gara Kulon@7": {"kind": "hiereg", "revealed": None}},
        markers={"Carthag": {"terror": True}})
    svg = str(board_svg(view))
    assert '<g class="disc">' in svg and "<title>hiereg</title>" in svg
    assert re.search(r'<text class="mk"[^>]*>T</text>', svg)
    boxes = [tuple(float(v) for v in m) for m in re.findall(
        r'<rect x="(-?[\d.]+)" y="(-?[\d.]+)" width="([\d.]+)" height="([\d.]+)" rx="5"/>', svg)]
    assert len(boxes) == 13   # one spice chip, two factions in six pieces
    for i, (x, y, w, h) in enumerate(boxes):
        for (x2, y2, w2, h2) in boxes[i + 1:]:
            assert min(x + w, x2 + w2) - max(x, x2) <= 0.5 or min(y + h, y2 + h2) - max(y, y2) <= 0.5

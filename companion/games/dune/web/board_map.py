"""Geometry of the map of Arrakis, computed from the board data alone (no Flask).

The printed 2019 board is a polar map: the Polar Sink in the middle, 18 sector wedges around it,
sector 1 centred at the bottom (the Cielago territories, Meridian and Cielago South at the rim),
the numbers growing counter-clockwise as the storm moves (Tuek's Sietch lower right, the Shield
Wall and Arrakeen upper right, Carthag at the top, Sietch Tabr upper left, Habbanya Sietch lower
left). Every territory-sector piece lies in its own sector's wedge.

How the pieces are placed, all derived from ``companion/games/dune/data/board.json``:

* **Rings.** A piece's ring is its distance from the Polar Sink in the piece adjacency graph.
* **Rows.** Inside one wedge the pieces of one ring become one or more rows (outward order);
  the pieces of a row sit side by side. The arrangement chosen is the one that best realises
  the board's adjacency: pieces that touch on the board touch on the map, pieces that do not
  touch are kept apart, a territory that goes on into the next sector (or a piece that borders
  one there) sits on that side of the wedge, only pieces bordering the Polar Sink touch it.
  A piece spanning both sides of its wedge gets a row of its own, so a stronghold nestles under
  the piece around it (Tuek's Sietch inside South Mesa).
* **Radii.** Row boundaries start evenly spaced and are relaxed so that the pieces of one
  territory line up across sector lines (The Great Flat's neighbours, False Wall West's band).
* **Labels.** One per territory, anchored inside its largest piece, horizontal, wrapped and
  sized to fit the territory.

Angles are SVG degrees (0 = +x, growing clockwise on screen). ``geometry()`` is cached.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import lru_cache

from ..rules.board import POLAR_SINK, load_board, piece_id, split_piece

SIZE = 1000          # viewBox is -SIZE/2 -SIZE/2 SIZE SIZE: the Polar Sink's centre is the origin
CX = CY = 0.0
R_SINK = 118         # radius of the Polar Sink
R_OUT = 466         # outer rim of the sectors (a band for the sector numbers lies outside)
SECTOR_DEG = 20.0
MIN_ROW = 34         # thinnest row, in viewBox units


def sector_centre(sector: int) -> float:
    """SVG angle of the middle of a sector: sector 1 at the bottom, growing counter-clockwise."""
    return 90.0 - (sector - 1) * SECTOR_DEG


def sector_angles(sector: int, f0: float = 0.0, f1: float = 1.0) -> tuple[float, float]:
    """Angles (a0, a1) for the fraction [f0, f1] of a wedge; f=0 is the side of sector-1
    (clockwise side), f=1 the side of sector+1. a0 > a1 (the angle falls counter-clockwise)."""
    c = sector_centre(sector)
    return c + SECTOR_DEG / 2 - SECTOR_DEG * f0, c + SECTOR_DEG / 2 - SECTOR_DEG * f1


def polar(r: float, deg: float) -> tuple[float, float]:
    a = math.radians(deg)
    return CX + r * math.cos(a), CY + r * math.sin(a)


def _n(x: float) -> str:
    """One decimal, always written (a coordinate never reads as a bare whole number in the page,
    which keeps number searches over the page, such as the secret-spice checks, meaningful)."""
    s = f"{x:.1f}"
    return "0.0" if s == "-0.0" else s


@dataclass
class Piece:
    id: str
    territory: str
    sector: int | None
    ring: int
    row: int = 0
    f0: float = 0.0
    f1: float = 1.0
    r0: float = 0.0
    r1: float = R_SINK
    d: str = ""
    span_index: int = 0   # place in its territory's run of sectors (storm order)

    @property
    def angles(self) -> tuple[float, float]:
        return sector_angles(self.sector, self.f0, self.f1)

    def centroid(self) -> tuple[float, float]:
        if self.sector is None:
            return CX, CY
        a0, a1 = self.angles
        return polar((self.r0 + self.r1) / 2, (a0 + a1) / 2)

    def area(self) -> float:
        if self.sector is None:
            return math.pi * self.r1 ** 2
        return math.radians(abs(self.angles[0] - self.angles[1])) / 2 * (self.r1 ** 2 - self.r0 ** 2)

    def contains(self, x: float, y: float, pad: float = 0.0) -> bool:
        r = math.hypot(x - CX, y - CY)
        if self.sector is None:
            return r <= self.r1 - pad
        if not (self.r0 + pad <= r <= self.r1 - pad):
            return False
        deg = math.degrees(math.atan2(y - CY, x - CX))
        a0, a1 = self.angles  # a0 > a1
        padd = math.degrees(pad / max(r, 1))
        # bring deg into (a1 - 180, a1 + 180]
        while deg <= a1 - 180:
            deg += 360
        while deg > a1 + 180:
            deg -= 360
        return a1 + padd <= deg <= a0 - padd


@dataclass
class Label:
    territory: str
    piece: str
    x: float
    y: float
    size: float
    lines: list[str]

    def box(self) -> tuple[float, float, float, float]:
        w = max(text_width(s) for s in self.lines) * self.size
        h = len(self.lines) * self.size * LINE_H
        return self.x - w / 2, self.y - h / 2, self.x + w / 2, self.y + h / 2


LINE_H = 1.08
_NARROW = set("iljtfr' .,-")
_WIDE = set("mwMW")


@lru_cache(maxsize=4096)
def text_width(text: str) -> float:
    """Width of a bold sans label in em (a little generous: DejaVu Sans Bold, Roboto, SF all fit)."""
    w = 0.0
    for ch in text:
        if ch in _NARROW:
            w += 0.42
        elif ch in _WIDE:
            w += 1.02
        elif ch.isupper():
            w += 0.78
        else:
            w += 0.66
    return w


@dataclass
class Geometry:
    pieces: dict[str, Piece]
    labels: dict[str, Label]
    rows: dict[int, list[list[str]]] = field(default_factory=dict)

    def territory_pieces(self, name: str) -> list[Piece]:
        return [p for p in self.pieces.values() if p.territory == name]


# -- rows inside one wedge -------------------------------------------------------------

def _ring_distances(board) -> dict[str, int]:
    dist = {POLAR_SINK: 0}
    frontier = [POLAR_SINK]
    while frontier:
        nxt = []
        for p in frontier:
            for n in sorted(board.piece_neighbours[p]):
                if n not in dist:
                    dist[n] = dist[p] + 1
                    nxt.append(n)
        frontier = nxt
    return dist


def _ordered_partitions(items: list[str]):
    """Every way to split items into an ordered list of non-empty rows, each row ordered."""
    n = len(items)
    for perm in itertools.permutations(items):
        for cuts in itertools.product((False, True), repeat=n - 1):
            rows, cur = [], [perm[0]]
            for x, cut in zip(perm[1:], cuts):
                if cut:
                    rows.append(cur)
                    cur = [x]
                else:
                    cur.append(x)
            rows.append(cur)
            yield rows


def _side_wants(board, pid: str) -> tuple[int, int]:
    """How strongly a piece wants the clockwise side (sector-1) and the other side (sector+1)."""
    name, s = split_piece(pid)
    prev_s = (s - 2) % 18 + 1
    next_s = s % 18 + 1
    t = board.territories[name]
    lo = 4 * (prev_s in t.sectors)
    hi = 4 * (next_s in t.sectors)
    for n in board.piece_neighbours[pid]:
        nn, ns = split_piece(n)
        if nn == name or ns is None:
            continue
        lo += ns == prev_s
        hi += ns == next_s
    return lo, hi


STRONGHOLD_SHARE = 1.6   # a stronghold gets this much of a row's width for every 1 of its neighbours


def _row_fracs(board, row: list[str]) -> list[tuple[float, float]]:
    """Angular shares of the pieces of a row, side by side from the sector-1 side."""
    return _fracs(tuple(board.territories[split_piece(p)[0]].is_stronghold for p in row))


@lru_cache(maxsize=256)
def _fracs(strongholds: tuple[bool, ...]) -> list[tuple[float, float]]:
    ws = [STRONGHOLD_SHARE if sh else 1.0 for sh in strongholds]
    total, acc, out = sum(ws), 0.0, []
    for w in ws:
        out.append((acc / total, (acc + w) / total))
        acc += w
    out[-1] = (out[-1][0], 1.0)
    return out


def _score(board, rows: list[list[str]], adj: dict[str, set], wants: dict, touches_sink: set) -> float:
    spans = {}
    for k, row in enumerate(rows):
        for p, (f0, f1) in zip(row, _row_fracs(board, row)):
            spans[p] = (k, f0, f1)
    cost = 0.0
    pieces = list(spans)
    for a, b in itertools.combinations(pieces, 2):
        ka, a0, a1 = spans[a]
        kb, b0, b1 = spans[b]
        overlap = min(a1, b1) - max(a0, b0)
        if ka == kb:
            touch = abs(overlap) < 1e-9  # side by side
        elif abs(ka - kb) == 1:
            touch = overlap > 1e-9
        else:
            touch = False
        if b in adj[a]:
            cost += 0 if touch else 3
        elif touch:
            cost += 2 * (overlap if ka != kb else 0.5) + 0.5
    for p, (k, f0, f1) in spans.items():
        lo, hi = wants[p]
        if lo and f0 > 1e-9:
            cost += 1.5 * lo
        if hi and f1 < 1 - 1e-9:
            cost += 1.5 * hi
        if (k == 0) != (p in touches_sink):
            cost += 4
    return cost


def _sector_rows(board, sector: int, dist: dict[str, int]) -> list[list[str]]:
    pieces = sorted(board.pieces_in_sector(sector), key=lambda p: (dist[p], p))
    adj = {p: set(board.piece_neighbours[p]) for p in pieces}
    wants = {p: _side_wants(board, p) for p in pieces}
    touches_sink = {p for p in pieces if POLAR_SINK in adj[p]}
    rings: list[list[str]] = []
    for _, grp in itertools.groupby(pieces, key=lambda p: dist[p]):
        rings.append(list(grp))
    # choose each ring's split into rows jointly (rings are small: at most 3 pieces)
    options = [list(_ordered_partitions(r)) for r in rings]
    best, best_cost = None, math.inf
    for combo in itertools.product(*options):
        rows = [row for part in combo for row in part]
        c = _score(board, rows, adj, wants, touches_sink) + 0.2 * len(rows)
        if c < best_cost - 1e-9:
            best, best_cost = rows, c
    return best


# -- radii -----------------------------------------------------------------------------

def _relax_radii(rows: dict[int, list[list[str]]], board) -> dict[int, list[float]]:
    """Row boundaries per sector, lined up across sector lines for one territory's pieces."""
    bounds = {}
    where = {}
    for s, rs in rows.items():
        # start: rows of several pieces side by side, and strongholds, get more room
        weights = [1.0 + 0.45 * (len(row) - 1)
                   + 0.9 * any(board.territories[split_piece(p)[0]].is_stronghold for p in row) for row in rs]
        total = sum(weights)
        acc, b = 0.0, [R_SINK]
        for w in weights:
            acc += w
            b.append(R_SINK + (R_OUT - R_SINK) * ((acc / total) ** 0.85))
        bounds[s] = b
        for k, row in enumerate(rs):
            for p in row:
                where[p] = (s, k)
    links = []  # (sector, boundary index, other sector, other boundary index)
    for p, (s, k) in where.items():
        name, _ = split_piece(p)
        for ds in (-1, 1):
            s2 = (s - 1 + ds) % 18 + 1
            q = piece_id(name, s2)
            if q in where:
                s2, k2 = where[q]
                links.append((s, k, s2, k2))
                links.append((s, k + 1, s2, k2 + 1))
    base = {s: list(b) for s, b in bounds.items()}
    linked: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for (s1, i1, s2, i2) in links:
        if 0 < i2 < len(bounds[s2]) - 1:
            linked.setdefault((s1, i1), []).append((s2, i2))
    for _ in range(120):
        for s in sorted(bounds):
            b = bounds[s]
            n = len(b) - 1
            for i in range(1, n):
                targets = [(base[s][i], 0.6)]
                for (s2, i2) in linked.get((s, i), ()):
                    targets.append((bounds[s2][i2], 1.0))
                want = sum(v * w for v, w in targets) / sum(w for _, w in targets)
                lo = b[i - 1] + MIN_ROW
                hi = b[i + 1] - MIN_ROW
                b[i] = min(max(want, lo), hi) if lo <= hi else (b[i - 1] + b[i + 1]) / 2
    return bounds


# -- labels ----------------------------------------------------------------------------

def _wrap(name: str, lines: int) -> list[str]:
    words = name.split()
    if lines <= 1 or len(words) == 1:
        return [name]
    lines = min(lines, len(words))
    best, best_w = [name], math.inf
    for cuts in itertools.combinations(range(1, len(words)), lines - 1):
        parts, prev = [], 0
        for c in list(cuts) + [len(words)]:
            parts.append(" ".join(words[prev:c]))
            prev = c
        w = max(len(x) for x in parts)
        if w < best_w:
            best, best_w = parts, w
    return best


def _inside_territory(x: float, y: float, pieces: list[Piece], pad: float) -> bool:
    return any(p.contains(x, y, pad) for p in pieces)


def _box_points(box):
    x0, y0, x1, y1 = box
    xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
    return [(x0, y0), (x1, y0), (x0, y1), (x1, y1), (xm, y0), (xm, y1), (x0, ym), (x1, ym), (xm, ym)]


def _overlaps(box, boxes, gap: float = 2.0) -> bool:
    x0, y0, x1, y1 = box
    return any(min(x1, b[2]) - max(x0, b[0]) > -gap and min(y1, b[3]) - max(y0, b[1]) > -gap for b in boxes)


def _place_label(name: str, pieces: list[Piece], placed: list, stronghold: bool = False) -> Label:
    lab = _fit_label(name, pieces, placed)
    if stronghold and lab.size < 15:
        # a stronghold's name may spill over its rim a little (the halo keeps it readable)
        host = next(p for p in pieces if p.id == lab.piece)
        x, y = host.centroid()
        for size in (17, 16, 15, 14, 13):
            big = Label(name, host.id, x, y, size, lab.lines)
            x0, y0, x1, y1 = big.box()
            if _overlaps(big.box(), placed):
                continue
            if all(R_SINK + 2 <= math.hypot(px, py) <= R_OUT - 2 for px, py in _box_points((x0, y0, x1, y1))):
                return big
    return lab


def _piece_bbox(p: Piece) -> tuple[float, float, float, float]:
    if p.sector is None:
        return CX - p.r1, CY - p.r1, CX + p.r1, CY + p.r1
    a0, a1 = p.angles
    pts = [polar(r, a1 + (a0 - a1) * k / 4) for r in (p.r0, p.r1) for k in range(5)]
    xs, ys = [x for x, _ in pts], [y for _, y in pts]
    return min(xs), min(ys), max(xs), max(ys)


def _fit_label(name: str, pieces: list[Piece], placed: list) -> Label:
    # a label that fits inside the territory can only meet labels overlapping the territory's box
    boxes = [_piece_bbox(p) for p in pieces]
    tb = (min(b[0] for b in boxes) - 5, min(b[1] for b in boxes) - 5,
          max(b[2] for b in boxes) + 5, max(b[3] for b in boxes) + 5)
    everywhere = placed
    placed = [b for b in placed if _overlaps(b, [tb], 0)]
    order = {p.id: i for i, p in enumerate(pieces)}
    mid = (len(pieces) - 1) / 2
    # the largest piece; among equals the one in the middle of the territory's span
    host = max(pieces, key=lambda p: (round(p.area()), -abs(order[p.id] - mid), p.id))
    if host.sector is None:
        return Label(name, host.id, CX, CY - 48, 24, ["Polar Sink"])
    a0, a1 = host.angles
    # the ideal spot: the middle of the run of this territory's pieces sharing the host's band
    lo, hi = a1, a0
    by_sector = {p.sector: p for p in pieces}
    for step in (1, -1):
        s = host.sector
        while True:
            s = (s - 1 + step) % 18 + 1
            q = by_sector.get(s)
            if q is None or min(q.r1, host.r1) - max(q.r0, host.r0) < 0.6 * (host.r1 - host.r0):
                break
            qa0, qa1 = q.angles
            if step == 1:
                lo = lo - (qa0 - qa1)
            else:
                hi = hi + (qa0 - qa1)
    ideal_a = min(max((lo + hi) / 2, a1), a0)
    ideal = polar((host.r0 + host.r1) / 2, ideal_a)
    candidates = []
    for fr in (0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8):
        for fa in (0.5, 0.35, 0.65, 0.2, 0.8, 0.05, 0.95):
            r = host.r0 + (host.r1 - host.r0) * fr
            candidates.append(polar(r, a0 + (a1 - a0) * fa))
    candidates.sort(key=lambda c: (round((c[0] - ideal[0]) ** 2 + (c[1] - ideal[1]) ** 2, 3), c))
    for size in (22, 20, 18, 17, 16, 15, 14, 13, 12, 11, 10):
        for nlines in (1, 2, 3):
            lines = _wrap(name, nlines)
            for (x, y) in candidates:
                lab = Label(name, host.id, x, y, size, lines)
                box = lab.box()
                if _overlaps(box, placed):
                    continue
                if all(_inside_territory(px, py, pieces, 2) for px, py in _box_points(box)):
                    return lab
    # no fit inside the territory: the smallest size at a free spot in the host piece
    for size in (11, 10):
        for (x, y) in candidates:
            lab = Label(name, host.id, x, y, size, _wrap(name, 3))
            if not _overlaps(lab.box(), everywhere, 0):
                return lab
    x, y = host.centroid()
    return Label(name, host.id, x, y, 10, _wrap(name, 3))


# -- the whole map ---------------------------------------------------------------------

def wedge_path(r0: float, r1: float, a0: float, a1: float) -> str:
    """Annular sector between radii r0 < r1 and angles a0 > a1 (SVG degrees)."""
    p1 = polar(r1, a0)
    p2 = polar(r1, a1)
    p3 = polar(r0, a1)
    p4 = polar(r0, a0)
    large = 1 if abs(a0 - a1) > 180 else 0
    return (f"M{_n(p1[0])} {_n(p1[1])}A{_n(r1)} {_n(r1)} 0 {large} 0 {_n(p2[0])} {_n(p2[1])}"
            f"L{_n(p3[0])} {_n(p3[1])}A{_n(r0)} {_n(r0)} 0 {large} 1 {_n(p4[0])} {_n(p4[1])}Z")


def circle_path(r: float) -> str:
    return (f"M{_n(CX - r)} {_n(CY)}A{_n(r)} {_n(r)} 0 1 0 {_n(CX + r)} {_n(CY)}"
            f"A{_n(r)} {_n(r)} 0 1 0 {_n(CX - r)} {_n(CY)}Z")


@lru_cache(maxsize=1)
def geometry() -> Geometry:
    board = load_board()
    dist = _ring_distances(board)
    rows = {s: _sector_rows(board, s, dist) for s in range(1, board.sectors + 1)}
    bounds = _relax_radii(rows, board)
    pieces: dict[str, Piece] = {
        POLAR_SINK: Piece(POLAR_SINK, POLAR_SINK, None, 0, r0=0.0, r1=R_SINK, d=circle_path(R_SINK))}
    for s, rs in rows.items():
        for k, row in enumerate(rs):
            for pid, (f0, f1) in zip(row, _row_fracs(board, row)):
                name, _ = split_piece(pid)
                p = Piece(pid, name, s, dist[pid], row=k, f0=f0, f1=f1,
                          r0=bounds[s][k], r1=bounds[s][k + 1])
                p.d = wedge_path(p.r0, p.r1, *p.angles)
                pieces[pid] = p
    for name, t in board.territories.items():
        if not t.is_polar_sink:
            for i, sec in enumerate(t.sectors):
                pieces[piece_id(name, sec)].span_index = i
    labels = {}
    placed: list = []
    # the tightest territories first (they have the fewest places for their name)
    def room(name):
        return sum(p.area() for p in pieces.values() if p.territory == name)
    for name in sorted(board.territories, key=lambda n: (room(n), n)):
        lab = _place_label(name, sorted((p for p in pieces.values() if p.territory == name),
                                        key=lambda p: p.span_index), placed, board.territories[name].is_stronghold)
        labels[name] = lab
        placed.append(lab.box())
    labels = dict(sorted(labels.items()))
    return Geometry(pieces=pieces, labels=labels, rows=rows)


def storm_path(sector: int) -> str:
    a0, a1 = sector_angles(sector)
    return wedge_path(R_SINK, R_OUT + 30, a0, a1)


def sector_number_pos(sector: int) -> tuple[float, float]:
    return polar(R_OUT + 17, sector_centre(sector))

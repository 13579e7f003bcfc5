"""The map of Arrakis as inline SVG: every territory-sector piece a tappable region
(``data-piece``), names, the storm wedge, spice and force chips. The geometry is in
``board_map`` (pure, cached); this module only writes the markup for one view."""
from __future__ import annotations

from functools import lru_cache
from html import escape as _html_escape

from markupsafe import Markup

from ..rules.board import load_board, piece_id, split_piece
from . import board_map as bm

def escape(text: str) -> str:
    """Escape for text and double-quoted attributes; apostrophes stay as they are (Tuek's)."""
    return _html_escape(str(text), quote=False).replace('"', "&quot;")


SHORT = {"atreides": "AT", "harkonnen": "HK", "fremen": "FR", "emperor": "EM", "guild": "SG", "bg": "BG",
         "ecaz": "EC", "moritani": "MO", "tleilaxu": "TL",
         "choam": "CH", "richese": "RI"}
CHIP_H = 22
VIEWBOX = f"{-bm.SIZE // 2} {-bm.SIZE // 2} {bm.SIZE} {bm.SIZE}"
CHIP_FONT = 14
ROOM_FONT = 14   # the board screen (a room display) draws every name at least this big (user units)
SMALL_WORDS = {"the", "of", "in"}


@lru_cache(maxsize=1)
def map_abbreviations() -> tuple[tuple[str, str], ...]:
    """(abbreviation, name) of every territory whose name is drawn smaller than ``ROOM_FONT``: the
    board screen draws the abbreviation instead and lists the names beside the map."""
    g = bm.geometry()
    out, used = [], set()
    for name, lab in sorted(g.labels.items()):
        if lab.size >= ROOM_FONT:
            continue
        words = [w for w in name.replace("'", "").split() if w.lower() not in SMALL_WORDS] or name.split()
        ab = "".join(w[0] for w in words).upper() if len(words) > 1 else words[0][:3]
        base, i = ab, 1
        while ab in used:
            ab = base + words[-1][i:i + 1].lower() if i < len(words[-1]) else base + str(i)
            i += 1
        used.add(ab)
        out.append((ab, name))
    return tuple(out)


def piece_contents(view: dict) -> dict[str, dict]:
    """piece id -> {"spice": n, "forces": [(faction, text)]} from a view's board."""
    out: dict[str, dict] = {}
    for name, t in view["board"]["territories"].items():
        for sec, n in t.get("spice_by_sector", {}).items():
            if n:
                pid = piece_id(name, int(sec) or None)
                out.setdefault(pid, {"spice": 0, "forces": []})["spice"] += n
        for f, st in sorted(t["forces"].items()):
            for sec, x in sorted(st["sectors"].items(), key=lambda kv: int(kv[0])):
                n = x.get("forces", 0) + x.get("starred", 0) + x.get("advisors", 0)
                if not n:
                    continue
                pid = piece_id(name, int(sec) or None)
                text = f"{SHORT.get(f, f[:2].upper())}{n}"
                if x.get("starred"):
                    text += "*"
                out.setdefault(pid, {"spice": 0, "forces": []})["forces"].append((f, text, bool(x.get("advisors"))))
            if st.get("nofield"):  # Richese's face-down No-Field: its number only where the view carries it
                pid = piece_id(name, st.get("nofield_sector") or None)
                text = "NF" + (str(st["nofield_token"]) if "nofield_token" in st else "?")
                out.setdefault(pid, {"spice": 0, "forces": []})["forces"].append((f, text, False))
    return out


@lru_cache(maxsize=1)
def _shades() -> dict[str, int]:
    """A shade per territory so that neighbours of the same terrain differ (greedy colouring)."""
    board = load_board()
    shade: dict[str, int] = {}
    for name in sorted(board.territories, key=lambda n: (-len(board.territories[n].neighbours), n)):
        t = board.territories[name]
        used = {shade[n] for n in t.neighbours if n in shade and board.territories[n].type == t.type}
        shade[name] = next(i for i in range(4) if i not in used)
    return shade


@lru_cache(maxsize=1)
def _static_parts() -> tuple[list[tuple[str, str]], str, str]:
    """(piece id, class/d/title markup without state classes) pairs, the labels and the rim, computed once."""
    g = bm.geometry()
    board = load_board()
    shades = _shades()
    pieces = []
    for pid in sorted(g.pieces, key=lambda p: (g.pieces[p].sector or 0, g.pieces[p].row, g.pieces[p].f0)):
        p = g.pieces[pid]
        t = board.territories[p.territory]
        kind = "polar" if t.is_polar_sink else t.type
        title = t.label(p.sector)
        pieces.append((pid, f'{kind} s{shades[p.territory]}', f'd="{p.d}"><title>{escape(title)}</title>'))
    labels = []
    abbrevs = {name: ab for ab, name in map_abbreviations()}
    for name, lab in sorted(g.labels.items()):
        x0, y0, x1, y1 = lab.box()
        lh = lab.size * bm.LINE_H
        y = lab.y - lh * (len(lab.lines) - 1) / 2
        spans = "".join(
            f'<tspan x="{bm._n(lab.x)}" y="{bm._n(y + i * lh)}">{escape(line)}</tspan>' for i, line in enumerate(lab.lines))
        cls = "tl stronghold" if board.territories[name].is_stronghold else "tl"
        if lab.size < ROOM_FONT:
            labels.append(f'<text class="{cls} sm" font-size="{bm._n(lab.size)}">{spans}</text>')
            labels.append(f'<text class="{cls} ab" font-size="{ROOM_FONT}" x="{bm._n(lab.x)}" y="{bm._n(lab.y)}">'
                          f'{escape(abbrevs[name])}</text>')
        else:
            labels.append(f'<text class="{cls}" font-size="{bm._n(lab.size)}">{spans}</text>')
    rim = []
    for s in range(1, board.sectors + 1):
        a0, a1 = bm.sector_angles(s)
        x, y = bm.polar(bm.R_OUT, a0)
        x2, y2 = bm.polar(bm.R_OUT + 30, a0)
        rim.append(f'M{bm._n(x)} {bm._n(y)}L{bm._n(x2)} {bm._n(y2)}')
    nums = "".join(
        f'<text x="{bm._n(x)}" y="{bm._n(y)}">{s}</text>'
        for s in range(1, board.sectors + 1) for x, y in [bm.sector_number_pos(s)])
    rim_markup = (f'<path class="rim" d="{bm.circle_path(bm.R_OUT + 30)}"/><path class="seclines" d="{"".join(rim)}"/>'
                  f'<g class="secnum">{nums}</g>')
    return pieces, "".join(labels), rim_markup


@lru_cache(maxsize=None)
def _anchor_candidates(pid: str) -> tuple[tuple[float, float], ...]:
    """Spots inside a piece where its chips may go, the middle first."""
    p = bm.geometry().pieces[pid]
    if p.sector is None:
        return ((bm.CX, bm.CY + 24), (bm.CX, bm.CY + 56), (bm.CX - 50, bm.CY + 30), (bm.CX + 50, bm.CY + 30))
    a0, a1 = p.angles
    out = []
    for fr in (0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9):
        for fa in (0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9):
            out.append(bm.polar(p.r0 + (p.r1 - p.r0) * fr, a0 + (a1 - a0) * fa))
    return tuple(out)


def _overlap(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _chip_items(spice: int, forces: list) -> list:
    items = [("spice", f"{spice}", False)] if spice else []
    return items + list(forces)


def _chip_layout(items: list) -> tuple[list[float], list[list[int]], float, float]:
    widths = [12 + 9.6 * len(text) for _, text, _ in items]
    per_row = 3 if len(items) > 4 else 2
    rows = [list(range(i, min(i + per_row, len(items)))) for i in range(0, len(items), per_row)]
    w = max(sum(widths[i] for i in row) + 3 * (len(row) - 1) for row in rows)
    h = len(rows) * (CHIP_H + 3) - 3
    return widths, rows, w, h


@lru_cache(maxsize=1)
def _label_boxes() -> tuple:
    return tuple(lab.box() for lab in bm.geometry().labels.values())


def _place_chips(contents: dict) -> str:
    key = tuple(sorted((pid, c["spice"], tuple(c["forces"])) for pid, c in contents.items()))
    return _place_chips_cached(key)


@lru_cache(maxsize=64)
def _place_chips_cached(key: tuple) -> str:
    """Chips of every piece, each group inside its piece where it covers the fewest names and
    other chips (greedy, deterministic). Cached on the board's contents (live refreshes repeat)."""
    g = bm.geometry()
    taken = list(_label_boxes())
    out = []
    contents = {pid: {"spice": spice, "forces": list(forces)} for pid, spice, forces in key}
    for pid in sorted(contents, key=lambda p: (g.pieces[p].area(), p)):
        c = contents[pid]
        items = _chip_items(c["spice"], c["forces"])
        if not items:
            continue
        widths, rows, w, h = _chip_layout(items)
        cands = _anchor_candidates(pid)
        best, best_key = cands[0], None
        # only what lies near this piece can be covered
        region = (min(x for x, _ in cands) - w / 2 - 2, min(y for _, y in cands) - h / 2 - 2,
                  max(x for x, _ in cands) + w / 2 + 2, max(y for _, y in cands) + h / 2 + 2)
        near = [t for t in taken if _overlap(region, t) > 0]
        for i, (x, y) in enumerate(cands):
            box = (x - w / 2 - 2, y - h / 2 - 2, x + w / 2 + 2, y + h / 2 + 2)
            key = (round(sum(_overlap(box, t) for t in near), 1), i)
            if best_key is None or key < best_key:
                best, best_key = (x, y), key
            if key[0] == 0:
                break   # candidates come middle first: the first clear spot is the best one
        x, y = best
        taken.append((x - w / 2, y - h / 2, x + w / 2, y + h / 2))
        for ri, row in enumerate(rows):
            total = sum(widths[i] for i in row) + 3 * (len(row) - 1)
            cx = x - total / 2
            cy = y - h / 2 + ri * (CHIP_H + 3)
            for i in row:
                kind, text, adv = items[i]
                cw = widths[i]
                cls = "chip sp" if kind == "spice" else f"chip f-{escape(kind)}" + (" adv" if adv else "")
                out.append(f'<g class="{cls}"><rect x="{bm._n(cx)}" y="{bm._n(cy)}" width="{bm._n(cw)}" '
                           f'height="{CHIP_H}" rx="5"/><text x="{bm._n(cx + cw / 2)}" y="{bm._n(cy + CHIP_H / 2)}">'
                           f'{escape(text)}</text></g>')
                cx += cw + 3
    return "".join(out)


def _as_set(x) -> set[str]:
    if not x:
        return set()
    if isinstance(x, str):
        return {x}
    return {str(p) for p in x}


def board_svg(view: dict, lit=None, mine=None, picked=None) -> Markup:
    """The map for one view. ``lit``/``mine`` are piece ids, ``picked`` one piece id."""
    g = bm.geometry()
    storm = view.get("storm", {}).get("sector")
    lit_s, mine_s = _as_set(lit), _as_set(mine)
    picked_s = _as_set(picked)
    pieces, labels, rim = _static_parts()
    contents = piece_contents(view)
    parts = [f'<svg class="dune-map" viewBox="{VIEWBOX}" role="img" '
             f'aria-label="Map of Arrakis{f", storm over sector {storm}" if storm else ""}"'
             f'{f" data-storm={chr(34)}{storm}{chr(34)}" if storm else ""}>',
             rim, '<g class="pieces">']
    for pid, cls, rest in pieces:
        extra = ""
        name, sec = split_piece(pid)
        if storm and sec == storm:
            extra += " in-storm"
        if pid in lit_s:
            extra += " lit"
        if pid in mine_s:
            extra += " mine"
        if pid in picked_s:
            extra += " picked"
        parts.append(f'<path data-piece="{escape(pid)}" class="pc {cls}{extra}" {rest}</path>')
    parts.append("</g>")
    if storm:
        parts.append(f'<path class="storm" d="{bm.storm_path(storm)}"/>')
        sx, sy = bm.sector_number_pos(storm)
        parts.append(f'<circle class="storm-dot" cx="{bm._n(sx)}" cy="{bm._n(sy)}" r="15"/>')
    parts.append(f'<g class="labels">{labels}</g>')
    # markers: discovery tokens (face down or revealed) and face-down terror/ambassador markers
    marks = []
    for pid, tok in sorted((view["board"].get("discovery") or {}).items()):
        if pid in g.pieces:
            x, y = g.pieces[pid].centroid()
            kind = tok.get("revealed") or tok.get("kind") or "discovery"
            marks.append(f'<g class="disc"><rect x="{bm._n(x - 9)}" y="{bm._n(y - 30)}" width="18" height="18" rx="3"'
                         f' transform="rotate(45 {bm._n(x)} {bm._n(y - 21)})"/><title>{escape(str(kind))}</title></g>')
    for terr, m in sorted((view["board"].get("markers") or {}).items()):
        lab = g.labels.get(terr)
        if lab:
            x0, y0, x1, y1 = lab.box()
            glyph = ("T" if m.get("terror") else "") + ("A" if m.get("ambassador") else "")
            if glyph:
                marks.append(f'<text class="mk" x="{bm._n(x1 + 4)}" y="{bm._n(y0 + 6)}">{glyph}</text>')
    parts.append(f'<g class="marks">{"".join(marks)}</g>')
    chips = _place_chips({pid: c for pid, c in contents.items() if pid in g.pieces})
    parts.append(f'<g class="chips">{chips}</g>')
    parts.append("</svg>")
    return Markup("".join(parts))

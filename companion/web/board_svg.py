"""A schematic SVG of the 18 sectors for the big screen: the storm, spice and every faction's
forces per sector at a glance (the text table beside it has the territory detail)."""
from __future__ import annotations

import math
from html import escape

from markupsafe import Markup

COLOURS = {"atreides": "#3d9a4c", "harkonnen": "#d0d0d0", "fremen": "#c9a25b", "emperor": "#c0392b",
           "guild": "#e67e22", "bg": "#5b7bd5", "ecaz": "#c05fa0", "moritani": "#5a8f8f", "tleilaxu": "#a89f8a"}
SHORT = {"atreides": "AT", "harkonnen": "HK", "fremen": "FR", "emperor": "EM", "guild": "SG", "bg": "BG",
         "ecaz": "EC", "moritani": "MO", "tleilaxu": "TL"}


def sector_summary(view: dict) -> tuple[dict, dict]:
    """sector -> {"spice": n, "forces": {faction: n}}, and the Polar Sink's forces."""
    sectors = {s: {"spice": 0, "forces": {}} for s in range(1, 19)}
    polar: dict = {}
    for name, t in view["board"]["territories"].items():
        for sec, n in t.get("spice_by_sector", {}).items():
            if int(sec):
                sectors[int(sec)]["spice"] += n
        for f, st in t["forces"].items():
            for sec, x in st["sectors"].items():
                n = x["forces"] + x["starred"] + x["advisors"]
                if int(sec) == 0:
                    polar[f] = polar.get(f, 0) + n
                else:
                    per = sectors[int(sec)]["forces"]
                    per[f] = per.get(f, 0) + n
    return sectors, polar


def _point(cx, cy, r, deg):
    rad = math.radians(deg)
    return cx + r * math.cos(rad), cy + r * math.sin(rad)


def board_svg(view: dict) -> Markup:
    sectors, polar = sector_summary(view)
    storm = view["storm"]["sector"]
    cx = cy = 200
    r_out, r_in = 190, 70
    parts = ['<svg class="board-svg" viewBox="0 0 400 400" role="img" '
             f'aria-label="Board: storm over sector {storm}">']
    for s in range(1, 19):
        # sector 1 starts at the bottom and the numbers grow counter-clockwise, as the storm moves
        a0 = 90 - (s - 1) * 20
        a1 = a0 - 20
        p = [_point(cx, cy, r_out, a0), _point(cx, cy, r_out, a1), _point(cx, cy, r_in, a1), _point(cx, cy, r_in, a0)]
        fill = "#7a2c20" if s == storm else ("#2a2016" if s % 2 else "#241b12")
        parts.append(f'<path d="M{p[0][0]:.1f},{p[0][1]:.1f} A{r_out},{r_out} 0 0,0 {p[1][0]:.1f},{p[1][1]:.1f} '
                     f'L{p[2][0]:.1f},{p[2][1]:.1f} A{r_in},{r_in} 0 0,1 {p[3][0]:.1f},{p[3][1]:.1f} Z" '
                     f'fill="{fill}" stroke="#4a3a28"><title>Sector {s}</title></path>')
        mid = a0 - 10
        lx, ly = _point(cx, cy, r_out - 14, mid)
        parts.append(f'<text x="{lx:.1f}" y="{ly:.1f}" class="sn" text-anchor="middle" dominant-baseline="middle">{s}</text>')
        info = sectors[s]
        row = 0
        if info["spice"]:
            sx, sy = _point(cx, cy, r_out - 38, mid)
            parts.append(f'<text x="{sx:.1f}" y="{sy:.1f}" class="sp" text-anchor="middle" '
                         f'dominant-baseline="middle">◆{info["spice"]}</text>')
        bx, by = _point(cx, cy, r_out - 62, mid)
        for f, n in sorted(info["forces"].items()):
            fx, fy = bx, by + (row - (len(info["forces"]) - 1) / 2) * 13
            parts.append(f'<text x="{fx:.1f}" y="{fy:.1f}" class="fc" fill="{COLOURS.get(f, "#fff")}" '
                         f'text-anchor="middle" dominant-baseline="middle">{SHORT.get(f, escape(f))}{n}</text>')
            row += 1
    parts.append(f'<circle cx="{cx}" cy="{cy}" r="{r_in - 4}" fill="#1a140d" stroke="#4a3a28"/>')
    parts.append(f'<text x="{cx}" y="{cy - 22}" class="sn" text-anchor="middle">Polar Sink</text>')
    for i, (f, n) in enumerate(sorted(polar.items())):
        parts.append(f'<text x="{cx}" y="{cy - 4 + i * 15}" class="fc" fill="{COLOURS.get(f, "#fff")}" '
                     f'text-anchor="middle">{SHORT.get(f, escape(f))}{n}</text>')
    parts.append(f'<text x="{cx}" y="{cy + 58}" class="storm-label" text-anchor="middle">storm {storm}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))

"""WCAG 2 contrast of the faction colours, read from the stylesheets (companion/static/map.css and
app.css), for the contrast tests and benchmarks/bench_board_screen.py.

- ``text``: a map chip's text on the chip (``.dune-map .f-X rect`` fill, ``.f-X text`` fill or the
  default ``.chip text`` fill): text, 4.5:1.
- ``chip_on_map``: the chip against its dark ring (``.dune-map .chip rect`` stroke), which is what
  lies under every chip whatever piece it sits on: a shape, 3:1.
- ``stripe``: the faction stripe (``.f-X`` border-left) on a card (``--card``): a shape, 3:1.
"""
from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).resolve().parents[1] / "companion" / "static"
HEX = r"#[0-9a-fA-F]{3,6}\b"


def rgb(hex_colour: str) -> tuple[float, float, float]:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    return tuple(int(h[i:i + 2], 16) / 255 for i in (0, 2, 4))


def luminance(hex_colour: str) -> float:
    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (lin(c) for c in rgb(hex_colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def ratio(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def _css(name: str) -> str:
    return re.sub(r"/\*.*?\*/", "", (STATIC / name).read_text(), flags=re.S)


def _last(css: str, selector: str, prop: str) -> str | None:
    """The last value of ``prop`` (a hex colour) in a rule whose selector list contains ``selector``."""
    found = None
    for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        if selector in [s.strip() for s in sel.split(",")]:
            m = re.search(rf"(?<![\w-]){re.escape(prop)}\s*:\s*[^;]*?({HEX})", body)
            if m:
                found = m.group(1)
    return found


def faction_colours() -> dict[str, dict[str, str]]:
    """faction -> {"chip", "chip_text", "ring", "stripe", "card"} hex colours from the CSS."""
    map_css, app_css = _css("map.css"), _css("app.css")
    card = re.search(rf"--card:\s*({HEX})", app_css).group(1)
    ring = _last(map_css, ".dune-map .chip rect", "stroke")
    default_text = _last(map_css, ".dune-map .chip text", "fill")
    out = {}
    for f in re.findall(r"\.dune-map \.f-([a-z]+) rect", map_css):
        out[f] = {"chip": _last(map_css, f".dune-map .f-{f} rect", "fill"),
                  "chip_text": _last(map_css, f".dune-map .f-{f} text", "fill") or default_text,
                  "ring": ring, "stripe": _last(app_css, f".f-{f}", "border-left"), "card": card}
    return out


def faction_contrasts() -> dict[str, dict[str, float]]:
    return {f: {"text": ratio(c["chip_text"], c["chip"]), "chip_on_map": ratio(c["chip"], c["ring"]),
                "stripe": ratio(c["stripe"], c["card"])}
            for f, c in faction_colours().items()}

"""Render the app icons from companion/static/icons/icon.svg with headless Chromium (no image library).

    python docs/tools/make_icons.py

Writes icon-180.png (Apple touch icon), icon-192.png, icon-512.png, icon-maskable-512.png (full-bleed,
the drawing inside the 80 % safe zone) and favicon.ico (PNG images of 16, 32 and 48 px inside an ICO
container) next to the SVG. Needs Playwright for Python and /usr/bin/chromium.
"""
from __future__ import annotations

import struct
from pathlib import Path

from playwright.sync_api import sync_playwright

ICONS = Path(__file__).resolve().parents[2] / "companion" / "static" / "icons"
CHROMIUM = "/usr/bin/chromium"


def page_html(svg: str, size: int, maskable: bool) -> str:
    inner = (f'<div style="width:{size}px;height:{size}px;background:#15110c;display:flex;align-items:center;'
             f'justify-content:center"><div style="width:{int(size * 0.8)}px;height:{int(size * 0.8)}px">{svg}</div></div>'
             if maskable else f'<div style="width:{size}px;height:{size}px">{svg}</div>')
    return ("<!doctype html><html><head><style>html,body{margin:0;background:transparent}"
            "svg{width:100%;height:100%;display:block}</style></head><body>" + inner + "</body></html>")


def ico(pngs: list[tuple[int, bytes]]) -> bytes:
    """An ICO file holding PNG images (supported by every browser and Windows since Vista)."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    offset = 6 + 16 * len(pngs)
    entries, data = b"", b""
    for size, png in pngs:
        entries += struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(png), offset + len(data))
        data += png
    return header + entries + data


def main() -> None:
    svg = (ICONS / "icon.svg").read_text()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless=new", "--no-sandbox"])
        rendered = {}
        for size, maskable in ((16, False), (32, False), (48, False), (180, False), (192, False), (512, False),
                               (512, True)):
            page = browser.new_page(viewport={"width": size, "height": size})
            page.set_content(page_html(svg, size, maskable))
            png = page.screenshot(omit_background=True, clip={"x": 0, "y": 0, "width": size, "height": size})
            page.close()
            rendered[(size, maskable)] = png
        browser.close()
    for size in (180, 192, 512):
        (ICONS / f"icon-{size}.png").write_bytes(rendered[(size, False)])
    (ICONS / "icon-maskable-512.png").write_bytes(rendered[(512, True)])
    (ICONS / "favicon.ico").write_bytes(ico([(n, rendered[(n, False)]) for n in (16, 32, 48)]))
    for f in sorted(ICONS.iterdir()):
        print(f"{f.name:24} {f.stat().st_size:>7} bytes")


if __name__ == "__main__":
    main()

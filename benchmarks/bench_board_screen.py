"""The board screen as a room display, and the map on a phone (issue 24): measured in headless Debian
Chromium against the real server.

A six-faction table is set up through the JSON API (Fremen and Bene Gesserit placed, stacks in several
territories), then put into each phase in turn (and a battle opened, then revealed). For every phase
and both room sizes (1920x1080, 1280x720) it prints:

- the page height of ``/t/CODE/board`` (a page that fits has the height of the window),
- the map's height and its share of the window,
- the map text as drawn on the screen: the smallest label and chip in px, the share of labels >= 14 px,

then on a 390x844 phone (Emperor seat, Shipment) the smallest map text before and after a tap on its
own stack, the share of pieces with a bright fill, and the WCAG contrast of every faction colour
(chip text on the chip, the chip against the map, the stripe on the card) read from the CSS.

    python benchmarks/bench_board_screen.py                 # prints the tables
    python benchmarks/bench_board_screen.py --shots docs/screenshots   # also saves screenshots
    python benchmarks/bench_board_screen.py --axe      # also axe-core's violations by impact, per size

(--axe: axe-core over the page states of tests/a11y_pages.py, 24 states at 390x844 and 1920x1080.)
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from conftest import ARGS, CHROMIUM, PHONE, LiveServer  # noqa: E402
from contrast import faction_contrasts  # noqa: E402
from board_screen_helpers import MAP_TEXT, PAGE, PHASES, put_in, set_up  # noqa: E402

SIZES = [(1920, 1080), (1280, 720)]

def measure_board(browser, server, t, w, h, shots=None, name=None) -> dict:
    ctx = browser.new_context(viewport={"width": w, "height": h})
    page = ctx.new_page()
    page.goto(f"{server.url}/t/{t.code}/board")
    page.wait_for_load_state("networkidle")
    m = page.evaluate(MAP_TEXT) or {"labels": [0], "chips": [0], "map_h": 0}
    p = page.evaluate(PAGE)
    if shots and name:
        page.screenshot(path=str(Path(shots) / name))
    ctx.close()
    labels = m["labels"] or [0]
    return {"page_h": p["h"], "vh": p["vh"], "scrolls": p["h"] > p["vh"] + 1, "map_h": round(m["map_h"]),
            "map_share": m["map_h"] / h, "label_min": min(labels),
            "label14": sum(1 for x in labels if x >= 14 - 1e-6) / len(labels),
            "chip_min": min(m["chips"]) if m["chips"] else None}


def measure_phone(browser, server, t, shots=None) -> dict:
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.goto(f"{server.url}/t/{t.code}/join")
    page.tap('button[name="seat"][value="emperor"]')
    page.wait_for_url(f"**/t/{t.code}")
    page.wait_for_load_state("networkidle")
    before = page.evaluate(MAP_TEXT)
    lit = page.evaluate("""() => { const all = document.querySelectorAll('svg.dune-map [data-piece]');
      let bright = 0; for (const e of all) { const c = getComputedStyle(e).fill.match(/\\d+/g).map(Number);
      const lum = (0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]) / 255; if (lum > 0.6) bright++; }
      return {bright, all: all.length}; }""")
    # tap the Atreides stack in Imperial Basin (as a thumb would: the map zooms first)
    piece = page.locator('svg.dune-map [data-piece^="Tuek"]').first
    piece.evaluate("e => e.scrollIntoView({block: 'center'})")
    box = piece.bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_timeout(600)
    page.wait_for_function("() => !document.querySelector('svg.dune-map[data-animating]')")
    after = page.evaluate(MAP_TEXT)
    if shots:
        page.locator("svg.dune-map").first.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.screenshot(path=str(Path(shots) / "phone-map-zoomed-shipment.png"))
    ctx.close()
    return {"before": min(before["labels"] + before["chips"]), "after": min(after["labels"] + after["chips"]),
            "bright": lit["bright"], "pieces": lit["all"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shots", help="folder for screenshots")
    ap.add_argument("--axe", action="store_true", help="also run axe-core over every page state")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    server = LiveServer(Path(tempfile.mkdtemp()) / "data").start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            t = set_up(server)
            rows = []
            phone = None
            for phase in PHASES:
                put_in(t, phase)
                for w, h in SIZES:
                    shot = f"board-{phase.replace(' ', '-')}-{w}.png" if w == 1920 else None
                    rows.append((phase, f"{w}x{h}", measure_board(browser, server, t, w, h, args.shots, shot)))
                if phase == "shipment_movement":
                    phone = measure_phone(browser, server, t, args.shots)
            axe = {}
            if args.axe:
                from a11y_pages import count, scan
                for size in ("phone", "tv"):
                    found = scan(browser, server, size)
                    axe[size] = (len(found), sum((count(v) for v, _ in found.values()), start=count([])),
                                 sum(1 for _, h1 in found.values() if h1 < 1))
            browser.close()
    finally:
        server.stop()
    print(f"{'phase':18} {'size':10} {'page h':>7} {'scrolls':>7} {'map h':>6} {'map %':>6} "
          f"{'label min':>9} {'>=14px':>7} {'chip min':>8}")
    for phase, size, r in rows:
        chip = f"{r['chip_min']:.1f}" if r["chip_min"] else "-"
        print(f"{phase:18} {size:10} {r['page_h']:7d} {str(r['scrolls']):>7} {r['map_h']:6d} "
              f"{r['map_share'] * 100:5.0f}% {r['label_min']:9.1f} {r['label14'] * 100:6.0f}% {chip:>8}")
    if phone:
        print(f"\nphone 390x844, Shipment: smallest map text {phone['before']:.1f} px, after a tap on the own stack "
              f"{phone['after']:.1f} px; {phone['bright']} of {phone['pieces']} pieces brightly filled")
    for size, (n, c, no_h1) in axe.items():
        print(f"\naxe-core, {size} ({n} page states): " + ", ".join(f"{k} {c.get(k, 0)}" for k in
                                                                  ("critical", "serious", "moderate", "minor"))
              + f" (elements); pages without an h1: {no_h1}")
    print(f"\n{'faction':10} {'chip text/chip':>14} {'chip/map':>9} {'stripe/card':>11}")
    for f, c in faction_contrasts().items():
        print(f"{f:10} {c['text']:14.2f} {c['chip_on_map']:9.2f} {c['stripe']:11.2f}")


if __name__ == "__main__":
    main()

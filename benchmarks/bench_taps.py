"""Taps and keystrokes for a first turn, through the real UI on 390x844 phones.

Starts the real server (as the tests do), creates a fresh table on the start page, joins four
phones (Atreides, Harkonnen, Fremen, Bene Gesserit) in headless Debian Chromium, plays setup and
the first turn up to the Storm of turn 2 by tapping, and prints:

- taps and keystrokes per task beside the figures measured before issue 10 ("today"),
- the scroll position before and after every submit (a jump is any difference),
- the smallest tap target seen on the phones' screens,
- the bytes transferred for a phone's first page (compressed, all assets, the live stream excluded).

    python benchmarks/bench_taps.py            # prints the table
    python benchmarks/bench_taps.py --shots docs/screenshots   # also saves the phone screenshots
"""
from __future__ import annotations

import argparse
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from conftest import ARGS, CHROMIUM, PHONE, LiveServer  # noqa: E402

WATCH = """
window.__xhrs = new Set();
document.addEventListener('htmx:beforeSend', function (e) { window.__xhrs.add(e.detail.xhr); });
"""
IDLE = "() => [...(window.__xhrs || [])].every(x => x.readyState === 4)"

# what a phone offers as a control (inline text links are not counted: they are not tap targets)
SMALLEST = """() => {
  const sel = 'button, a.button, select, input:not([type=hidden]):not([type=radio]):not([type=checkbox]), ' +
              'summary, label.choice, .radio-chip span, header.top a, .rule-mini';
  let best = null;
  for (const e of document.querySelectorAll(sel)) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height) continue;                 // hidden (closed details, display:none)
    const st = getComputedStyle(e);
    if (st.visibility === 'hidden' || st.display === 'none') continue;
    const m = Math.min(r.width, r.height);
    if (!best || m < best.m) best = {m, w: Math.round(r.width), h: Math.round(r.height),
                                     what: e.tagName.toLowerCase() + ' ' + (e.textContent || e.name || '').trim().slice(0, 30)};
  }
  return best;
}"""

TODAY = {  # measured on the phones before issue 10 (the issue's own figures)
    "ship 5 forces to Arrakeen": "3 taps + 10 keys, 1.6 screens of scrolling",
    "move 3 of a stack A -> B": "5 taps + 25 keys",
    "storm, turn 2 (Fremen storm card)": "6 taps + 2 long scrolls",
    "Fremen setup (10 over 3 territories)": "— (not in the issue; a typed form)",
    "spice blow": "— (not in the issue; 2 selects + 1 tap)",
    "look up a rule": "— (not in the issue)",
    "battle: Atreides (open to apply)": "losses by hand: 6 taps + 10 keys",
    "battle: Harkonnen (open to apply)": "losses by hand (issue: Emperor 5 taps)",
}
TARGET = {
    "ship 5 forces to Arrakeen": (4, 0),
    "move 3 of a stack A -> B": (5, 0),
    "storm, turn 2 (Fremen storm card)": (3, 0),
    "Fremen setup (10 over 3 territories)": (10, 0),
    "spice blow": (2, 0),
    "look up a rule": (2, None),
    "battle: Atreides (open to apply)": (6, 0),
    "battle: Harkonnen (open to apply)": (6, 0),
}


class Phones:
    def __init__(self, shots: Path | None):
        self.rows: dict[str, dict] = {}
        self.jumps: list[tuple[str, int, int]] = []
        self.smallest = None
        self.shots = shots
        self.task = None

    # -- counting --------------------------------------------------------------------------------
    def start(self, task: str) -> None:
        self.task = task
        self.rows[task] = {"taps": 0, "keys": 0}

    def done(self) -> None:
        self.task = None

    def measure_targets(self, page) -> None:
        s = page.evaluate(SMALLEST)
        if s and (self.smallest is None or s["m"] < self.smallest["m"]):
            self.smallest = dict(s, url=page.url)

    def tap(self, locator, submit: bool = True) -> None:
        """One tap; a submit also checks that the page did not scroll."""
        page = locator.page
        page.wait_for_function(IDLE)
        # a person's next tap comes after the double-tap guard of the last answer (static/idempotency.js)
        page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
        # the player scrolls the control to the middle of the screen, clear of the bottom bar
        # (Playwright would otherwise re-scroll a control hidden under the bar while tapping it)
        locator.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.wait_for_timeout(50)
        self.measure_targets(page)
        before = page.evaluate("window.scrollY")
        n = page.evaluate("window.__xhrs.size")
        locator.tap()
        if self.task:
            self.rows[self.task]["taps"] += 1
        if submit:
            page.wait_for_function("n => window.__xhrs.size > n", arg=n)
            page.wait_for_function(IDLE)
            page.wait_for_timeout(120)
            after = page.evaluate("window.scrollY")
            self.jumps.append((self.task or "setup", int(before), int(after)))

    def type(self, locator, text: str) -> None:
        locator.type(text)
        if self.task:
            self.rows[self.task]["keys"] += len(text)

    def select(self, locator, value: str) -> None:  # a native picker: open it, pick one = 2 taps
        locator.select_option(value)
        if self.task:
            self.rows[self.task]["taps"] += 2

    def next_phase(self, page) -> None:
        """Not counted: the table moving on (an override if the phase says a step is open)."""
        task, self.task = self.task, None
        self.tap(page.locator("#now button.next"))
        refusal = page.locator("#sheet #refusal")
        if refusal.count() and refusal.locator("button", has_text="Override").count():
            self.tap(refusal.locator("button", has_text="Override"))
        self.task = task

    def shot(self, page, name: str) -> None:
        if self.shots:
            page.evaluate("window.scrollTo(0, 0); var t = document.getElementById('toast'); if (t) t.hidden = true;")
            page.wait_for_timeout(150)
            page.screenshot(path=str(self.shots / f"phone-{name}.png"))


def fight(b: Phones, A, H) -> None:
    """The battle the shipments made in Arrakeen, fought on the two phones from the phase card to the
    applied losses (issue 14): each battler's taps are counted in its own row."""
    rows = {"atreides": "battle: Atreides (open to apply)", "harkonnen": "battle: Harkonnen (open to apply)"}
    for row in rows.values():
        b.rows[row] = {"taps": 0, "keys": 0}

    def tap(who, locator, submit=True):
        locator.wait_for()
        b.task = rows[who]
        b.tap(locator, submit)
        b.task = None

    tap("harkonnen", H.locator("#battles-now button[data-open-battle='Arrakeen']"))
    plan = H.locator("form[data-plan-builder]")
    tap("harkonnen", plan.locator(".radio-chip", has_text="Feyd-Rautha"), submit=False)
    tap("harkonnen", plan.locator("[data-stepper] button.all").first, submit=False)
    tap("harkonnen", plan.locator("button[data-seal]"))
    A.locator("#battles-now .battle-state", has_text="Harkonnen: sealed").wait_for()
    plan = A.locator("form[data-plan-builder]")
    tap("atreides", plan.locator(".radio-chip", has_text="Duncan Idaho"), submit=False)
    tap("atreides", plan.locator("[data-stepper] button.n", has_text="1").first, submit=False)
    tap("atreides", plan.locator("button[data-seal]"))
    tap("atreides", A.locator("#battles-now button[data-reveal]"))
    tap("atreides", A.locator("#battles-now button[data-confirm]"))
    tap("harkonnen", H.locator("#battles-now button[data-apply]"))
    A.locator("#battles-now .winner", has_text="applied").wait_for()


def first_page_bytes(browser, url: str, cookies) -> tuple[int, list]:
    ctx = browser.new_context(**PHONE)
    ctx.add_cookies(cookies)
    page = ctx.new_page()
    seen = []
    page.on("requestfinished", lambda r: seen.append(r))
    page.goto(url, wait_until="load")
    page.wait_for_timeout(800)
    total, parts = 0, []
    for r in seen:
        resp = r.response()
        if resp is None or "text/event-stream" in (resp.headers.get("content-type") or ""):
            continue
        sz = r.sizes()
        n = sz["responseBodySize"] + sz["responseHeadersSize"]
        total += n
        parts.append((r.url.split("/", 3)[-1], n, resp.headers.get("content-encoding", "")))
    ctx.close()
    return total, parts


def run(shots: Path | None) -> int:
    from playwright.sync_api import sync_playwright

    srv = LiveServer(Path(tempfile.mkdtemp(prefix="bench-taps-")) / "data").start()
    b = Phones(shots)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            laptop = browser.new_context(viewport={"width": 1280, "height": 900})
            host = laptop.new_page()
            host.goto(srv.url + "/")
            for f in ("atreides", "harkonnen", "fremen", "bg"):
                host.check(f'input[name="factions"][value="{f}"]')
            host.click("button:has-text('Create table')")
            host.wait_for_url(re.compile(r"/t/[A-Z0-9]{5}/host$"))
            code = host.url.rstrip("/").split("/")[-2]
            phones = {}
            for f in ("atreides", "harkonnen", "fremen", "bg"):
                ctx = browser.new_context(**PHONE)
                ctx.add_init_script(WATCH)
                page = ctx.new_page()
                page.goto(f"{srv.url}/t/{code}/join")
                page.tap(f'button[name="seat"][value="{f}"]')
                page.wait_for_url(re.compile(rf"/t/{code}$"))
                page.wait_for_function(IDLE)
                phones[f] = page
            A, H, F, BG = (phones[f] for f in ("atreides", "harkonnen", "fremen", "bg"))

            # -- setup: the Fremen split (3 to each False Wall, the rest in Sietch Tabr) -----------------
            b.shot(F, "setup")
            b.start("Fremen setup (10 over 3 territories)")
            split = F.locator("#now form.fremen-split")
            b.tap(split.locator("fieldset[data-territory='False Wall South'] button.n", has_text="3"), submit=False)
            b.tap(split.locator("fieldset[data-territory='False Wall West'] button.n", has_text="3"), submit=False)
            b.tap(split.locator("fieldset[data-territory='False Wall West'] .radio-chip", has_text="16"), submit=False)
            b.tap(split.locator("button[type=submit]"))
            b.done()
            BG.wait_for_function(IDLE)
            BG.locator("#now .setup select").wait_for()
            b.select(BG.locator("#now .setup select"), "Polar Sink")
            b.tap(BG.locator("#now .setup button[type=submit]"))

            # -- storm, turn 1: the two dialers enter a dial, anyone applies ------------------------------
            for page in phones.values():
                page.wait_for_timeout(300)
                page.wait_for_function(IDLE)
                form = page.locator("#now form.storm-dial")
                if form.count():
                    b.tap(form.locator("button.step[data-step='1']"), submit=False)
                    b.tap(form.locator("button[type=submit]"))
            A.wait_for_timeout(400)
            A.locator("#now button", has_text="Apply storm").wait_for()
            b.shot(A, "storm")
            b.tap(A.locator("#now button", has_text="Apply storm"))
            b.next_phase(A)

            # -- spice blow: tap a card still in the deck, apply it --------------------------------------
            BG.wait_for_timeout(400)
            BG.locator("#now .blow-card").first.wait_for()
            cards = [c for c in BG.locator("#now .blow-card").all_inner_texts() if "Shai-Hulud" not in c]
            b.start("spice blow")
            b.tap(BG.locator("#now .blow-card", has_text=cards[0].split("×")[0].strip()).first)
            b.tap(BG.locator("#blow-preview button", has_text="Apply"))
            b.done()
            BG.wait_for_timeout(300)
            card2 = [c for c in BG.locator("#now .blow-card").all_inner_texts() if "Shai-Hulud" not in c][1]
            b.tap(BG.locator("#now .blow-card", has_text=card2.split("×")[0].strip()).first)
            b.tap(BG.locator("#blow-preview button", has_text="Apply"))
            for _ in range(4):  # charity, bidding, revival, shipment & movement
                b.next_phase(A)

            # -- shipment & movement, in storm order: the Atreides ship and move (measured), the
            # Harkonnen ship 2 into Arrakeen (a battle to show), the others say they are done -------------
            host_token = next(c["value"] for c in laptop.cookies() if c["name"] == f"seat_{code}")
            A.wait_for_timeout(400)
            A.locator("#ship-places").wait_for(state="attached")
            for _ in range(4):
                who = srv.request("GET", f"/api/tables/{code}/state", token=host_token)[1]["whose_turn"]["faction"]
                page = phones[who]
                page.wait_for_timeout(300)
                page.wait_for_function(IDLE)
                if who == "atreides":
                    b.shot(A, "shipment")
                    b.start("ship 5 forces to Arrakeen")
                    ship = A.locator("#now form.ship-pick")
                    b.tap(ship.locator("button.n", has_text="5"), submit=False)
                    b.tap(ship.locator("button.place[data-piece^='Arrakeen']"))
                    b.done()
                    A.wait_for_timeout(300)
                    b.start("move 3 of a stack A -> B")
                    b.tap(A.locator("#now .stack-pick[data-piece^='Arrakeen']"))
                    move = A.locator("#reach form.reach-move")
                    b.tap(move.locator("button.n", has_text="3"), submit=False)
                    b.tap(move.locator("button.place").first)
                    b.done()
                    A.wait_for_timeout(300)
                elif who == "harkonnen":
                    ship = H.locator("#now form.ship-pick")
                    b.tap(ship.locator("button.n", has_text="2"), submit=False)
                    b.tap(ship.locator("button.place[data-piece^='Arrakeen']"))
                    H.wait_for_timeout(300)
                done = page.locator("#now form.turn-done button")
                if done.count():
                    b.tap(done)
            for _ in range(4):  # battle, collection, mentat pause, storm of turn 2
                b.next_phase(A)
                if A.locator("#now[data-phase='battle']").count():
                    b.shot(A, "battle")
                    fight(b, A, H)

            # -- storm, turn 2: the Fremen phone holds the storm card ----------------------------------------
            F.wait_for_timeout(400)
            F.locator("#now form.card-buttons").wait_for()
            b.start("storm, turn 2 (Fremen storm card)")
            b.tap(F.locator("#now form.card-buttons button.num", has_text="4"))
            b.tap(F.locator("#now button", has_text="Reveal the Fremen storm card"))
            b.tap(F.locator("#now button", has_text="Apply storm"))
            b.done()

            # -- a rule, from a phone ---------------------------------------------------------------------
            b.start("look up a rule")
            F.wait_for_function(IDLE)
            b.rows["look up a rule"]["taps"] += 1
            F.locator("header.top a", has_text="Rules").tap()
            F.wait_for_url(re.compile(r"/rules"))
            F.wait_for_load_state("load")
            b.type(F.locator("input[type=search]"), "ship through storm")
            F.locator("#results .result a").first.wait_for()
            F.wait_for_timeout(400)
            b.rows["look up a rule"]["taps"] += 1
            F.locator("#results .result a").first.tap()
            F.wait_for_url(re.compile(r"/rules/[a-z0-9-]+"))
            F.wait_for_load_state("load")
            b.measure_targets(F)
            b.done()

            # -- the first page's weight on a phone ----------------------------------------------------------
            total, parts = first_page_bytes(browser, f"{srv.url}/t/{code}", A.context.cookies())
            if shots:
                board = browser.new_context(viewport={"width": 1280, "height": 900})
                bp = board.new_page()
                bp.goto(f"{srv.url}/t/{code}/join")
                bp.click('button[name="seat"][value="board"]')
                bp.wait_for_url(re.compile(rf"/t/{code}/board$"))
                bp.wait_for_timeout(600)
                bp.screenshot(path=str(shots / "phone-board-screen.png"))
                bpp = browser.new_context(**PHONE)
                pp = bpp.new_page()
                pp.goto(f"{srv.url}/t/{code}/join")
                pp.tap('button[name="seat"][value="board"]')
                pp.wait_for_url(re.compile(rf"/t/{code}/board$"))
                pp.wait_for_timeout(600)
                pp.screenshot(path=str(shots / "phone-board.png"))
            browser.close()
    finally:
        srv.stop()

    ok = True
    print(f"\nTaps and keystrokes on a 390x844 phone (fresh table, real UI; python {Path(__file__).relative_to(ROOT)})\n")
    print(f"{'task':40} {'today':44} {'now':>14}  target")
    for task, row in b.rows.items():
        taps_max, keys_max = TARGET[task]
        now = f"{row['taps']} taps, {row['keys']} keys"
        good = row["taps"] <= taps_max and (keys_max is None or row["keys"] <= keys_max)
        ok &= good
        target = f"<= {taps_max} taps" + (f", {keys_max} keys" if keys_max is not None else " + words")
        print(f"{task:40} {TODAY[task]:44} {now:>14}  {target} {'ok' if good else 'MISSED'}")
    worst = max((abs(a - c) for _, a, c in b.jumps), default=0)
    print(f"{'scroll jump after a submit (max of ' + str(len(b.jumps)) + ')':40} {'611 -> 2829 px (2218 px)':44} "
          f"{str(worst) + ' px':>14}  0 {'ok' if worst == 0 else 'MISSED'}")
    for task, before, after in b.jumps:
        if before != after:
            print(f"    jump in {task!r}: scrollY {before} -> {after}")
    sm = b.smallest
    print(f"{'smallest control on the phones':40} {'—':44} {str(sm['w']) + 'x' + str(sm['h']) + ' px':>14}  "
          f">= 44x44 {'ok' if sm['m'] >= 44 else 'MISSED'}  ({sm['what']!r})")
    ok &= worst == 0 and sm["m"] >= 44
    print(f"{'first page on a phone, transferred':40} {'—':44} {total / 1024:>11.1f} KB  <= 60 KB "
          f"{'ok' if total <= 60 * 1024 else 'MISSED'}")
    for url, n, enc in sorted(parts, key=lambda x: -x[1]):
        print(f"    {n / 1024:7.1f} KB  {enc or 'identity':8} /{url}")
    ok &= total <= 60 * 1024
    return 0 if ok else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shots", type=Path, default=None, help="folder for phone screenshots (e.g. docs/screenshots)")
    args = ap.parse_args()
    if args.shots:
        args.shots.mkdir(parents=True, exist_ok=True)
    return run(args.shots)


if __name__ == "__main__":
    sys.exit(main())

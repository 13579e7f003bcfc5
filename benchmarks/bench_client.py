"""What a player's phone spends on a mid-game table (headless Debian Chromium, 390x844; bounded).

    python benchmarks/bench_client.py [--rounds 8] [--rates 1,4] [--same-priority]

Starts the real server, imports the mid-game table (``benchmarks/midgame_6f.json``: six factions,
300 entries, Shipment & Movement), opens two phones on it (Harkonnen and Atreides), and for each
CPU throttle rate (Chrome DevTools ``Emulation.setCPUThrottlingRate``: 4 is what Lighthouse uses
for a mid-range phone) times ``--rounds`` entries of each kind:

- tap -> painted: the Harkonnen phone, throttled, taps a public bribe of 1 spice to the Atreides
  (a form posted by htmx to ``/t/CODE/act`` and answered by the new view, as the page's own forms
  are); from the tap until that phone has swapped the answer and painted it (two animation frames
  after the swap);
- change -> painted: the Atreides phone taps the spice back while the Harkonnen phone, throttled,
  watches; from that tap until the watching phone (its stream's ``changed``, its refetch, its
  swap) has painted the new revision;
- the time each swap of the view takes on the throttled phone, long tasks over 50 ms, requests
  per change on each phone, and the DOM node count of the phone page.

Only the phone being timed is throttled, and the server does not share its CPU: the phones are
not the server's machine, and Chrome's throttle spins while it holds a page back (two throttled
pages idle take ~160% of this machine's two cores, which slowed the server 3-5x when it shared
them). Where the system allows it (POSIX), Chromium runs at a lower priority than the server
(nice 10; ``--same-priority`` shares the CPUs evenly). The throttle's own CPU while the phones
are idle is printed.

The bribe form is added by this script beside the page's own controls (the mid-game table has no
CHOAM, so the page shows no bribe box); it is the page's own kind of form (``hx-post``,
``hx-target="#view"``), so the request, the answer and the swap are the page's.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from conftest import ARGS, CHROMIUM, PHONE, LiveServer  # noqa: E402

WATCH = """
window.__m = {painted: [], swaps: [], arrived: [], swapAt: [], longtasks: 0, gets: 0, posts: 0, tapAt: 0};
document.addEventListener('sse:view', function (e) {  // a view pushed down the stream arrives (refresh.js takes it)
  var m = e.detail && /data-shown-revision="(\\d+)"/.exec(e.detail.data || '');
  if (m) { window.__m.arrived.push({rev: parseInt(m[1], 10), at: __now()}); } }, true);
try { new PerformanceObserver(function (l) { window.__m.longtasks += l.getEntries().length; })
        .observe({type: 'longtask', buffered: true}); } catch (e) {}
function __now() { return performance.timeOrigin + performance.now(); }
document.addEventListener('click', function () { window.__m.tapAt = __now(); }, true);
document.addEventListener('htmx:beforeSend', function (e) {
  if (e.detail.requestConfig.verb === 'get') { window.__m.gets++; } else { window.__m.posts++; } });
document.addEventListener('htmx:beforeSwap', function (e) {
  if (e.detail.target && e.detail.target.id === 'view') { window.__m.swapStart = __now(); } });
document.addEventListener('htmx:afterSwap', function (e) {
  if (!e.detail.target || e.detail.target.id !== 'view') { return; }
  var end = __now();
  window.__m.swaps.push(end - window.__m.swapStart);
  var el = document.querySelector('#view [data-shown-revision]') || document.querySelector('#view .rev');
  var rev = el ? parseInt(el.getAttribute('data-shown-revision') || el.textContent.replace(/\\D/g, ''), 10) : -1;
  requestAnimationFrame(function () { requestAnimationFrame(function () {
    window.__m.painted.push({rev: rev, at: __now()}); }); });
  window.__m.swapAt.push({rev: rev, start: window.__m.swapStart, end: end});
});
"""
FORM = """([code, from, to]) => {
  var old = document.getElementById('bench-bribe'); if (old) { old.remove(); }
  var f = document.createElement('form');
  f.id = 'bench-bribe'; f.setAttribute('hx-post', '/t/' + code + '/act');
  f.setAttribute('hx-target', '#view'); f.setAttribute('hx-swap', 'innerHTML');
  var rev = document.querySelector('#view [data-shown-revision]') || document.querySelector('#view .rev');
  var n = rev.getAttribute('data-shown-revision') || rev.textContent.replace(/\\D/g, '');
  f.innerHTML = '<input type="hidden" name="type" value="bribe"><input type="hidden" name="from" value="' + from + '">' +
    '<input type="hidden" name="to" value="' + to + '"><input type="hidden" name="spice" value="1">' +
    '<input type="hidden" name="revision" value="' + n + '"><button type="submit" id="bench-tap">Bribe</button>';
  f.style.cssText = 'position:fixed;top:40%;left:30%;z-index:99';
  document.body.appendChild(f); htmx.process(f); return parseInt(n, 10);
}"""


STEPS = """rev => { var m = window.__m;
  var a = m.arrived.find(function (x) { return x.rev >= rev; }), s = m.swapAt.find(function (x) { return x.rev >= rev; }),
      p = m.painted.find(function (x) { return x.rev >= rev; });
  return a && s && p ? [a.at, s.start, s.end, p.at] : null; }"""


def med(xs):
    return statistics.median(xs) if xs else float("nan")


def p90(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(0.9 * (len(xs) - 1)))] if xs else float("nan")


def rounds_of(tapper, other, code: str, rounds: int, frm: str, to: str):
    """``rounds`` bribes of 1 spice from ``frm`` to ``to`` tapped on ``tapper`` (``frm``'s phone):
    (tap -> painted, change -> painted on ``other``, the tapper's counters, the other's counters)."""
    for page in (tapper, other):
        page.evaluate("() => { var m = window.__m; m.painted = []; m.swaps = []; m.arrived = []; m.swapAt = []; "
                      "m.longtasks = 0; m.gets = 0; m.posts = 0; }")
    taps, changes, steps = [], [], []
    got = "rev => window.__m.painted.some(function (x) { return x.rev >= rev; })"
    when = "rev => window.__m.painted.find(function (x) { return x.rev >= rev; }).at"
    for _ in range(rounds):
        rev = tapper.evaluate(FORM, [code, frm, to]) + 1
        tapper.locator("#bench-tap").tap()
        tapper.wait_for_function(got, arg=rev, timeout=30_000)
        other.wait_for_function(got, arg=rev, timeout=30_000)
        at = tapper.evaluate("window.__m.tapAt")
        taps.append(tapper.evaluate(when, rev) - at)
        changes.append(other.evaluate(when, rev) - at)
        step = other.evaluate(STEPS, rev)
        if step is not None:  # the other phone's way: tap -> push arrived -> swap began -> swapped -> painted
            steps.append([step[0] - at, step[1] - step[0], step[2] - step[1], step[3] - step[2]])
        tapper.wait_for_timeout(600)  # the tapper's own stream event arrives (and is skipped or not)
    m2 = other.evaluate("window.__m")
    m2["steps"] = steps
    return taps, changes, tapper.evaluate("window.__m"), m2


def yield_to_server() -> str:
    """This process and the Chromium it starts run at a lower priority (nice 10) than the server,
    so the throttle's spinning takes no CPU the server would use; what was done."""
    if not hasattr(os, "nice"):
        return "the server shares Chromium's CPUs at the same priority (this system has no nice)"
    os.nice(10)
    return "Chromium at nice 10, the server at nice 0 (the throttle's spinning yields to the server)"


def chromium_cpu_seconds() -> float:
    """CPU time of every Chromium process so far (Linux /proc; 0 elsewhere)."""
    if not os.path.isdir("/proc"):
        return 0.0
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"chrom" not in os.path.basename(f.read().split(b"\0")[0]):  # the program run
                    continue
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total / os.sysconf("SC_CLK_TCK") if total else 0.0


def throttle(pages: dict, rates: dict) -> None:
    for seat, (_, cdp) in pages.items():
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": rates.get(seat, 1)})


def run(rounds: int, rates: list[float], below_server: bool = True) -> int:
    from playwright.sync_api import sync_playwright
    tmp = Path(tempfile.mkdtemp(prefix="bench-client-"))
    server = LiveServer(tmp / "data").start()
    try:
        print(yield_to_server() if below_server else "--same-priority: the server shares Chromium's CPUs at its priority")
        export = json.loads((ROOT / "benchmarks" / "midgame_6f.json").read_text("utf-8"))
        status, made = server.request("POST", "/api/tables/import", export)
        assert status == 201, made
        code = made["table"]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            pages = {}
            for seat in ("harkonnen", "atreides"):
                ctx = browser.new_context(**PHONE)
                ctx.add_cookies([{"name": f"seat_{code}", "value": made["seats"][seat], "url": server.url}])
                ctx.add_init_script(WATCH)
                page = ctx.new_page()
                page.goto(f"{server.url}/t/{code}")
                page.wait_for_function("() => window.htmx && !document.body.classList.contains('offline')")
                pages[seat] = (page, ctx.new_cdp_session(page))
            tapper, other = pages["harkonnen"][0], pages["atreides"][0]
            page_nodes = tapper.evaluate("document.getElementsByTagName('*').length")
            view_nodes = tapper.evaluate("document.querySelectorAll('#view *').length")
            print(f"mid-game table {code}: the phone page has {page_nodes} DOM elements ({view_nodes} in #view)"
                  f"   target <= 1000")
            for rate in rates:
                throttle(pages, {"harkonnen": rate})
                t0, c0 = time.monotonic(), chromium_cpu_seconds()
                tapper.wait_for_timeout(2000)
                idle = 100 * (chromium_cpu_seconds() - c0) / (time.monotonic() - t0)
                taps, _, m1, _ = rounds_of(tapper, other, code, rounds, "harkonnen", "atreides")
                throttle(pages, {"harkonnen": rate})  # the spice goes back: the Atreides tap, the Harkonnen watch
                _, changes, _, m2 = rounds_of(other, tapper, code, rounds, "atreides", "harkonnen")
                throttle(pages, {})
                print(f"CPU throttle {rate:g}x, {rounds} entries timed with the tapping phone throttled and "
                      f"{rounds} with the other (Chromium idle at {rate:g}x: {idle:.0f}% of one core):")
                print(f"  tap -> painted (tapping phone)      median {med(taps):6.0f} ms  p90 {p90(taps):6.0f} ms"
                      f"   target <= 150 at 4x")
                print(f"  change -> painted (other phone)     median {med(changes):6.0f} ms  p90 {p90(changes):6.0f} ms"
                      f"   target <= 100 at 4x (from the tap: includes the server)")
                if m2["steps"]:
                    st = list(zip(*m2["steps"]))
                    print(f"    of which (medians): tap -> its view pushed to this phone {med(st[0]):.0f} ms, "
                          f"-> swap begins {med(st[1]):.0f} ms, -> swapped {med(st[2]):.0f} ms, -> painted {med(st[3]):.0f} ms")
                print(f"  one swap of #view (throttled phone) median {med(m1['swaps'] + m2['swaps']):6.1f} ms")
                print(f"  requests per entry: tapping phone {m1['posts'] / rounds:.1f} POST + {m1['gets'] / rounds:.1f} GET,"
                      f" other phone {m2['gets'] / rounds:.1f} GET;  long tasks > 50 ms: {m1['longtasks']} + "
                      f"{m2['longtasks']}")
            browser.close()
        try:
            print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        except OSError:
            pass
    finally:
        server.stop()
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--rates", default="1,4", help="CPU throttle rates, comma separated (default 1,4)")
    ap.add_argument("--same-priority", action="store_true", help="Chromium at the server's priority")
    args = ap.parse_args(argv)
    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"needs Debian's chromium at {CHROMIUM}")
    return run(max(1, args.rounds), [float(x) for x in args.rates.split(",") if x.strip()], not args.same_priority)


if __name__ == "__main__":
    raise SystemExit(main())

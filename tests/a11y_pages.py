"""The page states the accessibility checks visit (issue 24), and axe-core over them: used by
tests/test_browser_a11y.py and benchmarks/bench_board_screen.py --axe.

axe-core comes bundled in the pinned ``axe-playwright-python`` test package (axe.min.js inside the wheel):
nothing is fetched at run time. It is injected with Playwright's ``page.evaluate`` (not subject to the
pages' CSP)."""
from __future__ import annotations

from collections import Counter

from board_screen_helpers import Table, put_in, set_up
from conftest import PHONE

SIZES = {"phone": dict(PHONE), "tv": dict(viewport={"width": 1920, "height": 1080})}
IMPACTS = ("critical", "serious", "moderate", "minor")


def axe_run(page) -> list[dict]:
    """axe-core's violations of every rule (all impacts) on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe
    return Axe().run(page).response["violations"]


def count(violations: list[dict]) -> Counter:
    c = Counter()
    for v in violations:
        c[v.get("impact") or "minor"] += len(v["nodes"])
    return c


def describe(violations: list[dict]) -> list[str]:
    return [f"{v['impact']}: {v['id']} ({len(v['nodes'])}) {v['nodes'][0]['target']} {v['nodes'][0]['failureSummary'][:160]}"
            for v in violations]


def sh_table(server) -> dict:
    status, body = server.request("POST", "/api/tables", {"game": "secret-harkonnen",
                                                          "players": ["Ann", "Ben", "Cat", "Dan", "Eve"]})
    assert status == 201, body
    return body


def states(server):
    """(name, url, cookie token or None, a function run on the page first or None): every state to check."""
    t = set_up(server)
    code = t.code
    sh = sh_table(server)
    ann = sh["seats"]["Ann"]
    out = [("start", "/", None, None), ("join", f"/t/{code}/join", None, None),
           ("host", f"/t/{code}/host", t.host, None),
           ("rules", "/rules?q=storm", None, None), ("rule", "/rules/base-storm", None, None),
           ("learn", "/learn", None, None), ("404", "/t/QQQQQ", None, None),
           ("history", f"/t/{code}/history", t.host, None),
           ("sh host", f"/t/{sh['table']}/host", sh["host_token"], None),
           ("sh phone", f"/t/{sh['table']}", ann, None), ("sh board", f"/t/{sh['table']}/board", None, None)]
    return t, out


PHASE_STATES = ["storm", "bidding", "shipment_movement", "battle", "battle revealed"]


def page_for(browser, server, size, code=None, token=None):
    ctx = browser.new_context(**SIZES[size])
    if token:
        ctx.add_cookies([{"name": f"seat_{code}", "value": token, "url": server.url}])
    return ctx, ctx.new_page()


def _check(page, name, found):
    page.wait_for_load_state("networkidle")
    found[name] = (axe_run(page), page.locator("h1").count())


def scan(browser, server, size) -> dict[str, tuple[list[dict], int]]:
    """name -> (axe violations, number of h1) for every page state at one size ("phone" or "tv")."""
    t, pages = states(server)
    found = {}
    for name, url, token, _ in pages:
        code = url.split("/")[2] if url.startswith("/t/") else None
        ctx, page = page_for(browser, server, size, code, token)
        try:
            page.goto(server.url + url)
            _check(page, name, found)
        finally:
            ctx.close()
    for phase in PHASE_STATES:
        put_in(t, phase)
        ctx, page = page_for(browser, server, size, t.code, t.seats["atreides"])
        try:
            page.goto(f"{server.url}/t/{t.code}")
            _check(page, f"phone {phase}", found)
            if phase == "storm":                # a refusal in place: Next phase before the storm moved
                page.locator("#now button.next").click()
                page.wait_for_selector("#sheet #refusal")
                _check(page, "refusal", found)
            if phase == "shipment_movement":    # the map picker open: a tap on my stack in Arrakeen
                piece = page.locator('#view svg.dune-map [data-piece="Arrakeen@9"]')
                for _ in range(3):
                    page.wait_for_function("() => !document.querySelector('svg.dune-map[data-animating]')")
                    piece.dispatch_event("click")
                    page.wait_for_timeout(400)
                    if page.locator("#reach-card").is_visible():
                        break
                assert page.locator("#reach-card").is_visible()
                _check(page, "map picker open", found)
            if phase == "battle":               # the battle plan builder
                if not page.locator("[id^=plan-]").count():
                    page.locator("#battles-now button[data-open-battle]").first.click()
                page.wait_for_selector("[id^=plan-]")
                _check(page, "battle plan builder", found)
            page.goto(f"{server.url}/t/{t.code}/board")
            _check(page, f"board screen {phase}", found)
        finally:
            ctx.close()
    # the board screen with an announcement over it (a storm move, big, for the room)
    ctx, page = page_for(browser, server, size)
    try:
        t.act(type="phase.set", turn=3, phase="storm")
        page.goto(f"{server.url}/t/{t.code}/board")
        page.wait_for_load_state("networkidle")
        t.act(type="storm.move", sectors=2)
        page.wait_for_selector("#announce:not([hidden])")
        _check(page, "board screen announcement", found)
    finally:
        ctx.close()
    return found

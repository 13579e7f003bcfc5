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


def phone_states(t: Table):
    """Phase states of Atreides' phone (the board screen too): put the table in each phase in turn."""
    for phase in PHASE_STATES:
        put_in(t, phase)
        yield phase

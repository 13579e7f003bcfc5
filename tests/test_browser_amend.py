"""Correct the past from a phone (issue 27), in a real browser (headless Debian chromium, 390x844):
the host finds, two phases later, that the storm moved 3 sectors and not 1; from History it
corrects that entry in taps only (under five: Correct…, the chip 3, Confirm), seeing first what
the correction changes; another phone sees the correction live, with a toast naming it."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import BROWSER, PHONE, LiveServer

pytestmark = BROWSER

SHOTS = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))
COUNT_TAPS = "window.__taps = 0; document.addEventListener('click', function () { window.__taps += 1; }, true);"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(tmp_path_factory.mktemp("amend") / "data").start()
    yield srv
    srv.stop()


def api(server, code, token, **entry):
    status, s = server.request("GET", f"/api/tables/{code}/state", token=token)
    status, body = server.request("POST", f"/api/tables/{code}/actions", {**entry, "revision": s["revision"]}, token)
    assert status == 200, body
    return body


def test_the_host_corrects_a_storm_two_phases_back_in_taps_only(server, browser):
    status, t = server.request("POST", "/api/tables", {"factions": ["atreides", "harkonnen"]})
    code, host, seats = t["table"], t["host_token"], t["seats"]
    api(server, code, host, type="phase.set", turn=1, phase="shipment_movement")
    api(server, code, seats["atreides"], type="ship", faction="atreides", to="The Great Flat", forces=3)
    api(server, code, host, type="phase.set", turn=2, phase="storm")
    api(server, code, host, type="storm.set", sector=12)
    storm = api(server, code, host, type="storm.move", sectors=1)["revision"]
    api(server, code, host, type="phase.set", turn=2, phase="spice_blow")
    api(server, code, host, type="phase.set", turn=2, phase="bidding")  # two phases on: the mistake is found

    # Atreides' phone is on the table page
    other = browser.new_context(**PHONE).new_page()
    other.goto(t["join_url"])
    other.tap('button[name="seat"][value="atreides"]')
    other.wait_for_url(re.compile(rf"/t/{code}$"))
    other.wait_for_function("() => !document.body.classList.contains('offline')")

    ctx = browser.new_context(**PHONE)
    ctx.add_cookies([{"name": f"seat_{code}", "value": host, "url": server.url}])
    ctx.add_init_script(COUNT_TAPS)
    page = ctx.new_page()
    page.goto(f"{server.url}/t/{code}/history")
    entry = page.locator(f"#e-{storm}")
    assert "storm moves 1 sectors" in entry.inner_text()

    entry.locator("[data-correct]").tap()                                        # 1
    page.wait_for_url(re.compile(rf"/t/{code}/correct/{storm}$"))
    page.wait_for_selector("#amend-changes")
    page.locator('[data-stepper] button[data-set="3"]').tap()                   # 2
    page.wait_for_function("() => (document.querySelector('#amend-changes') || {}).textContent"
                           " && document.querySelector('#amend-changes').textContent.includes('sector 13 → 15')")
    changes = page.locator("#amend-preview").inner_text()
    assert "The Great Flat: Atreides 3 → 0 forces" in changes
    assert "Atreides in the tanks: 0 → 3" in changes
    page.screenshot(path=str(SHOTS / "amend-preview-phone.png"), full_page=True)
    page.locator("#amend-confirm").tap()                                         # 3
    page.wait_for_url(re.compile(rf"/t/{code}$"))
    taps = page.evaluate("window.__taps")
    assert taps < 5, taps

    status, s = server.request("GET", f"/api/tables/{code}/state", token=host)
    assert s["storm"]["sector"] == 15 and s["phase"] == "bidding"  # nothing else undone
    assert s["factions"]["atreides"]["tanks"]["forces"] == 3

    # every phone: live, with a toast naming the correction
    toast = other.locator("#toast")
    toast.wait_for(state="visible", timeout=10000)
    assert "storm moves 1 sectors → storm moves 3 sectors" in toast.inner_text()
    other.screenshot(path=str(SHOTS / "amend-toast-phone.png"))
    page.goto(f"{server.url}/t/{code}/history")
    struck = page.locator(f"#e-{storm} s.what")
    assert struck.inner_text() == "storm moves 1 sectors"
    assert page.locator(f"#e-{storm} a.tag").get_attribute("href") == f"#e-{s['revision']}"
    page.screenshot(path=str(SHOTS / "amend-history-phone.png"), full_page=True)
    tv = browser.new_context(viewport={"width": 1920, "height": 1080})
    tv.add_cookies([{"name": f"seat_{code}", "value": host, "url": server.url}])
    tvpage = tv.new_page()
    tvpage.goto(f"{server.url}/t/{code}/correct/{storm}")
    tvpage.wait_for_selector("#amend-changes")
    tvpage.screenshot(path=str(SHOTS / "amend-correct-tv.png"))
    for c in (other.context, ctx, tv):
        c.close()

"""Issue 23, point 4, on a phone (390x844, touch): the refusal of a second shipment into the storm
lists both rules an override would waive ("already shipped" and the storm) before the Override tap,
and the history's line says both were waived."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import BROWSER, PHONE, SIX, LiveServer

pytestmark = BROWSER
SHOTS = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(tmp_path_factory.mktemp("browser-waives") / "data").start()
    yield srv
    srv.stop()


def test_the_override_prompt_lists_every_rule_it_waives(server, browser):
    from playwright.sync_api import expect
    status, t = server.request("POST", "/api/tables", {"factions": SIX, "turns": 10, "options": {}})
    code, host = t["table"], t["host_token"]

    def act(**entry):
        entry["revision"] = server.request("GET", f"/api/tables/{code}/state", token=host)[1]["revision"]
        status, body = server.request("POST", f"/api/tables/{code}/actions", entry, host)
        assert status == 200, body

    act(type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    act(type="setup.bg", faction="bg", territory="Polar Sink")
    act(type="phase.set", turn=1, phase="shipment_movement")
    act(type="storm.set", sector=9)
    act(type="ship", faction="emperor", to="Imperial Basin", sector=8, forces=1, override=True, reason="setup")
    page = browser.new_context(**PHONE).new_page()
    page.goto(f"{server.url}/t/{code}/join")
    page.tap('button[name="seat"][value="emperor"]')
    page.wait_for_url(re.compile(rf"/t/{code}$"))
    page.wait_for_function("() => !document.body.classList.contains('offline')")
    page.locator("#enter > summary").tap()
    page.locator("summary", has_text="Ship from reserves (typed)").tap()
    ship = page.locator("#enter form:has(input[name='type'][value='ship'])")
    ship.locator("select[name='to']").select_option("Imperial Basin")
    ship.locator("select[name='sector']").select_option("9")
    ship.locator("input[name='forces']").fill("1")
    ship.locator("button", has_text="Ship").tap()
    refusal = page.locator("#sheet #refusal")
    expect(refusal).to_be_visible()
    waives = refusal.locator("#waives li")
    expect(waives).to_have_count(2)
    expect(waives.nth(0)).to_contain_text("already shipped this turn")
    expect(waives.nth(1)).to_contain_text("The storm is over sector 9")
    override = refusal.locator("button", has_text="Override")
    assert waives.nth(1).bounding_box()["y"] < override.bounding_box()["y"]   # read before the tap
    page.screenshot(path=str(SHOTS / "phone-override-waives.png"))
    page.wait_for_timeout(700)   # (the Override waits a moment after it appears)
    override.tap()
    expect(page.locator("#sheet #refusal")).to_have_count(0)
    status, h = server.request("GET", f"/api/tables/{code}/history", token=host)
    line = h["entries"][-1]["summary"]
    assert "already shipped" in line and "storm is over sector 9" in line, line
    page.context.close()

""""Enter by hand" on a real phone (headless Chromium, 390x844): its forms load when it is opened,
and while it is open another phone's change refreshes the page with the fold still open and whole,
in the one request the change costs (no second fetch of the fold)."""
from __future__ import annotations


import pytest

from conftest import PHONE

pytestmark = pytest.mark.browser


def test_enter_by_hand_loads_when_opened_and_survives_a_live_refresh(live_server, browser):
    from playwright.sync_api import expect

    server = live_server()
    status, made = server.request("POST", "/api/tables", {"factions": ["atreides", "harkonnen"]})
    assert status == 201
    code = made["table"]
    ctx = browser.new_context(**PHONE)
    ctx.add_cookies([{"name": f"seat_{code}", "value": made["seats"]["atreides"], "url": server.url}])
    page = ctx.new_page()
    gets = []
    page.on("request", lambda r: gets.append(r.url) if r.method == "GET" else None)
    page.goto(f"{server.url}/t/{code}")
    page.wait_for_function("() => window.htmx && !document.body.classList.contains('offline')")
    nodes = page.evaluate("document.getElementsByTagName('*').length")
    assert page.locator("#enter form").count() == 0
    page.locator("#enter > summary").tap()
    storm = page.locator("#enter form:has(input[name='type'][value='storm.set'])")
    expect(storm).to_have_count(1)
    assert page.evaluate("document.getElementsByTagName('*').length") > nodes + 100  # the forms came in
    page.locator("#enter summary", has_text="Storm sector").tap()
    assert sum(1 for u in gets if u.endswith(f"/t/{code}/enter")) == 1

    # another phone (the host here) changes the table: one refresh, the fold still open and whole
    gets.clear()
    status, _ = server.request("POST", f"/api/tables/{code}/actions",
                               {"type": "storm.set", "sector": 9, "revision": 0}, token=made["host_token"])
    assert status == 200
    expect(page.locator("#view [data-shown-revision]")).to_have_attribute("data-shown-revision", "1")
    expect(page.locator("#enter")).to_have_attribute("open", "")
    expect(storm).to_have_count(1)
    expect(storm.locator("input[name='revision']")).to_have_value("1")
    expect(page.locator("#enter summary", has_text="Storm sector").locator("xpath=..")).to_have_attribute("open", "")
    page.wait_for_timeout(300)
    assert [u for u in gets if "/enter" in u] == [] and sum(1 for u in gets if u.endswith("/view")) == 1, gets
    ctx.close()

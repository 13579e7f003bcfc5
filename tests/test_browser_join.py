"""Headless-Chromium journeys for issue 11: the host opens the public board screen from the host page,
a phone changes its spice, the board refreshes and never shows a faction's spice; the keep-screen-on
toggle; a failed request is said in place with a Retry that works once the server is back.
Screenshots go to $BROWSER_SHOTS (default /tmp)."""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from conftest import BROWSER, PHONE, LiveServer, shows_number

SHOTS = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))
LAPTOP = dict(viewport={"width": 1280, "height": 800})

pytestmark = BROWSER


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(tmp_path_factory.mktemp("browser-join") / "data").start()
    yield srv
    srv.stop()



def api_act(server, code, token, **entry):
    rev = server.request("GET", f"/api/tables/{code}/state", token=token)[1]["revision"]
    status, body = server.request("POST", f"/api/tables/{code}/actions", {**entry, "revision": rev}, token)
    assert status == 200, body


def test_host_opens_the_board_screen_and_it_never_shows_a_factions_spice(server, browser):
    from playwright.sync_api import expect

    laptop = browser.new_context(**LAPTOP)
    host = laptop.new_page()
    errors: list[str] = []
    host.on("pageerror", lambda e: errors.append(str(e)))
    host.goto(server.url + "/")
    for f in ("atreides", "harkonnen", "fremen"):
        host.check(f'input[name="factions"][value="{f}"]')
    host.click("button:has-text('Create table')")
    host.wait_for_url(re.compile(r"/t/[A-Z0-9]{5}/host$"))
    code = host.url.split("/")[-2]
    expect(host.locator("#table-code")).to_have_text(code)
    expect(host.locator("#join-link")).to_have_value(f"{server.url}/t/{code}/join")
    host_token = next(c["value"] for c in laptop.cookies() if c["name"] == f"seat_{code}")
    secret = {"atreides": 47, "harkonnen": 53, "fremen": 59}
    for f, n in secret.items():
        api_act(server, code, host_token, type="spice.set", faction=f, amount=n)

    # a phone joins: the host's seat list says so without a reload
    phone_ctx = browser.new_context(**PHONE)
    phone = phone_ctx.new_page()
    phone.goto(f"{server.url}/t/{code}/join")
    phone.tap('button[name="seat"][value="atreides"]')
    phone.wait_for_url(re.compile(rf"/t/{code}$"))
    expect(phone.locator("#my-spice")).to_have_text("47")
    expect(host.locator('#seats li[data-seat="atreides"] .seat-state')).to_have_text("● connected", timeout=5000)
    expect(host.locator('#seats li[data-seat="harkonnen"] .seat-state')).to_have_text("free")
    host.screenshot(path=str(SHOTS / "dune-join-host-1280.png"), full_page=True)

    # the host opens the board screen from the host page (the same browser: the host's cookie)
    host.click("#open-board")
    host.wait_for_url(re.compile(rf"/t/{code}/board$"))
    board = host
    top = board.locator(".bs-top")
    expect(top).to_have_attribute("data-revision", "3")
    board.evaluate("window.__noReload = 'still here'")
    board.wait_for_timeout(300)  # let the stream open

    # the phone changes its spice: the board refreshes (new revision) and shows nobody's spice
    t0 = time.monotonic()
    phone.locator("#my-panel button[aria-label='add 1 spice']").tap()
    expect(phone.locator("#my-spice")).to_have_text("48")
    expect(top).to_have_attribute("data-revision", "4", timeout=5000)
    print(f"\nthe board screen refreshed {(time.monotonic() - t0) * 1000:.0f} ms after the phone's tap")
    api_act(server, code, host_token, type="storm.set", sector=9)
    expect(board.locator(".bs-top .storm .sector")).to_have_text("9", timeout=5000)
    assert board.evaluate("window.__noReload") == "still here"  # refreshed in place, not reloaded
    # the table code (it may hold digits) and the CSRF token aside, no number is a faction's spice
    text = board.inner_text("body").replace(code, "CODE")
    html = re.sub(r'\b(d|viewBox|x|y|cx|cy|r|fill|stroke|transform|points|width|height|hx-headers)=(\'[^\']*\'|"[^"]*")',
                  "", board.content()).replace(code, "CODE")
    for n in list(secret.values()) + [48]:
        assert not shows_number(text, n), (n, [ln for ln in text.splitlines() if str(n) in ln])
        m = re.search(rf"(?<![\d.#:-]){n}(?![\d.:])", html)
        assert not m, (n, html[max(0, m.start() - 160):m.end() + 40])
    expect(board.locator("form")).to_have_count(0)
    expect(board.locator(".bs-recent")).to_contain_text("storm set to sector 9")
    board.screenshot(path=str(SHOTS / "dune-join-board-1280.png"))
    assert board.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 1

    # the phone's Board button opens the same public board (and a phone-sized one fits)
    phone.locator("nav.bottom a", has_text="Board").tap()
    phone.wait_for_url(re.compile(rf"/t/{code}/board$"))
    ptext = phone.inner_text("body").replace(code, "CODE")
    assert not shows_number(ptext, 48)  # not even the phone's own spice: the board is public
    phone.screenshot(path=str(SHOTS / "dune-join-board-390.png"), full_page=True)
    assert phone.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 1
    assert errors == []
    laptop.close()
    phone_ctx.close()


NO_WAKE_LOCK = "delete Navigator.prototype.wakeLock;"
NO_WAKE_LOCK_NO_VIDEO = NO_WAKE_LOCK + """
HTMLMediaElement.prototype.play = function () {
  return Promise.reject(new DOMException('play() is not allowed here', 'NotAllowedError')); };
"""
FAKE_WAKE_LOCK = """
window.__wakeRequests = 0;
Object.defineProperty(Navigator.prototype, 'wakeLock', {configurable: true, get() { return {
  request(type) {
    window.__wakeRequests += 1;
    const s = new EventTarget(); s.released = false;
    s.release = () => { s.released = true; s.dispatchEvent(new Event('release')); return Promise.resolve(); };
    window.__wakeSentinel = s;
    return Promise.resolve(s);
  }}; }});
"""


def phone_at_table(server, browser, script: str):
    status, t = server.request("POST", "/api/tables", {"factions": ["fremen", "bg"]})
    assert status == 201
    ctx = browser.new_context(**PHONE)
    ctx.add_init_script(script)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(t["join_url"])
    page.tap('button[name="seat"][value="fremen"]')
    page.wait_for_url(re.compile(rf"/t/{t['table']}$"))
    return ctx, page, errors


def test_keep_screen_on_is_harmless_when_nothing_can_keep_the_screen_on(server, browser):
    from playwright.sync_api import expect

    ctx, page, errors = phone_at_table(server, browser, NO_WAKE_LOCK_NO_VIDEO)
    assert page.evaluate("'wakeLock' in navigator") is False
    toggle = page.locator("#wake-lock")
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-pressed", "false")  # off by default
    box = toggle.bounding_box()
    assert box["height"] >= 40 and box["width"] >= 44, box
    toggle.tap()
    note = page.locator("#wake-note")
    expect(note).to_be_visible()
    expect(note).to_contain_text("could not be kept on")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    expect(page.locator("#my-panel")).to_be_visible()  # the page still works
    page.screenshot(path=str(SHOTS / "dune-join-wake-missing-390.png"))
    note.tap()  # the note goes away when tapped (it also goes by itself)
    expect(note).to_be_hidden()
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 1
    assert errors == []
    ctx.close()


def test_keep_screen_on_without_the_api_plays_a_silent_video(server, browser):
    """Plain-http LAN pages have no Wake Lock API: a muted looping video keeps the screen on."""
    from playwright.sync_api import expect

    ctx, page, errors = phone_at_table(server, browser, NO_WAKE_LOCK)
    toggle = page.locator("#wake-lock")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.tap()
    expect(toggle).to_have_attribute("aria-pressed", "true", timeout=5000)
    toggle.tap()
    expect(toggle).to_have_attribute("aria-pressed", "false")
    assert errors == []
    ctx.close()


def test_keep_screen_on_requests_the_lock_and_again_when_visible(server, browser):
    from playwright.sync_api import expect

    ctx, page, errors = phone_at_table(server, browser, FAKE_WAKE_LOCK)
    toggle = page.locator("#wake-lock")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    assert page.evaluate("window.__wakeRequests") == 0  # off by default: nothing requested
    toggle.tap()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("window.__wakeRequests") == 1
    # the phone locks (the browser releases the lock), then the page is visible again
    page.evaluate("window.__wakeSentinel.release()")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert page.evaluate("window.__wakeRequests") == 2
    toggle.tap()  # off again
    expect(toggle).to_have_attribute("aria-pressed", "false")
    page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")
    assert page.evaluate("window.__wakeRequests") == 2
    assert errors == []
    ctx.close()


def test_a_failed_request_is_said_in_place_with_a_retry(tmp_path, browser):
    from playwright.sync_api import expect

    srv = LiveServer(tmp_path / "data").start()
    try:
        status, t = srv.request("POST", "/api/tables", {"factions": ["fremen", "bg"]})
        code = t["table"]
        ctx = browser.new_context(**PHONE)
        page = ctx.new_page()
        page.goto(t["join_url"])
        page.tap('button[name="seat"][value="bg"]')
        page.wait_for_url(re.compile(rf"/t/{code}$"))
        start = int(page.locator("#my-spice").inner_text())
        srv.stop()  # the laptop's server goes away
        plus = page.locator("#my-panel button[aria-label='add 1 spice']")
        plus.tap()
        notice = page.locator(".req-failed", has_text="No answer")
        expect(notice).to_be_visible(timeout=5000)
        expect(notice).to_contain_text("cannot be reached")
        expect(notice).to_contain_text("recorded once, never twice")
        # in place: right after the block holding the button that made the request, readable (not squeezed)
        assert page.evaluate("""() => { const n = document.querySelector('.req-failed');
            const f = n.previousElementSibling;
            return !!f && !!f.querySelector("button[aria-label='add 1 spice']"); }""")
        assert notice.bounding_box()["width"] >= 300
        page.screenshot(path=str(SHOTS / "dune-join-failed-390.png"))
        retry = notice.locator("button.retry")
        box = retry.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, box
        srv.start()  # back (same port, same data)
        retry.tap()
        expect(page.locator("#my-spice")).to_have_text(str(start + 1), timeout=15000)  # (a cold server's first answer)
        expect(page.locator(".req-failed")).to_have_count(0)
        ctx.close()
    finally:
        srv.stop()

"""axe-core (Deque) over the page states of issue 24 at 390x844 and 1920x1080: 0 violations of any impact.

States: start, join, host, history, rules search and a rule, learn, 404, the Secret Harkonnen host,
phone and board pages; the Atreides phone and the board screen in Storm, Bidding, Shipment, a battle
(with the battle plan builder open) and a revealed battle (its outcome); the map picker open; a
refusal in place. axe-core is bundled in the pinned ``axe-playwright-python`` test package
(tests/a11y_pages.py); nothing is downloaded at run time. Also: every page has one h1, the live region
is a short status line, and the host page keeps keyboard focus when its seat list refreshes."""
from __future__ import annotations

import pytest

from a11y_pages import describe, page_for, scan
from conftest import BROWSER, LiveServer

pytestmark = BROWSER


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(tmp_path_factory.mktemp("a11y") / "data").start()
    yield srv
    srv.stop()


@pytest.mark.parametrize("size", ["phone", "tv"])
def test_no_axe_violations_on_any_page_state(server, browser, size):
    found = scan(browser, server, size)
    assert len(found) >= 22, sorted(found)
    bad = {k: (describe(v), h1) for k, (v, h1) in found.items() if v or h1 < 1}
    assert not bad, "\n".join(f"{k}: h1={h1} " + "; ".join(v) for k, (v, h1) in bad.items())


def test_the_host_page_keeps_keyboard_focus_when_the_seat_list_refreshes(server, browser):
    from playwright.sync_api import expect
    from board_screen_helpers import Table
    t = Table(server)
    ctx, host = page_for(browser, server, "tv", t.code, t.host)
    phones = []

    def join(seat):
        pctx, phone = page_for(browser, server, "phone")
        phones.append(pctx)
        phone.goto(f"{server.url}/t/{t.code}/join")
        phone.tap(f'button[name="seat"][value="{seat}"]')
        expect(host.locator(f'#seats li[data-seat="{seat}"] .seat-state')).to_have_text("● connected", timeout=8000)

    try:
        host.goto(f"{server.url}/t/{t.code}/host")
        host.wait_for_load_state("networkidle")
        join("harkonnen")
        host.focus("#reissue-harkonnen")
        # another phone joins: the seat list refreshes under the host's keyboard focus
        join("fremen")
        host.wait_for_timeout(300)
        assert host.evaluate("document.activeElement && document.activeElement.id") == "reissue-harkonnen"
        host.keyboard.press("Tab")    # and the keyboard goes on from there, to the next seat's button
        assert host.evaluate("document.activeElement && document.activeElement.id") == "reissue-fremen"
    finally:
        ctx.close()
        for p in phones:
            p.close()

"""One request per change on a phone (issue 30): the page refreshes one element on the stream's
``changed`` event, the view answer carries the proposals out of band, and the phone that tapped
does not fetch again the revision its own answer brought. A phone's stream asks for its view
(``?parts=view``): another seat's change comes down the stream as the view itself, so it costs
the phone no request at all."""
from __future__ import annotations

import re

from conftest import BROWSER, PHONE, SIX, LiveServer, act, create_table, join_seat

LISTENS = re.compile(r'<[a-z]+\b[^>]*hx-trigger="[^"]*sse:changed[^"]*"[^>]*>')
HX = {"HX-Request": "true", "HX-Target": "view"}


def phase(client, t, name, turn=1):
    act(client, t.code, t.host, type="phase.set", turn=turn, phase=name)


def test_the_page_refreshes_one_element_per_change(app, client):
    t = create_table(client, SIX)
    page = join_seat(app, t.code, "atreides").get(f"/t/{t.code}").get_data(as_text=True)
    listeners = LISTENS.findall(page)
    assert len(listeners) == 1 and 'id="view"' in listeners[0], listeners
    assert re.search(r'<div id="proposals">', page)  # refreshed with the view, never on its own


def test_the_view_answer_carries_each_seats_proposals_out_of_band(app, client):
    t = create_table(client, SIX)
    phase(client, t, "spice_blow")
    act(client, t.code, t.host, type="nexus.open", override=True, reason="a Shai-Hulud came (the test skips the spice cards)")
    act(client, t.code, t.seats["atreides"], type="consent.request", faction="atreides",
        entry={"type": "alliance.form", "factions": ["atreides", "emperor"]})
    phones = {seat: join_seat(app, t.code, seat) for seat in ("atreides", "emperor", "fremen")}
    parts = {}
    for seat, phone in phones.items():
        html = phone.get(f"/t/{t.code}/view", headers=HX).get_data(as_text=True)
        m = re.search(r'<div id="proposals" hx-swap-oob="true">(.*?)</div>\s*$', html, re.S)
        assert m, f"{seat}: no out-of-band proposals in the view answer"
        parts[seat] = m.group(1)
        assert 'data-shown-revision="' in html
    assert "Waiting for <b>Emperor</b>" in parts["atreides"]
    assert "ask you" in parts["emperor"] and "Agree" in parts["emperor"]
    assert "Proposals" not in parts["fremen"]  # not theirs: not shown to them
    # a plain (non-htmx) fetch of the fragment has no out-of-band part to leave lying around
    assert "hx-swap-oob" not in phones["emperor"].get(f"/t/{t.code}/view").get_data(as_text=True)


# -- in the browser: count the requests each phone makes -----------------------------------------

COUNT = """
window.__gets = []; window.__posts = []; window.__pushes = [];
document.addEventListener('htmx:sseMessage', function (e) {
  if (e.detail && e.detail.type === 'view') window.__pushes.push(parseInt(e.detail.lastEventId, 10));
});
document.addEventListener('htmx:beforeSend', function (e) {
  var c = e.detail.requestConfig; (c.verb === 'get' ? window.__gets : window.__posts).push(c.path);
});
"""


def _phone(browser, server, code, seat, join_url):
    ctx = browser.new_context(**PHONE)
    ctx.add_init_script(COUNT)
    page = ctx.new_page()
    page.goto(join_url)
    page.tap(f'button[name="seat"][value="{seat}"]')
    page.wait_for_url(re.compile(rf"/t/{code}$"))
    page.wait_for_function("() => !document.body.classList.contains('offline')")
    return page


def _shows(page, rev):
    page.wait_for_function("rev => document.querySelector('#view [data-shown-revision]')"
                           ".getAttribute('data-shown-revision') == rev", arg=rev, timeout=15_000)


@BROWSER[0]
@BROWSER[1]
def test_another_seats_change_costs_a_phone_no_request_and_the_tapper_one_post(browser, tmp_path):
    server = LiveServer(tmp_path / "data").start()
    try:
        status, body = server.request("POST", "/api/tables", {"factions": SIX})
        code, host, seats = body["table"], body["host_token"], body["seats"]

        def entry(token, **e):
            e["revision"] = server.request("GET", f"/api/tables/{code}/state", token=host)[1]["revision"]
            status, answer = server.request("POST", f"/api/tables/{code}/actions", e, token)
            assert status == 200, answer
            return answer["revision"]

        entry(host, type="phase.set", turn=1, phase="spice_blow")
        entry(host, type="nexus.open", override=True, reason="a Shai-Hulud came (the test skips the spice cards)")
        rev = entry(seats["atreides"], type="consent.request", faction="atreides",  # before it joins
                    entry={"type": "alliance.form", "factions": ["atreides", "emperor"]})
        atreides = _phone(browser, server, code, "atreides", body["join_url"])
        emperor = _phone(browser, server, code, "emperor", body["join_url"])
        for p in (atreides, emperor):
            _shows(p, rev)
            p.evaluate("() => { window.__gets.length = 0; window.__posts.length = 0; window.__pushes.length = 0; }")
        # another seat's change: each phone's view comes down its stream (no request), and the
        # proposals come with it
        rev = entry(host, type="spice.add", faction="emperor", amount=1)
        for p in (atreides, emperor):
            _shows(p, rev)
        emperor.locator("#proposals").get_by_text("Agree").wait_for()
        assert "Waiting for" in atreides.locator("#proposals").inner_text()
        emperor.wait_for_timeout(500)  # anything else the page would fetch has been sent by now
        for p in (atreides, emperor):
            assert p.evaluate("window.__gets") == []
            assert p.evaluate("window.__pushes") == [rev]
            p.evaluate("() => { window.__pushes.length = 0; }")
        # the Emperor taps Agree: its answer is the new view; its stream only announces the same
        # revision (no push of its own change) and it fetches nothing more; the other phone is
        # pushed the new view once
        emperor.locator("#proposals").get_by_text("Agree").tap()
        _shows(emperor, rev + 1)
        _shows(atreides, rev + 1)
        emperor.wait_for_timeout(800)
        assert emperor.evaluate("window.__posts") == [f"/t/{code}/act"]
        assert emperor.evaluate("window.__gets") == []
        assert emperor.evaluate("window.__pushes") == []
        assert atreides.evaluate("window.__gets") == []
        assert atreides.evaluate("window.__pushes") == [rev + 1]
        assert "Proposals" not in emperor.locator("#proposals").inner_text()
        assert "Proposals" not in atreides.locator("#proposals").inner_text()
    finally:
        server.stop()

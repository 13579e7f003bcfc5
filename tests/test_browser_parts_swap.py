"""Another phone's change swaps only the parts of this phone's view that changed (static/parts.js;
real headless Chromium, 390x844): the parts the answer says are the same are never taken out of
the page (no flicker, nothing laid out again, the map keeps its zoom), the changed ones are
replaced alone, or only their changed lines (a few levels down) when the rest is the same, and work (a tap on them lands), and an answer whose parts differ from the page's
(a banner appears) is swapped whole, as before, after which part-by-part swaps resume."""
from __future__ import annotations

import pytest

from conftest import seat_phone

pytestmark = pytest.mark.browser

WATCH_REMOVALS = """() => {
  window.__removed = [];
  new MutationObserver(function (records) {
    records.forEach(function (r) {
      Array.prototype.forEach.call(r.removedNodes, function (n) { if (n.nodeType === 1) { window.__removed.push(n.id || n.tagName); } });
    });
  }).observe(document.getElementById('view'), {childList: true});
  ['board', 'now', 'my-panel'].forEach(function (id) { document.getElementById(id).__mark = id; });
}"""
MARKS = "() => ['board', 'now', 'my-panel'].map(function (id) { var e = document.getElementById(id); return e && e.__mark || null; })"


def test_a_change_swaps_only_the_parts_that_changed(live_server, browser):
    from playwright.sync_api import expect

    server = live_server()
    made, ctx, page = seat_phone(browser, server, ["atreides", "harkonnen"])
    code, host = made["table"], made["host_token"]
    page.goto(f"{server.url}/t/{code}")
    page.wait_for_function("() => window.htmx && !document.body.classList.contains('offline')")
    shown = page.locator("#view [data-shown-revision]")

    def change(**entry):
        rev = server.request("GET", f"/api/tables/{code}/state", token=host)[1]["revision"]
        assert server.request("POST", f"/api/tables/{code}/actions", {**entry, "revision": rev}, token=host)[0] == 200
        expect(shown).to_have_attribute("data-shown-revision", str(rev + 1))
        return rev + 1

    page.evaluate(WATCH_REMOVALS)
    rev = change(type="spice.set", faction="harkonnen", amount=7)  # nothing of this seat's own changed
    assert page.evaluate(MARKS) == ["board", "now", "my-panel"]  # the same elements, never taken out
    removed = page.evaluate("window.__removed")
    assert "board" not in removed and "now" not in removed and "my-panel" not in removed, removed
    assert "view-bar" in removed  # the bottom bar (revision, undo) did change: replaced alone
    assert page.locator("#view [data-same]").count() == 0
    revs = page.locator("#view input[name='revision']").evaluate_all("els => els.map(e => e.value)")
    assert revs and set(revs) == {str(rev)}, revs  # every form, kept or new, is on the table's revision

    etag_before = page.locator("#my-panel").get_attribute("data-etag")
    # this seat's own spice changes: in its panel the spice figure alone is replaced (the panel is
    # patched down to it; the row of stats and the steppers beside it stay), and a tap lands
    page.evaluate("""() => { window.__removed = [];
      document.querySelector('#my-panel h2').__mark = 'title';
      document.querySelector('#my-spice').__mark = 'spice';
      document.querySelector('#my-panel .stat-row').__mark = 'stats'; }""")
    rev = change(type="spice.set", faction="atreides", amount=4)
    expect(page.locator("#my-spice")).to_have_text("4")
    assert page.evaluate(MARKS) == ["board", "now", "my-panel"]
    assert page.evaluate("() => document.querySelector('#my-panel h2').__mark") == "title"  # unchanged: stayed
    assert page.evaluate("() => document.querySelector('#my-panel .stat-row').__mark") == "stats"  # patched inside
    assert page.evaluate("() => document.querySelector('#my-spice').__mark") is None  # changed: the new figure
    assert page.locator("#my-panel").get_attribute("data-etag") != etag_before  # the page shows the new panel
    page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
    page.locator("#my-panel button[aria-label='add 1 spice']").tap()
    expect(page.locator("#my-spice")).to_have_text("5")
    expect(shown).to_have_attribute("data-shown-revision", str(rev + 1))
    assert server.request("GET", f"/api/tables/{code}/state", token=host)[1]["factions"]["atreides"]["spice"] == 5

    # a banner appears: the parts are not the same row any more, so the view is swapped whole
    page.evaluate(WATCH_REMOVALS)
    change(type="rule.show", rule="storm", title="The storm")
    expect(page.locator("#banner")).to_contain_text("The storm")
    assert "board" in page.evaluate("window.__removed")  # the whole view was swapped...
    assert page.evaluate(MARKS)[0] == "board"  # ...and app.js put the kept board back in place
    assert page.locator("#view [data-same]").count() == 0
    expect(page.locator("#board svg").first).to_be_visible()
    # and the next change is part by part again
    page.evaluate(WATCH_REMOVALS)
    page.evaluate("() => { document.getElementById('banner').__mark = 'banner'; }")
    change(type="spice.set", faction="harkonnen", amount=9)
    assert page.evaluate(MARKS) == ["board", "now", "my-panel"]
    expect(page.locator("#banner")).to_contain_text("The storm")
    # the banner (text beside a link: not patched line by line) is the same: it stayed in the page
    assert page.evaluate("() => document.getElementById('banner').__mark") == "banner"
    assert "banner" not in page.evaluate("window.__removed")
    ctx.close()


def test_the_proposals_part_stays_when_it_is_the_same_and_changes_when_a_proposal_comes(live_server, browser):
    """The proposals come with every answer for the view (out of band): the same proposals stay in
    the page (their forms take the new revision, so an answer lands), a new one replaces them; a
    changed line with nothing to tap (another faction's spice) is put in as it is, and the lines
    with buttons are still htmx's (a tap on them lands)."""
    from playwright.sync_api import expect

    from table_helpers import NEXUS

    server = live_server()
    made, ctx, page = seat_phone(browser, server, ["atreides", "emperor", "harkonnen"], seat="emperor")
    code, host, seats = made["table"], made["host_token"], made["seats"]
    shown = page.locator("#view [data-shown-revision]")

    def entry(token, **e):
        rev = server.request("GET", f"/api/tables/{code}/state", token=host)[1]["revision"]
        status, body = server.request("POST", f"/api/tables/{code}/actions", {**e, "revision": rev}, token=token)
        assert status == 200, body
        return rev + 1

    entry(host, type="phase.set", turn=1, phase="spice_blow")
    entry(host, **NEXUS)
    page.goto(f"{server.url}/t/{code}")
    page.wait_for_function("() => window.htmx && !document.body.classList.contains('offline')")
    page.evaluate("() => { document.getElementById('proposals').__mark = 'empty'; }")
    rev = entry(host, type="spice.set", faction="harkonnen", amount=6)
    expect(shown).to_have_attribute("data-shown-revision", str(rev))
    assert page.evaluate("() => document.getElementById('proposals').__mark") == "empty"  # the same: stayed

    rev = entry(seats["atreides"], type="consent.request", faction="atreides",
                entry={"type": "alliance.form", "factions": ["atreides", "emperor"]})
    proposal = page.locator("#proposals .proposal")
    expect(proposal).to_have_count(1)  # a proposal came: the part was replaced
    page.evaluate("() => { document.getElementById('proposals').__mark = 'one'; }")
    rev = entry(host, type="spice.set", faction="harkonnen", amount=8)
    expect(shown).to_have_attribute("data-shown-revision", str(rev))
    assert page.evaluate("() => document.getElementById('proposals').__mark") == "one"  # the same: stayed
    revs = page.locator("#proposals input[name='revision']").evaluate_all("els => els.map(e => e.value)")
    assert revs and set(revs) == {str(rev)}, revs  # ...on the table's revision

    # this seat's spice changes: the revision line (text only) is put in as it is, without htmx's
    # swap; the spice line (with its buttons) stays, only its figure (text only) put in
    page.evaluate("""() => { document.querySelector('#view .rev').__mark = 'old';
      document.querySelector('#my-panel .stat-row').__mark = 'stats';
      window.__swapped = []; document.addEventListener('htmx:afterSwap', function (e) {
        var t = e.target; window.__swapped.push(t && t.outerHTML ? t.outerHTML.slice(0, 90) : ''); }); }""")
    rev = entry(host, type="spice.set", faction="emperor", amount=5)
    expect(shown).to_have_attribute("data-shown-revision", str(rev))
    expect(page.locator("#my-spice")).to_have_text("5")
    assert page.evaluate("() => document.querySelector('#view .rev').__mark") is None  # a new line...
    swapped = page.evaluate("window.__swapped")
    assert not [h for h in swapped if 'data-shown-revision' in h.split('>')[0]], swapped  # ...not swapped by htmx
    assert not any('class="stat-row' in h for h in swapped), swapped  # the spice line is not swapped...
    assert page.evaluate("() => document.querySelector('#my-panel .stat-row').__mark") == "stats"  # ...it stayed
    page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
    page.locator("#my-panel button[aria-label='pay 1 spice']").tap()  # and its kept buttons are htmx's
    expect(page.locator("#my-spice")).to_have_text("4")
    rev += 1
    expect(shown).to_have_attribute("data-shown-revision", str(rev))

    page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
    page.locator("#proposals .proposal button", has_text="Agree").first.tap()
    expect(page.locator("#proposals .proposal")).to_have_count(0)
    state = server.request("GET", f"/api/tables/{code}/state", token=host)[1]
    assert state["alliances"] == {"atreides": "emperor", "emperor": "atreides"}
    ctx.close()


def test_a_form_patched_field_by_field_carries_the_new_revision_and_its_tap_lands(live_server, browser):
    """The Next-phase form changes only the steps it says are still open: the form is patched in
    place, its hidden revision field (kept, as its markup is the same but for the revision) takes
    the table's new revision, so a tap on it is judged on the phase, never refused as stale."""
    from playwright.sync_api import expect

    server = live_server()
    made, ctx, page = seat_phone(browser, server, ["atreides", "harkonnen"])
    code, host = made["table"], made["host_token"]

    def act(**entry):
        rev = server.request("GET", f"/api/tables/{code}/state", token=host)[1]["revision"]
        status, body = server.request("POST", f"/api/tables/{code}/actions", {**entry, "revision": rev}, token=host)
        assert status == 200, body
        return rev + 1

    act(type="phase.set", turn=2, phase="spice_blow")
    page.goto(f"{server.url}/t/{code}")
    page.wait_for_function("() => window.htmx && !document.body.classList.contains('offline')")
    shown = page.locator("#view [data-shown-revision]")
    form = page.locator("#now form", has=page.locator("input[name='type'][value='phase.next']"))
    expect(form.locator("button.next")).to_have_class("next not-ready")
    form.evaluate("f => { f.__mark = 'form'; f.querySelector(\"input[name='revision']\").__mark = 'rev'; }")
    still_open = form.locator("small").inner_text()
    rev = act(type="spice.blow", pile="B", card="The Great Flat")
    expect(shown).to_have_attribute("data-shown-revision", str(rev))
    marks = form.evaluate("f => [f.__mark || null, f.querySelector(\"input[name='revision']\").__mark || null,"
                          " f.querySelector(\"input[name='revision']\").value]")
    assert marks == ["form", "rev", str(rev)], marks  # the same form and field, on the new revision
    assert form.locator("small").inner_text() != still_open  # what is still open did change
    revs = page.locator("#view input[name='revision']").evaluate_all("els => els.map(e => e.value)")
    assert revs and set(revs) == {str(rev)}, revs
    page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
    form.locator("button.next").tap()
    refusal = page.locator("#refusal p").first
    expect(refusal).to_be_visible()
    assert "changed while you were typing" not in refusal.inner_text()  # judged on the phase: steps open
    ctx.close()

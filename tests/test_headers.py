"""Headers (issue 12 item 8): nosniff, a Content-Security-Policy the pages satisfy, no framing,
a referrer policy; CSRF tokens bound to the seat credential."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import SIX, bearer, create_table, csrf, join_seat, state

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def seated(app, client):
    t = create_table(client, SIX)
    return t, join_seat(app, t.code, "atreides"), join_seat(app, t.code, "fremen")


def csp_of(r) -> dict[str, str]:
    return {d.split()[0]: d.partition(" ")[2] for d in (x.strip() for x in r.headers["Content-Security-Policy"].split(";"))
            if d}


def test_every_kind_of_answer_carries_the_headers(app, client, seated):
    t, phone, _ = seated
    laptop = app.test_client()
    laptop.set_cookie(f"seat_{t.code}", t.host)
    answers = {
        "start page": client.get("/"),
        "join page": client.get(f"/t/{t.code}/join"),
        "phone page": phone.get(f"/t/{t.code}"),
        "fragment": phone.get(f"/t/{t.code}/view"),
        "proposals fragment": phone.get(f"/t/{t.code}/proposals"),
        "host page": laptop.get(f"/t/{t.code}/host"),
        "rules page": client.get("/rules"),
        "API state": client.get(f"/api/tables/{t.code}/state", headers=bearer(t.host)),
        "API error": client.get(f"/api/tables/{t.code}/state"),
        "API board": client.get("/api/board"),
        "static file": client.get("/static/app.js"),
        "not found": client.get("/no/such/page"),
    }
    for name, r in answers.items():
        assert r.headers.get("X-Content-Type-Options") == "nosniff", name
        csp = csp_of(r)
        assert csp["script-src"] == "'self'", name
        assert csp["frame-ancestors"] == "'none'", name
        assert csp["style-src"] == "'self' 'unsafe-inline'" and csp["img-src"] == "'self' data:", name
        assert r.headers.get("X-Frame-Options") == "DENY", name
        assert r.headers.get("Referrer-Policy") == "same-origin", name
        # nothing rides in Flask's signed session cookie (seats and CSRF have their own cookies)
        assert not any(c.startswith("session=") for c in r.headers.getlist("Set-Cookie")), name


def test_the_app_keeps_no_flask_session(app):
    from flask import session
    with app.test_request_context("/"):
        assert dict(session) == {}
        with pytest.raises(RuntimeError):
            session["seat"] = "atreides"  # a write to it is refused, never silently dropped


def test_templates_have_no_inline_script_or_handler():
    """The pages satisfy the CSP: scripts only from files (script-src 'self')."""
    for path in (ROOT / "templates").rglob("*.html"):
        text = path.read_text()
        for m in re.finditer(r"<script\b[^>]*>", text):
            assert "src=" in m.group(0), f"inline <script> in {path.name}"
        assert not re.search(r"\son[a-z]+\s*=", text), f"inline event handler in {path.name}"
        assert "hx-on" not in text, f"hx-on (evaluated inline script) in {path.name}"
        assert "javascript:" not in text, path.name


def test_the_rule_page_push_button_works_without_inline_script(app, client, seated):
    t, phone, _ = seated
    html = phone.get(f"/rules/base-storm?table={t.code}").get_data(as_text=True)
    assert 'data-done-text="Shown to the table' in html and "/static/rule.js" in html
    token = re.search(r'name="csrf_token" value="([^"]+)"', html).group(1)
    assert phone.post(f"/t/{t.code}/show-rule", data={"rule": "base-storm", "csrf_token": token}).status_code == 204


# -- CSRF bound to the credential ---------------------------------------------------------------------

def test_a_csrf_token_from_one_seat_is_refused_for_another(app, client, seated):
    t, atreides, fremen = seated
    atreides_token = re.search(r'"X-CSRF-Token": "([^"]+)"', atreides.get(f"/t/{t.code}").get_data(as_text=True)).group(1)
    fremen_token = re.search(r'"X-CSRF-Token": "([^"]+)"', fremen.get(f"/t/{t.code}").get_data(as_text=True)).group(1)
    assert atreides_token != fremen_token
    entry = {"type": "storm.set", "sector": "7", "revision": "0"}
    assert fremen.post(f"/t/{t.code}/act", data=entry, headers={"X-CSRF-Token": atreides_token}).status_code == 403
    r = fremen.post(f"/api/tables/{t.code}/actions", json={"type": "storm.set", "sector": 7, "revision": 0},
                    headers={"X-CSRF-Token": atreides_token})
    assert r.status_code == 403
    assert state(client, t.code, t.host)["revision"] == 0
    r = fremen.post(f"/t/{t.code}/act", data=entry, headers={"X-CSRF-Token": fremen_token})
    assert r.status_code == 200 and state(client, t.code, t.host)["storm"]["sector"] == 7


def test_a_planted_csrf_cookie_does_not_make_a_token(app, client, seated):
    """Double-submit with a cookie the attacker chose no longer works: the token is derived from the
    seat credential with the server's secret."""
    t, phone, _ = seated
    phone.set_cookie("csrf", "chosen-by-attacker")
    r = phone.post(f"/t/{t.code}/act", data={"type": "storm.set", "sector": "7", "revision": "0"},
                   headers={"X-CSRF-Token": "chosen-by-attacker"})
    assert r.status_code == 403


def test_a_reissued_seat_token_changes_the_csrf_token(app, client, seated):
    t, phone, _ = seated
    before = csrf(phone)
    r = client.post(f"/api/tables/{t.code}/seats/atreides/reissue", headers=bearer(t.host))
    phone.set_cookie(f"seat_{t.code}", r.get_json()["seat_token"])
    assert csrf(phone) != before
    r = phone.post(f"/t/{t.code}/act", data={"type": "storm.set", "sector": "7", "revision": "0"},
                   headers={"X-CSRF-Token": before})
    assert r.status_code == 403


def test_csrf_tokens_survive_a_restart(tmp_path):
    from companion import create_app
    data = tmp_path / "data"
    first = create_app({"DATA_DIR": str(data), "TESTING": True})
    second = create_app({"DATA_DIR": str(data), "TESTING": True})
    assert first.config["SECRET_KEY"] == second.config["SECRET_KEY"]
    assert (data / "secret-key").stat().st_mode & 0o077 == 0


def test_bearer_api_writes_need_no_csrf(client, seated):
    t, _, _ = seated
    r = client.post(f"/api/tables/{t.code}/actions", json={"type": "storm.set", "sector": 2, "revision": 0},
                    headers=bearer(t.seats["guild"]))  # a seat no phone has taken yet
    assert r.status_code == 200


# -- in a real browser: the pages work under the policy -------------------------------------------------

@pytest.mark.browser
@pytest.mark.skipif(not Path("/usr/bin/chromium").exists(), reason="Debian chromium is not installed")
def test_phones_work_under_the_csp_in_chromium(tmp_path, browser):
    """Two phones (390x844): no CSP violation in the console, htmx and the live stream work, an
    alliance is proposed on one phone and agreed on the other, the rule page's button reacts."""
    import os

    from playwright.sync_api import expect

    from conftest import PHONE, LiveServer
    shots = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))
    server = LiveServer(tmp_path / "data").start()
    try:
        status, body = server.request("POST", "/api/tables", {"factions": ["atreides", "emperor", "fremen"]})
        assert status == 201
        code, host = body["table"], body["host_token"]
        assert server.request("POST", f"/api/tables/{code}/actions",
                              {"type": "phase.set", "turn": 1, "phase": "spice_blow", "revision": 0}, host)[0] == 200
        assert server.request("POST", f"/api/tables/{code}/actions",  # alliances change only in a Nexus
                              {"type": "nexus.open", "override": True, "reason": "a worm", "revision": 1}, host)[0] == 200
        violations: list[str] = []
        pages = {}
        for f in ("atreides", "emperor"):
            ctx = browser.new_context(**PHONE)
            ctx.add_init_script("window.__csp = []; document.addEventListener('securitypolicyviolation',"
                                " function (e) { window.__csp.push(e.violatedDirective + ' ' + e.blockedURI); });")
            page = ctx.new_page()
            page.on("console", lambda m, f=f: violations.append(f"{f}: {m.text}")
                    if "Content Security Policy" in m.text or "Content-Security-Policy" in m.text else None)
            page.on("pageerror", lambda e, f=f: violations.append(f"{f} page error: {e}"))
            page.goto(f"{server.url}/t/{code}/join")
            page.tap(f'button[name="seat"][value="{f}"]')
            page.wait_for_url(re.compile(rf"/t/{code}$"))
            pages[f] = page
        a, e = pages["atreides"], pages["emperor"]
        # htmx posts the form and swaps the fragment; the proposal shows on both phones (live stream)
        a.locator("#enter > summary").click()  # corrections and rare entries sit under "Enter by hand"
        a.locator("summary:has-text('Alliances')").click()
        a.select_option('select[name="factions"]', "emperor")
        a.locator("button:has-text('Form alliance')").click()
        expect(a.locator("#proposals")).to_contain_text("Waiting for Emperor", timeout=20_000)
        expect(e.locator("#proposals")).to_contain_text("Atreides ask you", timeout=20_000)
        e.screenshot(path=str(shots / "dune-proposal-emperor.png"))
        e.locator("#proposals button:has-text('Agree')").click()
        expect(e.locator("#my-panel")).to_contain_text("Allied with Atreides", timeout=20_000)
        expect(a.locator("#my-panel")).to_contain_text("Allied with Emperor", timeout=20_000)
        expect(a.locator("#proposals")).not_to_contain_text("Waiting", timeout=20_000)
        # the rule page's button (its script moved out of an hx-on attribute)
        a.goto(f"{server.url}/rules/base-storm?table={code}")
        a.locator("button:has-text('Show to table')").click()
        expect(a.locator("form.push button")).to_have_text("Shown to the table ✓", timeout=20_000)
        for f, page in pages.items():
            violations.extend(f"{f}: {v}" for v in page.evaluate("window.__csp"))
        assert violations == []
        for page in pages.values():
            page.context.close()
    finally:
        server.stop()

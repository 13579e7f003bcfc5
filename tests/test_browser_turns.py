"""Two full turns of a six-faction KISS table, played along on phones in headless Chromium, and the
board screen for the big display (issues 3 and 4).

The laptop creates the table on the start page (it holds the host cookie); three phones (Fremen,
Atreides, Bene Gesserit) join through the join page and drive every step by tapping the real buttons
and forms: setup, the turn-1 storm dials, the storm and spice-blow previews, charity, a purchase, a
revival, a refused shipment and its override, a two-tap move from the reach list, collection, the
Mentat Pause and turn 2 with the Fremen storm card recorded privately and revealed. The host token is
used through the JSON API only for one setup shortcut (a stack the storm will hit). Nothing is computed
by the test: it checks the numbers the phones show.

The board screen (a 1280x800 "Board view" seat) shows the status, the schematic SVG with the storm's
sector highlighted and the territory table, follows a phone's change live, and never shows the spice
behind any shield.

Screenshots go to $BROWSER_SHOTS (default /tmp); with DUNE_SHOT_CHUNKS=1 the full-page phone shots are
also cut into screen-sized pieces, easier to look at.

Chromium is launched as in test_browser.py: Debian's /usr/bin/chromium through Playwright for Python,
never a downloaded browser.
"""
from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from conftest import BROWSER, PHONE, SIX, LiveServer, shows_number

BOARD_SCREEN = dict(viewport={"width": 1280, "height": 800})
SHOTS = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))
NAMES = {"atreides": "Atreides", "harkonnen": "Harkonnen", "fremen": "Fremen", "emperor": "Emperor",
         "guild": "Spacing Guild", "bg": "Bene Gesserit"}

pytestmark = BROWSER


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(tmp_path_factory.mktemp("browser-turns") / "data").start()
    yield srv
    srv.stop()


@pytest.fixture()
def patience():
    """A little more time than Playwright's 5 s default for each expectation (a loaded CI box);
    reset afterwards so that other browser tests keep theirs."""
    from playwright.sync_api import expect
    expect.set_options(timeout=10_000)
    yield
    expect.set_options(timeout=5_000)


# -- helpers --------------------------------------------------------------------------------------

class Table:
    """The live table as the test reaches it: the API (host token, setup shortcuts only) and the pages."""

    def __init__(self, server: LiveServer, code: str, host_token: str):
        self.server, self.code, self.host = server, code, host_token
        self.phones: dict = {}

    def state(self) -> dict:
        status, body = self.server.request("GET", f"/api/tables/{self.code}/state", token=self.host)
        assert status == 200, body
        return body

    def act(self, **entry) -> dict:
        """An entry through the JSON API with the host token (conftest's ``act``, over HTTP)."""
        entry.setdefault("revision", self.state()["revision"])
        status, body = self.server.request("POST", f"/api/tables/{self.code}/actions", entry, self.host)
        assert status == 200, body
        return body

    def settle(self, *pages) -> int:
        """Wait until every page (all of them by default) has had the live message of the table's
        latest revision and finished fetching its view, so that nothing typed next is wiped by a
        late refresh and no form carries an old revision."""
        rev = self.state()["revision"]
        for page in pages or self.phones.values():
            page.wait_for_function(SETTLED, arg=rev)
        return rev

    # every tap and every field goes through these: first let the live updates settle
    def tap(self, locator, request: bool = True) -> None:
        """Tap, then (unless the tap only opens something on the page) wait for the htmx request it
        sends to be answered and swapped in."""
        self.settle()
        page = locator.page
        # a person's next tap comes after the double-tap guard of the last answer (static/idempotency.js):
        # a tap on the same spot within 0.5 s of a swap is taken for a double tap and dropped
        page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
        before = page.evaluate("window.__xhrs.size")
        locator.tap()
        if request:
            page.wait_for_function(REQUESTED, arg=before)

    def fill(self, locator, value: str) -> None:
        self.settle()
        locator.fill(value)

    def select(self, locator, value: str) -> None:
        self.settle()
        locator.select_option(value)


# Installed in every page: the latest revision the event stream announced, and the requests htmx
# actually sent (a refresh that app.js holds back while the player types is never sent).
WATCH = """
window.__sseRev = -1; window.__xhrs = new Set();
document.addEventListener('htmx:sseMessage', function (e) {
  // event: changed carries the revision as its data; event: view (a pushed view) as its id
  var d = e.detail || {}, n = parseInt(d.type === 'view' ? d.lastEventId : d.data, 10);
  if (!isNaN(n)) window.__sseRev = Math.max(window.__sseRev, n);
});
document.addEventListener('htmx:beforeSend', function (e) { window.__xhrs.add(e.detail.xhr); });
"""
REQUESTED = """n => window.__xhrs.size > n && [...window.__xhrs].every(x => x.readyState === 4)"""
SETTLED = """rev => {
  // the stream announces changes made after the page was rendered (the page asks ?since=its revision)
  const v = document.getElementById('view');
  if (window.__sseRev < rev && !(v && v.dataset.revision && parseInt(v.dataset.revision, 10) >= rev)) return false;
  for (const x of window.__xhrs) { if (x.readyState !== 4) return false; }
  const r = document.querySelector('#view nav.bottom .rev');
  return !r || r.textContent.trim() === 'rev ' + rev;
}"""


def join(browser, url: str, seat: str, context_options: dict = PHONE):
    """A new browser context that opens the join page and takes a seat (taps it on a phone)."""
    context = browser.new_context(**context_options)
    context.add_init_script(WATCH)
    page = context.new_page()
    page.goto(url)
    button = page.locator(f'button[name="seat"][value="{seat}"]')
    button.tap() if context_options.get("has_touch") else button.click()
    return page


def entry_form(page, entry_type: str):
    return page.locator(f"form:has(input[name='type'][value='{entry_type}'])")


def shot(page, name: str, full: bool = False, at=None) -> None:
    """A screenshot for a person to look at; ``at``: a locator to scroll into view first."""
    if at is not None:  # to the middle of the screen, clear of the bottom bar
        at.evaluate("e => e.scrollIntoView({block: 'center'})")
    page.screenshot(path=str(SHOTS / f"dune-turns-{name}.png"), full_page=full)
    if os.environ.get("DUNE_SHOT_CHUNKS") and full:
        height = page.evaluate("document.documentElement.scrollHeight")
        for i, y in enumerate(range(0, height, 844)):
            page.screenshot(path=str(SHOTS / f"dune-turns-{name}-{i}.png"), full_page=True,
                            clip={"x": 0, "y": y, "width": 390, "height": min(844, height - y)})


def phase_line(page):
    return page.locator("#view .status .turn")


# -- the journey ----------------------------------------------------------------------------------

def test_two_full_turns_on_phones(server, browser, patience):
    from playwright.sync_api import expect
    t_start = time.monotonic()

    # -- the laptop creates the table on the start page ------------------------------------------------
    laptop = browser.new_context(viewport={"width": 1280, "height": 900})
    laptop.add_init_script(WATCH)
    host = laptop.new_page()
    host.goto(server.url + "/")
    for f in SIX:
        host.check(f'input[name="factions"][value="{f}"]')
    host.click("button:has-text('Create table')")
    host.wait_for_url(re.compile(r"/t/[A-Z0-9]{5}/host$"))
    code = host.url.rstrip("/").split("/")[-2]
    host_token = next(c["value"] for c in laptop.cookies() if c["name"] == f"seat_{code}")
    table = Table(server, code, host_token)
    join_url = f"{server.url}/t/{code}/join"

    # -- three phones join through the join page --------------------------------------------------------
    for f in ("fremen", "atreides", "bg"):
        page = join(browser, join_url, f)
        page.wait_for_url(re.compile(rf"/t/{code}$"))
        expect(page.locator("#my-panel h2")).to_contain_text(NAMES[f])
        page.wait_for_function("() => !document.body.classList.contains('offline')")
        page.evaluate("window.__noReload = 'still here'")
        table.phones[f] = page
    fremen, atreides, bg = (table.phones[f] for f in ("fremen", "atreides", "bg"))
    # the laptop plays along as host, on the table page (every faction's spice in one table)
    host.goto(f"{server.url}/t/{code}")
    host.wait_for_function("() => !document.body.classList.contains('offline')")
    table.phones["host"] = host
    host_row = lambda f: host.locator(f"#view table.grid tr.f-{f}")  # noqa: E731

    # -- setup: the Fremen split their 10 forces, then the Bene Gesserit place theirs -----------------------
    for page in (fremen, atreides, bg):
        expect(page.locator("#now .waiting .chip")).to_contain_text(
            ["Fremen", "Bene Gesserit"])
    placing = ".setup form:not(.traitor-pick):not(.prediction)"   # (each faction's own traitor/prediction card aside)
    expect(atreides.locator(placing)).to_have_count(0)           # not Atreides' choice
    expect(bg.locator(placing)).to_have_count(0)                 # Bene Gesserit place after the Fremen
    split = entry_form(fremen, "setup.fremen")
    table.fill(split.locator("input[name='placements-0-forces']"), "6")  # Sietch Tabr
    table.fill(split.locator("input[name='placements-1-forces']"), "4")  # False Wall South
    table.tap(split.locator(".radio-chip", has_text="East · 4"), request=False)
    table.tap(split.locator("button[type='submit']"))
    expect(fremen.locator("#my-panel .stack[data-territory='Sietch Tabr']")).to_contain_text("6")
    expect(fremen.locator("#my-panel .stack[data-territory='False Wall South']")).to_contain_text("4")
    place = entry_form(bg, "setup.bg")
    expect(place).to_be_visible()                                 # BG's phone updated on its own
    expect(place.locator("select")).to_have_count(0)               # a button per place, not a select
    table.tap(place.locator("button.place[data-piece='Polar Sink']"))
    for page in (fremen, atreides, bg):
        expect(page.locator(".setup")).to_have_count(0)
    # setup shortcut (host token, API): two Atreides forces out in The Minor Erg, where the storm will pass
    table.act(type="forces.place", faction="atreides", territory="The Minor Erg", sector=5, forces=2,
              **{"from": "reserves"})

    # -- turn 1, Storm: the two dialers shown on the page dial on their own phones ------------------------
    table.settle()
    for page in (fremen, atreides, bg):
        expect(phase_line(page)).to_have_text("Turn 1/10 · Storm")
        expect(page.locator(".status .storm .sector")).to_have_text("18")
    dialling = fremen.locator(".phase-box p", has_text="Dialling")
    expect(dialling).to_contain_text("Atreides")
    expect(dialling).to_contain_text("Bene Gesserit")
    expect(entry_form(fremen, "storm.dial")).to_have_count(0)      # the Fremen do not dial on turn 1
    for page, dial in ((atreides, "4"), (bg, "3")):
        form = entry_form(page, "storm.dial")
        table.fill(form.locator("input[name='dial']"), dial)
        table.tap(form.locator("button", has_text="Enter my dial"))
        expect(page.locator("#refusal")).to_have_count(0)
    expect(fremen.locator(".phase-box p", has_text="Dialling")).to_contain_text("Atreides ✓")
    # the preview is on another phone before anyone applies it
    preview = fremen.locator("#storm-preview")
    expect(preview).to_contain_text("moves 7 sectors, 18 → 7")
    expect(preview).to_contain_text("The Minor Erg@5: Atreides −2")
    expect(atreides.locator("#storm-preview")).to_contain_text("Atreides −2")
    expect(fremen.locator(".status .storm .sector")).to_have_text("18")   # nothing applied yet
    shot(fremen, "storm-preview", at=preview)
    table.tap(fremen.locator("button", has_text="Apply storm: move 7"))
    for page in (fremen, atreides, bg):
        expect(page.locator(".status .storm .sector")).to_have_text("7")
    expect(atreides.locator("#my-panel .stat", has_text="Tanks")).to_contain_text("2")
    expect(atreides.locator("#my-panel .stack[data-territory='The Minor Erg']")).to_have_count(0)

    def next_phase(page, name: str, turn: int = 1, refused: str | None = None):
        """Tap "Next phase"; with ``refused``, the phase has an open step: the refusal names it and
        the phase it would go to, and the table overrides it with one tap."""
        table.tap(page.locator("button", has_text="Next phase"))
        if refused:
            refusal = page.locator("#refusal p").first
            expect(refusal).to_contain_text(refused)
            expect(refusal).to_contain_text(f"before {name}")
            expect(phase_line(page)).not_to_have_text(f"Turn {turn}/10 · {name}")
            table.tap(page.locator("#refusal button", has_text="Override"))
        for p in (fremen, atreides, bg):
            expect(phase_line(p)).to_have_text(f"Turn {turn}/10 · {name}")

    # -- Spice Blow & Nexus: a card on each pile, each previewed first --------------------------------------
    next_phase(atreides, "Spice Blow & Nexus")
    blow = entry_form(bg, "spice.blow")
    expect(bg.locator(".phase-box")).to_contain_text("Deck: 20 cards left")
    blow = bg.locator("#now")
    table.tap(blow.locator(".blow-card", has_text="Old Gap"))           # only cards still in the deck
    expect(blow.locator(".blow-preview")).to_contain_text("6 spice in Old Gap")
    expect(blow.locator(".blow-preview")).to_contain_text("smuggler token goes to False Wall West")
    shot(bg, "blow-preview", at=blow)
    table.tap(blow.locator("button", has_text="Apply Old Gap on pile A"))
    expect(fremen.locator("#board tr", has_text="Old Gap")).to_contain_text("6")
    expect(blow.locator("#blow-pile")).to_have_text("B")                  # the pile is remembered
    expect(blow.locator(".blow-card", has_text="Old Gap")).to_have_count(0)  # drawn: no longer offered
    table.tap(blow.locator(".blow-card", has_text="Broken Land"))
    expect(blow.locator(".blow-preview")).to_contain_text("8 spice in Broken Land")
    table.tap(blow.locator("button", has_text="Apply Broken Land on pile B"))
    expect(atreides.locator("#board tr", has_text="Broken Land")).to_contain_text("8")
    expect(atreides.locator(".phase-box")).to_contain_text("Deck: 18 cards left")

    # -- CHOAM Charity: the Fremen pay down to 1 spice on their stepper, then claim ---------------------------
    next_phase(fremen, "CHOAM Charity")
    expect(fremen.locator("#my-spice")).to_have_text("3")
    expect(fremen.locator(".phase-box")).to_contain_text("No charity for you this turn.")
    expect(bg.locator(".phase-box")).to_contain_text("No charity for you this turn.")  # not on turn 1 (KISS)
    for left in ("2", "1"):
        table.tap(fremen.locator("#my-panel button[aria-label='pay 1 spice']"))
        expect(fremen.locator("#my-spice")).to_have_text(left)
    claim = fremen.locator(".phase-box button", has_text="Claim 1 spice")
    table.tap(claim)
    expect(fremen.locator("#my-spice")).to_have_text("2")
    expect(fremen.locator(".phase-box button", has_text="Claim")).to_have_count(0)

    # -- Bidding: Atreides buy a card for 2, paid to the Emperor ----------------------------------------------
    next_phase(atreides, "Bidding")
    expect(atreides.locator("#my-panel .stat", has_text="Cards")).to_contain_text("1/4")   # dealt at setup
    buy = entry_form(atreides, "bid.buy")
    table.fill(buy.locator("input[name='price']"), "2")
    table.tap(buy.locator("button", has_text="Bought a card"))
    expect(atreides.locator("#my-spice")).to_have_text("8")
    expect(atreides.locator("#my-panel .stat", has_text="Cards")).to_contain_text("2/4")
    expect(host_row("emperor").locator("td").nth(1)).to_have_text("12")   # the laptop, live
    expect(host_row("atreides").locator("td").nth(1)).to_have_text("8")

    # -- Revival: Atreides bring back the two the storm killed, free ------------------------------------------
    next_phase(bg, "Revival", refused="5 of 6 cards still up for auction")
    revive = entry_form(atreides, "revive")
    table.fill(revive.locator("input[name='forces']"), "2")
    table.tap(revive.locator("button", has_text="Revive"))
    expect(atreides.locator("#my-panel .stat", has_text="Tanks")).to_contain_text("0")
    expect(atreides.locator("#my-panel .stat", has_text="Reserves")).to_contain_text("10")
    expect(atreides.locator("#my-spice")).to_have_text("8")

    # -- Shipment & Movement: a shipment into the storm is refused with its rule, then overridden -------------
    next_phase(atreides, "Shipment & Movement")
    # a shipment the legal list does not offer (into the storm) is typed under "Enter by hand"
    table.tap(bg.locator("#enter > summary"), request=False)
    table.tap(bg.locator("summary", has_text="Ship from reserves (typed)"), request=False)
    ship = bg.locator("#enter form:has(input[name='type'][value='ship'])")
    expect(ship).to_be_visible()
    table.select(ship.locator("select[name='to']"), "The Minor Erg")
    table.select(ship.locator("select[name='sector']"), "7")
    table.fill(ship.locator("input[name='forces']"), "1")
    table.tap(ship.locator("button", has_text="Ship"))
    refusal = bg.locator("#refusal")
    expect(refusal.locator("p").first).to_contain_text(
        "The storm is over sector 7: no forces can be shipped into The Minor Erg")
    rule_link = refusal.locator("a.rule-link")
    expect(rule_link).to_have_attribute("href", re.compile(r"^/rules/[a-z0-9-]+\?table=" + code))
    refusal_text = refusal.locator("p").first.inner_text()
    rule_page = bg.context.new_page()          # the rule link opens a real rules entry
    response = rule_page.goto(server.url + rule_link.get_attribute("href"))
    assert response.status == 200
    expect(rule_page.locator("h1")).not_to_be_empty()
    rule_page.close()
    shot(bg, "refusal", at=refusal)
    table.tap(refusal.locator("button", has_text="Override"))
    expect(bg.locator("#refusal")).to_have_count(0)
    expect(bg.locator("#my-panel .stack[data-territory='The Minor Erg']")).to_contain_text("1")
    expect(bg.locator("#my-spice")).to_have_text("3")
    expect(fremen.locator("#board tr", has_text="The Minor Erg")).to_contain_text("Bene Gesserit 1")
    # storm order from sector 7: Emperor, (Guild when it wishes), Bene Gesserit, Atreides...
    table.act(type="turn.done", faction="bg")
    table.act(type="turn.done", faction="emperor")

    # the Arrakeen stack picked on the phase card, then "Old Gap · 9" from its legal destinations
    table.tap(atreides.locator("#now .stack-pick[data-piece^='Arrakeen']"))
    dest = atreides.locator("#reach .reachable[data-territory='Old Gap']")
    expect(dest.locator("button")).to_have_count(3)                     # Old Gap spans sectors 8-10
    table.tap(atreides.locator("#reach button.n", has_text="2"), request=False)
    shot(atreides, "reach", at=dest)
    table.tap(dest.locator("button[data-piece='Old Gap@9']"))
    expect(atreides.locator("#my-panel .stack[data-territory='Old Gap']")).to_contain_text("2")
    expect(atreides.locator("#my-panel .stack[data-territory='Arrakeen']")).to_contain_text("8")
    expect(bg.locator("#board tr", has_text="Old Gap")).to_contain_text("Atreides 2")

    next_phase(fremen, "Battle", refused="Spacing Guild, Harkonnen and Fremen still to ship and move")

    # -- Spice Collection: previewed on every phone, applied with one tap ---------------------------------------
    next_phase(fremen, "Spice Collection")
    for page in (fremen, atreides, bg):
        expect(page.locator(".phase-box li", has_text="Old Gap")).to_have_text("Atreides +6 collection from Old Gap")
    expect(fremen.locator(".phase-box li", has_text="Arrakeen")).to_have_text("Atreides +2 stronghold from Arrakeen")
    expect(fremen.locator(".phase-box li", has_text="Carthag")).to_have_text("Harkonnen +2 stronghold from Carthag")
    shot(fremen, "collection-preview", at=fremen.locator(".phase-box"))
    expect(atreides.locator("#my-spice")).to_have_text("8")
    table.tap(bg.locator("button", has_text="Apply collection"))
    expect(atreides.locator("#my-spice")).to_have_text("16")
    expect(atreides.locator("#board tr", has_text="Old Gap").locator("b.spice")).to_have_count(0)  # all taken

    # -- Mentat Pause; the Fremen draw next turn's storm card, privately ------------------------------------------
    next_phase(atreides, "Mentat Pause")
    expect(fremen.locator(".phase-box")).to_contain_text("No winner yet")
    table.tap(fremen.locator("#my-panel details.secrets > summary"), request=False)
    table.tap(fremen.locator("#my-panel form.card-buttons button[value='3']"))
    expect(fremen.locator("#my-panel .secrets")).to_contain_text("Storm card for next turn: 3")
    table.settle()
    for page in (atreides, bg):
        assert "Storm card for next turn" not in page.content()

    # -- turn 2: the Fremen reveal the card; the storm kills the Atreides in Old Gap -----------------------------
    next_phase(fremen, "Storm", turn=2)
    expect(entry_form(atreides, "storm.dial")).to_have_count(0)
    expect(atreides.locator("button", has_text="Reveal the Fremen storm card")).to_have_count(0)
    expect(atreides.locator(".phase-box")).to_contain_text("Waiting for the Fremen to reveal the storm card")
    table.tap(fremen.locator("button", has_text="Reveal the Fremen storm card"))
    preview = atreides.locator("#storm-preview")
    expect(preview).to_contain_text("moves 3 sectors, 7 → 10")
    expect(preview).to_contain_text("Old Gap@9: Atreides −2")
    table.tap(atreides.locator("button", has_text="Apply storm: move 3"))
    for page in (fremen, atreides, bg):
        expect(page.locator(".status .storm .sector")).to_have_text("10")
    expect(atreides.locator("#my-panel .stat", has_text="Tanks")).to_contain_text("2")
    expect(fremen.locator("#my-panel .secrets")).to_contain_text("Storm card for next turn: —")

    # a worm on pile B eats the Broken Land spice (previewed), then a territory card
    next_phase(bg, "Spice Blow & Nexus", turn=2)
    blow = bg.locator("#now")
    table.tap(blow.locator(".pile-choice > summary"), request=False)
    table.tap(blow.locator(".pile-choice button", has_text="Shai-Hulud"))
    expect(blow.locator(".blow-preview")).to_contain_text("Shai-Hulud devours in Broken Land")
    expect(blow.locator(".blow-preview")).to_contain_text("−8 spice")
    table.tap(blow.locator("button", has_text="Apply Shai-Hulud on pile B"))
    expect(fremen.locator("#board tr", has_text="Broken Land")).to_have_count(0)
    expect(fremen.locator(".banner", has_text="Nexus")).to_be_visible()
    expect(blow.locator(".pile-choice")).to_have_attribute("open", "")   # kept open across the refresh
    table.tap(blow.locator(".pile-choice button", has_text="The Great Flat"))
    expect(blow.locator(".blow-preview")).to_contain_text("10 spice in The Great Flat")
    table.tap(blow.locator("button", has_text="Apply The Great Flat on pile B"))
    expect(atreides.locator("#board tr", has_text="The Great Flat")).to_contain_text("10")

    next_phase(atreides, "CHOAM Charity", turn=2, refused="No card turned on pile A yet; the Nexus is open")
    expect(fremen.locator(".phase-box")).to_contain_text("No charity for you this turn.")   # 2 spice
    expect(bg.locator("#my-spice")).to_have_text("3")
    table.tap(bg.locator(".phase-box button", has_text="Claim 2 spice"))                    # from turn 2
    expect(bg.locator("#my-spice")).to_have_text("5")

    next_phase(bg, "Bidding", turn=2)
    next_phase(bg, "Revival", turn=2, refused="6 of 6 cards still up for auction")
    revive = entry_form(atreides, "revive")
    table.fill(revive.locator("input[name='forces']"), "2")
    table.tap(revive.locator("button", has_text="Revive"))
    expect(atreides.locator("#my-panel .stat", has_text="Tanks")).to_contain_text("0")
    expect(atreides.locator("#my-spice")).to_have_text("16")
    expect(atreides.locator("#board tr", has_text="Old Gap").locator("b.spice")).to_have_count(0)  # all taken

    next_phase(fremen, "Shipment & Movement", turn=2)
    next_phase(fremen, "Battle", turn=2, refused="still to ship and move")
    next_phase(fremen, "Spice Collection", turn=2)
    expect(bg.locator(".phase-box li", has_text="Arrakeen")).to_have_text("Atreides +2 stronghold from Arrakeen")
    table.tap(fremen.locator("button", has_text="Apply collection"))
    expect(atreides.locator("#my-spice")).to_have_text("18")
    next_phase(fremen, "Mentat Pause", turn=2)
    expect(bg.locator(".phase-box")).to_contain_text("No winner yet")
    next_phase(atreides, "Storm", turn=3)
    # no card recorded for turn 3 yet: the Fremen phone asks for it (one tap per card) instead of offering a reveal
    expect(fremen.locator("#now")).to_contain_text("Which storm card did you draw?")
    expect(fremen.locator("#now form.card-buttons button.num")).to_have_text(["2", "3", "4", "5", "6"])
    expect(fremen.locator("button", has_text="Reveal the Fremen storm card")).to_have_count(0)

    # -- the history tells what happened, and no phone ever reloaded ------------------------------------------------
    for page in (fremen, atreides, bg):
        assert page.evaluate("window.__noReload") == "still here"
    history = fremen.context.new_page()
    history.goto(f"{server.url}/t/{code}/history")
    entries = history.locator("ol.history")
    for text in ("Fremen place their 10 starting forces", "Atreides: private entry",      # the dials stay secret
                 "Bene Gesserit: private entry", "storm moves 7 sectors",
                 "spice blow A: Old Gap", "Fremen claims CHOAM charity", "Atreides buys a card for 2",
                 "Atreides revives 2 forces", "Bene Gesserit ships 1 force to The Minor Erg",
                 "Atreides moves 2 from Arrakeen to Old Gap",
                 "spice collected", "Fremen draw next turn's storm card", "Fremen reveal the storm card",
                 "storm moves 3 sectors", "spice blow B: Shai-Hulud"):
        expect(entries).to_contain_text(text)
    shipped = entries.locator("li.override", has_text="ships 1 force to The Minor Erg")
    expect(shipped).to_contain_text("waived: The storm is over sector 7")
    skipped = entries.locator("li.override", has_text="next phase: Bidding → Revival").last
    expect(skipped).to_contain_text("[OVERRIDE: Table ruling — waived: 5 of 6 cards still up for auction")
    history.close()

    elapsed = time.monotonic() - t_start
    print(f"\ntwo full turns on three phones in {elapsed:.1f} s; refusal shown: {refusal_text!r}")
    for f, page in table.phones.items():
        if f != "host":
            page.evaluate("window.scrollTo(0, 0)")
            shot(page, f"phone-{f}")
            shot(page, f"phone-{f}-full", full=True)
            overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            assert overflow <= 1, f"{f}: the page is {overflow}px wider than the phone"
    for page in list(table.phones.values()):
        page.context.close()


# -- the board screen ---------------------------------------------------------------------------------

def test_board_screen_shows_the_board_and_follows_the_phones(server, browser, patience):
    from playwright.sync_api import expect

    status, body = server.request("POST", "/api/tables", {"factions": SIX})
    assert status == 201, body
    code = body["table"]
    table = Table(server, code, body["host_token"])
    # setup shortcuts (host token): the starting choices, spice on the board, and spice behind every
    # shield set to numbers that appear nowhere else, so that the board page can be searched for them
    table.act(type="setup.fremen", faction="fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    table.act(type="setup.bg", faction="bg", territory="Polar Sink")
    table.act(type="board.spice", territory="The Great Flat", amount=10)
    secret = dict(zip(SIX, (37, 41, 53, 59, 61, 67)))
    for f, n in secret.items():
        table.act(type="spice.set", faction=f, amount=n)

    board = join(browser, body["join_url"], "board", BOARD_SCREEN)
    board.wait_for_url(re.compile(rf"/t/{code}/board$"))
    board.wait_for_function("() => !document.body.classList.contains('offline')")
    board.evaluate("window.__noReload = 'still here'")
    atreides = join(browser, body["join_url"], "atreides")
    atreides.wait_for_url(re.compile(rf"/t/{code}$"))
    table.phones = {"board": board, "atreides": atreides}
    table.settle()

    # status: turn, phase, storm
    expect(board.locator(".status .turn")).to_have_text("Turn 1/10 · Storm")
    expect(board.locator(".status .storm .sector")).to_have_text("18")
    expect(board.locator(".status .order .chip")).to_have_count(6)
    # the map of Arrakis: every territory-sector piece, the storm's sector shaded
    svg = board.locator("svg.dune-map")
    expect(svg).to_be_visible()
    expect(svg).to_have_attribute("aria-label", "Map of Arrakis, storm over sector 18")
    expect(svg.locator("path[data-piece]")).to_have_count(86)
    stormed = svg.locator("path.in-storm").evaluate_all("ps => ps.map(p => p.dataset.piece)")
    assert stormed and all(p.endswith("@18") for p in stormed), stormed
    expect(svg.locator("path.storm")).to_have_count(1)
    box = svg.bounding_box()
    assert box["width"] >= 400 and box["height"] >= 400, box   # readable across the room
    # the territory table: every stack and the spice on the board
    rows = board.locator("#board table.board-table tbody tr")
    expect(rows.filter(has_text="Arrakeen")).to_contain_text("Atreides 10")
    expect(rows.filter(has_text="Carthag")).to_contain_text("Harkonnen 10")
    expect(rows.filter(has_text="Tuek's Sietch")).to_contain_text("Spacing Guild 5")
    expect(rows.filter(has_text="Sietch Tabr")).to_contain_text("Fremen 10")
    expect(rows.filter(has_text="Polar Sink")).to_contain_text("Bene Gesserit 1")
    expect(rows.filter(has_text="The Great Flat").locator(".spice")).to_have_text("10")
    # the board view can only watch: no entry forms, no faction's private panel
    expect(board.locator("form[hx-post]")).to_have_count(0)
    expect(board.locator("#my-panel")).to_have_count(0)
    board.screenshot(path=str(SHOTS / "dune-turns-board.png"), full_page=True)

    # a phone changes the storm: the board follows without a reload
    table.tap(atreides.locator("#enter > summary"), request=False)
    table.tap(atreides.locator("summary", has_text="Storm sector"), request=False)
    storm_form = entry_form(atreides, "storm.set")
    table.fill(storm_form.locator("input[name='sector']"), "5")
    table.tap(storm_form.locator("button", has_text="Set storm"))
    expect(board.locator(".status .storm .sector")).to_have_text("5")
    expect(svg).to_have_attribute("aria-label", "Map of Arrakis, storm over sector 5")
    expect(board.locator('svg.dune-map path.in-storm[data-piece="Red Chasm@6"]')).to_have_count(0)
    expect(board.locator('svg.dune-map path.in-storm[data-piece="South Mesa@5"]')).to_have_count(1)
    expect(board.locator('svg.dune-map path.in-storm[data-piece="Meridian@18"]')).to_have_count(0)
    # ... and the phase: setting the storm is a correction, not its move, so the phone overrides
    table.tap(atreides.locator("button", has_text="Next phase"))
    expect(atreides.locator("#refusal p").first).to_contain_text("The storm has not moved yet")
    table.tap(atreides.locator("#refusal button", has_text="Override"))
    expect(board.locator(".status .turn")).to_have_text("Turn 1/10 · Spice Blow & Nexus")
    assert board.evaluate("window.__noReload") == "still here"
    board.screenshot(path=str(SHOTS / "dune-turns-board-after.png"), full_page=True)

    # never any spice behind a shield: none of the six amounts appears anywhere on the page
    table.settle()
    text = board.inner_text("body")
    # the view's markup too (attributes included), less the SVG's coordinates and colours
    html = re.sub(r'\b(d|viewBox|x|y|cx|cy|r|fill|stroke)="[^"]*"', "", board.locator("#view").inner_html())
    for f, n in secret.items():
        assert not shows_number(text, n), (f, n, text)
        m = re.search(rf"(?<![\d.#:-]){n}(?![\d.:])", html)
        assert not m, (f, n, html[max(0, m.start() - 120):m.end() + 40])
    # while the Atreides phone does show its own
    expect(atreides.locator("#my-spice")).to_have_text(str(secret["atreides"]))
    for page in (board, atreides):
        page.context.close()

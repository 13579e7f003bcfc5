"""The phone leads the turn (issue 10): browser journeys on 390x844 phones (headless Debian chromium).

- a whole turn driven only by taps on the phase card (#now), its legal-choice buttons and the map;
- a refusal seen in place, the values entered kept, the override beside it, and no scroll jump;
- typing in a field while another phone makes changes: the value and the focus stay;
- "Next phase" refused with the missing step named, then overridden;
- the map picker on a 390 px screen: a stack picked on the map lights its legal destinations.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import BROWSER, PHONE, LiveServer

pytestmark = BROWSER

SHOTS = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))
WATCH = """
window.__xhrs = new Set(); window.__pieceTaps = [];
document.addEventListener('htmx:beforeSend', function (e) { window.__xhrs.add(e.detail.xhr); });
document.addEventListener('piece-tap', function (e) { window.__pieceTaps.push(e.detail.piece); });
"""
IDLE = "() => [...window.__xhrs].every(x => x.readyState === 4)"
FOUR = ["atreides", "harkonnen", "fremen", "bg"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(tmp_path_factory.mktemp("phone") / "data").start()
    yield srv
    srv.stop()


class Game:
    def __init__(self, server, browser, factions=FOUR):
        self.server = server
        status, body = server.request("POST", "/api/tables", {"factions": factions})
        assert status == 201, body
        self.code, self.host, self.join_url = body["table"], body["host_token"], body["join_url"]
        self.phones = {}
        self.browser = browser

    def join(self, seat: str):
        ctx = self.browser.new_context(**PHONE)
        ctx.add_init_script(WATCH)
        page = ctx.new_page()
        page.goto(self.join_url)
        page.tap(f'button[name="seat"][value="{seat}"]')
        page.wait_for_url(re.compile(rf"/t/{self.code}$"))
        page.wait_for_function("() => !document.body.classList.contains('offline')")
        self.phones[seat] = page
        return page

    def state(self) -> dict:
        return self.server.request("GET", f"/api/tables/{self.code}/state", token=self.host)[1]

    def setup_done(self):
        """The Fremen and the Bene Gesserit have placed their starting forces (the host enters it)."""
        self.act(type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
        self.act(type="setup.bg", faction="bg", territory="Polar Sink")

    def battle_in_arrakeen(self):
        """Harkonnen 3 and Atreides 15 in Arrakeen, in turn 1's Battle phase, the phones current."""
        self.setup_done()
        self.act(type="forces.place", faction="harkonnen", territory="Arrakeen", forces=3)
        self.act(type="forces.place", faction="atreides", territory="Arrakeen", forces=5)   # 15 there
        self.act(type="phase.set", turn=1, phase="battle")
        self.settle()

    def act(self, **entry):
        entry["revision"] = self.state()["revision"]
        status, body = self.server.request("POST", f"/api/tables/{self.code}/actions", entry, self.host)
        assert status == 200, body

    def settle(self):
        """Every phone shows the latest revision and has no request in flight."""
        rev = self.state()["revision"]
        for page in self.phones.values():
            page.wait_for_function(
                "rev => " + IDLE[6:] + " && document.querySelector('#view nav.bottom .rev').textContent.trim() === 'rev ' + rev",
                arg=rev)

    def tap(self, locator, request: bool = True):
        """A player's tap (the control in the middle of the screen first, as a thumb would have it)."""
        self.settle()
        page = locator.page
        # a person's next tap comes after the double-tap guard of the last answer (static/idempotency.js)
        page.wait_for_function("() => !window.__tapGuardUntil || Date.now() > window.__tapGuardUntil")
        locator.evaluate("e => e.scrollIntoView({block: 'center'})")
        n = page.evaluate("window.__xhrs.size")
        locator.tap()
        if request:
            page.wait_for_function("n => window.__xhrs.size > n", arg=n)
            page.wait_for_function(IDLE)

    def tap_piece(self, page, piece: str):
        """Tap a piece on the map (a small piece first zooms in on a narrow phone, then it is tapped)."""
        target = page.locator(f'#view svg.dune-map [data-piece="{piece}"]')
        before = page.evaluate("window.__pieceTaps.length")
        for _ in range(3):
            target.evaluate("e => e.scrollIntoView({block: 'center'})")
            page.wait_for_function("() => !document.querySelector('svg.dune-map[data-animating]')")
            box = target.bounding_box()
            page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.wait_for_timeout(350)
            if page.evaluate("window.__pieceTaps.length") > before:
                break
        assert page.evaluate("window.__pieceTaps.length") > before, f"the map never reported a tap on {piece}"
        page.wait_for_function(IDLE)

    def next_phase(self, page, name: str):
        from playwright.sync_api import expect
        self.tap(page.locator("#now button.next"))
        refusal = page.locator("#sheet #refusal")
        if refusal.count():
            self.tap(refusal.locator("button", has_text="Override"))
        expect(page.locator("#now .status .turn")).to_contain_text(name)

    def close(self):
        for page in self.phones.values():
            page.context.close()


def test_a_whole_turn_by_taps_on_the_phase_card_and_the_map(server, browser):
    from playwright.sync_api import expect
    g = Game(server, browser)
    A, H, F, BG = (g.join(f) for f in FOUR)
    typed = []
    for page in g.phones.values():  # every key pressed anywhere on a phone is counted: there must be none
        page.evaluate("document.addEventListener('keydown', e => (window.__keys = (window.__keys || 0) + 1))")

    # -- setup: the Fremen split 10 forces by taps; the Bene Gesserit tap their place ---------------------
    expect(F.locator("#now .setup")).to_contain_text("Place 10 forces")
    split = F.locator("#now form.fremen-split")
    g.tap(split.locator("fieldset[data-territory='False Wall South'] button.n", has_text="3"), request=False)
    g.tap(split.locator("fieldset[data-territory='False Wall West'] button.n", has_text="2"), request=False)
    expect(split.locator("input[name='placements-0-forces']")).to_have_value("5")   # Sietch Tabr takes the rest
    g.tap(split.locator("fieldset[data-territory='False Wall West'] .radio-chip", has_text="16"), request=False)
    g.tap(split.locator("button[type=submit]"))
    expect(F.locator("#my-panel .stack[data-territory='False Wall West']")).to_contain_text("2")
    expect(F.locator("#my-panel .stack[data-territory='Sietch Tabr']")).to_contain_text("5")
    g.settle()
    expect(BG.locator("#now .setup select")).to_have_count(0)        # the places are buttons, one tap
    g.tap(BG.locator("#now .setup button.place[data-piece='Polar Sink']"))
    for page in g.phones.values():
        expect(page.locator("#now .setup")).to_have_count(0)

    # -- storm: each dialler steps a dial and enters it; anyone applies the previewed move -------------------
    g.settle()
    for page in g.phones.values():
        dial = page.locator("#now form.storm-dial")
        if dial.count():
            g.tap(dial.locator("button[data-step='1']"), request=False)
            g.tap(dial.locator("button[data-step='1']"), request=False)
            g.tap(dial.locator("button[type=submit]"))
    expect(A.locator("#storm-preview")).to_contain_text("the storm moves 4 sectors")
    g.tap(A.locator("#now button", has_text="Apply storm"))
    for page in g.phones.values():
        expect(page.locator("#now .status .storm .sector")).to_have_text("4")
    g.next_phase(A, "Spice Blow")

    # -- spice blow: two cards still in the deck, each tapped, previewed, applied (pile A, then B) ---------------
    blow = BG.locator("#now")
    expect(blow.locator("#blow-pile")).to_have_text("A")
    g.tap(blow.locator(".blow-card", has_text="Red Chasm"))
    g.tap(blow.locator("#blow-preview button", has_text="Apply Red Chasm on pile A"))
    expect(blow.locator("#blow-pile")).to_have_text("B")
    expect(blow.locator(".blow-card", has_text="Red Chasm")).to_have_count(0)
    g.tap(blow.locator(".blow-card", has_text="Broken Land"))
    g.tap(blow.locator("#blow-preview button", has_text="Apply Broken Land on pile B"))
    expect(A.locator("#board")).to_contain_text("Broken Land")
    g.next_phase(A, "CHOAM Charity")
    g.next_phase(A, "Bidding")
    g.tap(A.locator("#now button", has_text="Everyone passed"))
    g.next_phase(A, "Revival")
    g.next_phase(A, "Shipment & Movement")

    # -- shipment & movement: in storm order, each phone ships/moves or says it is done ------------------------
    shipped = moved = False
    for _ in range(len(FOUR)):
        g.settle()
        who = g.state()["whose_turn"]["faction"]
        page = g.phones[who]
        expect(page.locator("#whose-turn")).to_contain_text("Your turn")
        if who == "atreides":
            ship = A.locator("#now form.ship-pick")
            g.tap(ship.locator("button.n", has_text="5"), request=False)
            g.tap(ship.locator("button.place[data-piece='Arrakeen@9']"))
            expect(A.locator("#my-panel .stack[data-territory='Arrakeen']")).to_contain_text("15")
            shipped = True
            # the move: the stack is picked on the map, its legal destinations light up, one is tapped
            g.tap_piece(A, "Arrakeen@9")
            expect(A.locator("#reach-card")).to_be_visible()
            expect(A.locator("#reach input[name='forces']")).to_have_value("15")   # the whole stack by default
            lit = A.locator("#view svg.dune-map .lit")
            expect(lit.first).to_be_attached()
            assert lit.count() == A.locator("#reach-card button.place").count()
            g.tap(A.locator("#reach button.n", has_text="3"), request=False)
            g.tap_piece(A, "Imperial Basin@9")
            expect(A.locator("#my-panel .stack[data-territory='Imperial Basin']")).to_contain_text("3")
            expect(A.locator("#my-panel .stack[data-territory='Arrakeen']")).to_contain_text("12")
            moved = True
            if A.locator("#now form.turn-done").count():
                g.tap(A.locator("#now form.turn-done button"))
        else:
            g.tap(page.locator("#now form.turn-done button"))
    assert shipped and moved
    g.next_phase(A, "Battle")
    g.next_phase(A, "Spice Collection")
    if A.locator("#now button", has_text="Apply collection").count():
        g.tap(A.locator("#now button", has_text="Apply collection"))
    g.next_phase(A, "Mentat Pause")
    g.tap(F.locator("#now form.card-buttons button.num", has_text="5"))   # next turn's storm card, one tap
    g.next_phase(A, "Storm")
    expect(A.locator("#now .status .turn")).to_contain_text("Turn 2/10")
    # -- turn 2 storm on the Fremen phone: reveal, apply -----------------------------------------------------
    g.tap(F.locator("#now button", has_text="Reveal the Fremen storm card (5)"))
    g.tap(F.locator("#now button", has_text="Apply storm: move 5"))
    expect(A.locator("#now .status .storm .sector")).to_have_text("9")
    for f, page in g.phones.items():
        typed.append((f, page.evaluate("window.__keys || 0")))
    assert all(n == 0 for _, n in typed), typed   # not one key pressed on any phone for the whole turn
    g.close()


def test_a_refusal_shows_in_place_with_the_values_kept_and_the_override_beside_it(server, browser):
    from playwright.sync_api import expect
    g = Game(server, browser)
    A = g.join("atreides")
    g.setup_done()
    g.act(type="phase.set", turn=1, phase="shipment_movement")
    g.act(type="storm.set", sector=9)   # the storm over Arrakeen's sector: shipping there is refused
    g.settle()
    if A.locator("#ship-box:not([open])").count():   # not this phone's turn: the shipment is folded away
        g.tap(A.locator("#ship-box > summary"), request=False)
    ship = A.locator("#now form.ship-pick")
    g.tap(ship.locator("button.n", has_text="4"), request=False)
    expect(ship.locator("input[name='forces']")).to_have_value("4")
    # Arrakeen is not offered (in the storm): a stronghold that is, shipped out of storm order, is refused
    who = g.state()["whose_turn"]["faction"]
    target = ship.locator("button.place[data-piece='Carthag@10']")
    target.evaluate("e => e.scrollIntoView({block: 'center'})")
    y0 = A.evaluate("window.scrollY")
    g.tap(target)
    if who != "atreides":
        refusal = A.locator("#sheet #refusal")
        expect(refusal).to_be_visible()
        expect(refusal.locator("p.msg")).not_to_be_empty()
        assert A.evaluate("window.scrollY") == y0                 # nothing jumped
        expect(ship.locator("input[name='forces']")).to_have_value("4")   # what was entered is still there
        box = refusal.bounding_box()
        assert 0 <= box["y"] and box["y"] + box["height"] <= 844   # in view, where the player looks
        A.screenshot(path=str(SHOTS / "phone-refusal.png"))
        g.tap(refusal.locator("button", has_text="Override"))
        expect(A.locator("#sheet #refusal")).to_have_count(0)
    expect(A.locator("#toast")).to_contain_text("ship")
    expect(A.locator("#my-panel .stack[data-territory='Carthag']")).to_contain_text("4")
    assert A.evaluate("window.scrollY") == y0
    g.close()


def test_a_swap_settling_while_the_player_scrolls_leaves_the_page_where_they_scrolled(server, browser):
    """The page puts its scroll back when a swap made it jump, but not when the player scrolled
    meanwhile (a push landing mid-fling): the page never snaps back under their thumb."""
    g = Game(server, browser)
    A = g.join("atreides")
    A.evaluate("window.scrollTo(0, 0)")
    settle = "() => new Promise(done => { document.getElementById('view').dispatchEvent(" \
             "new CustomEvent('htmx:afterSettle', {bubbles: true})); requestAnimationFrame(() => " \
             "requestAnimationFrame(() => done(window.scrollY))); })"
    # a swap begins at the top; the page jumps by itself (no touch, no wheel): it is put back
    A.evaluate("document.body.dispatchEvent(new CustomEvent('htmx:beforeSwap', {bubbles: true}))")
    A.evaluate("window.scrollTo(0, 300)")
    assert A.evaluate(settle) == 0
    # a swap begins at the top; the player scrolls down before it settles: the page stays there
    A.evaluate("document.body.dispatchEvent(new CustomEvent('htmx:beforeSwap', {bubbles: true}))")
    A.mouse.move(195, 400)
    A.mouse.wheel(0, 300)
    A.wait_for_function("() => window.scrollY > 100")
    scrolled = A.evaluate("window.scrollY")
    assert A.evaluate(settle) == scrolled
    g.close()


def test_typing_while_another_phone_makes_changes_keeps_value_and_focus(server, browser):
    from playwright.sync_api import expect
    g = Game(server, browser)
    A = g.join("atreides")
    g.battle_in_arrakeen()
    # in the Battle phase the battle to fight comes first; the dial calculator is folded below it
    g.tap(A.locator("#battle-more > summary"), request=False)
    want = A.locator("#battle input[name='want']")
    expect(want).to_be_visible()
    want.tap()
    A.keyboard.type("12", delay=180)        # slow thumbs: a refresh after each key used to eat the focus
    A.wait_for_timeout(600)
    expect(want).to_have_value("12")
    expect(A.locator("#dial-best")).to_contain_text("you have here")
    expect(A.locator("#dial-strength")).to_have_text("12")
    # another phone (the host) changes the table while the player is in the field
    g.act(type="spice.set", faction="harkonnen", amount=3)
    A.wait_for_timeout(1200)
    expect(want).to_have_value("12")
    assert A.evaluate("document.activeElement && document.activeElement.name") == "want"
    A.keyboard.type("0")                   # still typing in the same field
    expect(want).to_have_value("120")
    # leaving the field lets the refresh in: the fold the player opened stays open
    A.locator("#battle-more > summary").evaluate("e => e.focus()")
    g.settle()                             # the held refresh came in (this phone shows the latest revision)
    expect(A.locator("#battle-more")).to_have_attribute("open", "")
    expect(want).to_be_visible()
    g.close()


def test_the_dial_typed_survives_the_refresh_another_phone_caused(server, browser):
    """The held refresh lands once the player leaves the dial field: the battle panel comes back with
    what they typed and its dial worked out again for the new table, never empty in between."""
    from playwright.sync_api import expect
    g = Game(server, browser)
    A = g.join("atreides")
    g.battle_in_arrakeen()
    g.tap(A.locator("#battle-more > summary"), request=False)
    want = A.locator("#battle input[name='want']")
    expect(want).to_be_visible()
    want.tap()
    A.keyboard.type("9", delay=180)
    expect(A.locator("#dial-strength")).to_have_text("9")
    expect(A.locator("#dial-best")).to_contain_text("the 15 you have here")
    # another phone brings two more Atreides forces to Arrakeen while the player is in the field
    g.act(type="forces.place", faction="atreides", territory="Arrakeen", forces=2)
    A.wait_for_timeout(900)
    expect(want).to_have_value("9")
    # from here on, every state of #battle the phone paints is recorded: it must never lose the value
    A.evaluate("""() => { window.__lost = [];
      new MutationObserver(() => { const w = document.querySelector('#battle input[name="want"]');
        if (!w || w.value !== '9') { window.__lost.push(w ? 'want=' + w.value : 'no field'); } })
        .observe(document.getElementById('app') || document.body, {childList: true, subtree: true}); }""")
    A.locator("#battle-more > summary").evaluate("e => e.focus()")   # the player leaves the field
    g.settle()
    expect(A.locator("#dial-best")).to_contain_text("the 17 you have here")   # worked out for the new table
    expect(A.locator("#battle-more")).to_have_attribute("open", "")
    expect(want).to_have_value("9")
    expect(A.locator("#dial-strength")).to_have_text("9")
    A.wait_for_function(IDLE)
    assert A.evaluate("window.__lost") == []
    A.locator("#dial-form").evaluate("e => e.scrollIntoView({block: 'start'})")
    A.screenshot(path=str(SHOTS / "phone-dial-kept.png"))
    g.close()


def test_the_dial_typed_before_the_battle_phase_survives_a_refresh_too(server, browser):
    """Outside the Battle phase the panel sits in its own fold (#battle-details): the same holds there."""
    from playwright.sync_api import expect
    g = Game(server, browser)
    A = g.join("atreides")
    g.setup_done()
    g.act(type="forces.place", faction="harkonnen", territory="Arrakeen", forces=3)
    g.act(type="phase.set", turn=1, phase="shipment_movement")
    g.settle()
    g.tap(A.locator("#battle-details > summary"))
    want = A.locator("#battle input[name='want']")
    expect(want).to_be_visible()
    want.tap()
    A.keyboard.type("7", delay=180)
    expect(A.locator("#dial-best")).to_contain_text("the 10 you have here")
    g.act(type="forces.place", faction="atreides", territory="Arrakeen", forces=2)
    A.wait_for_timeout(900)
    A.locator("#battle-details > summary").evaluate("e => e.focus()")   # the player leaves the field
    g.settle()
    expect(A.locator("#dial-best")).to_contain_text("the 12 you have here")
    expect(A.locator("#battle-details")).to_have_attribute("open", "")
    expect(want).to_have_value("7")
    expect(A.locator("#dial-strength")).to_have_text("7")
    A.wait_for_function(IDLE)
    # closing and opening the fold again shows the same panel, not a new empty one
    A.locator("#battle-details > summary").click()
    A.locator("#battle-details > summary").click()
    A.wait_for_timeout(400)
    A.wait_for_function(IDLE)
    expect(want).to_have_value("7")
    g.close()


def test_next_phase_is_refused_with_the_missing_step_named(server, browser):
    from playwright.sync_api import expect
    g = Game(server, browser)
    A = g.join("atreides")
    g.setup_done()
    g.settle()
    expect(A.locator("#now button.next")).to_contain_text("Spice Blow")
    g.tap(A.locator("#now button.next"))
    refusal = A.locator("#sheet #refusal")
    expect(refusal.locator("p.msg")).to_contain_text("The storm has not moved yet")
    expect(refusal.locator("p.msg")).to_contain_text("Spice Blow")
    expect(A.locator("#now .status .turn")).to_contain_text("Storm")
    A.locator("#sheet input[name='reason']").fill("We moved the storm on the board")
    g.tap(refusal.locator("button", has_text="Override"))
    expect(A.locator("#now .status .turn")).to_contain_text("Spice Blow")
    expect(A.locator("#sheet #refusal")).to_have_count(0)
    g.close()


def test_the_map_picker_on_a_390px_phone(server, browser):
    from playwright.sync_api import expect
    g = Game(server, browser)
    A = g.join("atreides")
    g.setup_done()
    g.act(type="phase.set", turn=1, phase="shipment_movement")
    g.settle()
    # my stacks are marked on the map; the shipment's legal places are lit before any pick
    expect(A.locator('#view svg.dune-map .mine[data-piece="Arrakeen@9"]')).to_have_count(1)
    assert A.locator("#view svg.dune-map .lit").count() == A.locator("#ship-places button.place").count()
    g.tap_piece(A, "Arrakeen@9")
    expect(A.locator("#reach-card")).to_be_visible()
    expect(A.locator('#view svg.dune-map .picked[data-piece="Arrakeen@9"]')).to_have_count(1)
    lit = A.evaluate("[...document.querySelectorAll('#view svg.dune-map .lit')].map(e => e.dataset.piece).sort()")
    offered = A.evaluate("[...document.querySelectorAll('#reach-card button.place')].map(e => e.dataset.piece).sort()")
    assert lit == offered and "Imperial Basin@9" in lit
    # another faction's change leaves this phone's lights as they were: the map is lit again
    # without a piece being touched (no restyle or repaint of the map), and shows the same lights
    A.evaluate("""() => { window.__mapTouched = 0; new MutationObserver(l => { window.__mapTouched += l.length; })
        .observe(document.querySelector('#view svg.dune-map'), {subtree: true, attributes: true, attributeFilter: ['class']}); }""")
    g.act(type="spice.add", faction="harkonnen", amount=1)
    g.settle()
    A.wait_for_timeout(300)  # the map is lit again in the frame after the refresh settles
    assert A.evaluate("[...document.querySelectorAll('#view svg.dune-map .lit')].map(e => e.dataset.piece).sort()") == lit
    expect(A.locator('#view svg.dune-map .picked[data-piece="Arrakeen@9"]')).to_have_count(1)
    assert A.evaluate("window.__mapTouched") == 0
    # thumb-sized: every button on the phase card at least 44x44, nothing wider than the phone
    sizes = A.evaluate("""[...document.querySelectorAll('#now button, #now summary, #now .radio-chip span')]
        .map(e => e.getBoundingClientRect()).filter(r => r.width && r.height).map(r => [r.width, r.height])""")
    assert sizes and min(min(w, h) for w, h in sizes) >= 44, min(sizes, key=lambda s: min(s))
    assert A.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 1
    A.evaluate("window.scrollTo(0, 0)")
    A.screenshot(path=str(SHOTS / "phone-picker.png"))
    # the host and the board view see the table's card at the top too (the board view only watches)
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.goto(g.join_url)
    page.tap('button[name="seat"][value="board"]')
    page.wait_for_url(re.compile(rf"/t/{g.code}/board$"))
    expect(page.locator("#now")).to_contain_text("Now: Shipment & Movement")
    expect(page.locator("#now form")).to_have_count(0)
    assert page.evaluate("document.getElementById('now').getBoundingClientRect().top") < 300
    ctx.close()
    g.close()

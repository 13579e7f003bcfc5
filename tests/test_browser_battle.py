"""A whole battle on two 390x844 phones and the board screen (issue 14), in headless Debian chromium:
opened from the phase card, both plans built with taps and sealed, revealed together on every screen,
the outcome shown line by line with its rules, confirmed and applied. Neither phone types anything;
the taps per battler are counted and printed."""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from conftest import BROWSER, LiveServer
from test_browser_phone import WATCH, Game

pytestmark = BROWSER

SHOTS = Path(os.environ.get("BROWSER_SHOTS", "/tmp"))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = LiveServer(tmp_path_factory.mktemp("battle") / "data").start()
    yield srv
    srv.stop()


class Counted(Game):
    """A Game whose taps are counted per phone."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.taps: dict[str, int] = {}

    def tap_as(self, seat: str, locator, request: bool = True):
        self.taps[seat] = self.taps.get(seat, 0) + 1
        self.tap(locator, request)


def test_a_whole_battle_from_the_phase_card_to_the_applied_losses(server, browser):
    from playwright.sync_api import expect
    g = Counted(server, browser, ["atreides", "harkonnen", "fremen"])
    g.act(type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    g.act(type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    g.act(type="cards.set", faction="harkonnen", cards=["Crysknife", "Baliset"])
    g.act(type="cards.set", faction="atreides", cards=["Shield", "Chaumas"])
    g.act(type="phase.set", turn=1, phase="battle")
    spice_before = {f: g.state()["factions"][f]["spice"] for f in ("atreides", "harkonnen")}
    A, H = g.join("atreides"), g.join("harkonnen")
    board_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    board_ctx.add_init_script(WATCH)
    B = board_ctx.new_page()
    B.goto(f"{server.url}/t/{g.code}/board")
    for page in (A, H):
        page.evaluate("document.addEventListener('keydown', e => (window.__keys = (window.__keys || 0) + 1))")

    # the phase card lists the battle the board implies, with its aggressor, on every screen
    for page in (A, H, B):
        expect(page.locator('#battles-now [data-territory="Arrakeen"]')).to_contain_text("aggressor")
    aggressor = g.state()["battles_implied"][0]["aggressor"]
    # whose battle is next, and "Open the battle" before anything else of the phase on the battlers' cards
    for page in (A, H):
        expect(page.locator("#battle-next")).to_contain_text(f"{aggressor.capitalize()}")
        expect(page.locator("#battle-next")).to_contain_text("Arrakeen")
        first_control = page.locator("#now form button, #now details > summary").first
        expect(first_control).to_have_attribute("data-open-battle", "Arrakeen")
    first, second = (H, A) if aggressor == "harkonnen" else (A, H)
    g.tap_as("harkonnen", H.locator("#battles-now button[data-open-battle='Arrakeen']"))
    bid = g.state()["battles"][0]["id"]
    g.settle()

    # both build at once: Atreides pick a leader and a dial first (kept when Harkonnen's seal refreshes
    # their screen), Harkonnen build a plan by taps: a leader, a dial chip, a weapon; the readout follows live
    aplan = A.locator(f"#plan-{bid}")
    g.tap_as("atreides", aplan.locator(".radio-chip", has_text="Duncan Idaho"), request=False)
    g.tap_as("atreides", aplan.locator("[data-stepper] button.n", has_text="4"), request=False)
    expect(aplan.locator('[data-out="total"]')).to_have_text("6")  # Duncan Idaho 2 + 4
    plan = H.locator(f"#plan-{bid}")
    g.tap_as("harkonnen", plan.locator(".radio-chip", has_text="Feyd-Rautha"), request=False)
    g.tap_as("harkonnen", plan.locator("[data-stepper] button.n", has_text="5"), request=False)
    g.tap_as("harkonnen", plan.locator(".radio-chip", has_text="Crysknife"), request=False)
    expect(plan.locator('[data-out="dial"]')).to_have_text("5")
    expect(plan.locator('[data-out="total"]')).to_have_text("11")  # Feyd-Rautha 6 + 5
    expect(plan.locator('[data-out="cost"]')).to_have_text("3")    # 2 free, then 1 each
    H.locator(f"#battle-{bid}").screenshot(path=str(SHOTS / "phone-battle-plan-card.png"))
    H.evaluate("document.getElementById('toast') && (document.getElementById('toast').hidden = true)")
    H.locator(f"#battle-{bid} h4").evaluate("e => e.scrollIntoView({block: 'start'})")
    H.screenshot(path=str(SHOTS / "phone-battle-plan.png"))
    g.tap_as("harkonnen", plan.locator("button[data-seal]"))
    expect(H.locator(f"#battle-{bid} .my-sealed")).to_contain_text("Crysknife")
    g.settle()
    # the other phone and the board screen see only "sealed"
    for page in (A, B):
        expect(page.locator(f"#battle-{bid} .battle-state")).to_contain_text("Harkonnen: sealed ✓")
        assert "Crysknife" not in page.content() and "Feyd-Rautha ·" not in page.content()

    plan = A.locator(f"#plan-{bid}")  # a fresh element: the screen was refreshed by Harkonnen's seal
    expect(plan.locator('input[name="fighter"][value="Duncan Idaho"]')).to_be_checked()
    expect(plan.locator('input[name="forces"]')).to_have_value("4")
    expect(plan.locator('[data-out="total"]')).to_have_text("6")
    g.tap_as("atreides", plan.locator(".radio-chip", has_text=re.compile(r"^Shield$")), request=False)
    g.tap_as("atreides", plan.locator("button[data-seal]"))
    g.settle()
    assert "Crysknife" not in B.content()  # still sealed on the board screen
    g.tap_as("atreides", A.locator(f"button[data-reveal='{bid}']"))
    g.settle()

    # revealed together: both plans and the outcome, every line with its rule, on both phones and the board
    for page in (A, H, B):
        box = page.locator(f"#outcome-{bid}")
        expect(box.locator(".plans")).to_contain_text("Crysknife")
        expect(box.locator(".plans")).to_contain_text("Shield")
        expect(box.locator(".winner")).to_contain_text("Harkonnen")
        lines = box.locator("ol.outcome-lines li")
        assert lines.count() >= 3
        for i in range(lines.count()):
            assert re.match(r"/rules/[a-z0-9-]+", lines.nth(i).locator("a.rule-link").get_attribute("href"))
    A.locator(f"#battle-{bid}").screenshot(path=str(SHOTS / "phone-battle-outcome-card.png"))
    A.evaluate("document.getElementById('toast') && (document.getElementById('toast').hidden = true)")
    A.locator(f"#battle-{bid} h4").evaluate("e => e.scrollIntoView({block: 'start'})")
    A.screenshot(path=str(SHOTS / "phone-battle-outcome.png"))
    B.screenshot(path=str(SHOTS / "board-battle-outcome.png"))
    assert B.locator(f"#outcome-{bid} button").count() == 0  # the board screen has no controls

    g.tap_as("atreides", A.locator(f"button[data-confirm='{bid}']"))
    g.settle()
    g.tap_as("harkonnen", H.locator(f"button[data-apply='{bid}']"))
    g.settle()
    s = g.state()
    assert s["battles"][0]["status"] == "applied"
    arrakeen = s["board"]["territories"]["Arrakeen"]["forces"]
    assert arrakeen["harkonnen"]["forces"] == 1 and arrakeen.get("atreides", {"forces": 0})["forces"] == 0
    assert s["factions"]["harkonnen"]["spice"] == spice_before["harkonnen"] - 3
    assert s["factions"]["atreides"]["spice"] == spice_before["atreides"] - 2
    for page in (A, H, B):
        expect(page.locator(f"#outcome-{bid} .winner")).to_contain_text("applied")
    keys = {seat: page.evaluate("window.__keys || 0") for seat, page in (("atreides", A), ("harkonnen", H))}
    assert keys == {"atreides": 0, "harkonnen": 0}, keys
    print(f"\nTAPS a whole battle (open to apply), per battler: {g.taps}; keys typed: {keys}")
    assert g.taps["harkonnen"] <= 6 and g.taps["atreides"] <= 6
    board_ctx.close()
    g.close()


def test_prescience_and_voice_by_taps_then_the_harkonnen_capture(server, browser):
    """The Atreides ask the Harkonnen for their weapon, the Harkonnen answer from their own hand, the
    BG (allied to the Atreides) Voice the Harkonnen; the Harkonnen plan builder shows both and greys
    what they forbid; the Atreides phone sees the answer, the BG phone and the board screen only that it
    was answered. Then the Harkonnen win and kill a captured leader for 2 spice. Taps only."""
    from playwright.sync_api import expect
    g = Counted(server, browser, ["atreides", "harkonnen", "fremen", "bg"])
    g.act(type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    g.act(type="setup.bg", faction="bg", territory="Polar Sink")
    g.act(type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    g.act(type="cards.set", faction="harkonnen", cards=["Crysknife", "Chaumas", "Baliset"])
    g.act(type="cards.set", faction="atreides", cards=["Shield"])
    g.act(type="alliance.form", factions=["atreides", "bg"], override=True, reason="a Nexus")
    g.act(type="phase.set", turn=1, phase="battle")
    A, H, BG = g.join("atreides"), g.join("harkonnen"), g.join("bg")
    board_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    board_ctx.add_init_script(WATCH)
    B = board_ctx.new_page()
    B.goto(f"{server.url}/t/{g.code}/board")
    for page in (A, H, BG):
        page.evaluate("document.addEventListener('keydown', e => (window.__keys = (window.__keys || 0) + 1))")

    g.tap_as("harkonnen", H.locator("#battles-now button[data-open-battle='Arrakeen']"))
    bid = g.state()["battles"][0]["id"]
    g.settle()

    # the plan builder comes first, the powers folded below it
    for page in (A, H):
        assert page.locator(f"#battle-{bid} form[data-plan-builder] ~ #powers-more-{bid}").count() == 1
    expect(A.locator(f"#powers-more-{bid} button[data-ask='weapon']")).to_be_hidden()
    # Prescience: one tap to unfold, one to ask, one tap to answer (from the Harkonnen's own hand)
    g.tap_as("atreides", A.locator(f"#powers-more-{bid} > summary"), request=False)
    g.tap_as("atreides", A.locator(f"#powers-more-{bid} button[data-ask='weapon']"))
    g.settle()
    form = H.locator(f"#answer-{bid}")
    expect(form).to_contain_text("The Atreides ask for your weapon")
    H.evaluate("document.getElementById('toast') && (document.getElementById('toast').hidden = true)")
    H.locator(f"#battle-{bid} h4").evaluate("e => e.scrollIntoView({block: 'start'})")
    H.screenshot(path=str(SHOTS / "phone-prescience-answer.png"))
    g.tap_as("harkonnen", form.locator("button[data-answer-value='Chaumas']"))
    g.settle()
    expect(A.locator(f"#powers-{bid} [data-answer]")).to_contain_text("weapon: Chaumas")
    A.evaluate("document.getElementById('toast') && (document.getElementById('toast').hidden = true)")
    A.locator(f"#battle-{bid} h4").evaluate("e => e.scrollIntoView({block: 'start'})")
    A.screenshot(path=str(SHOTS / "phone-prescience-asked.png"))
    for page in (BG, B):
        expect(page.locator(f"#powers-{bid} [data-prescience='weapon']")).to_contain_text("answered")
        assert "weapon: Chaumas" not in page.content() and page.locator("[data-answer]").count() == 0

    # Voice, two taps: unfold, then command their ally's opponent
    g.tap_as("bg", BG.locator(f"#powers-more-{bid} > summary"), request=False)
    BG.locator(f"#voice-{bid}").evaluate("e => e.scrollIntoView({block: 'start'})")
    BG.evaluate("document.getElementById('toast') && (document.getElementById('toast').hidden = true)")
    BG.screenshot(path=str(SHOTS / "phone-voice.png"))
    g.taps["bg"] = g.taps.get("bg", 0) + 1
    g.tap(BG.locator(f"#voice-{bid} button[data-voice-cmd='not_play'][data-voice-card='projectile defense']"))
    g.settle()
    for page in (A, H, BG, B):
        expect(page.locator(f"#powers-{bid} [data-voice]")).to_contain_text("do not play a projectile defense")
    B.screenshot(path=str(SHOTS / "board-powers.png"))

    # the Harkonnen builder: the shown weapon is fixed, the other weapons greyed
    plan = H.locator(f"#plan-{bid}")
    expect(plan.locator("[data-constraint]", has_text="Voice")).to_contain_text("do not play a projectile defense")
    expect(plan.locator("[data-constraint]", has_text="Shown to the Atreides")).to_contain_text("weapon: Chaumas")
    expect(plan.locator('input[name="weapon"][value="Chaumas"]')).to_be_checked()
    expect(plan.locator('input[name="weapon"][value="Crysknife"]')).to_be_disabled()
    H.locator(f"#plan-{bid}").evaluate("e => e.scrollIntoView({block: 'start'})")
    H.evaluate("document.getElementById('toast') && (document.getElementById('toast').hidden = true)")
    H.screenshot(path=str(SHOTS / "phone-plan-under-powers.png"))
    g.tap_as("harkonnen", plan.locator(".radio-chip", has_text="Feyd-Rautha"), request=False)
    g.tap_as("harkonnen", plan.locator("[data-stepper] button.n", has_text="5"), request=False)
    g.tap_as("harkonnen", plan.locator("button[data-seal]"))
    g.settle()
    aplan = A.locator(f"#plan-{bid}")
    g.tap_as("atreides", aplan.locator(".radio-chip", has_text="Duncan Idaho"), request=False)
    g.tap_as("atreides", aplan.locator("[data-stepper] button.n", has_text="1"), request=False)
    g.tap_as("atreides", aplan.locator("button[data-seal]"))
    g.settle()
    g.tap_as("atreides", A.locator(f"button[data-reveal='{bid}']"))
    g.settle()
    g.tap_as("atreides", A.locator(f"button[data-confirm='{bid}']"))
    g.settle()
    g.tap_as("harkonnen", H.locator(f"button[data-apply='{bid}']"))
    g.settle()
    s = g.state()
    assert s["battles"][0]["outcome"]["winner"] == "harkonnen"
    assert s["battles"][0]["outcome"]["capture"] == {"from": "atreides"}

    # the capture: tap the leader drawn, then Kill for 2 spice
    spice = s["factions"]["harkonnen"]["spice"]
    box = H.locator(f"#capture-{bid}")
    box.evaluate("e => e.scrollIntoView({block: 'start'})")
    H.evaluate("document.getElementById('toast') && (document.getElementById('toast').hidden = true)")
    H.screenshot(path=str(SHOTS / "phone-capture.png"))
    g.tap_as("harkonnen", box.locator(".radio-chip", has_text="Gurney Halleck"), request=False)
    g.tap_as("harkonnen", box.locator("button[data-capture='kill']"))
    g.settle()
    s = g.state()
    gurney = next(ld for ld in s["factions"]["atreides"]["leaders"] if ld["name"] == "Gurney Halleck")
    assert gurney["status"] == "tanks" and s["factions"]["harkonnen"]["spice"] == spice + 2
    expect(B.locator(f"#outcome-{bid} [data-captured]")).to_contain_text("Gurney Halleck")
    keys = {seat: page.evaluate("window.__keys || 0") for seat, page in (("atreides", A), ("harkonnen", H), ("bg", BG))}
    assert keys == {"atreides": 0, "harkonnen": 0, "bg": 0}, keys
    print(f"\nTAPS a battle with Prescience, Voice and a capture: {g.taps}; keys typed: {keys}")
    board_ctx.close()
    g.close()


def test_a_plan_half_built_survives_a_reload_and_stays_on_the_phone(server, browser):
    """Issue 25: "A plan half built survives a reload." The choices live in the phone's own
    sessionStorage (keyed by table, seat and battle) until the plan is sealed; the server never sees
    them before."""
    from playwright.sync_api import expect
    g = Counted(server, browser, ["atreides", "harkonnen", "fremen"])
    g.act(type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    g.act(type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    g.act(type="cards.set", faction="harkonnen", cards=["Crysknife", "Baliset"])
    g.act(type="phase.set", turn=1, phase="battle")
    H = g.join("harkonnen")
    g.tap_as("harkonnen", H.locator("#battles-now button[data-open-battle='Arrakeen']"))
    bid = g.state()["battles"][0]["id"]
    g.settle()
    plan = H.locator(f"#plan-{bid}")
    g.tap_as("harkonnen", plan.locator(".radio-chip", has_text="Feyd-Rautha"), request=False)
    g.tap_as("harkonnen", plan.locator("[data-stepper] button.n", has_text="3"), request=False)
    g.tap_as("harkonnen", plan.locator(".radio-chip", has_text="Crysknife"), request=False)
    expect(plan.locator('[data-out="total"]')).to_have_text("9")
    H.wait_for_timeout(100)
    key = f"plan:{g.code}:harkonnen:{bid}"
    assert "Feyd-Rautha" in (H.evaluate("k => sessionStorage.getItem(k)", key) or "")
    assert g.state()["battles"][0]["sealed"] == []  # nothing went to the server
    H.reload()
    H.wait_for_function("() => !document.body.classList.contains('offline')")
    plan = H.locator(f"#plan-{bid}")
    expect(plan.locator('input[name="fighter"][value="Feyd-Rautha"]')).to_be_checked()
    expect(plan.locator('input[name="forces"]')).to_have_value("3")
    expect(plan.locator('input[name="weapon"][value="Crysknife"]')).to_be_checked()
    expect(plan.locator('[data-out="total"]')).to_have_text("9")
    H.evaluate("document.getElementById('toast') && (document.getElementById('toast').hidden = true)")
    H.locator(f"#battle-{bid} h4").evaluate("e => e.scrollIntoView({block: 'start'})")
    H.screenshot(path=str(SHOTS / "phone-plan-after-reload.png"))
    g.tap_as("harkonnen", plan.locator("button[data-seal]"))
    expect(H.locator(f"#battle-{bid} .my-sealed")).to_contain_text("Crysknife")
    sealed = g.server.request("GET", f"/api/tables/{g.code}/state", token=g.host)[1]
    assert sealed["battles"][0]["sealed"] == ["harkonnen"]
    # sealed: the draft is gone (dropped when the sealed panel settles, htmx's 20 ms after its swap)
    H.wait_for_function("k => sessionStorage.getItem(k) === null", arg=key, timeout=5_000)
    # another seat's phone (another browser context) has no such draft
    A = g.join("atreides")
    assert A.evaluate("k => sessionStorage.getItem(k)", key) is None
    g.close()


def test_the_moritanis_ally_keeps_a_card_with_one_tap_after_losing(server, browser):
    """kiss-rules.txt, Moritani alliance: "When your ally loses a battle that had a winner, they may keep
    one Treachery Card they played in the battle that they would have been able to keep had they won."
    The loser's phone offers the cards it played on the outcome box; one tap keeps one."""
    from playwright.sync_api import expect
    g = Counted(server, browser, ["atreides", "harkonnen", "moritani"])
    g.act(type="alliance.form", factions=["harkonnen", "moritani"], override=True, reason="a Nexus")
    g.act(type="forces.place", faction="harkonnen", territory="Arrakeen", forces=3)
    g.act(type="cards.set", faction="harkonnen", cards=["Crysknife", "Snooper"])
    g.act(type="phase.set", turn=1, phase="battle")
    g.act(type="battle.open", territory="Arrakeen", aggressor="atreides", opponent="harkonnen")
    bid = g.state()["battles"][0]["id"]
    g.act(type="battle.plan", battle=bid, faction="atreides", leader="Thufir Hawat", forces=6)
    g.act(type="battle.plan", battle=bid, faction="harkonnen", leader="Umman Kudu", forces=1, weapon="Crysknife",
          defense="Snooper")
    g.act(type="battle.reveal", battle=bid)
    g.act(type="battle.apply", battle=bid)
    H, A = g.join("harkonnen"), g.join("atreides")
    box = H.locator(f"#after-{bid}")
    expect(box.locator("button[data-keep]")).to_have_count(2)
    assert A.locator(f"#after-{bid} button[data-keep]").count() == 0
    box.evaluate("e => e.scrollIntoView({block: 'start'})")
    H.evaluate("document.getElementById('toast') && (document.getElementById('toast').hidden = true)")
    H.screenshot(path=str(SHOTS / "phone-battle-keep.png"))
    g.tap_as("harkonnen", box.locator("button[data-keep='Snooper']"))
    g.settle()
    s = g.state()
    assert s["battles"][0]["kept"] == {"faction": "harkonnen", "card": "Snooper"}
    assert "Snooper" not in s["treachery"]["discard"]
    expect(H.locator(f"#battle-{bid} button[data-keep]")).to_have_count(0)
    print(f"\nTAPS keeping a card (Moritani alliance): {g.taps}")
    g.close()

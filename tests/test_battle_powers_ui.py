"""Prescience, Voice and the Harkonnen capture on the phones (server-rendered HTML): who gets which
buttons, what each seat and the board screen see, and that the Prescience answer reaches only the
asking side and the answerer, never a third seat or the board screen."""
from __future__ import annotations

import re

import pytest

from conftest import create_table, csrf, join_seat
from table_helpers import host_state, ok, set_phase

FACTIONS = ["atreides", "harkonnen", "fremen", "bg"]


@pytest.fixture()
def table(client, app):
    t = create_table(client, FACTIONS)
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    ok(client, t, "bg", type="setup.bg", faction="bg", territory="Polar Sink")
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    ok(client, t, type="cards.set", faction="harkonnen", cards=["Crysknife", "Chaumas", "Baliset"])
    ok(client, t, type="cards.set", faction="atreides", cards=["Shield", "Karama"])
    ok(client, t, type="alliance.form", factions=["atreides", "bg"], override=True, reason="a Nexus")
    set_phase(client, t, "battle")
    ok(client, t, "harkonnen", type="battle.open", territory="Arrakeen", aggressor="harkonnen", opponent="atreides", override=True, reason="the table lets this aggressor attack first")
    phones = {f: join_seat(app, t.code, f) for f in FACTIONS + ["board"]}
    return t, phones


def view(phone, t) -> str:
    r = phone.get(f"/t/{t.code}/view")
    assert r.status_code == 200
    return r.get_data(as_text=True)


def board(client, t) -> str:
    return client.get(f"/t/{t.code}/board").get_data(as_text=True)


def post(phone, t, route="act", **form) -> str:
    rev = re.search(r'name="revision" value="(\d+)"', view(phone, t)).group(1)
    r = phone.post(f"/t/{t.code}/{route}", data={"revision": rev, **form, "csrf_token": csrf(phone, t.code)})
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_data(as_text=True)


def bid(client, t) -> str:
    return host_state(client, t)["battles"][-1]["id"]


def test_only_the_atreides_get_the_question_and_only_the_bg_the_voice(client, table):
    t, phones = table
    a, h, f, g = (view(phones[x], t) for x in ("atreides", "harkonnen", "fremen", "bg"))
    assert 'data-ask="weapon"' in a and 'data-ask="dial"' in a
    assert all('data-ask=' not in x for x in (h, f, g))
    assert 'data-voice-card="poison weapon"' in g and 'data-voice-card="Lasgun"' in g
    assert all('data-voice-card=' not in x for x in (a, h, f))
    assert 'data-ask=' not in board(client, t) and "data-voice-card" not in board(client, t)


def test_question_answer_and_binding_through_the_phones(client, table):
    t, phones = table
    b = bid(client, t)
    post(phones["atreides"], t, type="battle.prescience", battle=b, faction="atreides", element="weapon")
    # the Harkonnen phone gets the answer form, built from its own hand
    h = view(phones["harkonnen"], t)
    form = h[h.index(f'id="answer-{b}"'):]
    form = form[:form.index("</form>")]
    assert 'data-answer-value="Crysknife"' in form and 'data-answer-value="Chaumas"' in form
    assert 'data-answer-value="none"' in form
    post(phones["harkonnen"], t, type="battle.answer", battle=b, faction="harkonnen", weapon="Chaumas")
    # the asking side and the answerer see the value; the Fremen, the BG (even allied) and the board do not
    for seat in ("atreides", "harkonnen"):
        assert "weapon: Chaumas" in view(phones[seat], t)
    assert "Chaumas" not in view(phones["fremen"], t) and "Chaumas" not in board(client, t)
    for page in (view(phones["fremen"], t), view(phones["bg"], t), board(client, t)):
        assert "weapon: Chaumas" not in page and "data-answer>" not in page  # (the BG's Voice list names cards)
        assert "asked Harkonnen for the <b>weapon</b>" in page and "answered" in page
    # the Harkonnen plan builder shows the constraint and leaves only the shown weapon tappable
    h = view(phones["harkonnen"], t)
    plan = h[h.index(f'id="plan-{b}"'):]
    assert "Shown to the Atreides — weapon: Chaumas" in plan
    assert re.search(r'name="weapon" value="Chaumas" checked', plan)
    assert re.search(r'name="weapon" value="Crysknife" disabled', plan)


def test_voice_shows_on_every_screen_and_greys_the_chips(client, table):
    t, phones = table
    b = bid(client, t)
    post(phones["bg"], t, type="battle.voice", battle=b, faction="bg", command="not_play", card="projectile weapon")
    for page in [view(phones[x], t) for x in FACTIONS] + [board(client, t)]:
        assert "do not play a projectile weapon" in page
    h = view(phones["harkonnen"], t)
    plan = h[h.index(f'id="plan-{b}"'):]
    assert "Voice: do not play a projectile weapon" in plan
    assert re.search(r'name="weapon" value="Crysknife" disabled', plan)
    assert not re.search(r'name="weapon" value="Chaumas"[^>]*disabled', plan)
    # the Voice buttons are gone once used
    assert 'data-voice-card=' not in view(phones["bg"], t)


def test_capture_buttons_for_the_harkonnen_only(client, table):
    t, phones = table
    b = bid(client, t)
    post(phones["harkonnen"], t, route="battle/act", type="battle.plan", battle=b, faction="harkonnen",
         fighter="Feyd-Rautha", forces="5")
    post(phones["atreides"], t, route="battle/act", type="battle.plan", battle=b, faction="atreides",
         fighter="Duncan Idaho", forces="1")
    post(phones["atreides"], t, type="battle.reveal", battle=b)
    ok(client, t, type="battle.apply", battle=b)
    h = view(phones["harkonnen"], t)
    assert 'data-capture="keep"' in h and 'data-capture="kill"' in h and 'value="Gurney Halleck"' in h
    assert all('data-capture=' not in view(phones[x], t) for x in ("atreides", "fremen", "bg"))
    assert 'data-capture=' not in board(client, t)
    post(phones["harkonnen"], t, type="battle.capture", battle=b, leader="Gurney Halleck", keep="false")
    for page in (view(phones["atreides"], t), board(client, t)):
        assert "Harkonnen killed <b>Gurney Halleck</b> for 2 spice" in page
    assert 'data-capture=' not in view(phones["harkonnen"], t)


@pytest.mark.parametrize("seat", ["atreides", "fremen"])
def test_karama_buttons_stop_the_powers(client, table, seat):
    t, phones = table
    b = bid(client, t)
    page = view(phones[seat], t)
    assert 'data-karama-power="voice"' in page
    assert ('data-karama-power="prescience"' in page) == (seat != "atreides")  # never against one's own power
    post(phones[seat], t, type="battle.karama", battle=b, faction=seat, power="voice")
    assert 'data-voice-card=' not in view(phones["bg"], t)
    assert "played a Karama: no Voice in this battle" in board(client, t)


def test_the_ecaz_bonus_and_the_sardaukar_karama_reach_the_phones(client, app):
    t = create_table(client, ["atreides", "harkonnen", "emperor", "ecaz"])
    ok(client, t, type="forces.place", faction="emperor", territory="Arrakeen", starred=2, override=True, reason="t")
    ok(client, t, type="forces.place", faction="ecaz", territory="Arrakeen", forces=3, override=True, reason="t")
    ok(client, t, type="alliance.form", factions=["atreides", "ecaz"], override=True, reason="a Nexus")
    set_phase(client, t, "battle")
    ok(client, t, "emperor", type="battle.open", territory="Arrakeen", aggressor="emperor", opponent="atreides", override=True, reason="the table lets this aggressor attack first")
    phones = {f: join_seat(app, t.code, f) for f in ("atreides", "emperor")}
    a = view(phones["atreides"], t)
    plan = a[a.index('id="plan-'):]
    assert 'data-bonus="2"' in plan and "Ecaz add 2 free" in plan
    assert 'data-karama-power="sardaukar"' in a
    e = view(phones["emperor"], t)
    assert "2★ worth 2 each" in e and 'data-karama-power="sardaukar"' not in e
    post(phones["atreides"], t, type="battle.karama", battle=bid(client, t), faction="atreides", power="sardaukar")
    e = view(phones["emperor"], t)
    assert "2★ worth 1 each" in e and "no Sardaukar bonus in this battle" in e


def test_a_dial_question_gets_steppers_and_then_fixes_the_dial(client, table):
    t, phones = table
    b = bid(client, t)
    post(phones["atreides"], t, type="battle.prescience", battle=b, faction="atreides", element="dial")
    h = view(phones["harkonnen"], t)
    form = h[h.index(f'id="answer-{b}"'):]
    form = form[:form.index("</form>")]
    assert "data-stepper" in form and "Show my dial" in form
    post(phones["harkonnen"], t, type="battle.answer", battle=b, faction="harkonnen", forces="4", starred="0")
    assert "dial 4" in view(phones["atreides"], t) and "dial 4" not in view(phones["fremen"], t)
    h = view(phones["harkonnen"], t)
    plan = h[h.index(f'id="plan-{b}"'):]
    assert 'name="forces" value="4"' in plan and "(shown to the Atreides)" in plan
    assert 'data-step="1"' not in plan[:plan.index("Weapon")]  # no dial stepper to change it

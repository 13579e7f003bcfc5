"""The CHOAM & Richese powers on the phones (issue 15): every new entry is a tap on the player's own
page, posted like a phone posts it (form fields, CSRF), and what it shows stays on the right phone."""
from __future__ import annotations

import re

import pytest

from conftest import create_table, csrf, join_seat
from table_helpers import host_state, ok, set_phase, spice

ADDON = ["atreides", "harkonnen", "emperor", "tleilaxu", "choam", "richese"]


@pytest.fixture
def t(client):
    return create_table(client, ADDON, options={"advanced": True, "leader_skills": True})


def page(phone, t) -> str:
    r = phone.get(f"/t/{t.code}/view")
    assert r.status_code == 200
    return r.get_data(as_text=True)


def form_of(html: str, marker: str) -> dict:
    """The fields of the <form> that holds ``marker`` (an id or a button text), as the phone sends them:
    hidden inputs and the first option of each select, steppers at their value."""
    i = html.index(marker)
    start = html.rindex("<form", 0, i)
    end = html.index("</form>", i)
    chunk = html[start:end]
    fields = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', chunk))
    for name, value in re.findall(r'<input name="([^"]+)" type="number"[^>]*value="([^"]*)"', chunk):
        fields[name] = value
    for name, body in re.findall(r'<select name="([^"]+)"[^>]*>(.*?)</select>', chunk, re.S):
        opt = re.search(r'<option(?: value="([^"]*)")?>([^<]*)</option>', body)
        fields[name] = opt.group(1) or opt.group(2)
    return fields


def tap(phone, t, fields: dict, **more) -> str:
    data = dict(fields, **more, csrf_token=csrf(phone, t.code))
    r = phone.post(f"/t/{t.code}/act", data=data)
    assert r.status_code == 200, r.get_data(as_text=True)
    assert 'id="sheet-inline"' not in r.get_data(as_text=True), r.get_data(as_text=True)[:3000]
    return r.get_data(as_text=True)


def test_karama_on_choams_charity_is_a_tap_on_another_phone(app, client, t):
    set_phase(client, t, "charity")
    ok(client, t, type="cards.set", faction="atreides", cards=["Karama"])
    atreides, choam = join_seat(app, t.code, "atreides"), join_seat(app, t.code, "choam")
    assert 'id="karama-choam-charity"' not in page(choam, t)  # never against one's own advantage
    html = page(atreides, t)
    out = tap(atreides, t, form_of(html, 'id="karama-choam-charity"'))
    assert 'id="karama-charity-note"' in out and 'id="karama-choam-charity"' not in out
    assert host_state(client, t)["factions"]["choam"]["karama_stopped"]["charity"]["by"] == "atreides"


def test_half_price_revival_from_choams_phone_asks_the_tleilaxu(app, client, t):
    ok(client, t, type="alliance.form", factions=["choam", "tleilaxu"], override=True, reason="a Nexus")
    ok(client, t, type="spice.set", faction="choam", amount=9)
    ok(client, t, type="forces.place", faction="choam", territory="The Great Flat", forces=5)
    ok(client, t, type="forces.remove", faction="choam", territory="The Great Flat", forces=5, to="tanks")
    set_phase(client, t, "revival")
    choam = join_seat(app, t.code, "choam")
    tap(choam, t, form_of(page(choam, t), 'id="revive-half"'), forces="5")
    [p] = host_state(client, t)["proposals"]
    assert p["to"] == "tleilaxu"
    ok(client, t, "tleilaxu", type="consent.give", faction="tleilaxu", proposal=p["id"])
    assert spice(host_state(client, t), "choam") == 9 - 3


def test_the_auditor_and_its_results_on_choams_phone_only(app, client, t):
    ok(client, t, type="cards.set", faction="atreides", cards=["Baliset", "Kulon"])
    ok(client, t, type="forces.place", faction="choam", territory="Arrakeen", forces=3)
    set_phase(client, t, "battle")
    s = ok(client, t, "choam", type="battle.open", territory="Arrakeen", aggressor="choam", opponent="atreides", override=True, reason="the table lets this aggressor attack first")
    b = s["battles"][-1]["id"]
    ok(client, t, "choam", type="battle.plan", battle=b, faction="choam", leader="The Auditor", forces=1)
    ok(client, t, "atreides", type="battle.plan", battle=b, faction="atreides", leader="Duncan Idaho", forces=2)
    ok(client, t, "choam", type="battle.reveal", battle=b)
    ok(client, t, "host", type="battle.apply", battle=b)
    choam, atreides = join_seat(app, t.code, "choam"), join_seat(app, t.code, "atreides")
    assert f'id="audit-cancel-{b}"' in page(atreides, t) and f'id="audit-{b}"' not in page(atreides, t)
    out = tap(choam, t, form_of(page(choam, t), f'id="audit-{b}"'))
    results = out.split('id="audit-results"', 1)[1].split("</ul>", 1)[0]
    assert "Baliset" in results and "Kulon" in results
    assert 'id="audit-results"' not in page(atreides, t)


def test_leader_skill_assigned_with_taps_shows_on_every_phone(app, client, t):
    atreides, guildless = join_seat(app, t.code, "atreides"), join_seat(app, t.code, "harkonnen")
    html = page(atreides, t)
    fields = form_of(html, 'id="skill-assign"')
    assert fields["skill"] == "Bureaucrat" and fields["leader"]
    tap(atreides, t, fields, skill="Mentat", leader="Duncan Idaho")
    seen = page(guildless, t).split('id="skills-public"', 1)[1].split("</ul>", 1)[0]
    assert "Mentat" in seen and "Duncan Idaho" in seen
    choam = join_seat(app, t.code, "choam")
    html = page(choam, t)
    assert "The Auditor" not in form_of(html, 'id="skill-assign"').get("leader", "")
    assert ">Mentat<" not in html.split('id="skill-assign"')[0].rsplit("<form", 1)[1]  # taken: not offered


def test_a_bribe_and_a_pledge_from_the_phones(app, client, t):
    ok(client, t, type="alliance.form", factions=["emperor", "harkonnen"], override=True, reason="a Nexus")
    emperor = join_seat(app, t.code, "emperor")
    tap(emperor, t, form_of(page(emperor, t), 'id="bribe-submit"'), to="atreides", spice="2")
    h = host_state(client, t)
    assert spice(h, "atreides") == 10 + 2 and spice(h, "emperor") == 10 - 2
    set_phase(client, t, "bidding")
    ok(client, t, "richese", type="cache.announce", card="Distrans", when="first", method="silent")
    tap(emperor, t, form_of(page(emperor, t), 'id="cache-pledge"'), spice="4")
    harkonnen = join_seat(app, t.code, "harkonnen")
    html = page(harkonnen, t)
    assert "up to 4" in html and 'name="ally_spice"' in html
    assert "up to 4" not in page(join_seat(app, t.code, "atreides"), t)


def test_no_bribe_form_while_double_is_up(app, client, t):
    set_phase(client, t, "mentat_pause")
    ok(client, t, "choam", type="inflation.place", faction="choam", side="double")
    html = page(join_seat(app, t.code, "emperor"), t)
    assert 'id="no-bribes"' in html and 'id="bribe-submit"' not in html


def test_choam_discards_with_taps(app, client, t):
    ok(client, t, type="cards.set", faction="choam", cards=["Kulon", "Lasgun", "Lasgun"])
    choam = join_seat(app, t.code, "choam")
    html = page(choam, t)
    assert "Lasgun: 3 spice" in html and "Kulon: 2 spice" in html and "Kulon: its CHOAM effect" in html
    tap(choam, t, form_of(html, "Kulon: its CHOAM effect"))
    assert host_state(client, t)["factions"]["choam"]["hand_size"] == 2


def test_a_hidden_skill_stays_off_other_phones(app, client, t):
    emperor = join_seat(app, t.code, "emperor")
    tap(emperor, t, form_of(page(emperor, t), 'id="skill-assign"'), skill="Warmaster", leader="Bashar",
        hidden="true")
    mine = page(emperor, t)
    assert "Warmaster" in mine.split('id="my-skill"', 1)[1][:200] and "behind your shield" in mine
    other = page(join_seat(app, t.code, "atreides"), t).split('id="skills-public"', 1)[1].split("</ul>", 1)[0]
    assert "behind the shield" in other and "Warmaster" not in other and "Bashar" not in other


def test_inflation_is_placed_with_a_tap(app, client, t):
    set_phase(client, t, "mentat_pause")
    choam = join_seat(app, t.code, "choam")
    assert 'id="inflation-double"' not in page(join_seat(app, t.code, "atreides"), t)
    out = tap(choam, t, form_of(page(choam, t), 'id="inflation-cancel"'))
    assert 'id="inflation-double"' not in out
    assert host_state(client, t)["factions"]["choam"]["inflation"]["side"] == "cancel"


def test_richese_ships_moves_and_reveals_a_nofield_with_taps(app, client, t):
    from table_helpers import its_turn, stack
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "richese")
    richese = join_seat(app, t.code, "richese")
    html = page(richese, t)
    fields = form_of(html, 'id="nofield-ship-self"')
    assert 'name="token" value="0"' in html
    tap(richese, t, fields, **{"territory@sector": "The Great Flat@14", "token": "5"})
    html = page(richese, t)
    assert 'id="nofield-here"' in html and "(5)" in html
    assert 'id="nofield-ship-self"' not in html  # one No-Field on the planet at a time
    assert 'id="nofield-here"' not in page(join_seat(app, t.code, "atreides"), t)
    tap(richese, t, form_of(html, 'id="nofield-move"'), **{"to@to_sector": "Funeral Plain@14"})
    assert "Funeral Plain" in page(richese, t).split('id="nofield-here"', 1)[1][:120]
    tap(richese, t, form_of(page(richese, t), 'id="nofield-reveal"'))
    assert stack(host_state(client, t), "Funeral Plain", "richese")["forces"] == 5


def test_the_black_market_is_a_tap_in_advanced_play(app, client, t):
    ok(client, t, type="cards.set", faction="richese", cards=["Lasgun"])
    set_phase(client, t, "bidding")
    richese = join_seat(app, t.code, "richese")
    before = host_state(client, t)["factions"]["emperor"]["hand_size"]
    tap(richese, t, form_of(page(richese, t), 'id="blackmarket-sell"'), buyer="emperor", price="3")
    h = host_state(client, t)
    assert spice(h, "richese") == 5 + 3 and h["factions"]["emperor"]["hand_size"] == before + 1
    assert h["factions"]["richese"]["hand_size"] == 0


def test_the_choam_card_trade_is_two_taps_and_stays_between_the_allies(app, client, t):
    ok(client, t, type="alliance.form", factions=["choam", "atreides"], override=True, reason="a Nexus")
    ok(client, t, type="cards.set", faction="choam", cards=["Kulon", "Snooper"])
    ok(client, t, type="cards.set", faction="atreides", cards=["Crysknife"])
    set_phase(client, t, "bidding")
    choam, harkonnen = join_seat(app, t.code, "choam"), join_seat(app, t.code, "harkonnen")
    html = page(choam, t)
    box = html[html.index('id="choam-trade"'):]
    assert 'name="gives" value="Kulon"' in box and 'name="gives" value="Snooper"' in box
    assert '<option value="Crysknife">' in box  # the card the ally hands over is picked from the names
    out = tap(choam, t, form_of(html, 'id="choam-trade-go"'), gives="Snooper", receives="Crysknife")
    assert 'id="choam-trade"' not in out  # once a turn
    h = host_state(client, t)
    assert sorted(h["factions"]["choam"]["private"]["cards"]) == ["Crysknife", "Kulon"]
    assert h["factions"]["atreides"]["private"]["cards"] == ["Snooper"]
    other = page(harkonnen, t)
    assert "Crysknife" not in other and "Snooper" not in other  # the traded cards never reach a third phone

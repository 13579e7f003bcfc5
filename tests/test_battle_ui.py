"""The Battle phase on the phones (issue 14): the phase card lists the battles the board implies,
opens one with a tap, builds and seals a plan with taps, reveals both plans together, shows the
outcome line by line with its rules, confirms and applies it. And the secrets: no sealed plan and
no named card of one seat reaches another seat's page, fragment, history or the board screen."""
from __future__ import annotations

import re

import pytest

from conftest import create_table, csrf, join_seat
from table_helpers import host_state, ok, set_phase, spice, stack

FACTIONS = ["atreides", "harkonnen", "fremen"]


@pytest.fixture()
def table(client, app):
    """Atreides 10 in Arrakeen, Harkonnen 6 shipped beside them; each with named cards; Battle phase."""
    t = create_table(client, FACTIONS)
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    ok(client, t, type="cards.set", faction="harkonnen", cards=["Crysknife", "Baliset"])
    ok(client, t, type="cards.set", faction="atreides", cards=["Shield", "Chaumas"])
    set_phase(client, t, "battle")
    phones = {f: join_seat(app, t.code, f) for f in ("atreides", "harkonnen", "fremen", "board")}
    return t, phones


def view(phone, t) -> str:
    r = phone.get(f"/t/{t.code}/view")
    assert r.status_code == 200
    return r.get_data(as_text=True)


def post(phone, t, **form) -> str:
    form.setdefault("revision", str(host_state_rev(phone, t)))
    r = phone.post(f"/t/{t.code}/battle/act", data={**form, "csrf_token": csrf(phone, t.code)})
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_data(as_text=True)


def host_state_rev(phone, t) -> int:
    m = re.search(r'name="revision" value="(\d+)"', view(phone, t))
    return int(m.group(1))


def battle_id(client, t) -> str:
    return host_state(client, t)["battles"][-1]["id"]


def test_the_phase_card_lists_the_implied_battle_with_its_aggressor_and_an_open_button(client, table):
    t, phones = table
    html = view(phones["atreides"], t)
    card = html[html.index('id="battles-now"'):]
    assert 'data-territory="Arrakeen"' in card and "Not opened yet." in card
    assert "aggressor:" in card and "Open the battle" in card
    # a faction not in the battle sees it but has no button; the board screen sees it, without buttons
    fremen = view(phones["fremen"], t)
    assert 'data-territory="Arrakeen"' in fremen and "Open the battle" not in fremen
    board = phones["board"].get(f"/t/{t.code}/board/view").get_data(as_text=True)
    assert 'data-territory="Arrakeen"' in board and "Open the battle" not in board


def test_open_seal_reveal_confirm_apply_by_buttons(client, table):
    t, phones = table
    before = host_state(client, t)
    s = host_state(client, t)
    imp = s["battles_implied"][0]
    html = post(phones["harkonnen"], t, type="battle.open", territory="Arrakeen", aggressor=imp["aggressor"],
                opponent=[f for f in imp["factions"] if f != imp["aggressor"]][0])
    bid = battle_id(client, t)
    assert f'id="plan-{bid}"' in html  # the builder is on the battler's phone at once
    # the builder shows the seat's own leaders, its named weapon, never the other's cards
    assert 'value="Feyd-Rautha"' in html and 'value="Crysknife"' in html
    assert not re.search(r"value=\"Shield\"|<b>Shield</b>", html) and "Chaumas" not in html
    html = post(phones["harkonnen"], t, type="battle.plan", battle=bid, faction="harkonnen", fighter="Feyd-Rautha",
                forces="5", starred="0", weapon="Crysknife", defense="")
    assert "Your sealed plan" in html and "Crysknife" in html
    other = view(phones["atreides"], t)
    assert "Harkonnen: sealed ✓" in other and "Crysknife" not in other and "Feyd-Rautha ·" not in other
    post(phones["atreides"], t, type="battle.plan", battle=bid, faction="atreides", fighter="Duncan Idaho",
         forces="4", starred="0", weapon="", defense="Shield")
    html = view(phones["atreides"], t)
    assert "Reveal both plans" in html
    html = post(phones["atreides"], t, type="battle.reveal", battle=bid)
    # revealed: both plans and the outcome, every line with its rule linked, on every phone and the board
    for seat in ("fremen", "board"):
        page = view(phones[seat], t) if seat != "board" else \
            phones["board"].get(f"/t/{t.code}/board/view").get_data(as_text=True)
        assert "Crysknife" in page and re.search(r"value=\"Shield\"|<b>Shield</b>", page) and "Harkonnen</b> win" in page
        lines = re.findall(r'<a class="rule-link" href="/rules/([a-z0-9-]+)', page)
        assert lines and "base-battle-weapons" in lines
    assert "Confirm the outcome" in html
    post(phones["atreides"], t, type="battle.confirm", battle=bid, faction="atreides")
    html = view(phones["harkonnen"], t)
    assert "Agree and apply the outcome" in html
    post(phones["harkonnen"], t, type="battle.apply", battle=bid)
    h = host_state(client, t)
    assert h["battles"][0]["status"] == "applied"
    assert stack(h, "Arrakeen", "atreides")["forces"] == 0 and stack(h, "Arrakeen", "harkonnen")["forces"] == 1
    assert spice(h, "harkonnen") == spice(before, "harkonnen") - 3
    assert "applied ✓" in view(phones["fremen"], t)


def test_a_sealed_plan_stays_secret_everywhere_until_the_reveal(client, table, app):
    t, phones = table
    s = host_state(client, t)
    agg = s["battles_implied"][0]["aggressor"]
    post(phones["harkonnen"], t, type="battle.open", territory="Arrakeen", aggressor=agg,
         opponent="atreides" if agg == "harkonnen" else "harkonnen")
    bid = battle_id(client, t)
    sealed = post(phones["harkonnen"], t, type="battle.plan", battle=bid, faction="harkonnen",
                  fighter="Piter de Vries", forces="6", weapon="Crysknife")
    assert "Your sealed plan" in sealed
    secret = ("Crysknife", "Baliset", "Piter de Vries")
    pages = {
        "atreides view": view(phones["atreides"], t),
        "fremen view": view(phones["fremen"], t),
        "atreides page": phones["atreides"].get(f"/t/{t.code}").get_data(as_text=True),
        "atreides battle panel": phones["atreides"].get(f"/t/{t.code}/battle").get_data(as_text=True),
        "atreides history": phones["atreides"].get(f"/t/{t.code}/history").get_data(as_text=True),
        "board screen": phones["board"].get(f"/t/{t.code}/board").get_data(as_text=True),
        "board fragment": phones["board"].get(f"/t/{t.code}/board/view").get_data(as_text=True),
    }
    from conftest import bearer
    board_token = app.extensions["tables"].spectator_token(t.code)
    seat = {f: phones[f].get_cookie(f"seat_{t.code}").value for f in ("atreides", "fremen")}
    for who, token in (("atreides", seat["atreides"]), ("fremen", seat["fremen"]), ("board", board_token)):
        for what in ("state", "battles", "history"):
            r = client.get(f"/api/tables/{t.code}/{what}", headers=bearer(token))
            if r.status_code == 200:
                pages[f"{who} api {what}"] = r.get_data(as_text=True)
    assert "atreides api state" in pages and "atreides api history" in pages
    for where, text in pages.items():
        if " api " in where:
            assert "battle_plans" not in text and "Crysknife" not in text and "Baliset" not in text, where
            continue
        for word in secret:
            if word == "Piter de Vries":  # a leader's name is public (the leader discs); its choice is not
                assert "Piter de Vries ·" not in text and "<b>Piter de Vries</b>" not in text, where
            else:
                assert word not in text, (where, word)
    assert "Harkonnen: sealed ✓" in pages["board fragment"]
    # the seat that sealed sees its own plan
    assert "<b>Piter de Vries</b>" in view(phones["harkonnen"], t)


def open_it(client, t, phones) -> str:
    s = host_state(client, t)
    agg = s["battles_implied"][0]["aggressor"]
    post(phones["harkonnen"], t, type="battle.open", territory="Arrakeen", aggressor=agg,
         opponent="atreides" if agg == "harkonnen" else "harkonnen")
    return battle_id(client, t)


def builder(html: str, bid: str) -> str:
    start = html.index(f'id="plan-{bid}"')
    return html[start:html.index("</form>", start)]


def test_unnamed_cards_offer_the_cheap_hero_and_the_deck_names_to_pick(client, table):
    t, phones = table
    ok(client, t, type="cards.set", faction="harkonnen", cards=["Baliset"])
    ok(client, t, type="hand.set", faction="harkonnen", size=3)  # one named card, two not named
    bid = open_it(client, t, phones)
    form = builder(view(phones["harkonnen"], t), bid)
    assert 'value="cheap-hero"' in form                      # the hand may hold a Cheap Hero
    assert "Unnamed cards in hand (2): name it as a weapon" in form
    assert 'value="Lasgun"' in form and 'value="Snooper"' in form
    assert 'value="Baliset"' in form  # a Worthless card may be played (and a Voice may command one)
    html = post(phones["harkonnen"], t, type="battle.plan", battle=bid, faction="harkonnen", fighter="cheap-hero",
                forces="2", weapon="Lasgun", defense="")
    assert "Your sealed plan: " in html and "<b>Cheap Hero</b>" in html and "<b>Lasgun</b>" in html
    # with every card named and none a Cheap Hero, the builder offers neither
    ok(client, t, type="cards.set", faction="atreides", cards=["Chaumas"])
    form = builder(view(phones["atreides"], t), bid)
    assert 'value="cheap-hero"' not in form and "Unnamed card" not in form and 'value="Chaumas"' in form


def test_the_kwisatz_haderach_toggle_only_once_active(client, table):
    t, phones = table
    bid = open_it(client, t, phones)
    assert "Kwisatz Haderach joins" not in builder(view(phones["atreides"], t), bid)
    ok(client, t, type="kh.set", losses=7)
    assert "Kwisatz Haderach joins" in builder(view(phones["atreides"], t), bid)
    assert "Kwisatz Haderach" not in builder(view(phones["harkonnen"], t), bid)


def test_a_refused_plan_says_why_and_keeps_the_builder(client, table):
    t, phones = table
    bid = open_it(client, t, phones)
    r = phones["harkonnen"].post(f"/t/{t.code}/battle/act", data={
        "type": "battle.plan", "battle": bid, "faction": "harkonnen", "fighter": "Feyd-Rautha", "forces": "6",
        "weapon": "Chaumas", "revision": str(host_state_rev(phones["harkonnen"], t)),
        "csrf_token": csrf(phones["harkonnen"], t.code)})
    text = r.get_data(as_text=True)
    assert r.status_code in (200, 422) and "does not hold Chaumas" in text
    assert host_state(client, t)["battles"][0]["sealed"] == []


def test_traitor_button_only_for_the_seat_holding_that_traitor_then_host_adjusts(client, table, app):
    t, phones = table
    ok(client, t, type="traitors.set", faction="harkonnen", traitors=["Duncan Idaho"])
    bid = open_it(client, t, phones)
    post(phones["harkonnen"], t, type="battle.plan", battle=bid, faction="harkonnen", fighter="Beast Rabban", forces="3")
    post(phones["atreides"], t, type="battle.plan", battle=bid, faction="atreides", fighter="Duncan Idaho", forces="9")
    post(phones["atreides"], t, type="battle.reveal", battle=bid)
    assert "Call traitor: Duncan Idaho" in view(phones["harkonnen"], t)
    assert "Call traitor" not in view(phones["atreides"], t) and "Call traitor" not in view(phones["fremen"], t)
    html = post(phones["harkonnen"], t, type="battle.traitor", battle=bid, faction="harkonnen")
    assert "Traitor called by <b>Harkonnen</b>" in html and "Call traitor" not in html
    o = host_state(client, t)
    # the host disputes a line: adjusts the figures and applies, with the reason in the history
    host = app.test_client()
    host.set_cookie(f"seat_{t.code}", t.host)
    hv = view(host, t)
    assert "Apply the outcome (host)" in hv and "A line is disputed" in hv
    r = host.post(f"/t/{t.code}/battle/act", data={
        "type": "battle.apply", "battle": bid, "override": "true", "reason": "table reading of the traitor",
        "adj-forces-harkonnen": "0", "adj-starred-harkonnen": "0", "adj-spice-harkonnen": "0",
        "adj-forces-atreides": "4", "adj-starred-atreides": "0", "adj-spice-atreides": "0", "adj-to_winner": "1",
        "revision": str(o["revision"]), "csrf_token": csrf(host, t.code)})
    assert r.status_code == 200, r.get_data(as_text=True)
    h = host_state(client, t)
    assert h["battles"][0]["status"] == "applied"
    assert stack(h, "Arrakeen", "atreides")["forces"] == 6 and stack(h, "Arrakeen", "harkonnen")["forces"] == 6
    assert h["battles"][0]["outcome"]["spice_to_winner"] == 1
    hist = phones["fremen"].get(f"/t/{t.code}/history").get_data(as_text=True)
    assert "adjusted" in hist and "table reading of the traitor" in hist


def test_a_bought_card_is_named_secretly_and_the_discard_pile_and_deck_are_public(client, table):
    from conftest import act
    t, phones = table
    ok(client, t, type="cards.set", faction="harkonnen", cards=["Baliset"])
    ok(client, t, type="hand.set", faction="harkonnen", size=2)  # e.g. a card bought at auction, not named
    s = ok(client, t, "host", type="cards.name", faction="harkonnen", card="gom-jabbar")
    assert s["factions"]["harkonnen"]["private"]["cards"] == ["Baliset", "Gom Jabbar"]
    assert s["factions"]["harkonnen"]["hand_size"] == 2
    r = act(client, t.code, t.host, expect=422, type="cards.name", faction="harkonnen", card="Lasgun")
    assert "already named" in r.get_json()["error"]["message"]
    r = act(client, t.code, t.host, expect=422, type="cards.name", faction="atreides", card="Pocket Knife")
    assert "no Treachery card called" in r.get_json()["error"]["message"]
    # another seat sees neither the name in the history nor in its view
    assert "Gom Jabbar" not in phones["atreides"].get(f"/t/{t.code}/history").get_data(as_text=True)
    assert "Gom Jabbar" not in view(phones["atreides"], t)
    # the deck line: 33 cards less those in hands and the discard pile, which is public
    bid = open_it(client, t, phones)
    post(phones["harkonnen"], t, type="battle.plan", battle=bid, faction="harkonnen", fighter="Feyd-Rautha",
         forces="2", weapon="Gom Jabbar")
    ok(client, t, type="cards.set", faction="atreides", cards=["Snooper"])
    post(phones["atreides"], t, type="battle.plan", battle=bid, faction="atreides", fighter="Duncan Idaho",
         forces="10", defense="Snooper")
    post(phones["atreides"], t, type="battle.reveal", battle=bid)
    ok(client, t, type="battle.apply", battle=bid)
    h = host_state(client, t)
    td = h["treachery_deck"]
    assert td["discard"] == h["treachery"]["discard"] and "Gom Jabbar" in td["discard"]
    assert td["draw"] == 33 - td["in_hands"] - len(td["discard"])
    line = view(phones["fremen"], t)
    assert re.search(r'id="treachery-deck">Treachery deck: <b>\d+</b> to draw', line) and "Gom Jabbar" in line


def test_in_the_battle_phase_the_battle_to_fight_is_at_the_top_and_karama_folded_below(client, table):
    """Issue 23: "Open the battle" sat under the karama options, ~2,300 px down a phone."""
    t, phones = table
    html = view(phones["atreides"], t)
    now = html[html.index('id="now"'):]
    assert 'data-open-battle="Arrakeen"' in now
    assert now.index('data-open-battle="Arrakeen"') < now.index('id="battle-more"')
    assert '<details class="battle-more" id="battle-more">' in now   # folded, not open


def _winner_line(html: str, bid: str) -> str:
    box = html[html.index(f'id="outcome-{bid}"'):]
    return box[box.index('class="winner"'):box.index("</p>", box.index('class="winner"'))]


def test_the_outcome_box_after_a_traitor_call_reads_no_none_and_no_tie(client, table):
    """base-traitors: the caller wins outright; there are no totals to show and no tie."""
    t, phones = table
    ok(client, t, type="traitors.set", faction="harkonnen", traitors=["Duncan Idaho"])
    bid = open_it(client, t, phones)
    post(phones["harkonnen"], t, type="battle.plan", battle=bid, faction="harkonnen", fighter="Beast Rabban", forces="3")
    post(phones["atreides"], t, type="battle.plan", battle=bid, faction="atreides", fighter="Duncan Idaho", forces="9")
    post(phones["atreides"], t, type="battle.reveal", battle=bid)
    html = post(phones["harkonnen"], t, type="battle.traitor", battle=bid, faction="harkonnen")
    line = _winner_line(html, bid)
    assert "Harkonnen" in line and "traitor" in line and "None" not in line
    assert "a tie goes to the aggressor" not in html.lower()


def test_the_outcome_box_says_a_tie_goes_to_the_aggressor_only_after_a_tie(client, table):
    """qa-battle-tie: "a tie goes to the aggressor" — said when the totals are tied, not otherwise."""
    t, phones = table
    bid = open_it(client, t, phones)
    agg = host_state(client, t)["battles"][0]["aggressor"]
    # Feyd-Rautha 6 + 2 = 8 against Duncan Idaho 2 + 6 = 8: tied
    post(phones["harkonnen"], t, type="battle.plan", battle=bid, faction="harkonnen", fighter="Feyd-Rautha", forces="2")
    post(phones["atreides"], t, type="battle.plan", battle=bid, faction="atreides", fighter="Duncan Idaho", forces="6")
    html = post(phones["atreides"], t, type="battle.reveal", battle=bid)
    assert "a tie goes to the aggressor" in html.lower()
    assert _winner_line(html, bid).count("8") == 2 and agg in _winner_line(html, bid)


def test_no_tie_no_tie_line(client, table):
    t, phones = table
    bid = open_it(client, t, phones)
    post(phones["harkonnen"], t, type="battle.plan", battle=bid, faction="harkonnen", fighter="Feyd-Rautha", forces="5")
    post(phones["atreides"], t, type="battle.plan", battle=bid, faction="atreides", fighter="Duncan Idaho", forces="2")
    html = post(phones["atreides"], t, type="battle.reveal", battle=bid)
    assert "tie" not in html[html.index(f'id="outcome-{bid}"'):].lower()

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


def test_a_sealed_plan_stays_secret_everywhere_until_the_reveal(client, table):
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
    for where, text in pages.items():
        for word in secret:
            if word == "Piter de Vries":  # a leader's name is public (the leader discs); its choice is not
                assert "Piter de Vries ·" not in text and "<b>Piter de Vries</b>" not in text, where
            else:
                assert word not in text, (where, word)
    assert "Harkonnen: sealed ✓" in pages["board fragment"]
    # the seat that sealed sees its own plan
    assert "<b>Piter de Vries</b>" in view(phones["harkonnen"], t)

"""Issue 6 inside a table: the seat's karama options, once-per-game plays, its battles (not split
by the storm) and the private battle panel with its live dial."""
from __future__ import annotations

import re

import pytest

from conftest import SIX, bearer, create_table, join_seat
from table_helpers import get, host_state, ok, refused, set_phase, open_nexus

ALL = {"atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu"}


# -- karama --------------------------------------------------------------------------------------

@pytest.mark.parametrize("seat", SIX)
def test_karama_lists_options_against_the_others_present_never_its_own(client, table6, seat):
    k = get(client, table6, seat, "karama")
    targets = {o["target"] for o in k["options"]}
    assert targets == set(SIX) - {seat}
    for o in k["options"]:
        assert o["effect"] and isinstance(o["battle_plan"], bool) and o["rule"] == f"karama-{o['target']}"
    assert k["special"]["available"] is True and k["special"]["effect"]


def test_karama_options_with_absent_factions_and_an_ally(client):
    t = create_table(client, ["atreides", "harkonnen", "fremen"])
    open_nexus(client, t)
    ok(client, t, type="alliance.form", factions=["atreides", "fremen"])
    k = get(client, t, "atreides", "karama")
    by_target = {}
    for o in k["options"]:
        by_target.setdefault(o["target"], []).append(o)
    # the Emperor's and the Guild's "open when absent" effects, nothing else from absent factions
    assert set(by_target) == {"harkonnen", "fremen", "emperor", "guild"}
    assert all(not o["target_present"] for o in by_target["emperor"] + by_target["guild"])
    assert all(o["ally"] for o in by_target["fremen"])  # the ally's advantage can be subverted
    assert any(o["battle_plan"] for o in k["options"])
    # what applies in the current phase (spice blow) comes first
    now = [o.get("applies_now") for o in k["options"]]
    assert now[0] is True and now == sorted(now, reverse=True)


def test_karama_endpoint_asks_for_a_seat(client, table6):
    assert get(client, table6, "host", "karama", faction="bg")["special"]["rule"] == "bg-special-karama"
    get(client, table6, "host", "karama", 422)
    get(client, table6, "atreides", "karama", 403, faction="bg")


def test_special_karama_once_per_game(client, table6):
    t = table6
    ok(client, t, "atreides", type="karama.special", faction="atreides")
    k = get(client, t, "atreides", "karama")
    assert k["special"]["available"] is False
    refused(client, t, "atreides", "atreides-special-karama", "already used its Special Karama",
            type="karama.special", faction="atreides")
    assert get(client, t, "harkonnen", "karama")["special"]["available"] is True  # only Atreides' is used
    set_phase(client, t, "storm", turn=5)
    assert get(client, t, "atreides", "karama")["special"]["available"] is False  # once per game, not per turn


def test_bg_worthless_as_karama_once(client, table6):
    t = table6
    k = get(client, t, "bg", "karama")
    assert k["worthless_karama"]["available"] is True
    ok(client, t, "bg", type="karama.worthless", faction="bg")
    k = get(client, t, "bg", "karama")
    assert k["worthless_karama"]["available"] is False and k["special"]["available"] is False
    refused(client, t, "bg", "bg-special-karama", "already played a Worthless card", type="karama.worthless",
            faction="bg")
    # for the Bene Gesserit the Special Karama is that same play: it is spent too
    refused(client, t, "bg", "bg-special-karama", "already used its Special Karama", type="karama.special",
            faction="bg")


def test_bg_special_karama_spends_the_worthless_play(client, table6):
    ok(client, table6, "bg", type="karama.special", faction="bg")
    refused(client, table6, "bg", "bg-special-karama", "already", type="karama.worthless", faction="bg")


# -- battles --------------------------------------------------------------------------------------

def test_battles_in_a_shared_territory_not_across_the_storm(client, table6):
    t = table6
    ok(client, t, type="forces.place", faction="atreides", territory="Imperial Basin", sector=8, forces=2)
    ok(client, t, type="forces.place", faction="harkonnen", territory="Imperial Basin", sector=10, forces=3)
    ok(client, t, type="forces.place", faction="emperor", territory="Polar Sink", forces=2)
    ok(client, t, type="forces.place", faction="atreides", territory="Polar Sink", forces=2)
    b = get(client, t, "atreides", "battles")["battles"]
    assert b == [{"territory": "Imperial Basin", "opponents": ["harkonnen"], "forces": 2, "starred": 0,
                  "ecaz_forces": 0}]  # never in the Polar Sink
    assert [x["territory"] for x in get(client, t, "harkonnen", "battles")["battles"]] == ["Imperial Basin"]
    ok(client, t, type="storm.set", sector=9)  # the storm now separates sector 8 from sector 10
    assert get(client, t, "atreides", "battles")["battles"] == []
    assert get(client, t, "harkonnen", "battles")["battles"] == []
    ok(client, t, type="storm.set", sector=18)
    open_nexus(client, t)
    ok(client, t, type="alliance.form", factions=["atreides", "harkonnen"])
    assert get(client, t, "atreides", "battles")["battles"] == []  # allies do not fight
    get(client, t, "atreides", "battles", 403, faction="harkonnen")
    get(client, t, "host", "battles", 422)
    assert get(client, t, "host", "battles", faction="harkonnen")["faction"] == "harkonnen"


# -- the battle panel (cookie seats) -----------------------------------------------------------------

def dial_numbers(html: str) -> tuple[int, int]:
    strength = re.search(r'id="dial-strength">(\d+)<', html)
    cost = re.search(r'id="dial-cost">(\d+)<', html)
    assert strength and cost, html
    return int(strength.group(1)), int(cost.group(1))


@pytest.mark.parametrize("seat, query, strength, cost", [
    ("atreides", {"forces": 5}, 5, 3),  # 2 free, then 1 spice per troop
    ("atreides", {"forces": 2}, 2, 0),
    ("atreides", {"forces": 10}, 10, 8),
    ("emperor", {"starred": 3, "opponent": "atreides"}, 6, 1),  # 3 Sardaukar for 6: 1 spice
    ("emperor", {"forces": 2, "starred": 3, "opponent": "atreides"}, 8, 3),
])
def test_battle_panel_shows_strength_and_cost(app, client, table6, seat, query, strength, cost):
    t = table6
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=5)
    ok(client, t, type="forces.place", faction="emperor", territory="Arrakeen", forces=2, starred=3)
    phone = join_seat(app, t.code, seat)
    r = phone.get(f"/t/{t.code}/battle", query_string=query)
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    assert dial_numbers(r.get_data(as_text=True)) == (strength, cost)


@pytest.mark.parametrize("query, territory, opponent, want, strength", [
    # what a phone carries over a refresh: still fought there, so dialled again for the new table
    ({"territory": "Arrakeen", "opponent": "emperor", "want": "6"}, "Arrakeen", "emperor", "6", 6),
    # a territory no longer fought: the first battle, and what was dialled for it dropped
    ({"territory": "Carthag", "opponent": "harkonnen", "want": "6"}, "Arrakeen", "harkonnen", "", 0),
    # an opponent no longer there: the first one, the dial kept
    ({"territory": "Arrakeen", "opponent": "fremen", "forces": "3"}, "Arrakeen", "harkonnen", "", 3),
])
def test_battle_panel_carried_over_a_change(app, client, table6, query, territory, opponent, want, strength):
    t = table6
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=5)
    ok(client, t, type="forces.place", faction="emperor", territory="Arrakeen", forces=2)
    html = join_seat(app, t.code, "atreides").get(f"/t/{t.code}/battle", query_string=query).get_data(as_text=True)
    assert re.search(rf"<option selected>{territory}</option>", html), html
    assert re.search(rf'<option value="{opponent}" selected>', html), html
    assert re.search(rf'name="want" [^>]*value="{want}"', html), html
    assert dial_numbers(html)[0] == strength


def test_battle_panel_is_private_to_its_seat(app, client, table6):
    t = table6
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=5)
    ok(client, t, type="spice.set", faction="atreides", amount=2)
    revision = host_state(client, t)["revision"]
    atreides = join_seat(app, t.code, "atreides")
    harkonnen = join_seat(app, t.code, "harkonnen")
    html = atreides.get(f"/t/{t.code}/battle", query_string={"forces": 7}).get_data(as_text=True)
    assert dial_numbers(html) == (7, 5)
    assert "You have <b>10</b> forces" in html and "NO" in html  # 5 spice needed, 2 held
    assert "only you see this" in html

    # nothing was stored, and the other seat never sees that dial
    assert host_state(client, t)["revision"] == revision
    seen = [harkonnen.get(f"/t/{t.code}/battle").get_data(as_text=True),
            harkonnen.get(f"/t/{t.code}/view").get_data(as_text=True),
            harkonnen.get(f"/t/{t.code}/history").get_data(as_text=True),
            harkonnen.get(f"/api/tables/{t.code}/state").get_data(as_text=True),
            client.get(f"/api/tables/{t.code}/history", headers=bearer(t.seats["harkonnen"])).get_data(as_text=True)]
    assert dial_numbers(seen[0]) == (0, 0)
    assert "You have <b>5</b> forces" in seen[0]
    for text in seen:
        assert 'id="dial-strength">7<' not in text and "forces=7" not in text
    # the board view and the host have no battle panel
    board = join_seat(app, t.code, "board")
    assert board.get(f"/t/{t.code}/battle").status_code == 403
    assert app.test_client().get(f"/t/{t.code}/battle").status_code in (401, 403)


def test_battle_panel_without_a_battle(app, client, table6):
    phone = join_seat(app, table6.code, "guild")
    html = phone.get(f"/t/{table6.code}/battle").get_data(as_text=True)
    assert "You share no territory with an opponent" in html and "dial-strength" not in html
    assert "Special Karama" in html

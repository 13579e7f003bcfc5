"""Battles inside a table: open, sealed plans, reveal together, traitor calls, confirm and apply as
one entry (one undo takes it back), and the battles the board implies."""
from __future__ import annotations

import json

import pytest

from conftest import bearer, create_table, undo
from table_helpers import get, history, host_state, ok, refused, set_phase, spice, stack

TWO = ["atreides", "harkonnen", "fremen"]


@pytest.fixture()
def arrakeen(client):
    """Atreides 10 in Arrakeen (their start), Harkonnen 6 shipped in beside them; Battle phase."""
    t = create_table(client, TWO)
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    set_phase(client, t, "battle")
    return t


def open_battle(client, t, aggressor="harkonnen", opponent="atreides", territory="Arrakeen") -> str:
    s = ok(client, t, aggressor, type="battle.open", territory=territory, aggressor=aggressor, opponent=opponent, override=True, reason="the table lets this aggressor attack first")
    return s["battles"][-1]["id"]


def plan(client, t, who, battle, **kw):
    return ok(client, t, who, type="battle.plan", battle=battle, faction=who, **kw)


def test_the_board_implies_the_battles_with_their_aggressor(client, arrakeen):
    b = get(client, arrakeen, "atreides", "battles")
    implied = {x["territory"]: x for x in b["implied"]}
    assert set(implied) == {"Arrakeen"}
    assert set(implied["Arrakeen"]["factions"]) == {"atreides", "harkonnen"}
    assert implied["Arrakeen"]["aggressor"] in ("atreides", "harkonnen")


def test_advisors_and_the_polar_sink_imply_no_battle(client):
    t = create_table(client, ["atreides", "bg"])
    ok(client, t, "bg", type="setup.bg", faction="bg", territory="Polar Sink")
    ok(client, t, type="forces.place", faction="bg", territory="Arrakeen", advisors=2)
    ok(client, t, type="forces.place", faction="atreides", territory="Polar Sink", forces=2)
    assert get(client, t, "atreides", "battles")["implied"] == []


def test_a_whole_battle_sealed_revealed_applied_and_undone(client, arrakeen):
    t = arrakeen
    before = host_state(client, t)
    bid = open_battle(client, t)
    ok(client, t, "harkonnen", type="cards.set", faction="harkonnen", cards=["Crysknife", "Baliset"])
    ok(client, t, "atreides", type="cards.set", faction="atreides", cards=["Shield"])
    plan(client, t, "harkonnen", bid, leader="Feyd-Rautha", forces=5, weapon="crysknife")
    # sealed: the other phone sees only that Harkonnen have sealed, never the plan
    seen = client.get(f"/api/tables/{t.code}/state", headers=bearer(t.token("atreides"))).get_data(as_text=True)
    s = json.loads(seen)
    assert "Crysknife" not in seen and "battle_plans" not in json.dumps(s["factions"]["atreides"])
    assert "battle_plans" not in s["factions"]["harkonnen"].get("private", {})
    assert s["battles"][0]["sealed"] == ["harkonnen"] and s["battles"][0]["plans"] is None
    assert all(e["payload"] is None for e in history(client, t, "atreides") if e["type"] == "battle.plan")
    refused(client, t, "harkonnen", "base-battle", "waiting for atreides", type="battle.reveal", battle=bid)
    plan(client, t, "atreides", bid, leader="Duncan Idaho", forces=4, defense="Shield")
    s = ok(client, t, "atreides", type="battle.reveal", battle=bid)
    b = s["battles"][0]
    assert b["status"] == "revealed" and b["plans"]["harkonnen"]["weapon"] == "Crysknife"
    # one side confirms; the other applies
    refused(client, t, "harkonnen", "base-battle", "waiting for atreides", type="battle.apply", battle=bid)
    ok(client, t, "atreides", type="battle.confirm", battle=bid, faction="atreides")
    s = ok(client, t, "harkonnen", type="battle.apply", battle=bid)
    o = s["battles"][0]["outcome"]
    assert o["winner"] == "harkonnen" and o["totals"] == {"harkonnen": 11, "atreides": 6}
    h = host_state(client, t)
    assert stack(h, "Arrakeen", "atreides")["forces"] == 0
    assert stack(h, "Arrakeen", "harkonnen")["forces"] == 1
    assert h["factions"]["atreides"]["tanks"]["forces"] == 10 and h["factions"]["harkonnen"]["tanks"]["forces"] == 5
    assert spice(h, "harkonnen") == spice(before, "harkonnen") - 3
    assert spice(h, "atreides") == spice(before, "atreides") - 2
    assert h["factions"]["atreides"]["private"]["cards"] == [] and h["factions"]["atreides"]["hand_size"] == 0
    assert h["factions"]["harkonnen"]["private"]["cards"] == ["Crysknife", "Baliset"]  # the winner keeps it
    assert h["treachery"]["discard"] == ["Shield"]
    assert h["factions"]["atreides"]["private"]["kh_losses"] == 10
    # one undo takes the whole outcome back
    undo(client, t.code, t.host)
    h2 = host_state(client, t)
    assert stack(h2, "Arrakeen", "atreides")["forces"] == 10 and h2["battles"][0]["status"] == "revealed"
    assert spice(h2, "harkonnen") == spice(before, "harkonnen")


def test_a_killed_leader_goes_to_the_tanks_and_pays_the_winner(client, arrakeen):
    t = arrakeen
    bid = open_battle(client, t)
    plan(client, t, "harkonnen", bid, leader="Umman Kudu", forces=1, weapon="Chaumas")
    plan(client, t, "atreides", bid, leader="Thufir Hawat", forces=2, weapon="Maula Pistol")
    ok(client, t, "atreides", type="battle.reveal", battle=bid)
    before = host_state(client, t)
    s = ok(client, t, type="battle.apply", battle=bid)  # the host applies without confirmations
    o = s["battles"][0]["outcome"]
    # both leaders die: Atreides 2 against Harkonnen 1; Atreides take 5 + 1 for both leaders
    assert sorted(o["leaders_killed"]) == ["Thufir Hawat", "Umman Kudu"]
    assert o["winner"] == "atreides" and o["spice_to_winner"] == 6
    h = host_state(client, t)
    status = {ld["name"]: ld["status"] for f in ("atreides", "harkonnen") for ld in h["factions"][f]["leaders"]}
    assert status["Thufir Hawat"] == "tanks" and status["Umman Kudu"] == "tanks"
    assert spice(h, "atreides") == spice(before, "atreides") + 6


def test_traitor_call_after_reveal(client, arrakeen):
    t = arrakeen
    ok(client, t, "harkonnen", type="traitors.set", faction="harkonnen", traitors=["Duncan Idaho"])
    bid = open_battle(client, t)
    plan(client, t, "harkonnen", bid, leader="Beast Rabban", forces=3)
    plan(client, t, "atreides", bid, leader="Thufir Hawat", forces=9)
    refused(client, t, "harkonnen", "base-traitors", "once the plans are revealed",
            type="battle.traitor", battle=bid, faction="harkonnen")
    ok(client, t, "atreides", type="battle.reveal", battle=bid)
    refused(client, t, "harkonnen", "base-traitors", "not among the traitors",
            type="battle.traitor", battle=bid, faction="harkonnen")


def test_traitor_wins_outright(client, arrakeen):
    t = arrakeen
    ok(client, t, "harkonnen", type="traitors.set", faction="harkonnen", traitors=["Duncan Idaho"])
    bid = open_battle(client, t)
    plan(client, t, "harkonnen", bid, leader="Beast Rabban", forces=3)
    plan(client, t, "atreides", bid, leader="Duncan Idaho", forces=9)
    ok(client, t, "atreides", type="battle.reveal", battle=bid)
    ok(client, t, "harkonnen", type="battle.traitor", battle=bid, faction="harkonnen")
    s = ok(client, t, type="battle.apply", battle=bid)
    o = s["battles"][0]["outcome"]
    assert o["winner"] == "harkonnen" and o["spice_paid"]["harkonnen"] == 0 and o["spice_to_winner"] == 2
    h = host_state(client, t)
    assert stack(h, "Arrakeen", "harkonnen")["forces"] == 6  # the caller loses nothing


@pytest.mark.parametrize("kw,rule,needle", [
    ({"leader": "Feyd-Rautha", "forces": 7}, "base-battle", "has only"),
    ({"leader": "Feyd-Rautha", "weapon": "Shield"}, "base-battle-weapons", "not a weapon"),
    ({"leader": "Stilgar"}, "base-battle", "belongs to fremen"),
    ({"leader": "Paul"}, "base-battle", "no leader called"),
    ({"leader": "Feyd-Rautha", "forces": 6, "weapon": "Lasgun"}, "kiss-treachery-deck", "does not hold"),
])
def test_impossible_plans_refused(client, arrakeen, kw, rule, needle):
    t = arrakeen
    bid = open_battle(client, t)
    ok(client, t, "harkonnen", type="cards.set", faction="harkonnen", cards=["Crysknife", "Shield"])
    ok(client, t, "harkonnen", type="hand.set", faction="harkonnen", size=2)
    refused(client, t, "harkonnen", rule, needle, type="battle.plan", battle=bid, faction="harkonnen", **kw)


def test_dead_leader_cannot_fight(client, arrakeen):
    t = arrakeen
    ok(client, t, type="leader.tanks", faction="harkonnen", leader="Feyd-Rautha")
    bid = open_battle(client, t)
    refused(client, t, "harkonnen", "base-battle", "tleilaxu tanks", type="battle.plan", battle=bid,
            faction="harkonnen", leader="Feyd-Rautha")


def test_only_the_battlers_act_on_a_battle(client, arrakeen):
    t = arrakeen
    bid = open_battle(client, t)
    r = client.post(f"/api/tables/{t.code}/actions", headers=bearer(t.token("fremen")),
                    json={"type": "battle.plan", "battle": bid, "faction": "atreides",
                          "revision": host_state(client, t)["revision"]})
    assert r.status_code == 403
    refused(client, t, "fremen", "base-battle", "not in the battle", type="battle.plan", battle=bid,
            faction="fremen")
    refused(client, t, "fremen", "base-battle", "not in the battle", type="battle.reveal", battle=bid)


def test_open_needs_forces_of_both_sides(client, arrakeen):
    t = arrakeen
    refused(client, t, "fremen", "base-battle", "no forces", type="battle.open", territory="Arrakeen",
            aggressor="fremen", opponent="atreides")
    open_battle(client, t)
    refused(client, t, "harkonnen", "base-battle", "already open", type="battle.open", territory="arrakeen",
            aggressor="harkonnen", opponent="atreides")


def test_host_can_adjust_a_disputed_line_with_a_logged_reason(client, arrakeen):
    t = arrakeen
    bid = open_battle(client, t)
    plan(client, t, "harkonnen", bid, leader="Feyd-Rautha", forces=5)
    plan(client, t, "atreides", bid, leader="Duncan Idaho", forces=4)
    ok(client, t, "atreides", type="battle.reveal", battle=bid)
    refused(client, t, "host", "base-battle", "edited by hand", type="battle.apply", battle=bid,
            adjust={"spice_paid": {"harkonnen": 0}})
    ok(client, t, type="battle.apply", battle=bid, adjust={"spice_paid": {"harkonnen": 0}}, override=True,
       reason="Harkonnen had a Karama for the dial")
    last = history(client, t)[-1]
    assert "OVERRIDE: Harkonnen had a Karama" in last["summary"]

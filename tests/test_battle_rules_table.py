"""Battles by the rules around the fight (issue 25), through the public API, each test quoting the
seed first: the Lasgun/Shield explosion takes everything in the territory, the Kwisatz Haderach
fights in one territory per turn and dies only in an explosion, a leader fights in one territory
per turn, a plan needs a leader or a Cheap Hero when one is available."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import act, create_table
from table_helpers import board_spice, host_state, ok, refused, set_phase, stack

FACTIONS = ["atreides", "harkonnen", "fremen", "bg"]
KH = "atreides-kwisatz-haderach"


def basin(client, *, advisors: int = 2, spice: int = 6, fremen: int = 0, ecaz: bool = False):
    """Atreides 5 and Harkonnen 6 in Imperial Basin (9), BG advisors in sector 10, spice in sector 8;
    Atreides also in Arrakeen (their start) beside Harkonnen 4: two battles. Battle phase."""
    t = create_table(client, FACTIONS + (["ecaz"] if ecaz else []))
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    ok(client, t, "bg", type="setup.bg", faction="bg", territory="Polar Sink")
    ok(client, t, type="forces.place", faction="atreides", territory="Imperial Basin", sector=9, forces=5)
    ok(client, t, type="forces.place", faction="harkonnen", territory="Imperial Basin", sector=9, forces=6)
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=4)
    if advisors:
        ok(client, t, type="forces.place", faction="bg", territory="Imperial Basin", sector=10, advisors=advisors)
    if spice:
        ok(client, t, type="board.spice", territory="Imperial Basin", sector=8, amount=spice)
    ok(client, t, type="cards.set", faction="harkonnen", cards=["Lasgun", "Crysknife", "Shield"])
    ok(client, t, type="cards.set", faction="atreides", cards=["Shield", "Chaumas"])
    set_phase(client, t, "battle")
    return t


def open_battle(client, t, territory, aggressor="harkonnen", opponent="atreides") -> str:
    s = ok(client, t, aggressor, type="battle.open", territory=territory, aggressor=aggressor, opponent=opponent, override=True, reason="the table lets this aggressor attack first")
    return s["battles"][-1]["id"]


def plan(client, t, who, bid, **kw):
    return ok(client, t, who, type="battle.plan", battle=bid, faction=who, **kw)


def fight(client, t, bid, harkonnen: dict, atreides: dict, *, apply: bool = True) -> dict:
    plan(client, t, "harkonnen", bid, **harkonnen)
    plan(client, t, "atreides", bid, **atreides)
    ok(client, t, "atreides", type="battle.reveal", battle=bid)
    if not apply:
        return host_state(client, t)
    return ok(client, t, type="battle.apply", battle=bid)


# -- the explosion ------------------------------------------------------------------------------

EXPLOSION = [
    # (seed, Harkonnen plan, Atreides plan)
    ("base-battle-weapons: a Lasgun meeting a Shield blows up the territory",
     {"leader": "Feyd-Rautha", "forces": 2, "weapon": "Lasgun"}, {"leader": "Duncan Idaho", "forces": 1, "defense": "Shield"}),
    ("the Lasgun's own side may hold the Shield",
     {"leader": "Feyd-Rautha", "forces": 2, "weapon": "Lasgun", "defense": "Shield"}, {"leader": "Duncan Idaho", "forces": 1}),
]


@pytest.mark.parametrize("seed,hark,atre", EXPLOSION, ids=["opposite", "same-side"])
def test_an_explosion_takes_every_force_of_everyone_and_the_spice(client, seed, hark, atre):
    """kiss-rules.txt, Bene Gesserit advisors: "They are still susceptible to storms, worms and
    explosions." An explosion kills everything in the battle's territory."""
    t = basin(client)
    before = host_state(client, t)
    bid = open_battle(client, t, "Imperial Basin")
    fight(client, t, bid, hark, atre)
    h = host_state(client, t)
    assert h["battles"][0]["outcome"]["explosion"], seed
    for f in ("atreides", "harkonnen", "bg"):
        st_ = stack(h, "Imperial Basin", f)
        assert st_["forces"] + st_["starred"] + st_.get("advisors", 0) == 0, (f, st_)
    assert board_spice(h, "Imperial Basin") == 0
    assert h["factions"]["bg"]["tanks"]["forces"] == before["factions"]["bg"]["tanks"]["forces"] + 2
    # nothing else is touched: Arrakeen still holds both sides
    assert stack(h, "Arrakeen", "harkonnen")["forces"] == 4 and stack(h, "Arrakeen", "atreides")["forces"] == 10
    assert {"Feyd-Rautha", "Duncan Idaho"} <= {ld["name"] for f in ("harkonnen", "atreides")
                                               for ld in h["factions"][f]["leaders"] if ld["status"] == "tanks"}


def test_the_history_line_names_what_else_the_explosion_took(client):
    from table_helpers import history
    t = basin(client)
    bid = open_battle(client, t, "Imperial Basin")
    fight(client, t, bid, {"leader": "Feyd-Rautha", "forces": 2, "weapon": "Lasgun"},
          {"leader": "Duncan Idaho", "forces": 1, "defense": "Shield"})
    line = next(e for e in history(client, t) if e["type"] == "battle.apply")["summary"]
    assert "explosion" in line and "Bene Gesserit" in line and "6 spice" in line


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(advisors=st.integers(0, 4), spice=st.integers(0, 12), hark=st.integers(0, 4), atre=st.integers(0, 5),
       lasgun_side=st.sampled_from(["harkonnen", "atreides"]), kh=st.booleans(),
       where=st.sampled_from(["Imperial Basin", "Arrakeen"]))
def test_invariant_nothing_of_anyone_survives_an_explosion(client, advisors, spice, hark, atre, lasgun_side, kh, where):
    """Invariant: after a Lasgun/Shield explosion no force of any faction, no spice and no Ecaz
    Ambassador remain in the territory (kiss-rules.txt, Ecaz: "Ambassadors are vulnerable to game
    effects like Storm or explosions, returning to your supply")."""
    stronghold = where == "Arrakeen"
    t = basin(client, advisors=0 if stronghold else advisors, spice=spice, ecaz=stronghold)
    if stronghold:
        if advisors:
            ok(client, t, type="forces.place", faction="bg", territory="Arrakeen", advisors=advisors)
        ok(client, t, "ecaz", type="ambassadors.set", faction="ecaz", ambassadors=["Fremen"])
        set_phase(client, t, "revival")
        ok(client, t, "ecaz", type="ambassador.place", faction="ecaz", territory="Arrakeen", ambassador="Fremen")
        set_phase(client, t, "battle")
    if kh:
        ok(client, t, type="kh.set", losses=7)
    ok(client, t, type="cards.set", faction="atreides", cards=["Shield", "Lasgun"])
    bid = open_battle(client, t, where)
    h_plan = {"leader": "Feyd-Rautha", "forces": hark}
    a_plan = {"leader": "Duncan Idaho", "forces": atre, "kh": kh}
    (h_plan if lasgun_side == "harkonnen" else a_plan)["weapon"] = "Lasgun"
    (a_plan if lasgun_side == "harkonnen" else h_plan)["defense"] = "Shield"
    fight(client, t, bid, h_plan, a_plan)
    h = host_state(client, t)
    left = h["board"]["territories"].get(where, {})
    assert not any(s["forces"] + s["starred"] + s.get("advisors", 0) for s in left.get("forces", {}).values())
    assert left.get("spice", 0) == 0
    assert where not in h["board"].get("markers", {})
    if stronghold:
        from conftest import state
        assert "Fremen" in state(client, t.code, t.token("ecaz"))["factions"]["ecaz"]["private"]["ambassadors"]
    assert (h["factions"]["atreides"].get("kh") or {}).get("status", "alive") == ("tanks" if kh else "alive")


# -- the Kwisatz Haderach -----------------------------------------------------------------------

def test_the_kh_killed_in_an_explosion_is_recorded_and_revived_like_a_leader(client):
    """kiss-rules.txt: "The Kwisatz Haderach can only be killed if blown up by a lasgun/shield explosion.
    If killed, the Kwisatz Haderach must be revived like any other leader." """
    t = basin(client)
    ok(client, t, type="kh.set", losses=7)
    bid = open_battle(client, t, "Imperial Basin")
    fight(client, t, bid, {"leader": "Feyd-Rautha", "forces": 2, "weapon": "Lasgun"},
          {"leader": "Duncan Idaho", "forces": 1, "defense": "Shield", "kh": True})
    h = host_state(client, t)
    assert "Kwisatz Haderach" in h["battles"][0]["outcome"]["leaders_killed"]
    assert h["factions"]["atreides"]["kh"]["status"] == "tanks"
    # dead, it cannot join a plan in the next battle (Arrakeen)
    bid2 = open_battle(client, t, "Arrakeen")
    refused(client, t, "atreides", KH, "killed", type="battle.plan", battle=bid2, faction="atreides",
            leader="Gurney Halleck", forces=2, kh=True)
    ok(client, t, type="leader.revive", faction="atreides", leader="Kwisatz Haderach", paid=2)
    assert host_state(client, t)["factions"]["atreides"]["kh"]["status"] == "alive"


def test_the_kh_adds_in_one_territory_per_turn(client):
    """kiss-rules.txt: "may add its +2 strength to leaders or cheap heroes in one territory per turn." """
    t = basin(client, advisors=0, spice=0)
    ok(client, t, type="kh.set", losses=7)
    bid = open_battle(client, t, "Imperial Basin")
    fight(client, t, bid, {"leader": "Feyd-Rautha", "forces": 1}, {"leader": "Duncan Idaho", "forces": 1, "kh": True})
    bid2 = open_battle(client, t, "Arrakeen")
    refused(client, t, "atreides", KH, "one territory per turn", type="battle.plan", battle=bid2,
            faction="atreides", leader="Gurney Halleck", forces=2, kh=True)
    plan(client, t, "atreides", bid2, leader="Gurney Halleck", forces=2)


def test_a_traitor_call_against_a_kh_leader_is_refused_when_called(client):
    """kiss-rules.txt: "A leader accompanied by Kwisatz Haderach cannot turn traitor." """
    t = basin(client, advisors=0, spice=0)
    ok(client, t, type="kh.set", losses=7)
    ok(client, t, type="traitors.set", faction="harkonnen", traitors=["Duncan Idaho"])
    bid = open_battle(client, t, "Imperial Basin")
    fight(client, t, bid, {"leader": "Feyd-Rautha", "forces": 1}, {"leader": "Duncan Idaho", "forces": 1, "kh": True},
          apply=False)
    refused(client, t, "harkonnen", KH, "cannot turn traitor", type="battle.traitor", battle=bid, faction="harkonnen")
    assert host_state(client, t)["battles"][0]["traitors"] == []
    ok(client, t, type="battle.apply", battle=bid)  # the battle is not stuck


# -- leaders ------------------------------------------------------------------------------------

def test_a_leader_fights_in_one_territory_per_turn(client):
    """base-battle (GF9 rules, Leader): a leader who survives a battle may fight again in the same
    territory, never in another territory that turn."""
    t = basin(client, advisors=0, spice=0)
    bid = open_battle(client, t, "Imperial Basin")
    fight(client, t, bid, {"leader": "Feyd-Rautha", "forces": 6}, {"leader": "Duncan Idaho", "forces": 0})
    bid2 = open_battle(client, t, "Arrakeen")
    refused(client, t, "harkonnen", "base-battle", "one territory per turn", type="battle.plan", battle=bid2,
            faction="harkonnen", leader="Feyd-Rautha", forces=2)
    plan(client, t, "harkonnen", bid2, leader="Beast Rabban", forces=2)
    # the next turn the mark is gone
    ok(client, t, type="phase.set", turn=2, phase="storm")
    assert all(not ld["used"] for ld in host_state(client, t)["factions"]["harkonnen"]["leaders"])


def test_a_plan_needs_a_leader_or_cheap_hero_when_one_is_available(client):
    """base-battle (GF9 rules, Battle Plan): "a player must play a leader or a Cheap Hero card as
    part of the battle plan if possible" — overridable by the host."""
    t = basin(client, advisors=0, spice=0)
    bid = open_battle(client, t, "Imperial Basin")
    refused(client, t, "harkonnen", "base-battle", "must play a leader or a cheap hero", type="battle.plan",
            battle=bid, faction="harkonnen", forces=2)
    ok(client, t, type="battle.plan", battle=bid, faction="harkonnen", forces=2, override=True,
       reason="the table agrees")


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.permutations(["Imperial Basin", "Arrakeen"]), leader=st.sampled_from(["Feyd-Rautha", "Beast Rabban"]))
def test_invariant_a_leader_is_in_one_place_per_turn(client, order, leader):
    """Invariant: over a turn's battles, each leader appears in the plans of one territory only."""
    t = basin(client, advisors=0, spice=0)
    where: dict[str, set] = {}
    for i, territory in enumerate(order):
        bid = open_battle(client, t, territory)
        r = act(client, t.code, t.token("harkonnen"), expect=None, type="battle.plan", battle=bid,
                faction="harkonnen", leader=leader, forces=1)
        if r.status_code != 200:
            other = "Beast Rabban" if leader == "Feyd-Rautha" else "Feyd-Rautha"
            plan(client, t, "harkonnen", bid, leader=other, forces=1)
        atre = "Duncan Idaho" if i == 0 else "Gurney Halleck"
        plan(client, t, "atreides", bid, leader=atre, forces=0)
        ok(client, t, "atreides", type="battle.reveal", battle=bid)
        ok(client, t, type="battle.apply", battle=bid)
    for b in host_state(client, t)["battles"]:
        for p in b["plans"].values():
            if p.get("leader"):
                where.setdefault(p["leader"], set()).add(b["territory"])
    assert all(len(v) == 1 for v in where.values()), where


# -- which battles there are, and in which order --------------------------------------------------

def implied(client, t, who="atreides") -> list[dict]:
    from table_helpers import get
    return get(client, t, who, "battles")["implied"]


def test_allies_never_battle_the_list_and_the_open_agree(client):
    """base-alliances: allies never battle each other; the battle list shows no battle between them
    and battle.open refuses one (overridable)."""
    t = create_table(client, FACTIONS)
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    ok(client, t, type="forces.place", faction="fremen", territory="Arrakeen", forces=2)
    ok(client, t, type="alliance.form", factions=["atreides", "fremen"], override=True, reason="a Nexus")
    set_phase(client, t, "battle")
    assert [b for b in implied(client, t) if b["territory"] == "Arrakeen"] == []
    refused(client, t, "atreides", "base-alliances", "allies", type="battle.open", territory="Arrakeen",
            aggressor="atreides", opponent="fremen")
    # a third, unallied faction there: one battle, the allies on one side
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=3)
    [b] = [b for b in implied(client, t) if b["territory"] == "Arrakeen"]
    assert sorted(map(sorted, b["sides"])) == [["atreides", "fremen"], ["harkonnen"]]


def test_a_territory_split_by_the_storm_is_no_battle_across_it(client):
    """base-battle: "Players cannot battle one another in a territory if their forces are separated
    by the storm"; the list and battle.open agree."""
    t = create_table(client, FACTIONS)
    ok(client, t, type="forces.place", faction="atreides", territory="Imperial Basin", sector=8, forces=3)
    ok(client, t, type="forces.place", faction="harkonnen", territory="Imperial Basin", sector=10, forces=3)
    ok(client, t, type="storm.set", sector=9)
    set_phase(client, t, "battle")
    assert [b for b in implied(client, t) if b["territory"] == "Imperial Basin"] == []
    refused(client, t, "atreides", "base-battle", "storm separates", type="battle.open", territory="Imperial Basin",
            aggressor="atreides", opponent="harkonnen")
    # with the storm elsewhere they battle
    ok(client, t, type="storm.set", sector=18)
    assert [b["territory"] for b in implied(client, t)].count("Imperial Basin") == 1
    ok(client, t, "atreides", type="battle.open", territory="Imperial Basin", aggressor="atreides",
       opponent="harkonnen")


def test_the_first_in_storm_order_is_the_aggressor_and_resolves_all_its_battles_first(client):
    """base-battle: "The first player in storm order is the aggressor ... all of its battles are
    resolved before the next player in storm order" (overridable)."""
    t = basin(client, advisors=0, spice=0)
    ok(client, t, type="forces.place", faction="fremen", territory="Carthag", forces=2)
    assert [b["aggressor"] for b in implied(client, t) if b["territory"] == "Arrakeen"] == ["atreides"]
    refused(client, t, "harkonnen", "base-battle", "first in storm order", type="battle.open",
            territory="Arrakeen", aggressor="harkonnen", opponent="atreides")
    # the Harkonnen's own battle (against the Fremen, later in storm order) waits for the Atreides'
    refused(client, t, "harkonnen", "base-battle", "atreides resolve all their battles first", type="battle.open",
            territory="Carthag", aggressor="harkonnen", opponent="fremen")
    for territory in ("Arrakeen", "Imperial Basin"):
        bid = open_battle(client, t, territory, aggressor="atreides", opponent="harkonnen")
        plan(client, t, "atreides", bid, leader="Duncan Idaho" if territory == "Arrakeen" else "Gurney Halleck",
             forces=5)
        plan(client, t, "harkonnen", bid, leader="Beast Rabban" if territory == "Arrakeen" else "Feyd-Rautha", forces=0)
        ok(client, t, "atreides", type="battle.reveal", battle=bid)
        ok(client, t, type="battle.apply", battle=bid)
    ok(client, t, "harkonnen", type="battle.open", territory="Carthag", aggressor="harkonnen", opponent="fremen")


def test_the_harkonnen_call_a_traitor_in_their_allys_battle(client, app):
    """kiss-rules.txt: among the powers a Karama never touched, "Harkonnen using traitors in allied
    battles": the Harkonnen reveal a traitor against their ally's opponent; the ally wins outright."""
    from conftest import join_seat
    t = create_table(client, FACTIONS)
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    ok(client, t, type="forces.place", faction="atreides", territory="Sietch Tabr", forces=3)
    ok(client, t, type="alliance.form", factions=["harkonnen", "fremen"], override=True, reason="a Nexus")
    ok(client, t, "harkonnen", type="traitors.set", faction="harkonnen", traitors=["Duncan Idaho"])
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "Sietch Tabr", aggressor="atreides", opponent="fremen")
    plan(client, t, "atreides", bid, leader="Duncan Idaho", forces=3)
    plan(client, t, "fremen", bid, leader="Stilgar", forces=1)
    ok(client, t, "fremen", type="battle.reveal", battle=bid)
    # not a faction outside the battle and unallied
    refused(client, t, "bg", "base-traitors", "not in the battle", type="battle.traitor", battle=bid, faction="bg")
    page = join_seat(app, t.code, "harkonnen").get(f"/t/{t.code}/view").get_data(as_text=True)
    assert "Call traitor: Duncan Idaho" in page
    s = ok(client, t, type="battle.traitor", battle=bid, faction="harkonnen")  # the host, for the joined phone
    assert s["battles"][-1]["traitors"] == ["fremen"]
    o = ok(client, t, type="battle.apply", battle=bid)["battles"][-1]["outcome"]
    assert o["winner"] == "fremen" and "Duncan Idaho" in o["leaders_killed"]


def test_the_tleilaxus_ally_uses_facedancers(client):
    """kiss-rules.txt, Tleilaxu alliance: "Your ally may use Facedancers in their battles." (Facedancers:
    "add half of the strength of leaders that die in that battle (rounding up separately)".)"""
    t = create_table(client, ["atreides", "harkonnen", "tleilaxu"])
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=5)
    ok(client, t, type="alliance.form", factions=["harkonnen", "tleilaxu"], override=True, reason="a Nexus")
    ok(client, t, type="cards.set", faction="harkonnen", cards=["Crysknife"])
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "Arrakeen", aggressor="atreides", opponent="harkonnen")
    # Duncan Idaho (2) dies to the Crysknife: half, rounded up, is 1 for the Harkonnen
    plan(client, t, "atreides", bid, leader="Duncan Idaho", forces=4)
    plan(client, t, "harkonnen", bid, leader="Beast Rabban", forces=1, weapon="Crysknife")
    o = ok(client, t, "atreides", type="battle.reveal", battle=bid)
    o = ok(client, t, type="battle.apply", battle=bid)["battles"][-1]["outcome"]
    assert o["totals"] == {"atreides": 4, "harkonnen": 1 + 4 + 1}
    assert any(line["rule"] == "tleilaxu-alliance" for line in o["lines"])


def test_tleilaxu_false_flag_sends_up_to_two_lost_forces_to_reserves(client):
    """kiss-rules.txt, Tleilaxu False Flag: "After a battle, you may send up to 2 forces you lost in that
    battle to your reserves instead of Tleilaxu tanks." """
    t = create_table(client, ["atreides", "harkonnen", "tleilaxu"])
    ok(client, t, type="forces.place", faction="tleilaxu", territory="Arrakeen", forces=3)
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "Arrakeen", aggressor="atreides", opponent="tleilaxu")
    refused(client, t, "tleilaxu", "tleilaxu-false-flag", "apply its outcome first", type="battle.false_flag",
            battle=bid, forces=2)
    plan(client, t, "atreides", bid, leader="Duncan Idaho", forces=6)
    leader = host_state(client, t)["factions"]["tleilaxu"]["leaders"][0]["name"]
    plan(client, t, "tleilaxu", bid, leader=leader, forces=0)
    ok(client, t, "atreides", type="battle.reveal", battle=bid)
    before = ok(client, t, type="battle.apply", battle=bid)
    assert before["factions"]["tleilaxu"]["tanks"]["forces"] == 3
    refused(client, t, "tleilaxu", None, None, type="battle.false_flag", battle=bid, forces=3)  # up to 2
    s = ok(client, t, "tleilaxu", type="battle.false_flag", battle=bid, forces=2)
    assert s["factions"]["tleilaxu"]["tanks"]["forces"] == 1
    assert s["factions"]["tleilaxu"]["reserves"]["forces"] == before["factions"]["tleilaxu"]["reserves"]["forces"] + 2
    refused(client, t, "tleilaxu", "tleilaxu-false-flag", "already used", type="battle.false_flag", battle=bid,
            forces=1)

"""Battle outcomes from two revealed plans (companion.games.dune.rules.battle) and POST /api/battle/outcome.

Cases are written from the rules text: base-battle, base-battle-weapons, base-traitors,
qa-dial-spice-traitor, kiss-simple-dialing (the seed's own Sardaukar example first),
atreides-kwisatz-haderach, tleilaxu-facedancers, harkonnen-captured-leaders.
"""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.dune.rules import treachery
from companion.games.dune.rules.battle import outcome
from companion.games.dune.rules.errors import RuleViolation
from companion.search.corpus import load_corpus


def fight(a: dict, b: dict, *, fa="atreides", fb="harkonnen", aggressor=None, present=None, **kw):
    plans = {fa: a, fb: b}
    return outcome(plans, aggressor or fa, forces_present=present, **kw)


def lines(o) -> str:
    return "\n".join(x["text"] for x in o.lines)


# -- the deck ------------------------------------------------------------------------------------

def test_deck_is_the_base_33_plus_the_5_kiss_cards():
    assert treachery.deck_size() == 33
    assert treachery.deck_size(with_kiss_cards=True) == 38
    kinds = {}
    for c in treachery.cards():
        if not c.kiss_added:
            kinds[c.kind] = kinds.get(c.kind, 0) + c.count
    assert kinds == {"weapon-projectile": 4, "weapon-poison": 4, "weapon-lasgun": 1, "defense-projectile": 4,
                     "defense-poison": 4, "cheap-hero": 3, "special": 8, "worthless": 5}
    added = sorted(c.kind for c in treachery.cards() if c.kiss_added)
    assert added == ["defense-poison", "defense-projectile", "special", "weapon-poison", "weapon-projectile"]


@pytest.mark.parametrize("name", ["Maula Pistol", "maula pistol", "maula-pistol", "  MAULA PISTOL "])
def test_cards_by_name_any_case_or_slug(name):
    assert treachery.card(name).name == "Maula Pistol"


def test_unknown_card_refused():
    with pytest.raises(RuleViolation) as e:
        treachery.card("Poison Blade")
    assert not e.value.overridable


# -- weapons against defences: every pair --------------------------------------------------------

WEAPONS = {"Crysknife": "projectile", "Chaumas": "poison", "Lasgun": "lasgun", "Baliset": "worthless", None: None}
DEFENSES = {"Shield": "shield", "Snooper": "snooper", "Kulon": "worthless", None: None}


def expected_kill(weapon, defense) -> bool | str:
    w, d = WEAPONS[weapon], DEFENSES[defense]
    if w == "lasgun" and d == "shield":
        return "explosion"
    return {"projectile": d != "shield", "poison": d != "snooper", "lasgun": True}.get(w, False)


@pytest.mark.parametrize("weapon", list(WEAPONS))
@pytest.mark.parametrize("defense", list(DEFENSES))
def test_every_weapon_defense_pair(weapon, defense):
    # Harkonnen (Feyd-Rautha 6) attack Atreides (Thufir Hawat 5); both dial 3.
    o = fight({"leader": "Thufir Hawat", "forces": 3, "defense": defense},
              {"leader": "Feyd-Rautha", "forces": 3, "weapon": weapon},
              aggressor="harkonnen", present={"atreides": {"forces": 5}, "harkonnen": {"forces": 4}})
    want = expected_kill(weapon, defense)
    if want == "explosion":
        assert o.explosion and o.winner is None
        assert sorted(o.leaders_killed) == ["Feyd-Rautha", "Thufir Hawat"]
        assert o.forces_lost == {"atreides": {"forces": 5, "starred": 0}, "harkonnen": {"forces": 4, "starred": 0}}
        return
    assert not o.explosion
    if want:
        assert o.leaders_killed == ["Thufir Hawat"]
        assert o.totals == {"atreides": 3, "harkonnen": 9}
        assert o.winner == "harkonnen" and o.spice_to_winner == 5
    else:
        assert o.leaders_killed == []
        assert o.totals == {"atreides": 8, "harkonnen": 9}
        assert o.spice_to_winner == 0


def test_lasgun_with_own_shield_also_explodes():
    o = fight({"leader": "Thufir Hawat", "forces": 2, "weapon": "Lasgun", "defense": "Shield"},
              {"leader": "Beast Rabban", "forces": 1})
    assert o.explosion and o.winner is None and o.loser is None
    assert o.discard["atreides"] == ["Lasgun", "Shield"]
    assert o.spice_to_winner == 0
    assert any(x["rule"] == "base-battle-weapons" for x in o.lines)


def test_explosion_kills_the_kwisatz_haderach_and_dials_are_still_paid():
    o = fight({"leader": "Gurney Halleck", "forces": 5, "weapon": "Lasgun"},
              {"leader": "Beast Rabban", "forces": 4, "defense": "Shield"}, kh=True)
    assert "Kwisatz Haderach" in o.leaders_killed
    assert o.spice_paid == {"atreides": 3, "harkonnen": 2}


def test_both_leaders_killed_each_side_weapon_through():
    o = fight({"leader": "Lady Jessica", "forces": 4, "weapon": "Gom Jabbar", "defense": "Snooper"},
              {"leader": "Piter de Vries", "forces": 4, "weapon": "Stunner", "defense": "Shield"})
    assert sorted(o.leaders_killed) == ["Lady Jessica", "Piter de Vries"]
    # totals are the dials alone; tie goes to the aggressor (Atreides), paid for both leaders
    assert o.totals == {"atreides": 4, "harkonnen": 4}
    assert o.winner == "atreides" and o.spice_to_winner == 5 + 3


# -- totals, ties, losses, spice -----------------------------------------------------------------

def test_tie_goes_to_the_aggressor():
    for aggressor in ("atreides", "harkonnen"):
        o = fight({"leader": "Duncan Idaho", "forces": 4}, {"leader": "Captain Iakin Nefud", "forces": 4},
                  aggressor=aggressor)
        assert o.totals == {"atreides": 6, "harkonnen": 6}
        assert o.winner == aggressor
        assert any(x["rule"] == "qa-battle-tie" and "tied" in x["text"] for x in o.lines)


def test_loser_loses_everything_winner_loses_its_dial():
    o = fight({"leader": "Thufir Hawat", "forces": 7, "weapon": "Crysknife", "defense": "Snooper"},
              {"leader": "Umman Kudu", "forces": 2, "weapon": "Chaumas"},
              present={"atreides": {"forces": 10}, "harkonnen": {"forces": 6}})
    assert o.winner == "atreides"
    assert o.forces_lost == {"harkonnen": {"forces": 6, "starred": 0}, "atreides": {"forces": 7, "starred": 0}}
    assert o.discard == {"harkonnen": ["Chaumas"], "atreides": []}
    assert o.may_keep["atreides"] == ["Crysknife", "Snooper"]
    assert o.spice_paid == {"atreides": 5, "harkonnen": 0}  # 7 troops: 5 spice; 2 troops: free
    assert o.spice_to_winner == 1  # Umman Kudu killed by the Crysknife
    assert o.kh_losses == 7


@pytest.mark.parametrize("troops,cost", [(0, 0), (1, 0), (2, 0), (3, 1), (10, 8), (20, 18)])
def test_dial_costs_follow_simple_dialing(troops, cost):
    o = fight({"leader": "Duncan Idaho", "forces": troops}, {"leader": "Umman Kudu", "forces": 0})
    assert o.spice_paid["atreides"] == cost


def test_fremen_never_pay_and_fedaykin_count_two():
    o = fight({"leader": "Stilgar", "forces": 4, "starred": 3}, {"leader": "Feyd-Rautha", "forces": 9},
              fa="fremen", fb="harkonnen", aggressor="harkonnen")
    assert o.totals == {"fremen": 7 + 4 + 6, "harkonnen": 15}
    assert o.spice_paid == {"fremen": 0, "harkonnen": 7}
    assert o.winner == "fremen" and o.forces_lost["fremen"] == {"forces": 4, "starred": 3}


def test_seed_example_three_sardaukar_for_strength_six_cost_one():
    o = fight({"leader": "Bashar", "forces": 0, "starred": 3}, {"leader": "Umman Kudu", "forces": 1},
              fa="emperor", fb="harkonnen")
    assert o.totals["emperor"] == 6 + 2
    assert o.spice_paid["emperor"] == 1


def test_sardaukar_worth_one_against_the_fremen():
    o = fight({"leader": "Bashar", "starred": 3}, {"leader": "Jamis", "forces": 1},
              fa="emperor", fb="fremen")
    assert o.totals == {"emperor": 3 + 2, "fremen": 1 + 2}


def test_cheap_hero_has_no_strength_is_discarded_even_by_the_winner():
    o = fight({"cheap_hero": True, "forces": 6, "defense": "Shield"}, {"leader": "Beast Rabban", "forces": 1,
                                                                        "weapon": "Maula Pistol"})
    assert o.totals == {"atreides": 6, "harkonnen": 5}
    assert o.winner == "atreides" and o.leaders_killed == []
    assert o.discard["atreides"] == ["Cheap Hero"] and o.may_keep["atreides"] == ["Shield"]


def test_no_leader_fights_with_dial_only():
    o = fight({"forces": 5}, {"leader": "Beast Rabban", "forces": 0})
    assert o.totals == {"atreides": 5, "harkonnen": 4}
    with pytest.raises(RuleViolation, match="cannot play a weapon"):
        fight({"forces": 5, "weapon": "Crysknife"}, {"leader": "Beast Rabban"})


# -- Kwisatz Haderach ----------------------------------------------------------------------------

def test_kh_adds_two_to_a_living_leader_or_cheap_hero():
    o = fight({"leader": "Duncan Idaho", "forces": 3}, {"leader": "Beast Rabban", "forces": 3}, kh=True)
    assert o.totals["atreides"] == 3 + 2 + 2
    o = fight({"cheap_hero": True, "forces": 3}, {"leader": "Beast Rabban", "forces": 3}, kh=True)
    assert o.totals["atreides"] == 3 + 0 + 2


def test_kh_has_no_effect_when_its_leader_dies():
    o = fight({"leader": "Duncan Idaho", "forces": 3}, {"leader": "Beast Rabban", "forces": 3, "weapon": "Chaumas"},
              kh=True)
    assert o.totals["atreides"] == 3
    assert any("adds nothing" in x["text"] for x in o.lines)


def test_kh_cannot_fight_alone_and_only_with_atreides():
    with pytest.raises(RuleViolation, match="cannot fight alone"):
        fight({"forces": 3}, {"leader": "Beast Rabban"}, kh=True)
    with pytest.raises(RuleViolation, match="only beside Atreides"):
        fight({"leader": "Stilgar"}, {"leader": "Beast Rabban"}, fa="fremen", kh=True)


# -- traitors ------------------------------------------------------------------------------------

def test_one_traitor_wins_outright_and_loses_nothing():
    # the corpus's own example (qa-dial-spice-traitor): Harkonnen dial 6, Atreides dial 5 with Duncan
    o = fight({"leader": "Duncan Idaho", "forces": 5, "weapon": "Crysknife"},
              {"leader": "Feyd-Rautha", "forces": 6}, traitors=["harkonnen"],
              present={"atreides": {"forces": 8}, "harkonnen": {"forces": 9}})
    assert o.winner == "harkonnen" and o.loser == "atreides"
    assert o.spice_paid == {"harkonnen": 0, "atreides": 3}
    assert o.spice_to_winner == 2 and o.leaders_killed == ["Duncan Idaho"]
    assert o.forces_lost == {"harkonnen": {"forces": 0, "starred": 0}, "atreides": {"forces": 8, "starred": 0}}
    assert o.discard["atreides"] == ["Crysknife"]
    assert o.capture == {"from": "atreides"}  # the Harkonnen won: capture open


def test_two_traitors_both_lose_everything():
    o = fight({"leader": "Thufir Hawat", "forces": 2}, {"leader": "Piter de Vries", "forces": 3, "weapon": "Stunner"},
              traitors=["atreides", "harkonnen"], present={"atreides": {"forces": 4}, "harkonnen": {"forces": 3}})
    assert o.winner is None and o.spice_to_winner == 0
    assert sorted(o.leaders_killed) == ["Piter de Vries", "Thufir Hawat"]
    assert o.forces_lost == {"atreides": {"forces": 4, "starred": 0}, "harkonnen": {"forces": 3, "starred": 0}}
    assert o.discard["harkonnen"] == ["Stunner"]


def test_traitor_call_refused_against_kh_cheap_hero_or_outsider():
    with pytest.raises(RuleViolation, match="cannot turn traitor"):
        fight({"leader": "Duncan Idaho", "forces": 1}, {"leader": "Beast Rabban"}, kh=True, traitors=["harkonnen"])
    with pytest.raises(RuleViolation, match="no leader to call"):
        fight({"cheap_hero": True}, {"leader": "Beast Rabban"}, traitors=["harkonnen"])
    with pytest.raises(RuleViolation, match="not in this battle"):
        fight({"leader": "Duncan Idaho"}, {"leader": "Beast Rabban"}, traitors=["emperor"])


def test_traitor_comes_before_the_explosion():
    o = fight({"leader": "Duncan Idaho", "weapon": "Lasgun"}, {"leader": "Beast Rabban", "defense": "Shield"},
              traitors=["harkonnen"])
    assert not o.explosion and o.winner == "harkonnen"


# -- faction extras ------------------------------------------------------------------------------

def test_tleilaxu_add_half_of_each_killed_leader_rounded_up_separately():
    o = fight({"leader": "Master Zaaf", "forces": 2, "weapon": "Crysknife"},
              {"leader": "Thufir Hawat", "forces": 5, "weapon": "Chaumas"}, fa="tleilaxu", fb="atreides")
    # both killed: Tleilaxu add ceil(3/2) + ceil(5/2) = 2 + 3
    assert o.totals == {"tleilaxu": 2 + 5, "atreides": 5}
    assert o.winner == "tleilaxu"


def test_zoal_takes_the_opposing_leaders_strength():
    o = fight({"leader": "Zoal", "forces": 1}, {"leader": "Feyd-Rautha", "forces": 1}, fa="tleilaxu",
              fb="harkonnen", aggressor="harkonnen")
    assert o.totals == {"tleilaxu": 7, "harkonnen": 7}


def test_harkonnen_capture_offered_only_when_they_win():
    o = fight({"leader": "Duncan Idaho", "forces": 1}, {"leader": "Feyd-Rautha", "forces": 1})
    assert o.winner == "harkonnen" and o.capture == {"from": "atreides"}
    assert any(x["rule"] == "harkonnen-captured-leaders" for x in o.lines)
    o = fight({"leader": "Thufir Hawat", "forces": 5}, {"leader": "Umman Kudu", "forces": 1})
    assert o.winner == "atreides" and o.capture is None


def test_captured_leader_strength_given_explicitly():
    o = fight({"leader": "Stilgar", "leader_strength": 7, "forces": 1}, {"leader": "Duncan Idaho", "forces": 1},
              fa="harkonnen", fb="atreides")
    assert o.totals["harkonnen"] == 8


# -- impossible plans ----------------------------------------------------------------------------

@pytest.mark.parametrize("a,present,match", [
    ({"leader": "Duncan Idaho", "forces": 6}, {"atreides": {"forces": 5}}, "has only"),
    ({"leader": "Duncan Idaho", "weapon": "Shield"}, None, "not a weapon"),
    ({"leader": "Duncan Idaho", "defense": "Crysknife"}, None, "not a defence"),
    ({"leader": "Duncan Idaho", "forces": 21}, None, "more than 20"),
    ({"leader": "Duncan Idaho", "starred": 1}, None, "no starred"),
    ({"leader": "Duncan Idaho", "cheap_hero": True}, None, "not both"),
    ({"leader": "Stilgar"}, None, "no leader called"),
    ({"leader": "Duncan Idaho", "forces": 5, "spice": 2}, None, "cannot pay"),
    ({"leader": "Duncan Idaho", "forces": True}, None, "whole number"),
])
def test_impossible_plans_are_refused_with_a_rule(a, present, match):
    with pytest.raises(RuleViolation, match=match) as e:
        fight(a, {"leader": "Beast Rabban"}, present=present)
    assert e.value.rule and not e.value.overridable


def test_every_cited_rule_exists_in_the_corpus():
    ids = {e.id for e in load_corpus()}
    cases = [
        fight({"leader": "Duncan Idaho", "forces": 5, "weapon": "Lasgun"}, {"leader": "Beast Rabban", "defense": "Shield"}),
        fight({"leader": "Duncan Idaho", "forces": 5}, {"leader": "Beast Rabban"}, traitors=["harkonnen"], kh=False),
        fight({"leader": "Zoal", "forces": 3, "weapon": "Chaumas"}, {"leader": "Thufir Hawat", "forces": 4},
              fa="tleilaxu", fb="atreides", kh=True),
        fight({"leader": "Stilgar", "forces": 3}, {"leader": "Bashar", "starred": 2}, fa="fremen", fb="emperor"),
    ]
    for o in cases:
        for line in o.lines:
            assert line["rule"] in ids, line


# -- invariants ----------------------------------------------------------------------------------

names = st.sampled_from([None, "Crysknife", "Chaumas", "Lasgun", "Baliset"])
defs = st.sampled_from([None, "Shield", "Snooper", "Kulon"])


@settings(max_examples=300, deadline=None)
@given(fa=st.integers(0, 12), fb=st.integers(0, 12), sa=st.integers(0, 3), da=st.integers(0, 12),
       db=st.integers(0, 12), dsa=st.integers(0, 3), wa=names, wb=names, xa=defs, xb=defs,
       traitors=st.sampled_from([[], ["emperor"], ["atreides"], ["atreides", "emperor"]]),
       aggressor=st.sampled_from(["atreides", "emperor"]))
def test_invariants(fa, fb, sa, da, db, dsa, wa, wb, xa, xb, traitors, aggressor):
    """Nobody loses more forces than it has there; nobody pays negative spice; the winner is
    one of the two sides (or nobody); the loser is the other side."""
    da, db, dsa = min(da, fb), min(db, fa), min(dsa, sa)
    plans = {"emperor": {"leader": "Caid", "forces": da, "starred": dsa, "weapon": wa, "defense": xa},
             "atreides": {"leader": "Gurney Halleck", "forces": db, "weapon": wb, "defense": xb}}
    present = {"emperor": {"forces": fb, "starred": sa}, "atreides": {"forces": fa}}
    o = outcome(plans, aggressor, traitors=traitors, forces_present=present)
    for f, lost in o.forces_lost.items():
        assert 0 <= lost["forces"] <= present[f]["forces"]
        assert 0 <= lost["starred"] <= present[f].get("starred", 0)
    assert all(v >= 0 for v in o.spice_paid.values()) and o.spice_to_winner >= 0
    if o.winner is None:
        assert o.explosion or len(traitors) == 2
    else:
        assert {o.winner, o.loser} == {"emperor", "atreides"}
        assert o.forces_lost[o.loser] == {"forces": present[o.loser]["forces"],
                                          "starred": present[o.loser].get("starred", 0)}


# -- the stateless API ---------------------------------------------------------------------------

def test_api_outcome(client):
    body = {"territory": "Arrakeen", "aggressor": "harkonnen", "traitors": [], "kh": False,
            "plans": {"harkonnen": {"leader": "Feyd-Rautha", "forces": 6, "starred": 0, "weapon": "maula-pistol",
                                    "defense": None, "cheap_hero": False},
                      "atreides": {"leader": "Duncan Idaho", "leader_strength": None, "forces": 5, "starred": 0,
                                   "weapon": None, "defense": "SNOOPER", "cheap_hero": False}},
            "forces_present": {"harkonnen": {"forces": 8, "starred": 0}, "atreides": {"forces": 7, "starred": 0}}}
    r = client.post("/api/battle/outcome", json=body)
    assert r.status_code == 200, r.get_json()
    d = r.get_json()
    for key in ("winner", "loser", "totals", "leaders_killed", "forces_lost", "spice_paid", "spice_to_winner",
                "discard", "explosion", "lines"):
        assert key in d
    assert d["winner"] == "harkonnen" and d["loser"] == "atreides"
    assert d["leaders_killed"] == ["Duncan Idaho"]
    assert d["totals"] == {"harkonnen": 12, "atreides": 5}
    assert d["spice_paid"] == {"harkonnen": 4, "atreides": 3} and d["spice_to_winner"] == 2
    assert d["forces_lost"]["atreides"] == {"forces": 7, "starred": 0}
    assert d["discard"]["atreides"] == ["Snooper"]
    assert all(set(x) == {"text", "rule"} for x in d["lines"])


@pytest.mark.parametrize("body,match", [
    ({"aggressor": "atreides", "plans": {"atreides": {"forces": 25, "leader": "Duncan Idaho"},
                                         "harkonnen": {"leader": "Beast Rabban"}}}, "20"),
    ({"aggressor": "atreides", "plans": {"atreides": {"leader": "Duncan Idaho", "weapon": "Karama"},
                                         "harkonnen": {"leader": "Beast Rabban"}}}, "not a weapon"),
    ({"aggressor": "atreides", "plans": {"atreides": {"leader": "Duncan Idaho", "forces": 4},
                                         "harkonnen": {"leader": "Beast Rabban"}},
      "forces_present": {"atreides": {"forces": 3}}}, "has only"),
    ({"aggressor": "emperor", "plans": {"atreides": {}, "harkonnen": {}}}, "aggressor"),
    ({"aggressor": "atreides", "plans": {"atreides": {}}}, "two"),
    ([1, 2], "JSON object"),
])
def test_api_refuses_impossible_plans_with_422_and_rule(client, body, match):
    r = client.post("/api/battle/outcome", json=body)
    assert r.status_code == 422
    err = r.get_json()["error"]
    assert match in err["message"] and err["rule"]


def test_api_outcome_takes_a_karama_on_the_sardaukar_and_the_ecaz_bonus(client):
    plans = {"emperor": {"leader": "Hasimir Fenring", "forces": 0, "starred": 3},
             "harkonnen": {"leader": "Beast Rabban", "forces": 6}}
    normal = client.post("/api/battle/outcome", json={"aggressor": "emperor", "plans": plans}).get_json()
    stopped = client.post("/api/battle/outcome", json={"aggressor": "emperor", "plans": plans,
                                                       "no_starred_bonus": ["emperor"]}).get_json()
    assert normal["winner"] == "emperor" and stopped["winner"] == "harkonnen"
    assert stopped["totals"]["emperor"] == 6 + 3
    r = client.post("/api/battle/outcome", json={
        "aggressor": "harkonnen", "ecaz": {"ally": "atreides", "forces": 5},
        "plans": {"atreides": {"leader": "Duncan Idaho", "forces": 4}, "harkonnen": {"leader": "Umman Kudu"}}})
    d = r.get_json()
    assert r.status_code == 200 and d["totals"]["atreides"] == 2 + 4 + 3 and d["spice_paid"]["atreides"] == 2
    assert d["forces_lost"]["ecaz"] == {"forces": 3, "starred": 0}
    for bad in ({"no_starred_bonus": "emperor"}, {"ecaz": 5}):
        r = client.post("/api/battle/outcome", json={"aggressor": "emperor", "plans": plans, **bad})
        assert r.status_code == 422 and r.get_json()["error"]["rule"]

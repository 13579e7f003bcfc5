"""CHOAM charity, bidding bookkeeping, revival and spice collection (pure rules)."""
from __future__ import annotations

import pytest

from companion.games.dune.rules.board import load_board
from companion.games.dune.rules.economy import (
    axolotl_revival_cost,
    cards_for_auction,
    charity,
    check_purchase,
    check_revival,
    collection,
    hand_limit,
    harkonnen_bonus_card,
    leader_revival,
    purchase_payee,
    revival_limits,
    totals,
)
from companion.games.dune.rules.errors import RuleViolation

BOARD = load_board()


# -- seed examples first -------------------------------------------------------------------
def test_seed_bg_charity_from_turn_two_regardless():
    # BG sheet: "Beginning with the 2nd turn, you always receive the CHOAM charity of 2 Spice
    # regardless"; KISS summary: "no CHOAM charity on Turn 1".
    assert charity(1, "bg", 0) == 0
    assert charity(2, "bg", 30) == 2


def test_seed_fremen_revive_three_free_and_cannot_buy():
    assert check_revival("fremen", 3, forces=3).cost == 0
    with pytest.raises(RuleViolation) as e:
        check_revival("fremen", 3, forces=4)
    assert e.value.rule == "fremen-free-revival"


def test_seed_emperor_pays_for_three_extra_ally_forces():
    # Emperor sheet: "up to 3 extra of their forces (for a possible total of 6)"
    c = check_revival("atreides", 4, forces=6, ally="emperor", emperor_pays=3)
    assert (c.free, c.paid, c.cost, c.emperor_paid, c.emperor_cost) == (2, 1, 2, 3, 6)


def test_seed_tleilaxu_spice_substitute():
    # "2 Spice for each Spice Blow with Spice remaining ... 4 Spice for each Spice Blow that cannot spawn"
    props = collection(BOARD, {}, {"Red Chasm@6": 8, "The Great Flat@14": 3}, {},
                       factions_present=["tleilaxu", "atreides"], unspawned_blows=1)
    assert props == [{"faction": "tleilaxu", "territory": None, "sector": None, "amount": 8,
                      "source": "spice_substitute", "rule": "tleilaxu-spice-substitute",
                      "blows_with_spice": 2, "unspawned_blows": 1}]


# -- charity ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "turn, faction, spice, expected",
    [
        (1, "atreides", 0, 2),
        (1, "atreides", 1, 1),
        (1, "atreides", 2, 0),
        (5, "fremen", 0, 2),
        (5, "harkonnen", 12, 0),
        (1, "bg", 0, 0),
        (1, "bg", 5, 0),
        (2, "bg", 0, 2),
        (2, "bg", 1, 2),
        (7, "bg", 9, 2),
    ],
)
def test_charity(turn, faction, spice, expected):
    assert charity(turn, faction, spice) == expected


@pytest.mark.parametrize("args", [(0, "atreides", 0), (1, "atreides", -1), (1, "ixian", 0)])
def test_charity_refused(args):
    with pytest.raises(RuleViolation):
        charity(*args)


# -- collection ------------------------------------------------------------------------------
def f(n, starred=0, advisors=0):
    return {"forces": n, "starred": starred, "advisors": advisors}


@pytest.mark.parametrize(
    "forces, spice, occupied, expected",
    [
        # 2 per force without ornithopters
        ({"Red Chasm@6": {"atreides": f(3)}}, {"Red Chasm@6": 8}, {}, {"atreides": 6}),
        # 3 per force with ornithopters (Arrakeen)
        ({"Red Chasm@6": {"atreides": f(3)}}, {"Red Chasm@6": 10}, {"Arrakeen": {"atreides"}}, {"atreides": 9}),
        # Carthag too, capped by the spice there
        ({"Red Chasm@6": {"harkonnen": f(4)}}, {"Red Chasm@6": 8}, {"Carthag": {"harkonnen"}}, {"harkonnen": 8}),
        # someone else's ornithopters do not count
        ({"Red Chasm@6": {"atreides": f(2)}}, {"Red Chasm@6": 10}, {"Carthag": {"harkonnen"}}, {"atreides": 4}),
        # starred forces collect, advisors do not
        ({"Red Chasm@6": {"emperor": f(1, starred=1), "bg": f(0, advisors=3)}}, {"Red Chasm@6": 10}, {}, {"emperor": 4}),
        # forces anywhere in the territory collect the blow in another sector
        ({"South Mesa@3": {"guild": f(2)}}, {"South Mesa@4": 10}, {}, {"guild": 4}),
        # no spice, no collection
        ({"Red Chasm@6": {"atreides": f(3)}}, {}, {}, {}),
    ],
)
def test_collection_rates_and_caps(forces, spice, occupied, expected):
    props = collection(BOARD, forces, spice, occupied, stronghold_income=False)
    assert totals(props) == expected
    assert all(p["source"] == "collection" for p in props)


def test_collection_proposal_shape():
    props = collection(BOARD, {"South Mesa@5": {"guild": f(2)}}, {"South Mesa@4": 10}, {}, stronghold_income=False)
    assert props == [{"faction": "guild", "territory": "South Mesa", "sector": 4, "amount": 4,
                      "source": "collection", "rule": "base-collection"}]


def test_stronghold_income_advanced_spice_flow():
    occ = {"Arrakeen": {"atreides"}, "Carthag": {"harkonnen"}, "Tuek's Sietch": {"guild"}, "Sietch Tabr": {"fremen"}}
    assert totals(collection(BOARD, {}, {}, occ)) == {"atreides": 2, "harkonnen": 2, "guild": 1}
    assert totals(collection(BOARD, {}, {}, occ, stronghold_income=False)) == {}


def test_cistern_income():
    props = collection(BOARD, {}, {}, {"Cistern": {"moritani"}}, stronghold_income=False)
    assert props == [{"faction": "moritani", "territory": "Cistern", "sector": None, "amount": 2,
                      "source": "cistern", "rule": "discovery-cistern"}]


def test_orgiz_takes_one_before_collection():
    forces = {"Red Chasm@6": {"atreides": f(4)}, "The Great Flat@14": {"fremen": f(1)}}
    spice = {"Red Chasm@6": 8, "The Great Flat@14": 10}
    occ = {"Orgiz Processing Station": {"harkonnen"}}
    props = collection(BOARD, forces, spice, occ, stronghold_income=False)
    assert props[0] == {"faction": "harkonnen", "territory": "The Great Flat", "sector": 14, "amount": 1,
                        "source": "orgiz", "rule": "discovery-orgiz-processing-station"}
    assert totals(props) == {"harkonnen": 1, "atreides": 8, "fremen": 2}
    props = collection(BOARD, forces, spice, occ, stronghold_income=False, orgiz_take_from="Red Chasm")
    assert totals(props) == {"harkonnen": 1, "atreides": 7, "fremen": 2}
    with pytest.raises(RuleViolation):
        collection(BOARD, forces, spice, occ, orgiz_take_from="Old Gap")


def test_spice_substitute_counts_what_is_left_after_collection():
    forces = {"Red Chasm@6": {"atreides": f(4)}}
    spice = {"Red Chasm@6": 8, "The Great Flat@14": 10, "Old Gap@9": 6}
    props = collection(BOARD, forces, spice, {}, factions_present=["atreides", "tleilaxu"],
                       unspawned_blows=2, stronghold_income=False)
    assert totals(props) == {"atreides": 8, "tleilaxu": 2 * 2 + 4 * 2}
    props = collection(BOARD, forces, spice, {}, factions_present=["tleilaxu"], tleilaxu_karama=True)
    assert "tleilaxu" not in totals(props)


def test_ecaz_and_ally_split_a_desert_collection():
    forces = {"Red Chasm@6": {"ecaz": f(2), "atreides": f(1)}}
    props = collection(BOARD, forces, {"Red Chasm@6": 7}, {}, {"ecaz": "atreides", "atreides": "ecaz"},
                       stronghold_income=False)
    assert totals(props) == {"ecaz": 3, "atreides": 3}  # 6 collectable, split evenly
    props = collection(BOARD, forces, {"Red Chasm@6": 5}, {}, {"ecaz": "atreides", "atreides": "ecaz"},
                       stronghold_income=False)
    assert totals(props) == {"ecaz": 2, "atreides": 3}  # the ally takes the odd one
    assert {p["rule"] for p in props} == {"ecaz-collection"}


def test_ecaz_and_ally_both_take_full_stronghold_income():
    occ = {"Arrakeen": {"ecaz", "atreides"}}
    props = collection(BOARD, {}, {}, occ, {"ecaz": "atreides", "atreides": "ecaz"})
    assert totals(props) == {"ecaz": 2, "atreides": 2}
    assert {p["rule"] for p in props} == {"ecaz-collection"}


def test_storm_separated_factions_collect_in_storm_order():
    forces = {"Wind Pass@13": {"atreides": f(3)}, "Wind Pass@16": {"harkonnen": f(3)}}
    spice = {"Wind Pass@14": 8}
    props = collection(BOARD, forces, spice, {}, order=["harkonnen", "atreides"], stronghold_income=False)
    assert totals(props) == {"harkonnen": 6, "atreides": 2}
    assert all(p["contested"] for p in props)


# -- bidding ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "faction, atomics, limit",
    [("harkonnen", False, 8), ("atreides", False, 4), ("moritani", True, 3), ("harkonnen", True, 7), ("bg", False, 4)],
)
def test_hand_limit(faction, atomics, limit):
    assert hand_limit(faction, atomics) == limit


@pytest.mark.parametrize("after, bonus", [(1, True), (7, True), (8, False)])
def test_harkonnen_bonus_card(after, bonus):
    assert harkonnen_bonus_card(after) is bonus


@pytest.mark.parametrize(
    "buyer, present, payee",
    [("atreides", {"emperor", "atreides"}, "emperor"), ("emperor", {"emperor", "atreides"}, "bank"),
     ("atreides", {"atreides", "guild"}, "bank")],
)
def test_purchase_payee(buyer, present, payee):
    assert purchase_payee(buyer, present) == payee


def test_full_hand_must_pass_and_auction_size():
    with pytest.raises(RuleViolation) as e:
        check_purchase("harkonnen", 8, hand_limit("harkonnen"))
    assert e.value.rule == "harkonnen-treachery"
    check_purchase("atreides", 3, 4)
    assert cards_for_auction({"atreides": 4, "harkonnen": 7, "fremen": 0}) == 2


# -- revival ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "faction, free",
    [("atreides", 2), ("harkonnen", 2), ("fremen", 3), ("emperor", 1), ("guild", 1), ("bg", 1),
     ("ecaz", 2), ("moritani", 2), ("tleilaxu", 1)],
)
def test_free_revival_per_sheet(faction, free):
    lim = revival_limits(faction, 2)
    assert lim.free == free
    assert lim.max_forces == (3 if faction != "fremen" else 3)
    assert lim.can_buy is (faction != "fremen")


def test_revival_limits_with_allies():
    assert revival_limits("guild", 2, "fremen", fremen_grants_ally=True).free == 3
    assert revival_limits("guild", 2, "fremen", fremen_grants_ally=False).free == 1
    assert revival_limits("guild", 2, "emperor").max_total == 6
    assert revival_limits("emperor", 2).max_starred == 1
    assert revival_limits("fremen", 2).max_starred == 1
    assert revival_limits("atreides", 2).max_starred is None


@pytest.mark.parametrize(
    "faction, forces, starred, kw, cost",
    [
        ("atreides", 2, 0, {}, 0),
        ("atreides", 3, 0, {}, 2),
        ("guild", 3, 0, {}, 4),
        ("emperor", 2, 1, {}, 4),
        ("guild", 3, 0, {"ally": "fremen", "fremen_grants_ally": True}, 0),
    ],
)
def test_revival_cost(faction, forces, starred, kw, cost):
    assert check_revival(faction, 3, forces, starred, **kw).cost == cost


@pytest.mark.parametrize(
    "faction, forces, starred, kw, rule",
    [
        ("atreides", 4, 0, {}, "base-revival"),
        ("emperor", 0, 2, {}, "emperor-sardaukar"),
        ("fremen", 1, 2, {}, "fremen-fedaykin"),
        ("fremen", 4, 0, {}, "fremen-free-revival"),
        ("atreides", 5, 0, {"emperor_pays": 2}, "emperor-alliance"),  # not the Emperor's ally
        ("atreides", 7, 0, {"ally": "emperor", "emperor_pays": 4}, "emperor-alliance"),
        ("atreides", 7, 0, {"ally": "emperor", "emperor_pays": 3}, "base-revival"),
        ("atreides", 3, 0, {"spice": 1}, "base-revival"),  # cannot pay: hard
        ("atreides", 3, 0, {"in_tanks": 2}, "base-tanks"),  # not in the tanks: hard
    ],
)
def test_revival_refused(faction, forces, starred, kw, rule):
    with pytest.raises(RuleViolation) as e:
        check_revival(faction, 3, forces, starred, **kw)
    assert e.value.rule == rule


def test_leader_revival():
    assert leader_revival("atreides", 5, ["atreides", "tleilaxu"]) == {
        "cost": 5, "payee": "tleilaxu", "rule": "tleilaxu-axolotl-tanks"}
    assert leader_revival("atreides", 5, ["atreides", "harkonnen"])["payee"] == "bank"
    assert leader_revival("tleilaxu", 4, ["tleilaxu"])["payee"] == "bank"
    with pytest.raises(RuleViolation) as e:
        leader_revival("atreides", 5, [], leaders_outside_tanks=1)
    assert e.value.rule == "base-leader-revival"
    with pytest.raises(RuleViolation):
        leader_revival("atreides", 5, [], revived_this_turn=1)
    assert leader_revival("ecaz", 6, [], leader="Duke Vidal", leaders_outside_tanks=4)["cost"] == 5
    with pytest.raises(RuleViolation) as e:
        leader_revival("ecaz", 3, [], leaders_in_tanks=4, leaders_outside_tanks=2)
    assert e.value.rule == "ecaz-revival"
    assert leader_revival("ecaz", 3, [], leaders_in_tanks=5, leaders_outside_tanks=1)["cost"] == 3
    assert axolotl_revival_cost(5) == 6


def test_free_revival_and_hand_limits_match_factions_data():
    from companion.games.dune.rules.economy import FREE_REVIVAL
    from companion.games.dune.rules.factions import load_factions

    data = load_factions()["factions"]
    for fid, sheet in data.items():
        assert FREE_REVIVAL[fid] == sheet["free_revival"], fid
        assert hand_limit(fid) == sheet["hand_limit"], fid

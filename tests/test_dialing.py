"""KISS Simple Dialing (companion.games.dune.rules.dialing): cases from the rulebook text first."""
from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.games.dune.rules import dialing
from companion.games.dune.rules.dialing import FACTIONS, best_dial, breakdown, dial_cost, ecaz_bonus
from companion.games.dune.rules.errors import RuleViolation

# The KISS "Breakdown" block, as printed (two columns run together by the text extraction).
KISS_BREAKDOWN_TEXT = (
    "1 dial = 0 11 dial = 9 2 dial = 0 12 dial = 10 3 dial = 1 13 dial = 11 4 dial = 2 "
    "14 dial = 12 5 dial = 3 15 dial = 13 6 dial = 4 16 dial = 14 7 dial = 5 17 dial = 15 "
    "8 dial = 6 18 dial = 16 9 dial = 7 19 dial = 17 10 dial = 8 20 dial = 18"
)
KISS_BREAKDOWN = {int(n): int(c) for n, c in re.findall(r"(\d+) dial = (\d+)", KISS_BREAKDOWN_TEXT)}

NO_STARRED = [f for f in FACTIONS if f not in ("emperor", "fremen")]
PAYING = [f for f in FACTIONS if f != "fremen"]


def test_breakdown_text_has_all_twenty_rows():
    assert sorted(KISS_BREAKDOWN) == list(range(1, 21))


@pytest.mark.parametrize("troops,cost", sorted(KISS_BREAKDOWN.items()))
@pytest.mark.parametrize("faction", PAYING)
def test_kiss_breakdown_regular_troops(faction, troops, cost):
    opponent = "fremen" if faction != "fremen" else "atreides"
    result = dial_cost(faction, opponent, troops, 0)
    assert (result.strength, result.troops, result.cost) == (troops, troops, cost)
    assert result.affordable is None


def test_breakdown_function_matches_kiss_table():
    assert breakdown() == KISS_BREAKDOWN


def test_zero_troops_dial_nothing_and_cost_nothing():
    assert dial_cost("atreides", "harkonnen", 0, 0).to_dict() == {
        "strength": 0, "troops": 0, "cost": 0, "affordable": None}


# --- Sardaukar and Fedaykin ---------------------------------------------------------------

@pytest.mark.parametrize("opponent", [f for f in FACTIONS if f not in ("emperor", "fremen")])
def test_seed_example_three_sardaukar_strength_six_cost_one(opponent):
    # "if 3 Sardaukar are being dialed in a battle for a total strength of 6,
    #  the Emperor would only need to pay 1 Spice for them"
    result = dial_cost("emperor", opponent, 0, 3)
    assert (result.strength, result.troops, result.cost) == (6, 3, 1)


@pytest.mark.parametrize("regular,starred,strength,cost", [
    (0, 1, 1, 0), (0, 2, 2, 0), (0, 3, 3, 1), (0, 5, 5, 3), (15, 5, 20, 18), (2, 2, 4, 2),
])
def test_sardaukar_worth_one_against_fremen(regular, starred, strength, cost):
    result = dial_cost("emperor", "fremen", regular, starred)
    assert (result.strength, result.cost) == (strength, cost)


@pytest.mark.parametrize("regular,starred,strength,cost", [
    (0, 1, 2, 0), (0, 2, 4, 0), (1, 1, 3, 0), (1, 2, 5, 1), (0, 5, 10, 3), (10, 5, 20, 13),
])
def test_sardaukar_worth_two_otherwise(regular, starred, strength, cost):
    result = dial_cost("emperor", "harkonnen", regular, starred)
    assert (result.strength, result.cost) == (strength, cost)


def test_sardaukar_with_no_opponent_given_count_two():
    assert dial_cost("emperor", None, 0, 2).strength == 4


@pytest.mark.parametrize("troops", range(0, 21))
def test_fremen_dial_free_at_every_size(troops):
    result = dial_cost("fremen", "emperor", troops, 0, spice=0)
    assert (result.strength, result.cost, result.affordable) == (troops, 0, True)


@pytest.mark.parametrize("fedaykin", range(0, 4))
def test_fremen_fedaykin_worth_two_and_free(fedaykin):
    for regular in range(0, 21 - 2 * fedaykin):
        result = dial_cost("fremen", "emperor", regular, fedaykin, spice=0)
        assert result.strength == regular + 2 * fedaykin
        assert result.cost == 0 and result.affordable is True


def test_fedaykin_count_two_against_the_emperor_too():
    # only the Sardaukar lose worth against the Fremen, not the other way round
    assert dial_cost("fremen", "emperor", 0, 3).strength == 6


# --- errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("faction,opponent,regular,starred,rule", [
    ("atreides", "harkonnen", 21, 0, "kiss-simple-dialing"),
    ("emperor", "harkonnen", 11, 5, "kiss-simple-dialing"),   # 11 + 10 = 21
    ("fremen", "atreides", 15, 3, "kiss-simple-dialing"),     # 15 + 6 = 21
    ("emperor", "fremen", 16, 5, "kiss-simple-dialing"),      # 16 + 5 = 21
])
def test_no_one_dials_more_than_twenty(faction, opponent, regular, starred, rule):
    with pytest.raises(RuleViolation) as exc:
        dial_cost(faction, opponent, regular, starred)
    assert exc.value.rule == rule
    assert exc.value.overridable is False
    assert "20" in exc.value.message


@pytest.mark.parametrize("faction,opponent,regular,starred", [
    ("atreides", "harkonnen", 20, 0), ("emperor", "harkonnen", 10, 5),
    ("fremen", "atreides", 14, 3), ("emperor", "fremen", 15, 5),
])
def test_twenty_exactly_is_allowed(faction, opponent, regular, starred):
    assert dial_cost(faction, opponent, regular, starred).strength == 20


@pytest.mark.parametrize("kwargs", [
    dict(forces=-1), dict(starred=-1), dict(spice=-3), dict(forces=1.5), dict(starred=0.5),
    dict(forces="3"), dict(forces=True), dict(spice=float("nan")),
])
def test_bad_numbers_are_hard_violations(kwargs):
    args = dict(faction="emperor", opponent="atreides", forces=2, starred=1, spice=None)
    args.update(kwargs)
    with pytest.raises(RuleViolation) as exc:
        dial_cost(**args)
    assert exc.value.overridable is False


def test_fractions_name_the_rule():
    with pytest.raises(RuleViolation) as exc:
        dial_cost("atreides", "bg", 2.5, 0)
    assert exc.value.rule == "kiss-simple-dialing"
    assert "fraction" in exc.value.message


def test_whole_floats_are_accepted():
    assert dial_cost("atreides", "bg", 3.0, 0).cost == 1


@pytest.mark.parametrize("faction", NO_STARRED)
def test_starred_forces_only_for_emperor_and_fremen(faction):
    with pytest.raises(RuleViolation) as exc:
        dial_cost(faction, "fremen" if faction != "fremen" else "atreides", 0, 1)
    assert exc.value.rule == f"{faction}-at-start"
    assert exc.value.overridable is False
    assert "no starred forces" in exc.value.message


@pytest.mark.parametrize("faction,starred,rule", [
    ("emperor", 6, "emperor-sardaukar"), ("fremen", 4, "fremen-fedaykin"),
])
def test_more_starred_than_exist(faction, starred, rule):
    with pytest.raises(RuleViolation) as exc:
        dial_cost(faction, "atreides", 0, starred)
    assert exc.value.rule == rule


@pytest.mark.parametrize("faction,opponent", [("ixian", "atreides"), ("atreides", "ixian"),
                                              ("", "atreides"), (None, "atreides")])
def test_unknown_factions(faction, opponent):
    with pytest.raises(RuleViolation) as exc:
        dial_cost(faction, opponent, 1, 0)
    assert exc.value.overridable is False


def test_faction_ids_are_case_insensitive_and_accept_names():
    assert dial_cost("Emperor", "Bene Gesserit", 0, 1).strength == 2


def test_cannot_battle_itself():
    with pytest.raises(RuleViolation) as exc:
        dial_cost("harkonnen", "harkonnen", 1, 0)
    assert exc.value.rule == "base-battle"


# --- spice limit ---------------------------------------------------------------------------

@pytest.mark.parametrize("troops,spice,affordable", [
    (2, 0, True), (3, 0, False), (3, 1, True), (10, 7, False), (10, 8, True), (20, 18, True),
    (20, 17, False),
])
def test_you_cannot_dial_what_you_cannot_pay_for(troops, spice, affordable):
    assert dial_cost("harkonnen", "atreides", troops, 0, spice).affordable is affordable


def test_spice_limit_counts_troops_not_strength():
    # 3 Sardaukar = strength 6 for 1 spice
    assert dial_cost("emperor", "atreides", 0, 3, spice=1).affordable is True
    assert dial_cost("emperor", "atreides", 0, 3, spice=0).affordable is False


def test_best_dial_refuses_what_cannot_be_paid():
    with pytest.raises(RuleViolation) as exc:
        best_dial("atreides", "harkonnen", 5, 10, 0, spice=2)
    assert exc.value.rule == "kiss-simple-dialing"
    assert "3 spice" in exc.value.message


def test_best_dial_with_no_spice_still_dials_two_free():
    best = best_dial("atreides", "harkonnen", 2, 10, 0, spice=0)
    assert (best.strength, best.cost, best.affordable) == (2, 0, True)


# --- best mix ------------------------------------------------------------------------------

@pytest.mark.parametrize("faction,opponent,want,regular,starred,spice,expect", [
    # expect = (regular, starred, strength, cost)
    ("emperor", "atreides", 6, 15, 5, None, (0, 3, 6, 1)),     # the seed example
    ("emperor", "atreides", 4, 15, 5, None, (0, 2, 4, 0)),
    ("emperor", "atreides", 5, 15, 5, None, (1, 2, 5, 1)),
    ("emperor", "atreides", 2, 15, 5, None, (2, 0, 2, 0)),     # tie: keep the Sardaukar
    ("emperor", "atreides", 5, 0, 5, None, (0, 3, 6, 1)),      # no exact mix: overshoot by 1
    ("emperor", "atreides", 20, 15, 5, None, (10, 5, 20, 13)),
    ("emperor", "fremen", 6, 15, 5, None, (6, 0, 6, 4)),       # Sardaukar worth 1: no saving
    ("emperor", "fremen", 18, 15, 5, None, (15, 3, 18, 16)),
    ("fremen", "emperor", 6, 10, 3, 0, (6, 0, 6, 0)),          # free: keep the Fedaykin
    ("fremen", "emperor", 12, 10, 3, 0, (10, 1, 12, 0)),
    ("atreides", "harkonnen", 7, 10, 0, 5, (7, 0, 7, 5)),
    ("atreides", "harkonnen", 0, 10, 0, 0, (0, 0, 0, 0)),
    ("emperor", "atreides", 8, 2, 5, 2, (0, 4, 8, 2)),
])
def test_best_dial(faction, opponent, want, regular, starred, spice, expect):
    best = best_dial(faction, opponent, want, regular, starred, spice)
    assert (best.regular, best.starred, best.strength, best.cost) == expect
    assert best.troops == best.regular + best.starred
    if spice is not None:
        assert best.affordable is True


def test_best_dial_out_of_reach():
    with pytest.raises(RuleViolation) as exc:
        best_dial("emperor", "atreides", 19, 3, 2)
    assert "at most 7" in exc.value.message
    assert exc.value.overridable is False


def test_best_dial_over_twenty():
    with pytest.raises(RuleViolation) as exc:
        best_dial("atreides", "harkonnen", 21, 20, 0)
    assert exc.value.rule == "kiss-simple-dialing"


# --- Ecaz alliance bonus -------------------------------------------------------------------

@pytest.mark.parametrize("ecaz,bonus", [(0, 0), (1, 1), (2, 1), (3, 2), (4, 2), (5, 3), (6, 3),
                                        (7, 4), (13, 7), (20, 10)])
def test_ecaz_bonus_is_half_rounded_up(ecaz, bonus):
    assert ecaz_bonus(ecaz) == bonus


def test_ecaz_bonus_rejects_negative():
    with pytest.raises(RuleViolation) as exc:
        ecaz_bonus(-1)
    assert exc.value.rule == "ecaz-occupy"


def test_ecaz_bonus_is_free_and_adds_to_the_dial():
    # ally Atreides dials 4 forces (2 spice); 5 Ecaz forces add 3 for free
    result = dial_cost("atreides", "harkonnen", 4, 0, spice=2, bonus=ecaz_bonus(5))
    assert (result.strength, result.troops, result.cost, result.affordable) == (7, 4, 2, True)
    assert result.bonus == 3


def test_ecaz_bonus_counts_toward_the_cap():
    dial_cost("atreides", "harkonnen", 17, 0, bonus=3)  # 20: fine
    with pytest.raises(RuleViolation) as exc:
        dial_cost("atreides", "harkonnen", 18, 0, bonus=3)
    assert "Ecaz" in exc.value.message and exc.value.rule == "kiss-simple-dialing"


def test_ecaz_bonus_lowers_the_best_dial():
    best = best_dial("harkonnen", "atreides", 8, 10, 0, bonus=ecaz_bonus(6))
    assert (best.regular, best.strength, best.cost) == (5, 8, 3)
    only_bonus = best_dial("harkonnen", "atreides", 3, 10, 0, spice=0, bonus=3)
    assert (only_bonus.troops, only_bonus.strength, only_bonus.cost) == (0, 3, 0)


def test_ecaz_bonus_never_on_ecaz_itself():
    with pytest.raises(RuleViolation) as exc:
        dial_cost("ecaz", "harkonnen", 3, 0, bonus=2)
    assert exc.value.rule == "ecaz-occupy"
    with pytest.raises(RuleViolation):
        dial_cost("atreides", "ecaz", 3, 0, bonus=2)


# --- properties ----------------------------------------------------------------------------

dials = st.tuples(
    st.sampled_from(FACTIONS), st.sampled_from(FACTIONS),
    st.integers(0, 20), st.integers(0, 5), st.none() | st.integers(0, 30), st.integers(0, 10),
)


@given(dials)
def test_dial_properties(case):
    faction, opponent, regular, starred, spice, bonus = case
    if faction == opponent or (bonus and "ecaz" in (faction, opponent)):
        return
    info = dialing.starred_info(faction)
    starred = min(starred, info["count"]) if info else 0
    worth = dialing.starred_worth(faction, opponent)
    strength = regular + starred * worth + bonus
    if strength > 20:
        with pytest.raises(RuleViolation):
            dial_cost(faction, opponent, regular, starred, spice, bonus=bonus)
        return
    result = dial_cost(faction, opponent, regular, starred, spice, bonus=bonus)
    assert result.strength == strength
    assert result.troops == regular + starred
    assert 0 <= result.cost <= result.troops
    assert result.cost == (0 if faction == "fremen" else max(0, result.troops - 2))
    assert result.affordable is (None if spice is None else result.cost <= spice)


@given(st.sampled_from(["emperor", "fremen", "atreides"]), st.sampled_from(["fremen", "bg"]),
       st.integers(0, 20), st.integers(0, 20), st.integers(0, 5), st.none() | st.integers(0, 20))
def test_best_dial_properties(faction, opponent, want, regular, starred, spice):
    if faction == opponent:
        return
    info = dialing.starred_info(faction)
    starred = min(starred, info["count"]) if info else 0
    try:
        best = best_dial(faction, opponent, want, regular, starred, spice)
    except RuleViolation:
        # then no mix of the forces present reaches `want` affordably
        for s in range(starred + 1):
            for r in range(regular + 1):
                try:
                    d = dial_cost(faction, opponent, r, s, spice)
                except RuleViolation:
                    continue
                assert d.strength < want or d.affordable is False
        return
    assert want <= best.strength <= 20
    assert best.regular <= regular and best.starred <= starred
    # nothing reaching `want` is cheaper
    for s in range(starred + 1):
        for r in range(regular + 1):
            try:
                d = dial_cost(faction, opponent, r, s, spice)
            except RuleViolation:
                continue
            if d.strength >= want and d.affordable is not False:
                assert d.cost >= best.cost


def test_starred_counts_agree_with_the_faction_data():
    from companion.games.dune.rules.factions import load_factions

    factions = load_factions()["factions"]
    for f in FACTIONS:
        info = dialing.starred_info(f)
        assert factions[f]["starred"] == (info["count"] if info else 0), f
        if info:
            assert factions[f]["starred_name"] == info["name"]

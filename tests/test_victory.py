"""Victory conditions at the Mentat Pause (pure rules)."""
from __future__ import annotations

import pytest

from companion.games.dune.rules.errors import RuleViolation
from companion.games.dune.rules.victory import check_victory

SIX = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]
ALLY_AF = {"atreides": "fremen", "fremen": "atreides"}


def occ(**kw):
    names = {"arrakeen": "Arrakeen", "carthag": "Carthag", "tabr": "Sietch Tabr",
             "habbanya": "Habbanya Sietch", "tueks": "Tuek's Sietch", "jacurutu": "Jacurutu Sietch"}
    return {names[k]: set(v) for k, v in kw.items()}


def win(turn=3, last=10, occupancy=None, alliances=None, present=SIX, jac=False, pred=None, order=None):
    return check_victory(turn, last, occupancy or {}, alliances or {}, present, jac, pred, storm_order=order)


# -- seed examples first -------------------------------------------------------------------
def test_seed_allied_four_strongholds():
    # The example of the base rules: Fremen hold Sietch Tabr and Carthag, Atreides Tuek's and Arrakeen.
    r = win(occupancy=occ(tabr={"fremen"}, carthag={"fremen"}, tueks={"atreides"}, arrakeen={"atreides"}),
            alliances=ALLY_AF)
    assert r.winners == ("atreides", "fremen") and r.rule == "base-alliances"


def test_seed_fremen_allies_cannot_block_special_victory():
    r = win(turn=10, occupancy=occ(tabr={"atreides"}, habbanya={"fremen"}), alliances=ALLY_AF)
    assert r.winners == ("fremen", "atreides") and r.rule == "fremen-special-victory"


def test_seed_guild_never_shares():
    r = win(turn=10, occupancy=occ(tueks={"harkonnen"}), alliances={"guild": "bg", "bg": "guild"})
    assert r.winners == ("guild",) and r.rule == "guild-special-victory"


# -- stronghold victory ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "occupancy, alliances, present, jac, winners, rule",
    [
        # alone in three
        (occ(arrakeen={"atreides"}, carthag={"atreides"}, tueks={"atreides"}), {}, SIX, False, ("atreides",), "base-victory"),
        # two is not enough
        (occ(arrakeen={"atreides"}, carthag={"atreides"}), {}, SIX, False, (), None),
        # a stronghold shared with a non-ally counts for nobody
        (occ(arrakeen={"atreides"}, carthag={"atreides"}, tueks={"atreides", "harkonnen"}), {}, SIX, False, (), None),
        # allied: three between them is not enough
        (occ(arrakeen={"atreides"}, carthag={"atreides"}, tueks={"atreides"}), ALLY_AF, SIX, False, (), None),
        # allied: four
        (occ(arrakeen={"atreides"}, carthag={"atreides"}, tueks={"atreides"}, tabr={"fremen"}), ALLY_AF, SIX, False,
         ("atreides", "fremen"), "base-alliances"),
        # Jacurutu only counts once revealed
        (occ(arrakeen={"harkonnen"}, carthag={"harkonnen"}, jacurutu={"harkonnen"}), {}, SIX, False, (), None),
        (occ(arrakeen={"harkonnen"}, carthag={"harkonnen"}, jacurutu={"harkonnen"}), {}, SIX, True, ("harkonnen",), "base-victory"),
        # Ecaz + ally: 3 when co-occupying all three
        (occ(arrakeen={"ecaz", "emperor"}, carthag={"ecaz", "emperor"}, tueks={"ecaz", "emperor"}),
         {"ecaz": "emperor", "emperor": "ecaz"}, SIX[:4] + ["ecaz"], False, ("ecaz", "emperor"), "ecaz-occupy"),
        # ... but not when only two of the three are co-occupied
        (occ(arrakeen={"ecaz", "emperor"}, carthag={"ecaz", "emperor"}, tueks={"ecaz"}),
         {"ecaz": "emperor", "emperor": "ecaz"}, SIX[:4] + ["ecaz"], False, (), None),
        # a co-occupied stronghold counts once toward the allied four
        (occ(arrakeen={"ecaz", "emperor"}, carthag={"ecaz"}, tueks={"emperor"}, tabr={"emperor"}),
         {"ecaz": "emperor", "emperor": "ecaz"}, SIX[:4] + ["ecaz"], False, ("ecaz", "emperor"), "base-alliances"),
    ],
)
def test_stronghold_victory(occupancy, alliances, present, jac, winners, rule):
    r = win(occupancy=occupancy, alliances=alliances, present=present, jac=jac)
    assert r.winners == winners and r.rule == rule
    assert r.won is bool(winners)


def test_simultaneous_winners_storm_order_decides():
    o = occ(arrakeen={"harkonnen"}, carthag={"harkonnen"}, tueks={"harkonnen"},
            tabr={"emperor"}, habbanya={"emperor"}, jacurutu={"emperor"})
    r = win(occupancy=o, jac=True, order=["guild", "emperor", "harkonnen"])
    assert r.winners == ("emperor",)
    with pytest.raises(RuleViolation):
        win(occupancy=o, jac=True)


def test_guild_is_unallied_on_the_last_turn():
    o = occ(arrakeen={"guild"}, carthag={"guild"}, tueks={"harkonnen"}, tabr={"harkonnen"})
    al = {"guild": "harkonnen", "harkonnen": "guild"}
    assert win(turn=5, occupancy=o, alliances=al).winners == ("guild", "harkonnen")
    r = win(turn=10, occupancy=o, alliances=al, present=["guild", "harkonnen", "atreides"])
    assert r.winners == ("guild",) and r.rule == "guild-special-victory"


# -- BG prediction ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "pred, winners, rule",
    [
        ({"faction": "atreides", "turn": 3}, ("bg",), "bg-prediction"),
        (("fremen", 3), ("bg",), "bg-prediction"),  # as an ally also counts
        ({"faction": "atreides", "turn": 4}, ("atreides", "fremen"), "base-alliances"),
        ({"faction": "harkonnen", "turn": 3}, ("atreides", "fremen"), "base-alliances"),
    ],
)
def test_bg_prediction(pred, winners, rule):
    o = occ(arrakeen={"atreides"}, carthag={"atreides"}, tueks={"atreides"}, tabr={"fremen"})
    r = win(turn=3, occupancy=o, alliances=ALLY_AF, pred=pred)
    assert r.winners == winners and r.rule == rule


def test_bg_prediction_even_of_own_ally():
    o = occ(arrakeen={"atreides"}, carthag={"bg"}, tueks={"atreides"}, tabr={"bg"})
    r = win(turn=3, occupancy=o, alliances={"bg": "atreides", "atreides": "bg"}, pred=("atreides", 3))
    assert r.winners == ("bg",)


def test_bg_prediction_does_not_apply_to_special_victories():
    r = win(turn=10, occupancy={}, pred=("fremen", 10))
    assert r.winners == ("fremen",) and r.rule == "fremen-special-victory"
    r = win(turn=10, occupancy=occ(tabr={"harkonnen"}), pred=("guild", 10))
    assert r.winners == ("guild",)


# -- after the last turn ---------------------------------------------------------------------
@pytest.mark.parametrize(
    "o, alliances, present, winners, rule",
    [
        # Fremen or nobody in both sietches, Tuek's free of the three houses -> Fremen (before Guild)
        (occ(tabr={"fremen"}), {}, SIX, ("fremen",), "fremen-special-victory"),
        (occ(tueks={"guild"}, habbanya={"fremen"}), {}, SIX, ("fremen",), "fremen-special-victory"),
        (occ(tueks={"bg"}), {}, SIX, ("fremen",), "fremen-special-victory"),
        # blocked in a sietch -> Guild
        (occ(habbanya={"bg"}), {}, SIX, ("guild",), "guild-special-victory"),
        # blocked at Tuek's by Harkonnen / Atreides / Emperor -> Guild
        (occ(tueks={"harkonnen"}), {}, SIX, ("guild",), "guild-special-victory"),
        (occ(tueks={"emperor"}), {}, SIX, ("guild",), "guild-special-victory"),
        # the Fremen ally at Tuek's does not block
        (occ(tueks={"atreides"}), ALLY_AF, SIX, ("fremen", "atreides"), "fremen-special-victory"),
        # no Guild, Fremen blocked: the base default, most strongholds
        (occ(tueks={"atreides"}, arrakeen={"atreides"}, carthag={"harkonnen"}), {}, ["atreides", "harkonnen", "fremen"],
         ("atreides",), "base-victory"),
        # no Fremen: Guild
        (occ(arrakeen={"atreides"}), {}, ["atreides", "guild"], ("guild",), "guild-special-victory"),
        # neither: ties share the default win
        (occ(arrakeen={"atreides"}, carthag={"harkonnen"}), {}, ["atreides", "harkonnen"], ("atreides", "harkonnen"), "base-victory"),
        (occ(), {}, ["atreides", "harkonnen"], (), "base-victory"),
    ],
)
def test_last_turn(o, alliances, present, winners, rule):
    r = win(turn=10, occupancy=o, alliances=alliances, present=present)
    assert r.winners == winners and r.rule == rule


def test_special_victories_only_after_last_turn():
    r = win(turn=9, occupancy={})
    assert r.winners == () and r.rule is None


def test_normal_victory_beats_special_on_last_turn():
    r = win(turn=10, occupancy=occ(arrakeen={"harkonnen"}, carthag={"harkonnen"}, tueks={"harkonnen"}))
    assert r.winners == ("harkonnen",)


@pytest.mark.parametrize("turn, last, o", [(11, 10, {}), (0, 10, {}), (3, 10, {"Arrakeen": {"ecaz"}})])
def test_bad_input(turn, last, o):
    with pytest.raises(RuleViolation) as e:
        check_victory(turn, last, o, {}, SIX, False)
    assert not e.value.overridable

"""KISS karama list (companion/games/dune/data/karama.json, companion.games.dune.rules.karama)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from companion.games.dune.rules.dialing import FACTIONS
from companion.games.dune.rules.errors import RuleViolation
from companion.games.dune.rules.karama import PHASES, faction_effects, karama_options, load_karama

# How many advantages the KISS list gives against each faction (the bullets under each name).
KISS_COUNTS = {"atreides": 4, "harkonnen": 2, "fremen": 2, "emperor": 2, "guild": 2, "bg": 2,
               "ecaz": 2, "moritani": 3, "tleilaxu": 2,
               # the CHOAM & Richese add-on: its own karama list (choam-richese.txt), not KISS
               "choam": 7, "richese": 4}
# The "in one battle" effects: the battle-plan karamas (the ◀️ marks, read by meaning).
BATTLE_PLAN = {"atreides-battle-prescience", "atreides-kwisatz-haderach", "fremen-fedaykin",
               "emperor-sardaukar", "bg-voice", "tleilaxu-facedancers",
               "choam-support-income", "choam-audit"}  # the add-on's "for one battle" uses
ABSENT_OPEN = {"emperor": "emperor-free-card", "guild": "guild-ship-pay-bank"}
ALL = list(FACTIONS)


def design_rule_ids() -> set[str]:
    """Rule ids the design doc promises the corpus will have (F-... expanded)."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "design.md").read_text(encoding="utf-8")
    section = text.split("### Rule ids", 1)[1].split("\n## ", 1)[0]
    ids: set[str] = set()
    for chunk in re.findall(r"`([^`]+)`", section):
        for token in chunk.split():
            if token.startswith("F-"):
                ids.update(f + token[1:] for f in FACTIONS)
            elif re.fullmatch(r"[a-z0-9-]+", token):
                ids.add(token)
    return ids


# --- the data ------------------------------------------------------------------------------

def test_data_has_every_faction_with_the_kiss_counts():
    data = load_karama()
    assert set(data["factions"]) == set(FACTIONS)
    for faction, count in KISS_COUNTS.items():
        assert len(faction_effects(faction)) == count, faction


def test_effect_ids_are_unique_and_prefixed():
    ids = [e["id"] for f in FACTIONS for e in faction_effects(f)]
    assert len(ids) == len(set(ids)) == sum(KISS_COUNTS.values())
    for f in FACTIONS:
        assert all(e["id"].startswith(f + "-") for e in faction_effects(f))


def test_battle_plan_marks_are_the_in_one_battle_effects():
    marked = {e["id"] for f in FACTIONS for e in faction_effects(f) if e["battle_plan"]}
    assert marked == BATTLE_PLAN
    for f in FACTIONS:
        for e in faction_effects(f):
            assert e["battle_plan"] == ("one battle" in e["effect"]), e["id"]
            if e["battle_plan"]:
                assert e["phases"] == ["battle"]


def test_only_emperor_and_guild_effects_open_when_absent():
    opened = {e["id"] for f in FACTIONS for e in faction_effects(f) if e["open_when_absent"]}
    assert opened == set(ABSENT_OPEN.values())


def test_phases_and_rule_ids_are_known():
    ids = design_rule_ids()
    data = load_karama()
    assert tuple(data["phases"]) == PHASES
    for f, fd in data["factions"].items():
        assert fd["rule"] == f"karama-{f}" and fd["rule"] in ids
        assert fd["special"]["rule"] == f"{f}-special-karama" in ids
        assert set(fd["special"]["phases"]) <= set(PHASES) and fd["special"]["phases"]
        for e in fd["effects"]:
            assert e["phases"] and set(e["phases"]) <= set(PHASES), e["id"]
            assert e["subverts"] in ids, e["subverts"]
    for key in ("bg_worthless", "shrine"):
        assert data[key]["rule"] in ids
    for note in data["notes"].values():
        assert note["rule"] in ids


# --- nine-faction game ---------------------------------------------------------------------

@pytest.mark.parametrize("player", ALL)
def test_every_faction_against_every_other(player):
    result = karama_options(player, ALL)
    options = result["options"]
    expected = [(f, e["id"]) for f in FACTIONS if f != player for e in faction_effects(f)]
    assert [(o["target"], o["id"]) for o in options] == expected
    assert len(options) == sum(KISS_COUNTS.values()) - KISS_COUNTS[player]
    for o in options:
        assert o["target"] != player
        assert o["rule"] == f"karama-{o['target']}"
        assert o["target_present"] is True and o["ally"] is False
        assert set(o) >= {"target", "effect", "battle_plan", "rule", "id", "phases"}
        data = next(e for e in faction_effects(o["target"]) if e["id"] == o["id"])
        assert (o["effect"], o["battle_plan"], o["phases"]) == (
            data["effect"], data["battle_plan"], data["phases"])
    assert result["special"]["rule"] == f"{player}-special-karama"
    assert result["special"]["available"] is True
    assert "applies_now" not in options[0]


@pytest.mark.parametrize("player", ALL)
@pytest.mark.parametrize("target", ALL)
def test_pairwise_entries(player, target):
    targets = [o["target"] for o in karama_options(player, [player, target])["options"]]
    if player == target:
        assert target not in targets
    else:
        assert targets.count(target) == KISS_COUNTS[target]


# --- absent factions -----------------------------------------------------------------------

def test_absent_emperor_and_guild_effects_stay_open():
    result = karama_options("atreides", ["atreides", "harkonnen"])
    ids = [o["id"] for o in result["options"]]
    assert ids == ["harkonnen-bonus-card", "harkonnen-capture-leader", "emperor-free-card",
                   "guild-ship-pay-bank"]
    absent = [o for o in result["options"] if o["target"] in ("emperor", "guild")]
    assert all(o["target_present"] is False for o in absent)


@pytest.mark.parametrize("player", ["emperor", "guild"])
def test_absent_effects_never_to_the_faction_itself(player):
    other = "guild" if player == "emperor" else "emperor"
    ids = {o["id"] for o in karama_options(player, [player, "fremen"])["options"]}
    assert ABSENT_OPEN[player] not in ids
    assert ABSENT_OPEN[other] in ids


def test_other_absent_factions_give_nothing():
    ids = {o["id"] for o in karama_options("fremen", ["fremen"])["options"]}
    assert ids == set(ABSENT_OPEN.values())


# --- own and ally --------------------------------------------------------------------------

@pytest.mark.parametrize("player,ally", [("atreides", "bg"), ("fremen", "emperor"),
                                         ("harkonnen", "ecaz"), ("moritani", "tleilaxu")])
def test_ally_advantages_can_be_subverted(player, ally):
    result = karama_options(player, ALL, ally=ally)
    ally_ids = [o["id"] for o in result["options"] if o["ally"]]
    assert ally_ids == [e["id"] for e in faction_effects(ally)]
    assert all(o["target"] == ally for o in result["options"] if o["ally"])
    assert result["ally"] == ally
    assert not any(o["target"] == player for o in result["options"])


def test_ally_must_be_in_the_game_and_not_yourself():
    with pytest.raises(RuleViolation) as exc:
        karama_options("atreides", ["atreides", "bg"], ally="harkonnen")
    assert exc.value.overridable is False
    with pytest.raises(RuleViolation):
        karama_options("atreides", ["atreides", "bg"], ally="atreides")


# --- once per game -------------------------------------------------------------------------

@pytest.mark.parametrize("player", ALL)
def test_special_karama_once_per_game(player):
    assert karama_options(player, ALL)["special"]["available"] is True
    used = karama_options(player, ALL, used_special=True)["special"]
    assert used["available"] is False and used["used"] is True
    # the list of advantages to subvert does not depend on it
    assert karama_options(player, ALL, used_special=True)["options"] == \
        karama_options(player, ALL)["options"]


def test_bg_worthless_card_as_karama_once_per_game():
    fresh = karama_options("bg", ALL)
    assert fresh["worthless_karama"]["available"] is True
    assert fresh["worthless_karama"]["not_vulnerable"] is True
    assert fresh["worthless_karama"]["rule"] == "bg-special-karama"
    for kwargs in (dict(bg_worthless_used=True), dict(used_special=True)):
        after = karama_options("bg", ALL, **kwargs)
        assert after["worthless_karama"]["available"] is False
        assert after["special"]["available"] is False


@pytest.mark.parametrize("player", [f for f in ALL if f != "bg"])
def test_worthless_karama_only_for_bg(player):
    result = karama_options(player, ALL, bg_worthless_used=True)
    assert result["worthless_karama"] is None
    assert result["special"]["available"] is True


# --- shrine and notes ----------------------------------------------------------------------

def test_shrine_only_for_its_occupant():
    assert karama_options("atreides", ALL)["shrine"] is None
    shrine = karama_options("atreides", ALL, occupies_shrine=True)["shrine"]
    assert shrine["rule"] == "discovery-shrine" and shrine["available"] is True
    assert "Truthtrance" in shrine["effect"] and "bg_effect" not in shrine
    bg = karama_options("bg", ALL, occupies_shrine=True)["shrine"]
    assert "Worthless" in bg["bg_effect"]


def test_truthtrance_note_is_present():
    notes = karama_options("atreides", ALL, occupies_shrine=True)["notes"]
    tt = [n for n in notes if n["rule"] == "kiss-truthtrance"]
    assert len(tt) == 1 and "never" in tt[0]["text"]


# --- phase ordering ------------------------------------------------------------------------

@pytest.mark.parametrize("phase", PHASES)
@pytest.mark.parametrize("player", ["atreides", "bg", "tleilaxu"])
def test_options_for_the_current_phase_come_first(player, phase):
    plain = karama_options(player, ALL)["options"]
    ordered = karama_options(player, ALL, phase=phase)["options"]
    assert sorted(o["id"] for o in ordered) == sorted(o["id"] for o in plain)
    flags = [o["applies_now"] for o in ordered]
    assert flags == sorted(flags, reverse=True)  # all True before any False
    assert all((phase in o["phases"]) == o["applies_now"] for o in ordered)
    now_ids = [o["id"] for o in plain if phase in o["phases"]]
    later_ids = [o["id"] for o in plain if phase not in o["phases"]]
    assert [o["id"] for o in ordered] == now_ids + later_ids


def test_battle_phase_example():
    ordered = karama_options("harkonnen", ["harkonnen", "atreides", "bg"], phase="battle")
    first = [o["id"] for o in ordered["options"] if o["applies_now"]]
    assert first == ["atreides-battle-prescience", "atreides-kwisatz-haderach", "bg-voice"]
    assert ordered["phase"] == "battle"


def test_phase_names_are_normalised():
    assert karama_options("bg", ALL, phase="Spice Blow")["phase"] == "spice_blow"


# --- validation ----------------------------------------------------------------------------

@pytest.mark.parametrize("player,factions,kwargs", [
    ("ixian", ALL, {}),
    ("atreides", ["atreides", "ixian"], {}),
    ("", ALL, {}),
    ("atreides", ALL, {"ally": "ixian"}),
    ("atreides", ALL, {"phase": "nexus"}),
])
def test_unknown_ids_are_hard_violations(player, factions, kwargs):
    with pytest.raises(RuleViolation) as exc:
        karama_options(player, factions, **kwargs)
    assert exc.value.overridable is False
    assert exc.value.message


def test_factions_accept_a_comma_string_and_duplicates():
    a = karama_options("atreides", "atreides, Harkonnen,harkonnen")["options"]
    b = karama_options("atreides", ["harkonnen"])["options"]
    assert a == b

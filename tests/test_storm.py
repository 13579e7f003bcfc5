"""Storm arithmetic, storm losses, phase sequence and storm order (pure rules)."""
from __future__ import annotations

import pathlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.dune.rules import storm
from companion.games.dune.rules.board import load_board
from companion.games.dune.rules.errors import RuleViolation
from companion.games.dune.rules.phases import PHASES, default_dots, next_phase, phase_info, storm_order
from companion.games.dune.rules.storm import (
    end_sector,
    first_storm_move,
    storm_effects,
    storm_move,
    validate_storm_card,
)

BOARD = load_board()
ROOT = pathlib.Path(__file__).resolve().parents[1]


# -- seed examples first -------------------------------------------------------------------
def test_seed_turn_one_dials_move_from_sector_18():
    # Turn 1: two dials of 0-20, summed, counted from sector 18 (kiss-rules / base storm).
    move = first_storm_move(7, 5)
    assert move == 12
    assert end_sector(18, move) == 12


def test_seed_kiss_faster_storm_deck_is_2_to_6():
    assert [validate_storm_card(n) for n in (2, 3, 4, 5, 6)] == [2, 3, 4, 5, 6]
    for bad in (0, 1, 7, "3", True):
        with pytest.raises(RuleViolation) as e:
            validate_storm_card(bad)
        assert e.value.rule == "kiss-faster-storm"
    # "average Storm speed is increased from 3.5 to 4"
    assert sum(storm.KISS_STORM_CARDS) / len(storm.KISS_STORM_CARDS) == 4


def test_seed_fremen_forces_do_not_die_to_storm():
    p = storm_effects(
        BOARD, 12, 3,
        {"The Great Flat@14": {"fremen": {"forces": 4, "starred": 1}, "harkonnen": {"forces": 3}}},
        {"The Great Flat@14": 10},
    )
    assert p.killed == {"The Great Flat@14": {"harkonnen": {"forces": 3, "starred": 0, "advisors": 0}}}
    assert p.saved_fremen == {"The Great Flat@14": {"forces": 4, "starred": 1}}
    assert p.spice_removed == {"The Great Flat@14": 10}
    assert "fremen-wormriders" in p.rules


# -- arithmetic ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "start, move, end, passed",
    [
        (18, 0, 18, ()),
        (18, 1, 1, (1,)),
        (18, 12, 12, tuple(range(1, 13))),
        (16, 4, 2, (17, 18, 1, 2)),  # wrap-around 18 -> 1
        (17, 1, 18, (18,)),
        (3, 6, 9, (4, 5, 6, 7, 8, 9)),
        (18, 18, 18, tuple(range(1, 19))),
        (18, 40, 4, tuple(range(1, 19))),  # two dials of 20: every sector once
    ],
)
def test_end_sector_and_sectors_passed(start, move, end, passed):
    p = storm_effects(BOARD, start, move, {}, {})
    assert p.end_sector == end
    assert p.sectors_passed == passed
    assert p.move == move


@pytest.mark.parametrize("a, b", [(-1, 3), (21, 0), (3, 2.5), (None, 1)])
def test_dials_out_of_range(a, b):
    with pytest.raises(RuleViolation):
        first_storm_move(a, b)


@pytest.mark.parametrize(
    "base, adjust, weather, expected",
    [
        (2, -1, None, 1),  # the Ecological Testing Station may make it 1 ...
        (6, 1, None, 7),  # ... or 7: the token changes the move, not the deck
        (4, 0, None, 4),
        (0, 1, None, 1),
        (4, 0, 9, 9),  # Weather Control replaces the move
    ],
)
def test_storm_move(base, adjust, weather, expected):
    assert storm_move(base, adjust, weather) == expected


@pytest.mark.parametrize("base, adjust, weather", [(0, -1, None), (3, 2, None), (3, 1, 5), (3, 0, 11)])
def test_storm_move_refused(base, adjust, weather):
    with pytest.raises(RuleViolation):
        storm_move(base, adjust, weather)


def test_adjust_applies_in_preview():
    p = storm_effects(BOARD, 1, 2, {"Cielago East@3": {"atreides": {"forces": 1}}}, {}, adjust=-1)
    assert p.move == 1 and p.end_sector == 2 and p.killed == {}
    assert "discovery-ecological-testing-station" in p.rules
    p = storm_effects(BOARD, 1, 2, {"Cielago East@3": {"atreides": {"forces": 1}}}, {}, adjust=1)
    assert p.end_sector == 4 and "Cielago East@3" in p.killed


# -- losses --------------------------------------------------------------------------------
FORCES = {
    "Cielago North@18": {"atreides": {"forces": 3}, "bg": {"advisors": 2}},
    "Cielago North@1": {"harkonnen": {"forces": 2}},  # same territory, sector not hit
    "False Wall West@17": {"fremen": {"forces": 5}},  # rock
    "Habbanya Sietch@16": {"emperor": {"forces": 2, "starred": 1}},  # not passed anyway
    "Polar Sink": {"guild": {"forces": 4}},
    "Wind Pass North@17": {"fremen": {"forces": 2, "starred": 1}, "guild": {"forces": 1}},
}


@pytest.mark.parametrize(
    "fremen_in_game, expect_killed, expect_saved",
    [
        (
            True,
            {
                "Cielago North@18": {"atreides": {"forces": 3, "starred": 0, "advisors": 0},
                                     "bg": {"forces": 0, "starred": 0, "advisors": 2}},
                "Wind Pass North@17": {"guild": {"forces": 1, "starred": 0, "advisors": 0}},
            },
            {"Wind Pass North@17": {"forces": 2, "starred": 1}},
        ),
        (
            False,  # no Fremen at the table: no Wormriders (whoever those forces are)
            {
                "Cielago North@18": {"atreides": {"forces": 3, "starred": 0, "advisors": 0},
                                     "bg": {"forces": 0, "starred": 0, "advisors": 2}},
                "Wind Pass North@17": {"fremen": {"forces": 2, "starred": 1, "advisors": 0},
                                       "guild": {"forces": 1, "starred": 0, "advisors": 0}},
            },
            {},
        ),
    ],
)
def test_losses_with_and_without_fremen(fremen_in_game, expect_killed, expect_saved):
    p = storm_effects(BOARD, 16, 2, FORCES, {"Habbanya Ridge Flat@17": 10, "Cielago North@2": 8},
                      fremen_in_game=fremen_in_game)
    assert p.sectors_passed == (17, 18)
    assert p.killed == expect_killed
    assert p.saved_fremen == expect_saved
    assert p.spice_removed == {"Habbanya Ridge Flat@17": 10}  # partial territory: @2 untouched


def test_partial_territory_only_hit_pieces_lose():
    forces = {f"Wind Pass@{s}": {"moritani": {"forces": 1}} for s in (13, 14, 15, 16)}
    p = storm_effects(BOARD, 12, 2, forces, {})
    assert set(p.killed) == {"Wind Pass@13", "Wind Pass@14"}
    assert "Wind Pass@15" not in p.pieces_hit


@pytest.mark.parametrize(
    "standing, dead",
    [
        (True, set()),
        (False, {"Arrakeen@9", "Imperial Basin@8", "Imperial Basin@10", "Carthag@10"}),
    ],
)
def test_shield_wall_standing_vs_destroyed(standing, dead):
    forces = {
        "Arrakeen@9": {"atreides": {"forces": 5}},
        "Carthag@10": {"harkonnen": {"forces": 5}},
        "Imperial Basin@8": {"ecaz": {"forces": 2}},
        "Imperial Basin@10": {"ecaz": {"forces": 2}},
        "Rim Wall West@8": {"guild": {"forces": 1}},  # rock: always safe
        "Shield Wall@8": {"guild": {"forces": 1}},  # rock: always safe
        "Old Gap@9": {"bg": {"forces": 1}},  # sand: always dies
    }
    p = storm_effects(BOARD, 7, 3, forces, {}, shield_wall_standing=standing)
    assert set(p.killed) == dead | {"Old Gap@9"}


def test_sietches_and_polar_sink_always_safe():
    forces = {"Tuek's Sietch@4": {"guild": {"forces": 5}}, "Sietch Tabr@13": {"fremen": {"forces": 3}},
              "Habbanya Sietch@16": {"fremen": {"forces": 3}}, "Polar Sink": {"bg": {"forces": 1}}}
    p = storm_effects(BOARD, 1, 18, forces, {}, shield_wall_standing=False)
    assert p.killed == {} and p.saved_fremen == {}


def test_discovery_territories_are_immune():
    forces = {"Jacurutu Sietch": {"harkonnen": {"forces": 4}}, "Meridian@18": {"atreides": {"forces": 1}}}
    p = storm_effects(BOARD, 17, 2, forces, {}, protected_territories=["Jacurutu Sietch"])
    assert set(p.killed) == {"Meridian@18"}


def test_fremen_karama_cancels_wormriders_in_one_territory():
    forces = {"The Great Flat@14": {"fremen": {"forces": 2}}, "Funeral Plain@14": {"fremen": {"forces": 1}}}
    p = storm_effects(BOARD, 13, 1, forces, {}, fremen_karama_territory="the-great-flat")
    assert set(p.killed) == {"The Great Flat@14"}
    assert set(p.saved_fremen) == {"Funeral Plain@14"}


@pytest.mark.parametrize(
    "forces, spice",
    [
        ({"Meridian@18": {"atreides": {"forces": -1}}}, {}),
        ({}, {"Meridian@18": -2}),
        ({"Nowhere@3": {"atreides": {"forces": 1}}}, {}),
        ({"Meridian@5": {"atreides": {"forces": 1}}}, {}),
    ],
)
def test_bad_bookkeeping_is_refused(forces, spice):
    with pytest.raises(RuleViolation):
        storm_effects(BOARD, 17, 2, forces, spice)


# -- property: the storm never creates forces nor negative spice ---------------------------
PIECES = BOARD.all_pieces()
FACTIONS = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]
force_entry = st.fixed_dictionaries(
    {"forces": st.integers(0, 20), "starred": st.integers(0, 5), "advisors": st.integers(0, 5)}
)
forces_st = st.dictionaries(st.sampled_from(PIECES), st.dictionaries(st.sampled_from(FACTIONS), force_entry, max_size=3), max_size=8)
spice_st = st.dictionaries(st.sampled_from(PIECES), st.integers(0, 20), max_size=6)


@settings(max_examples=150, deadline=None)
@given(start=st.integers(1, 18), move=st.integers(0, 40), forces=forces_st, spice=spice_st,
       wall=st.booleans(), fremen=st.booleans())
def test_property_storm_conserves_forces_and_spice(start, move, forces, spice, wall, fremen):
    p = storm_effects(BOARD, start, move, forces, spice, shield_wall_standing=wall, fremen_in_game=fremen)
    for pid, per in p.killed.items():
        for f, c in per.items():
            for k, v in c.items():
                assert 0 <= v <= forces[pid][f].get(k, 0)
    for pid, c in p.saved_fremen.items():
        assert c["forces"] == forces[pid]["fremen"]["forces"]
        assert "fremen" not in p.killed.get(pid, {})
    for pid, n in p.spice_removed.items():
        assert 0 < n == spice[pid]
        assert spice[pid] - n >= 0
    assert p.end_sector in range(1, 19)


# -- phases --------------------------------------------------------------------------------
def test_phase_ids_and_rules():
    assert PHASES == ("storm", "spice_blow", "charity", "bidding", "revival",
                      "shipment_movement", "battle", "collection", "mentat_pause")
    assert [phase_info(p).rule for p in PHASES] == [
        "base-storm", "base-spice-blow", "base-charity", "base-bidding", "base-revival",
        "base-shipment", "base-battle", "base-collection", "base-mentat-pause"]
    assert all(phase_info(p).summary and phase_info(p).name for p in PHASES)


@pytest.mark.parametrize(
    "turn, phase, last, expected",
    [
        (1, "storm", 10, (1, "spice_blow")),
        (1, "collection", 10, (1, "mentat_pause")),
        (1, "mentat_pause", 10, (2, "storm")),
        (9, "mentat_pause", 10, (10, "storm")),
        (10, "battle", 10, (10, "collection")),
    ],
)
def test_next_phase(turn, phase, last, expected):
    assert next_phase(turn, phase, last) == expected


@pytest.mark.parametrize("turn, phase, last", [(10, "mentat_pause", 10), (11, "storm", 10), (1, "nexus", 10), (0, "storm", 10)])
def test_next_phase_refused(turn, phase, last):
    with pytest.raises(RuleViolation) as e:
        next_phase(turn, phase, last)
    assert e.value.overridable is False


SEATS = default_dots(["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"])


@pytest.mark.parametrize(
    "storm_sector, first, last",
    [
        (18, "atreides", "bg"),  # dot 1 is next
        (1, "harkonnen", "atreides"),  # a dot under the storm goes last
        (2, "harkonnen", "atreides"),
        (4, "fremen", "harkonnen"),
        (15, "bg", "guild"),
        (16, "atreides", "bg"),
        (17, "atreides", "bg"),
    ],
)
def test_storm_order(storm_sector, first, last):
    order = storm_order(storm_sector, SEATS)
    assert order[0] == first and order[-1] == last and sorted(order) == sorted(SEATS)


def test_default_dots_and_big_tables():
    assert SEATS == {"atreides": 1, "harkonnen": 4, "fremen": 7, "emperor": 10, "guild": 13, "bg": 16}
    with pytest.raises(RuleViolation):
        default_dots(["atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz"])
    nine = dict(zip(["atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu"],
                    [1, 3, 5, 7, 9, 11, 13, 15, 17]))
    assert storm_order(6, nine)[:2] == ["emperor", "guild"]
    assert default_dots(["a", "b"], BOARD.player_dots) == {"a": 1, "b": 4}


# -- every rule id the new modules cite is a corpus id from docs/design.md -----------------
def test_rule_ids_are_corpus_ids():
    design = (ROOT / "docs" / "design.md").read_text()
    known = set(re.findall(r"[a-z]+(?:-[a-z]+)+", design))
    # "Per faction F in the nine ids: F-at-start F-free-revival F-alliance ..."
    per_faction = ["at-start", "free-revival", "alliance", "special-karama", "vulnerable", "kiss-changes"]
    factions = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu"]
    known |= {f"{f}-{x}" for f in factions for x in per_faction}
    for f in ["phases", "storm", "spice", "economy", "victory"]:
        src = (ROOT / "companion" / "games" / "dune" / "rules" / f"{f}.py").read_text()
        cited = set(re.findall(r'"((?:base|kiss|discovery|atreides|harkonnen|fremen|emperor|guild|bg|ecaz|moritani|tleilaxu)-[a-z-]+)"', src))
        assert cited, f
        assert cited <= known, (f, cited - known)
    import json
    data = json.loads((ROOT / "companion" / "games" / "dune" / "data" / "spice_deck.json").read_text())
    assert {t["rule"] for t in data["discovery_tokens"]} <= known

"""KISS spice deck, spice blows, worms, Nexus and Discovery tokens (pure rules)."""
from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.dune.rules.board import load_board
from companion.games.dune.rules.errors import RuleViolation
from companion.games.dune.rules.spice import (
    SHAI_HULUD,
    blow_effects,
    card_name,
    check_draw,
    deck_cards,
    deck_status,
    discovery_supply,
    discovery_token,
    discovery_tokens,
    may_peek,
    nexus_after,
    reshuffle_before,
    return_set_aside,
)

BOARD = load_board()
SIX_SPICE = {"Sihaya Ridge", "Hagga Basin", "Rock Outcroppings", "Funeral Plain", "Old Gap", "Wind Pass North"}


def blow(card, prev=None, storm=5, forces=None, spice=None, fremen=True, protect=False, ally=None, turn=2, **kw):
    return blow_effects(BOARD, card, prev, storm, forces or {}, spice or {}, fremen, protect, ally, turn, **kw)


# -- seed examples first -------------------------------------------------------------------
@pytest.mark.parametrize("discovery", [False, True])
def test_seed_kiss_deck_has_20_cards_5_worms(discovery):
    cards = deck_cards(BOARD, discovery)
    assert len(cards) == 20
    kinds = Counter(c.kind for c in cards)
    assert kinds["worm"] == 5
    territory_names = {c.name for c in cards if c.kind != "worm"}
    assert territory_names == {t.name for t in BOARD.territories.values() if t.spice_blow}
    if discovery:
        assert {c.name for c in cards if c.kind == "discovery"} == SIX_SPICE
        assert all(c.amount == 6 for c in cards if c.kind == "discovery")
    else:
        assert kinds["discovery"] == 0


def test_seed_nexus_chance_about_45_percent():
    # KISS Less Worms: "reduced the probability of having a Nexus from roughly 50% to roughly 45%"
    s = deck_status([], False)
    p_none = (1 - s["next_worm_probability"]) * (1 - deck_status(["Red Chasm"], False)["next_worm_probability"])
    assert round(1 - p_none, 3) == 0.447


def test_seed_blows_add_to_old_spice_and_do_not_kill():
    p = blow("Sihaya Ridge", storm=3, forces={"Sihaya Ridge@8": {"atreides": {"forces": 4}}},
             spice={"Sihaya Ridge@8": 3}, discovery=True)
    assert p.spice_placed == 6 and p.piece == "Sihaya Ridge@8"
    assert p.devoured == {}
    assert p.discovery_token == {"kind": "hiereg", "territory": "Cielago East", "sector": 2,
                                 "piece": "Cielago East@2", "peek": "fremen"}


# -- deck odds -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "seen, remaining, worms",
    [
        ([], 20, 5),
        (["Red Chasm"], 19, 5),
        ([SHAI_HULUD, "Red Chasm", "cielago-north"], 17, 4),
        ([SHAI_HULUD] * 5, 15, 0),
        ([SHAI_HULUD] * 5 + ["South Mesa"] * 1, 14, 0),
    ],
)
def test_deck_odds_after_draws(seen, remaining, worms):
    s = deck_status(seen, True)
    assert s == {"remaining": remaining, "worms_remaining": worms, "next_worm_probability": worms / remaining}


def full_deck():
    return [c.name for c in deck_cards(BOARD)]


def test_reshuffle_after_all_20_seen():
    deck = full_deck()
    assert deck_status(deck, False) == {"remaining": 20, "worms_remaining": 5, "next_worm_probability": 0.25}
    assert deck_status(deck + [SHAI_HULUD], False)["worms_remaining"] == 4
    assert deck_status(deck + ["Red Chasm"], False)["remaining"] == 19


@pytest.mark.parametrize("seen", [["Arrakeen"], ["Nowhere"]])
def test_names_that_are_no_spice_card_are_hard_refusals(seen):
    with pytest.raises(RuleViolation) as e:
        deck_status(seen, False)
    assert e.value.overridable is False


# A card the deck record thinks is gone: the table drew it, so it is never refused for good (the
# refusal is overridable) and once recorded the record follows the table: it is one more card
# out of the deck, that card stays at 0 left and the worm count never exceeds the cards left.
@pytest.mark.parametrize(
    "seen, card, rule, remaining_after, worms_after",
    [
        ([SHAI_HULUD] * 5, SHAI_HULUD, "kiss-less-worms", 14, 0),
        (["Red Chasm"], "Red Chasm", "base-spice-blow", 18, 5),
        (["Red Chasm", SHAI_HULUD], "red chasm", "base-spice-blow", 17, 4),
    ],
)
def test_a_draw_the_record_thinks_impossible_is_overridable_and_the_record_follows(
        seen, card, rule, remaining_after, worms_after):
    with pytest.raises(RuleViolation) as e:
        check_draw(seen, card)
    assert e.value.overridable is True and e.value.rule == rule
    assert "override" in e.value.message
    s = deck_status(seen + [card_name(BOARD, card)], False)
    assert (s["remaining"], s["worms_remaining"]) == (remaining_after, worms_after)
    assert s["next_worm_probability"] == worms_after / remaining_after


def test_worms_never_exceed_the_cards_left():
    # 15 territory cards recorded, then 4 worms + 1 extra territory card the record thought gone:
    # 20 draws, so the deck is reshuffled; one draw before that, 1 card left and at most 1 worm.
    seen = [c.name for c in deck_cards(BOARD) if c.kind != "worm"] + [SHAI_HULUD] * 3 + ["Red Chasm"]
    s = deck_status(seen, False)
    assert s["remaining"] == 1 and s["worms_remaining"] == 1 and s["next_worm_probability"] == 1.0


@pytest.mark.parametrize(
    "seen, card",
    [([], SHAI_HULUD), ([SHAI_HULUD] * 4, "shai-hulud"), (["Red Chasm"], "Old Gap"),
     # after a full deck the reshuffle brings every card back
     ([c.name for c in deck_cards(BOARD)], "Red Chasm"), ([c.name for c in deck_cards(BOARD)], SHAI_HULUD)],
)
def test_possible_draws_pass(seen, card):
    assert check_draw(seen, card) == card_name(BOARD, card)


@pytest.mark.parametrize("n, fresh", [(0, False), (1, False), (19, False), (20, True), (21, False), (40, True)])
def test_reshuffle_before_a_draw_after_every_20(n, fresh):
    cards = [c.name for c in deck_cards(BOARD)] * 2
    assert reshuffle_before(cards[:n]) is fresh


@pytest.mark.parametrize(
    "seen, set_aside, expected",
    [
        ([SHAI_HULUD, "Red Chasm"], 1, ["Red Chasm"]),
        ([SHAI_HULUD, SHAI_HULUD, "Red Chasm", SHAI_HULUD, "Old Gap"], 3, ["Red Chasm", "Old Gap"]),
        (["Red Chasm", "Old Gap"], 0, ["Red Chasm", "Old Gap"]),
    ],
)
def test_turn_one_worms_shuffled_back(seen, set_aside, expected):
    assert return_set_aside(seen, set_aside) == expected
    s = deck_status(expected, False)
    assert s["worms_remaining"] == 5 and s["remaining"] == 20 - len(expected)


# -- territory blows ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "card, storm, placed, spawned",
    [
        ("The Great Flat", 13, 10, True),
        ("The Great Flat", 14, 0, False),  # blow sector in storm: nothing
        ("Cielago South", 1, 0, False),
        ("cielago-south", 2, 12, True),  # Cielago South spans 1-2; blow is in sector 1
        ("Habbanya Ridge Flat", 16, 10, True),
    ],
)
def test_blow_in_storm(card, storm, placed, spawned):
    p = blow(card, storm=storm)
    assert (p.spice_placed, p.spawned, p.nexus) == (placed, spawned, False)
    assert p.pile_top_after == BOARD.resolve(card)


def test_discovery_token_placed_even_when_blow_in_storm():
    p = blow("Old Gap", storm=9, discovery=True)
    assert p.spice_placed == 0 and p.discovery_token["piece"] == "False Wall West@16"
    assert p.discovery_token["peek"] == "guild" and p.not_spawned == "storm"
    p = blow("Old Gap", storm=1, discovery=False)
    assert p.discovery_token is None and not p.token_not_spawned and p.kind == "territory"
    assert p.spice_placed == 6 and p.spawned


# KISS: "After reshuffle, if a 4th Hiereg/Smuggler card is revealed, it does not spawn." Reading:
# the card does not spawn at all: no token and no spice; a blow that could not spawn.
@pytest.mark.parametrize("card", sorted(SIX_SPICE))
@pytest.mark.parametrize(
    "placed, storm, spice_placed, spawned, token, reason",
    [
        (0, 1, 6, True, True, None),
        (2, 1, 6, True, True, None),
        (3, 1, 0, False, False, "fourth token"),
        (3, "blow", 0, False, False, "fourth token"),  # in storm too: still one unspawned blow
        (2, "blow", 0, False, True, "storm"),
    ],
)
def test_fourth_hiereg_or_smuggler_card_does_not_spawn(card, placed, storm, spice_placed, spawned, token, reason):
    c = next(x for x in deck_cards(BOARD, True) if x.name == card)
    sector = c.sector if storm == "blow" else (c.sector % 18) + 1
    p = blow(card, storm=sector, discovery=True, tokens_placed={c.token_kind: placed})
    assert (p.spice_placed, p.spawned, p.discovery_token is not None, p.not_spawned) == (
        spice_placed, spawned, token, reason)
    assert p.token_not_spawned is (reason == "fourth token")
    assert p.pile_top_after == card  # the card still lies on its pile: a worm after it comes here
    other = "smuggler" if c.token_kind == "hiereg" else "hiereg"
    q = blow(card, storm=sector, discovery=True, tokens_placed={other: 3})  # the other kind's count
    assert q.token_not_spawned is False


# -- worms -----------------------------------------------------------------------------------
FORCES = {
    "Habbanya Ridge Flat@16": {"atreides": {"forces": 3}, "bg": {"advisors": 1}},
    "Habbanya Ridge Flat@17": {"fremen": {"forces": 2, "starred": 1}, "emperor": {"forces": 2, "starred": 1}},
    "Habbanya Sietch@16": {"harkonnen": {"forces": 5}},  # another territory
}
SPICE = {"Habbanya Ridge Flat@17": 7, "Habbanya Erg@15": 8}


@pytest.mark.parametrize(
    "fremen, protect, ally, devoured, saved, spared",
    [
        (True, False, None, {"atreides", "bg", "emperor"}, True, set()),
        (True, True, "emperor", {"atreides", "bg"}, True, {"emperor"}),
        (True, False, "emperor", {"atreides", "bg", "emperor"}, True, set()),
        (False, True, "emperor", {"atreides", "bg", "emperor", "fremen"}, False, set()),
    ],
)
def test_worm_devours_with_fremen_and_ally_protection(fremen, protect, ally, devoured, saved, spared):
    p = blow(SHAI_HULUD, "Habbanya Ridge Flat", forces=FORCES, spice=SPICE, fremen=fremen, protect=protect, ally=ally)
    assert p.devoured_territory == "Habbanya Ridge Flat"
    got = {f for per in p.devoured.values() for f in per}
    assert got == devoured
    assert bool(p.saved_fremen) == saved
    if saved:
        assert p.saved_fremen == {"Habbanya Ridge Flat@17": {"forces": 2, "starred": 1}}
    assert {f for per in p.protected_ally.values() for f in per} == spared
    assert p.spice_removed == {"Habbanya Ridge Flat@17": 7}  # Habbanya Erg untouched
    assert p.devoured["Habbanya Ridge Flat@16"]["bg"]["advisors"] == 1
    assert "Habbanya Sietch@16" not in p.devoured
    assert p.nexus and p.draw_again and p.pile_top_after == "Habbanya Ridge Flat"


def test_turn_one_worm_is_set_aside():
    p = blow(SHAI_HULUD, "Habbanya Ridge Flat", forces=FORCES, spice=SPICE, turn=1)
    assert p.set_aside and p.draw_again and not p.nexus
    assert p.devoured == {} and p.spice_removed == {}


def test_worm_with_no_territory_below():
    p = blow(SHAI_HULUD, None)
    assert p.devoured_territory is None and p.devoured == {} and p.nexus


def test_fremen_place_extra_worms_in_sand_only():
    forces = {"Red Chasm@6": {"guild": {"forces": 2}}, "Habbanya Ridge Flat@17": {"atreides": {"forces": 1}}}
    p = blow(SHAI_HULUD, "Habbanya Ridge Flat", forces=forces, first_worm_this_blow=False, fremen_worm_territory="red chasm")
    assert p.devoured_territory == "Red Chasm" and set(p.devoured) == {"Red Chasm@6"}
    with pytest.raises(RuleViolation) as e:
        blow(SHAI_HULUD, "Habbanya Ridge Flat", first_worm_this_blow=False, fremen_worm_territory="Pasty Mesa")
    assert e.value.rule == "fremen-sandworms"
    with pytest.raises(RuleViolation):
        blow(SHAI_HULUD, "Habbanya Ridge Flat", first_worm_this_blow=True, fremen_worm_territory="Red Chasm")


def test_worm_spares_revealed_discovery_territory():
    forces = {"Cistern": {"atreides": {"forces": 2}}, "Meridian@18": {"harkonnen": {"forces": 1}}}
    p = blow(SHAI_HULUD, "Habbanya Ridge Flat", forces=forces)
    assert p.devoured == {}


@pytest.mark.parametrize(
    "worms, expected",
    [((False, False), False), ((True, False), True), ((True, True), True), ((False, True), True)],
)
def test_single_nexus(worms, expected):
    blows = [blow(SHAI_HULUD, "Red Chasm") if w else blow("Red Chasm") for w in worms]
    assert nexus_after(blows) is expected
    turn1 = [blow(SHAI_HULUD, None, turn=1), blow("Red Chasm", turn=1)]
    assert nexus_after(turn1) is False


# -- Discovery tokens as data ------------------------------------------------------------------
def test_discovery_tokens_data():
    toks = {t.id: t for t in discovery_tokens()}
    assert {t.name for t in toks.values() if t.kind == "hiereg"} == {
        "Jacurutu Sietch", "Cistern", "Ecological Testing Station", "Shrine"}
    assert {t.name for t in toks.values() if t.kind == "smuggler"} == {
        "Orgiz Processing Station", "Treachery Card Stash", "Spice Stash", "Ornithopter"}
    assert {t.name for t in toks.values() if t.type == "territory"} == {
        "Jacurutu Sietch", "Cistern", "Ecological Testing Station", "Shrine", "Orgiz Processing Station"}
    assert all(t.rule.startswith("discovery-") and t.effect for t in toks.values())
    assert discovery_token("Spice Stash").rule == "discovery-spice-stash"
    assert may_peek("fremen", "hiereg") and may_peek("guild", "smuggler")
    assert not may_peek("guild", "hiereg") and not may_peek("fremen", "smuggler")
    with pytest.raises(RuleViolation):
        discovery_token("Great Maker")


@pytest.mark.parametrize("seed", range(20))
def test_jacurutu_always_among_three_hiereg(seed):
    h = discovery_supply("hiereg", random.Random(seed))
    assert len(h) == 3 == len(set(h)) and "jacurutu-sietch" in h
    s = discovery_supply("smuggler", random.Random(seed))
    assert len(s) == 3 == len(set(s))


def test_discovery_cards_match_board_spots():
    spots = {t["card"]: t["kind"] for t in BOARD.discovery_tokens}
    cards = {c.name: c.token_kind for c in deck_cards(BOARD, True) if c.token_kind}
    assert cards == spots


# -- property: worms never create forces nor negative spice ----------------------------------------
SAND_BLOWS = [t.name for t in BOARD.territories.values() if t.spice_blow]
PIECES = BOARD.all_pieces()
FACTIONS = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]
entry = st.fixed_dictionaries({"forces": st.integers(0, 20), "starred": st.integers(0, 5), "advisors": st.integers(0, 5)})


@settings(max_examples=150, deadline=None)
@given(
    prev=st.sampled_from(SAND_BLOWS),
    forces=st.dictionaries(st.sampled_from(PIECES), st.dictionaries(st.sampled_from(FACTIONS), entry, max_size=3), max_size=10),
    spice=st.dictionaries(st.sampled_from(PIECES), st.integers(0, 20), max_size=6),
    fremen=st.booleans(), protect=st.booleans(), ally=st.sampled_from([None] + FACTIONS[:2]),
    turn=st.integers(1, 10), storm=st.integers(1, 18),
)
def test_property_worm_conserves(prev, forces, spice, fremen, protect, ally, turn, storm):
    p = blow_effects(BOARD, SHAI_HULUD, prev, storm, forces, spice, fremen, protect, ally, turn)
    seen = set()
    for group in (p.devoured, p.protected_ally):
        for pid, per in group.items():
            for f, c in per.items():
                assert (pid, f) not in seen
                seen.add((pid, f))
                assert c == {k: forces[pid][f].get(k, 0) for k in c}
    for pid, n in p.spice_removed.items():
        assert 0 < n <= spice[pid]
    if turn == 1:
        assert not p.devoured and not p.spice_removed and not p.nexus

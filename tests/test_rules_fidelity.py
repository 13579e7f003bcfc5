"""Issue 13: the cases an independent rules audit found wrong, and their neighbours, through the API.

Each group is written from the rules text (kiss-rules.txt and the corpus entry it cites):
1. the spice deck follows the table (turn-1 worms go back; a drawn card is never refused for good);
2. Bene Gesserit flip timing and the side of forces entering where BG stand;
3. a karama never subverts its player's own advantage (the same rules /api/karama uses);
4. a 4th Hiereg/Smuggler card does not spawn (no spice, no token, one unspawned blow);
6. refusals name factions as players say them;
7. the Emperor cannot pay for his Fremen ally's extra revivals.
"""
from __future__ import annotations

import pytest

from conftest import SIX, create_table, join_seat
from table_helpers import board_spice, get, host_state, its_turn, ok, refused, set_phase, skip_phase, spice, stack, open_nexus

SIX_SPICE_CARDS = {"hiereg": ["Sihaya Ridge", "Hagga Basin", "Rock Outcroppings"],
                   "smuggler": ["Funeral Plain", "Old Gap", "Wind Pass North"]}


def blow(client, t, card, pile="A", **kw):
    return ok(client, t, type="spice.blow", card=card, pile=pile, **kw)


def table(client, discovery=True, factions=None):
    return create_table(client, factions or SIX, options={"discovery_tokens": discovery})


# -- 1. the spice deck follows the table ----------------------------------------------------------

@pytest.mark.parametrize("discovery", [True, False])
@pytest.mark.parametrize("worm_pile", ["A", "B"])
def test_turn_one_worm_goes_back_into_the_deck(client, discovery, worm_pile):
    """base-spice-blow: turn-1 worms are set aside and shuffled back after the phase."""
    t = table(client, discovery)
    set_phase(client, t, "spice_blow", turn=1)
    other = "B" if worm_pile == "A" else "A"
    blow(client, t, "Red Chasm", other)
    s = blow(client, t, "Shai-Hulud", worm_pile)
    # during the phase the worm is set aside: out of the deck
    assert s["spice_deck"]["remaining"] == 18 and s["spice_deck"]["worms_remaining"] == 4
    assert not s.get("nexus")
    s = blow(client, t, "The Great Flat", worm_pile)
    s = skip_phase(client, t)  # the test draws only what it needs
    # after the phase: 20 - 2 territory cards, all 5 worms back
    assert s["spice_deck"] == {"remaining": 18, "worms_remaining": 5, "next_worm_probability": 5 / 18}
    assert s["spice_deck_seen"] == ["Red Chasm", "The Great Flat"]


def test_audit_case_one_worm_one_card_then_turn_two_takes_all_five_worms(client):
    t = table(client)
    set_phase(client, t, "spice_blow", turn=1)
    blow(client, t, "Shai-Hulud", "A")
    blow(client, t, "Red Chasm", "A")
    s = skip_phase(client, t)  # the test draws only what it needs
    assert s["spice_deck"]["remaining"] == 19 and s["spice_deck"]["worms_remaining"] == 5
    assert round(s["spice_deck"]["next_worm_probability"], 3) == 0.263
    set_phase(client, t, "spice_blow", turn=2)
    for pile in "ABABA":  # five worms on turn 2: the fifth real worm is accepted without override
        blow(client, t, "Shai-Hulud", pile)
    s = host_state(client, t)
    assert s["spice_deck"]["worms_remaining"] == 0 and s["nexus"] is True


def test_several_turn_one_worms_and_a_jump_to_turn_two_without_phase_next(client):
    t = table(client)
    set_phase(client, t, "spice_blow", turn=1)
    for card in ["Shai-Hulud", "Shai-Hulud", "Old Gap"]:
        blow(client, t, card, "A")
    set_phase(client, t, "spice_blow", turn=2)  # straight to turn 2's blow: the worms still go back
    s = blow(client, t, "Shai-Hulud", "A")
    assert s["spice_deck"]["worms_remaining"] == 4 and s["spice_deck"]["remaining"] == 18


@pytest.mark.parametrize("card, rule", [("Shai-Hulud", "kiss-less-worms"), ("Red Chasm", "base-spice-blow")])
def test_a_card_the_record_thinks_gone_is_overridable_and_the_record_follows(client, card, rule):
    t = table(client)
    set_phase(client, t, "spice_blow", turn=2)
    seen = ["Shai-Hulud"] * 5 if card == "Shai-Hulud" else ["Red Chasm"]
    for i, c in enumerate(seen):
        blow(client, t, c, "AB"[i % 2])
    err = refused(client, t, "host", rule, "override", type="spice.blow", card=card, pile="B")
    assert err["overridable"] is True
    s = ok(client, t, type="spice.blow", card=card, pile="B", override=True, reason="it is on the table")
    n = len(seen) + 1
    assert s["spice_deck"]["remaining"] == 20 - n
    assert s["spice_deck"]["worms_remaining"] == (0 if card == "Shai-Hulud" else 5)


def test_names_that_are_no_spice_card_stay_hard_refusals(client):
    t = table(client)
    set_phase(client, t, "spice_blow", turn=2)
    err = refused(client, t, "host", "base-spice-blow", "no spice card", type="spice.blow", card="Arrakeen")
    assert err["overridable"] is False


def test_fremen_worm_placement_refusal_can_be_overridden(client):
    t = table(client)
    set_phase(client, t, "spice_blow", turn=2)
    blow(client, t, "Red Chasm", "A")
    ok(client, t, type="forces.place", faction="harkonnen", territory="The Great Flat", forces=2)
    refused(client, t, "host", "fremen-sandworms", "second or later worm", type="spice.blow",
            card="Shai-Hulud", pile="A", worm_territory="The Great Flat")
    ok(client, t, type="spice.blow", card="Shai-Hulud", pile="A", worm_territory="The Great Flat", override=True,
       reason="the Fremen put it there")
    assert host_state(client, t)["factions"]["harkonnen"]["tanks"]["forces"] == 2


def test_the_first_worm_of_pile_b_is_not_a_later_worm_of_pile_a(client):
    """fremen-sandworms: only worms after the first in the same blow (same pile) are the Fremen's."""
    t = table(client)
    set_phase(client, t, "spice_blow", turn=2)
    blow(client, t, "Red Chasm", "A")
    blow(client, t, "Shai-Hulud", "A")
    blow(client, t, "Old Gap", "A")  # pile A's blow ends with a territory card
    blow(client, t, "South Mesa", "B")
    refused(client, t, "host", "fremen-sandworms", "second or later worm", type="spice.blow",
            card="Shai-Hulud", pile="B", worm_territory="The Great Flat")
    blow(client, t, "Shai-Hulud", "B")
    ok(client, t, type="spice.blow", card="Shai-Hulud", pile="B", worm_territory="The Great Flat")


def test_reshuffle_after_twenty_cards_empties_both_piles(client):
    """When the deck runs out, both discard piles are shuffled back: a worm that then comes up has
    no territory card below it on either pile, and every card can be drawn again."""
    t = table(client, discovery=False)
    set_phase(client, t, "spice_blow", turn=2)
    from companion.games.dune.rules.board import load_board
    from companion.games.dune.rules.spice import deck_cards
    cards = [c.name for c in deck_cards(load_board()) if c.kind != "worm"] + ["Shai-Hulud"] * 5
    for i, c in enumerate(cards):
        blow(client, t, c, "AB"[i % 2])
    s = host_state(client, t)
    assert s["spice_deck"] == {"remaining": 20, "worms_remaining": 5, "next_worm_probability": 0.25}
    ok(client, t, type="forces.place", faction="harkonnen", territory="Wind Pass North", sector=17, forces=2)
    for pile in "AB":
        s = blow(client, t, "Shai-Hulud", pile)
    assert host_state(client, t)["factions"]["harkonnen"]["tanks"]["forces"] == 0  # nothing below: no devouring
    s = blow(client, t, "Red Chasm", "A")  # drawn again from the new deck
    assert s["spice_deck"]["remaining"] == 17 and s["spice_deck"]["worms_remaining"] == 3


# -- 4. a 4th Hiereg/Smuggler card does not spawn -------------------------------------------------

def _tokens_out(client, t, kind, n=3):
    """Put ``n`` tokens of ``kind`` out by drawing its cards (turn 2, storm far away)."""
    for card in SIX_SPICE_CARDS[kind][:n]:
        blow(client, t, card, "A")


@pytest.mark.parametrize("kind", ["hiereg", "smuggler"])
@pytest.mark.parametrize("tleilaxu", [True, False])
def test_fourth_discovery_card_places_no_spice_and_no_token_and_counts_once(app, client, kind, tleilaxu):
    factions = SIX[:5] + ["tleilaxu"] if tleilaxu else SIX
    t = table(client, factions=factions)
    set_phase(client, t, "spice_blow", turn=2)
    ok(client, t, type="storm.set", sector=3)  # no blow sector
    _tokens_out(client, t, kind)
    card = SIX_SPICE_CARDS[kind][0]
    # the three cards are out; 17 more draws reach the reshuffle
    from companion.games.dune.rules.board import load_board
    from companion.games.dune.rules.spice import deck_cards
    rest = [c.name for c in deck_cards(load_board()) if c.name not in SIX_SPICE_CARDS[kind]]
    for i, c in enumerate(rest):
        blow(client, t, c, "AB"[i % 2])
    before = host_state(client, t)
    spice_before = board_spice(before, card)
    tokens_before = dict(before["board"]["discovery"])
    assert len(tokens_before) == 6  # three of each kind
    phone = join_seat(app, t.code, "atreides")
    html = phone.get(f"/t/{t.code}/preview/blow", query_string={"card": card, "pile": "B"}).get_data(as_text=True)
    assert "does not spawn: no spice and no token" in html
    s = blow(client, t, card, "B")
    assert board_spice(s, card) == spice_before  # no spice
    assert s["board"]["discovery"] == tokens_before  # no token
    set_phase(client, t, "collection", turn=2)
    preview = host_state(client, t).get("collection_preview")
    if tleilaxu:
        sub = [p for p in preview if p["source"] == "spice_substitute"][0]
        assert sub["unspawned_blows"] == 1  # one blow that could not spawn, counted once
    else:
        assert not any(p["source"] == "spice_substitute" for p in preview)


# -- 3. a karama never subverts its player's own advantage ------------------------------------------
# Every karama-flagged entry type, the effect it plays (karama.json) and a valid entry of that type.
KARAMA_ENTRIES = {
    "bid.buy": ("emperor-free-card", "bidding", lambda f: {"type": "bid.buy", "faction": f, "price": 2}),
    "ship": ("guild-ship-pay-bank", "shipment_movement",
             lambda f: {"type": "ship", "faction": f, "to": "Polar Sink", "forces": 1}),
}


def _offered(client, t, f, effect):
    k = get(client, t, f, "karama")
    return any(o["id"] == effect for o in k["options"])


@pytest.mark.parametrize("entry_type", sorted(KARAMA_ENTRIES))
@pytest.mark.parametrize("factions, ally", [
    (SIX, None),
    (SIX, ("emperor", "atreides")),
    (SIX, ("guild", "harkonnen")),
    (["atreides", "harkonnen", "fremen", "bg"], None),  # Emperor and Guild absent: their effects stay open
])
def test_every_karama_flag_follows_the_karama_options(client, entry_type, factions, ally):
    """kiss-karama: a karama-flagged entry is accepted exactly when /api/tables/<code>/karama
    offers that effect to the seat (one source of truth: companion/games/dune/rules/karama.py)."""
    effect, phase, make = KARAMA_ENTRIES[entry_type]
    t = create_table(client, factions)
    if ally:
        open_nexus(client, t, turn=2)
        ok(client, t, type="alliance.form", factions=list(ally))
    set_phase(client, t, phase, turn=2)
    for f in factions:
        if f == "fremen" and entry_type == "ship":
            continue  # Fremen ship only from their own reserves near the Great Flat
        entry = dict(make(f), karama=True)
        if _offered(client, t, f, effect):
            if entry_type == "ship":
                its_turn(client, t, f)  # Shipment & Movement goes in storm order
            before = spice(host_state(client, t), f)
            ok(client, t, f, **entry)
            paid = before - spice(host_state(client, t), f)
            assert paid == (0 if entry_type == "bid.buy" else 1)  # no payment / the half rate
        else:
            assert f == effect.split("-")[0]  # only the faction whose advantage it is
            err = refused(client, t, f, "kiss-karama", "never its player's own", **entry)
            assert err["overridable"] is True
            from companion.games.dune.rules.factions import faction_name
            assert faction_name(f) in err["message"]


def test_emperor_buying_with_karama_is_refused_and_pays_the_bank_without(client):
    t = create_table(client, SIX)
    set_phase(client, t, "bidding", turn=2)
    refused(client, t, "emperor", "kiss-karama", "Emperor cannot play one to take a card without paying",
            type="bid.buy", faction="emperor", price=3, karama=True)
    s = ok(client, t, "emperor", type="bid.buy", faction="emperor", price=3)
    assert spice(s, "emperor") == 10 - 3
    # the Emperor's ally may cancel the Emperor's advantage: no payment to anyone
    open_nexus(client, t, turn=2)
    ok(client, t, type="alliance.form", factions=["emperor", "atreides"])
    set_phase(client, t, "bidding", turn=2)
    before = host_state(client, t)
    ok(client, t, "atreides", type="bid.buy", faction="atreides", price=3, karama=True)
    after = host_state(client, t)
    assert spice(after, "atreides") == spice(before, "atreides") and spice(after, "emperor") == spice(before, "emperor")


def test_guild_shipping_with_karama_is_refused(client):
    t = create_table(client, SIX)
    set_phase(client, t, "shipment_movement", turn=2)
    refused(client, t, "guild", "kiss-karama", "Spacing Guild cannot play one", type="ship", faction="guild",
            to="Arrakeen", forces=2, karama=True)
    before = host_state(client, t)
    its_turn(client, t, "harkonnen")
    ok(client, t, "harkonnen", type="ship", faction="harkonnen", to="Arrakeen", forces=2, karama=True)
    after = host_state(client, t)
    assert spice(before, "harkonnen") - spice(after, "harkonnen") == 1  # half of 2, to the bank
    assert spice(after, "guild") == spice(before, "guild")


# -- 7. the Emperor paying for a Fremen ally's extra revivals --------------------------------------
# Reading (fremen-free-revival): the Fremen sheet's "you cannot buy additional revivals" wins over
# the Emperor's alliance power: with 3 free and a limit of 3 a turn the clause would otherwise say
# nothing, so it bars revivals beyond the free 3 whoever pays. Any other Emperor ally gets up to 6.

@pytest.mark.parametrize(
    "ally, forces, emperor_pays, accepted, rule",
    [
        ("fremen", 3, 0, True, None),  # the Fremen's 3 free
        ("fremen", 4, 1, False, "fremen-free-revival"),
        ("fremen", 6, 3, False, "fremen-free-revival"),
        ("fremen", 4, 0, False, "fremen-free-revival"),  # the Fremen cannot buy either
        ("atreides", 6, 3, True, None),  # any other ally: up to 6 with the Emperor paying 3
        ("harkonnen", 5, 2, True, None),
        ("atreides", 7, 3, False, "base-revival"),
    ],
)
def test_emperor_pays_for_ally_revivals_but_not_for_the_fremen(client, ally, forces, emperor_pays, accepted, rule):
    t = create_table(client, SIX)
    open_nexus(client, t, turn=3)
    ok(client, t, type="alliance.form", factions=["emperor", ally])
    s = host_state(client, t)
    reserves = s["factions"][ally]["reserves"]["forces"]
    ok(client, t, type="forces.place", faction=ally, territory="Polar Sink", forces=min(reserves, 7))
    ok(client, t, type="forces.remove", faction=ally, territory="Polar Sink", to="tanks", forces=min(reserves, 7))
    set_phase(client, t, "revival", turn=3)
    entry = dict(type="revive", faction=ally, forces=forces, emperor_pays=emperor_pays)
    # the host enters it (from the ally's own seat it needs the Emperor's consent: tests/test_consent.py)
    if accepted:
        before = host_state(client, t)
        ok(client, t, "host", **entry)
        after = host_state(client, t)
        assert spice(before, "emperor") - spice(after, "emperor") == 2 * emperor_pays
        assert after["factions"][ally]["reserves"]["forces"] - before["factions"][ally]["reserves"]["forces"] == forces
    else:
        err = refused(client, t, "host", rule, None, **entry)
        assert err["overridable"] is True
        if rule == "fremen-free-revival":
            assert "Fremen" in err["message"] and "fremen" not in err["message"]


# -- 2. Bene Gesserit timing and sides ----------------------------------------------------------
# KISS BG sheet, ADVISORS AND FIGHTERS (the AH reading): flip at the start of Shipment & Movement,
# choose a side on entering a new territory, take the side already there otherwise, never a mixed
# stack; another non-allied faction entering a territory held only by BG fighters lets the BG turn
# them into advisors.

def bg_table(client, ally=None):
    t = create_table(client, SIX)
    ok(client, t, type="spice.set", faction="bg", amount=20)
    ok(client, t, type="storm.set", sector=3)
    if ally:
        open_nexus(client, t, turn=2)
        ok(client, t, type="alliance.form", factions=["bg", ally])
    return t


def bg_stack(s, territory):
    st = stack(s, territory, "bg")
    return st["forces"], st["advisors"]


@pytest.mark.parametrize("phase", ["storm", "spice_blow", "bidding", "revival", "battle", "collection",
                                   "mentat_pause"])
@pytest.mark.parametrize("to", ["advisors", "fighters"])
def test_bg_flip_outside_shipment_and_movement_is_refused_overridably(client, phase, to):
    t = bg_table(client)
    side = {"advisors": 2} if to == "fighters" else {"forces": 2}
    ok(client, t, type="forces.place", faction="bg", territory="The Great Flat", **side)
    set_phase(client, t, phase, turn=2)
    err = refused(client, t, "bg", "bg-advisors", "only at the start of Shipment & Movement", type="forces.flip",
                  territory="The Great Flat", to=to)
    assert err["overridable"] is True
    ok(client, t, "bg", type="forces.flip", territory="The Great Flat", to=to, override=True, reason="table agreed")
    assert bg_stack(host_state(client, t), "The Great Flat") == ((2, 0) if to == "fighters" else (0, 2))


@pytest.mark.parametrize("to", ["advisors", "fighters"])
def test_bg_flip_at_the_start_of_shipment_and_movement_either_way(client, to):
    t = bg_table(client)
    side = {"advisors": 2} if to == "fighters" else {"forces": 2}
    ok(client, t, type="forces.place", faction="bg", territory="The Great Flat", **side)
    set_phase(client, t, "shipment_movement", turn=2)
    ok(client, t, "bg", type="forces.flip", territory="The Great Flat", to=to)
    assert bg_stack(host_state(client, t), "The Great Flat") == ((2, 0) if to == "fighters" else (0, 2))


@pytest.mark.parametrize("first", ["harkonnen_ships", "harkonnen_moves", "bg_ships"])
@pytest.mark.parametrize("to", ["advisors", "fighters"])
def test_bg_flip_after_someone_shipped_or_moved_is_refused(client, first, to):
    t = bg_table(client)
    side = {"advisors": 2} if to == "fighters" else {"forces": 2}
    ok(client, t, type="forces.place", faction="bg", territory="The Great Flat", **side)
    set_phase(client, t, "shipment_movement", turn=2)
    if first == "harkonnen_ships":
        its_turn(client, t, "harkonnen")
        ok(client, t, "harkonnen", type="ship", faction="harkonnen", to="Red Chasm", forces=1)
    elif first == "harkonnen_moves":
        its_turn(client, t, "harkonnen")
        ok(client, t, "harkonnen", type="move", faction="harkonnen", **{"from": "Carthag"}, to="Arrakeen", forces=1)
    else:
        its_turn(client, t, "bg")
        ok(client, t, "bg", type="ship", faction="bg", to="Red Chasm", forces=1)
    err = refused(client, t, "bg", "bg-advisors", "has begun", type="forces.flip", territory="The Great Flat", to=to)
    assert err["overridable"] is True


@pytest.mark.parametrize("entrant, others_there, ally, may", [
    ("harkonnen", False, None, True),    # a non-allied faction enters where only BG fighters stand
    ("harkonnen", False, "harkonnen", False),  # the ally entering does not reopen the choice
    ("harkonnen", True, None, False),    # not only BG fighters there (a move, not from off-planet)
])
def test_bg_may_turn_fighters_into_advisors_where_another_faction_just_entered(client, entrant, others_there, ally,
                                                                                 may):
    t = bg_table(client, ally)
    ok(client, t, type="storm.set", sector=3)
    ok(client, t, type="forces.place", faction="bg", territory="Imperial Basin", sector=9, forces=1)
    if others_there:
        ok(client, t, type="forces.place", faction="emperor", territory="Imperial Basin", sector=9, forces=1)
    set_phase(client, t, "shipment_movement", turn=2)
    move = dict(type="move", faction=entrant, to="Imperial Basin", to_sector=9, forces=1, **{"from": "Carthag"})
    its_turn(client, t, entrant)
    if ally:  # allied forces may not end together: the ally's entry is an override here
        ok(client, t, entrant, **move, override=True, reason="test")
    else:
        ok(client, t, entrant, **move)
    entry = dict(type="forces.flip", territory="Imperial Basin", to="advisors")
    if may:
        ok(client, t, "bg", **entry)
        assert bg_stack(host_state(client, t), "Imperial Basin") == (0, 1)
        # never back to fighters mid-phase (no "nova flip")
        refused(client, t, "bg", "bg-advisors", "has begun", type="forces.flip", territory="Imperial Basin",
                to="fighters")
    else:
        refused(client, t, "bg", "bg-advisors", None, **entry)


@pytest.mark.parametrize("how", ["ship", "move"])
@pytest.mark.parametrize("there, entering, result", [
    ({"advisors": 2}, {"forces": 3}, (0, 5)),   # fighters onto advisors arrive as advisors
    ({"forces": 2}, {"advisors": 3}, (5, 0)),   # advisors onto fighters arrive as fighters
    ({"forces": 2}, {"forces": 3}, (5, 0)),
    ({"advisors": 2}, {"advisors": 3}, (0, 5)),
])
def test_bg_forces_entering_take_the_side_already_there(client, how, there, entering, result):
    t = bg_table(client)
    ok(client, t, type="forces.place", faction="bg", territory="The Great Flat", **there)
    if how == "move":
        ok(client, t, type="forces.place", faction="bg", territory="Funeral Plain", **entering)
    set_phase(client, t, "shipment_movement", turn=2)
    if how == "ship":
        its_turn(client, t, "bg")
        ok(client, t, "bg", type="ship", faction="bg", to="The Great Flat", **entering)
    else:
        its_turn(client, t, "bg")
        ok(client, t, "bg", type="move", faction="bg", **{"from": "Funeral Plain"}, to="The Great Flat", **entering)
    assert bg_stack(host_state(client, t), "The Great Flat") == result


def test_bg_fighters_shipped_onto_advisors_in_a_full_stronghold_arrive_as_advisors(client):
    t = bg_table(client)
    ok(client, t, type="forces.place", faction="bg", territory="Arrakeen", advisors=1)
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=1)
    set_phase(client, t, "shipment_movement", turn=2)
    its_turn(client, t, "bg")
    ok(client, t, "bg", type="ship", faction="bg", to="Arrakeen", forces=2)
    assert bg_stack(host_state(client, t), "Arrakeen") == (0, 3)


def test_bg_entering_a_new_territory_with_both_sides_is_refused(client):
    t = bg_table(client)
    set_phase(client, t, "shipment_movement", turn=2)
    refused(client, t, "bg", "bg-advisors", "one side only", type="ship", faction="bg", to="The Great Flat",
            forces=1, advisors=1)


@pytest.mark.parametrize("bg_there, result", [({"forces": 1}, (2, 0)), ({"advisors": 1}, (0, 2)), ({}, (0, 1))])
def test_spiritual_advisor_in_the_polar_sink_takes_the_side_there(client, bg_there, result):
    t = bg_table(client)
    if bg_there:
        ok(client, t, type="forces.place", faction="bg", territory="Polar Sink", **bg_there)
    set_phase(client, t, "shipment_movement", turn=2)
    its_turn(client, t, "harkonnen")
    ok(client, t, "harkonnen", type="ship", faction="harkonnen", to="Red Chasm", forces=1)
    ok(client, t, "bg", type="ship.advisor", to="Polar Sink")
    assert bg_stack(host_state(client, t), "Polar Sink") == result


def test_spiritual_advisor_joins_a_shipment_onto_bg_fighters_once_they_flip(client):
    t = bg_table(client)
    ok(client, t, type="forces.place", faction="bg", territory="Red Chasm", forces=1)
    set_phase(client, t, "shipment_movement", turn=2)
    its_turn(client, t, "harkonnen")
    ok(client, t, "harkonnen", type="ship", faction="harkonnen", to="Red Chasm", forces=1)
    refused(client, t, "bg", "bg-spiritual-advisors", "once those fighters flip to advisors", type="ship.advisor",
            to="Red Chasm")
    ok(client, t, "bg", type="forces.flip", territory="Red Chasm", to="advisors")  # Harkonnen just entered
    ok(client, t, "bg", type="ship.advisor", to="Red Chasm")
    assert bg_stack(host_state(client, t), "Red Chasm") == (0, 2)


def test_bg_cross_shipped_by_the_guild_alliance_onto_advisors_arrive_as_advisors(client):
    t = bg_table(client, ally="guild")
    ok(client, t, type="forces.place", faction="bg", territory="The Great Flat", advisors=1)
    ok(client, t, type="forces.place", faction="bg", territory="Funeral Plain", forces=2)
    set_phase(client, t, "shipment_movement", turn=2)
    its_turn(client, t, "bg")
    ok(client, t, "bg", type="ship.cross", faction="bg", **{"from": "Funeral Plain"}, to="The Great Flat", forces=2)
    assert bg_stack(host_state(client, t), "The Great Flat") == (0, 3)

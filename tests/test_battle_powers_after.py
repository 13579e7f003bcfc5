"""Faction powers around a battle's end (issue 25), through the public API, each test quoting the seed
(kiss-rules.txt) first: the Moritani Assassinate Leaders, the Ecaz Special Karama in the outcome,
the Moritani's ally keeping a card, the Tleilaxu's ally returning lost forces, and the Ecaz
Ambassador lost in a Lasgun/Shield explosion."""
from __future__ import annotations

import pytest

from conftest import create_table, state
from table_helpers import history, host_state, ok, refused, set_phase, spice, stack

ASSASSINATE = "moritani-assassinate"


def plan(client, t, who, bid, **kw):
    return ok(client, t, who, type="battle.plan", battle=bid, faction=who, **kw)


def open_battle(client, t, territory, aggressor, opponent) -> str:
    s = ok(client, t, aggressor, type="battle.open", territory=territory, aggressor=aggressor, opponent=opponent,
           override=True, reason="the table's battle order")
    return s["battles"][-1]["id"]


def reveal_apply(client, t, who, bid, apply=True) -> dict:
    ok(client, t, who, type="battle.reveal", battle=bid)
    return ok(client, t, type="battle.apply", battle=bid) if apply else host_state(client, t)


# -- Moritani: Assassinate Leaders -----------------------------------------------------------------

def moritani_loses(client, *, atreides_plan=None, moritani_plan=None, traitors=("Gurney Halleck",), traitor_call=None,
                   apply=True):
    """Atreides (10 in Arrakeen) fight the Moritani (3 there). By default Duncan Idaho (2) + 5 beats
    Vando Terboli (1) + 1, and Duncan Idaho survives."""
    t = create_table(client, ["atreides", "harkonnen", "moritani"])
    ok(client, t, type="forces.place", faction="moritani", territory="Arrakeen", forces=3)
    ok(client, t, type="traitors.set", faction="moritani", traitors=list(traitors))
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "Arrakeen", "atreides", "moritani")
    plan(client, t, "atreides", bid, **(atreides_plan or {"leader": "Duncan Idaho", "forces": 5}))
    plan(client, t, "moritani", bid, **(moritani_plan or {"leader": "Vando Terboli", "forces": 1}))
    ok(client, t, "moritani", type="battle.reveal", battle=bid)
    if traitor_call:
        ok(client, t, type="battle.traitor", battle=bid, faction=traitor_call)
    if apply:
        ok(client, t, type="battle.apply", battle=bid)
    return t, bid


ASSASSINATE_REFUSED = [
    # (what the rule excludes, setup, the Traitor Card revealed, needle)
    ('"other than the leader you opposed"', {}, "Duncan Idaho", "leader the Moritani opposed"),
    ('"a Traitor Card for the same faction"', {}, "Feyd-Rautha", "leader of Atreides"),
    ('"When you lose a battle": the Moritani won',
     {"atreides_plan": {"leader": "Duncan Idaho", "forces": 0}, "moritani_plan": {"leader": "Lupino Ord", "forces": 3}},
     "Gurney Halleck", "after losing a battle"),
    ('"had a leader disc that was not killed": a Cheap Hero is no leader disc',
     {"atreides_plan": {"cheap_hero": True, "forces": 5}}, "Gurney Halleck", "no leader disc that survived"),
    ('"and no Traitor was called"', {"traitors": ("Duncan Idaho",), "traitor_call": "moritani",
                                     "moritani_plan": {"leader": "Vando Terboli", "forces": 0}},
     "Gurney Halleck", "after losing"),
]


@pytest.mark.parametrize("seed,setup,leader,needle", ASSASSINATE_REFUSED,
                         ids=["opposed", "other-faction", "moritani-won", "cheap-hero", "traitor-called"])
def test_assassinate_leaders_is_refused_outside_its_conditions(client, seed, setup, leader, needle):
    """kiss-rules.txt, Moritani: "When you lose a battle in which the opposing player had a leader disc
    that was not killed (and no Traitor was called), you may reveal a Traitor Card for the same faction
    (other than the leader you opposed)." """
    t, bid = moritani_loses(client, **setup)
    refused(client, t, "moritani", ASSASSINATE, needle, type="battle.assassinate", battle=bid, leader=leader)


def test_assassinate_leaders_kills_the_revealed_leader_and_pays_its_strength(client):
    """kiss-rules.txt, Moritani: "If they are not in the Tanks, kill that leader and collect spice for
    them. [...] This advantage may only be used once against each faction in the game." """
    t, bid = moritani_loses(client)
    before = host_state(client, t)
    refused(client, t, "atreides", None, None, _status=403, type="battle.assassinate", battle=bid,
            leader="Gurney Halleck")
    s = ok(client, t, "moritani", type="battle.assassinate", battle=bid, leader="Gurney Halleck")
    h = host_state(client, t)
    gurney = next(ld for ld in h["factions"]["atreides"]["leaders"] if ld["name"] == "Gurney Halleck")
    assert gurney["status"] == "tanks"
    assert spice(h, "moritani") == spice(before, "moritani") + 4
    assert h["factions"]["moritani"]["assassinated"] == {"atreides": "Gurney Halleck"}
    assert "Gurney Halleck" not in s["factions"]["moritani"]["private"]["traitors"]  # revealed: set aside face up
    line = next(e for e in history(client, t) if e["type"] == "battle.assassinate")["summary"]
    assert "Gurney Halleck" in line and "4 spice" in line
    # once per faction in the game: another battle, another loss, another Atreides traitor is refused
    ok(client, t, type="traitors.set", faction="moritani", traitors=["Thufir Hawat"])
    ok(client, t, type="forces.place", faction="moritani", territory="Arrakeen", forces=2)
    bid2 = open_battle(client, t, "Arrakeen", "atreides", "moritani")
    plan(client, t, "atreides", bid2, leader="Lady Jessica", forces=3)
    plan(client, t, "moritani", bid2, leader="Trin Kronos", forces=0)
    reveal_apply(client, t, "moritani", bid2)
    refused(client, t, "moritani", ASSASSINATE, "already assassinated", type="battle.assassinate", battle=bid2,
            leader="Thufir Hawat")


def test_a_traitor_not_recorded_needs_an_override_and_a_leader_in_the_tanks_does_not_die_twice(client):
    t, bid = moritani_loses(client, traitors=("Thufir Hawat",))
    refused(client, t, "moritani", ASSASSINATE, "not among the traitor cards", type="battle.assassinate",
            battle=bid, leader="Gurney Halleck")
    ok(client, t, type="leader.tanks", faction="atreides", leader="Gurney Halleck")
    before = host_state(client, t)
    ok(client, t, "moritani", type="battle.assassinate", battle=bid, leader="Gurney Halleck", override=True,
       reason="the card is on the table face up")
    h = host_state(client, t)
    assert spice(h, "moritani") == spice(before, "moritani")  # "If they are not in the Tanks" only
    assert h["factions"]["moritani"]["assassinated"] == {"atreides": "Gurney Halleck"}


def test_a_traitor_revealed_normally_loses_the_advantage_against_that_faction(client):
    """kiss-rules.txt, Moritani: "You may reveal a Traitor Card normally, but then this advantage is lost." """
    t, bid = moritani_loses(client, traitors=("Duncan Idaho",), traitor_call="moritani",
                            moritani_plan={"leader": "Vando Terboli", "forces": 0})
    h = host_state(client, t)
    assert h["factions"]["moritani"]["assassinated"] == {"atreides": None}
    ok(client, t, type="forces.place", faction="atreides", territory="Arrakeen", forces=4)  # all lost to the traitor
    ok(client, t, type="forces.place", faction="moritani", territory="Arrakeen", forces=2)
    ok(client, t, type="traitors.set", faction="moritani", traitors=["Thufir Hawat"])
    bid2 = open_battle(client, t, "Arrakeen", "atreides", "moritani")
    plan(client, t, "atreides", bid2, leader="Lady Jessica", forces=3)
    plan(client, t, "moritani", bid2, leader="Trin Kronos", forces=0)
    reveal_apply(client, t, "moritani", bid2)
    refused(client, t, "moritani", ASSASSINATE, "lost", type="battle.assassinate", battle=bid2, leader="Thufir Hawat")


# -- Ecaz Special Karama in the outcome ---------------------------------------------------------------

def ecaz_battle(client, ecaz_plan: dict, harkonnen_plan: dict):
    """Ecaz (6 in Imperial Basin) fight the Harkonnen (6 there), plans revealed."""
    t = create_table(client, ["atreides", "harkonnen", "ecaz"])
    ok(client, t, type="forces.place", faction="harkonnen", territory="Imperial Basin", sector=9, forces=6)
    ok(client, t, type="cards.set", faction="ecaz", cards=["Karama", "Crysknife"])
    ok(client, t, type="cards.set", faction="harkonnen", cards=["Shield", "Cheap Hero"])
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "Imperial Basin", "harkonnen", "ecaz")
    plan(client, t, "harkonnen", bid, **harkonnen_plan)
    plan(client, t, "ecaz", bid, **ecaz_plan)
    ok(client, t, "ecaz", type="battle.reveal", battle=bid)
    return t, bid


ECAZ_KARAMA = [
    # (Ecaz plan, Harkonnen plan, Ecaz total, Harkonnen total, winner)
    ({"leader": "Bindikk Narvi", "forces": 3}, {"leader": "Feyd-Rautha", "forces": 3},
     3 + 2 + (6 - 2), 3 + 6, "harkonnen"),  # Ecaz reach 9: a tie goes to the aggressor
    ({"leader": "Bindikk Narvi", "forces": 4}, {"leader": "Feyd-Rautha", "forces": 3},
     4 + 2 + 4, 3 + 6, "ecaz"),
    ({"leader": "Ilesa Ecaz", "forces": 2}, {"leader": "Beast Rabban", "forces": 2, "defense": "Shield"},
     2 + 3 + 1, 2 + 4, "harkonnen"),
]


@pytest.mark.parametrize("ecaz_plan,hark_plan,ecaz_total,hark_total,winner", ECAZ_KARAMA,
                         ids=["tie-to-aggressor", "ecaz-win", "opponent-defence-ok"])
def test_the_ecaz_special_karama_adds_the_difference_to_reach_the_opponents_leader(
        client, ecaz_plan, hark_plan, ecaz_total, hark_total, winner):
    """kiss-rules.txt, Ecaz Special Karama: "Once per game, when battle plans are revealed and if you
    played neither a weapon nor a defense, you may add the difference between your leader disc and your
    opponent's leader disc to your number dialed." """
    t, bid = ecaz_battle(client, ecaz_plan, hark_plan)
    s = ok(client, t, "ecaz", type="karama.special", faction="ecaz", battle=bid)
    assert s["factions"]["ecaz"]["special_karama_used"] and "Karama" in s["treachery"]["discard"]
    o = ok(client, t, type="battle.apply", battle=bid)["battles"][-1]["outcome"]
    assert o["totals"] == {"ecaz": ecaz_total, "harkonnen": hark_total}
    assert o["winner"] == winner
    assert any(line["rule"] == "ecaz-special-karama" for line in o["lines"])


ECAZ_KARAMA_REFUSED = [
    ("a weapon played", {"leader": "Bindikk Narvi", "forces": 3, "weapon": "Crysknife"},
     {"leader": "Feyd-Rautha", "forces": 3}, "weapon or a defence", False),
    ("no opposing leader disc", {"leader": "Bindikk Narvi", "forces": 3}, {"cheap_hero": True, "forces": 3},
     "both sides need one", False),
    ("nothing to add: the Ecaz leader is the stronger", {"leader": "Sanya Ecaz", "forces": 3},
     {"leader": "Umman Kudu", "forces": 3}, "would add nothing", True),
]


@pytest.mark.parametrize("why,ecaz_plan,hark_plan,needle,overridable", ECAZ_KARAMA_REFUSED,
                         ids=["weapon", "no-leader", "nothing-to-add"])
def test_the_ecaz_special_karama_is_refused_outside_its_conditions(client, why, ecaz_plan, hark_plan, needle,
                                                                   overridable):
    t, bid = ecaz_battle(client, ecaz_plan, hark_plan)
    err = refused(client, t, "ecaz", "ecaz-special-karama", needle, type="karama.special", faction="ecaz",
                  battle=bid)
    assert err.get("overridable", False) == overridable, err
    assert not host_state(client, t)["factions"]["ecaz"]["special_karama_used"]


def test_the_ecaz_special_karama_waits_for_the_reveal_and_an_ecaz_battle(client):
    t = create_table(client, ["atreides", "harkonnen", "ecaz"])
    ok(client, t, type="forces.place", faction="harkonnen", territory="Imperial Basin", sector=9, forces=6)
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=2)
    ok(client, t, type="cards.set", faction="ecaz", cards=["Karama"])
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "Imperial Basin", "harkonnen", "ecaz")
    refused(client, t, "ecaz", "ecaz-special-karama", "when the battle plans are revealed", type="karama.special",
            faction="ecaz", battle=bid)
    other = open_battle(client, t, "Arrakeen", "harkonnen", "atreides")
    refused(client, t, "ecaz", "ecaz-special-karama", "do not fight", type="karama.special", faction="ecaz",
            battle=other)


# -- Moritani alliance: the losing ally keeps one card -------------------------------------------------

def ally_loses(client, moritani_ally: bool = True, hark_plan=None):
    t = create_table(client, ["atreides", "harkonnen", "moritani"])
    if moritani_ally:
        ok(client, t, type="alliance.form", factions=["harkonnen", "moritani"], override=True, reason="a Nexus")
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=3)
    ok(client, t, type="cards.set", faction="harkonnen", cards=["Crysknife", "Snooper", "Cheap Hero"])
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "Arrakeen", "atreides", "harkonnen")
    plan(client, t, "atreides", bid, leader="Thufir Hawat", forces=6)
    plan(client, t, "harkonnen", bid, **(hark_plan or {"leader": "Umman Kudu", "forces": 1, "weapon": "Crysknife",
                                                        "defense": "Snooper"}))
    o = reveal_apply(client, t, "harkonnen", bid)["battles"][-1]["outcome"]
    return t, bid, o


def test_the_moritanis_ally_may_keep_one_card_it_played_when_it_loses(client):
    """kiss-rules.txt, Moritani alliance: "When your ally loses a battle that had a winner, they may keep
    one Treachery Card they played in the battle that they would have been able to keep had they won." """
    t, bid, o = ally_loses(client)
    assert o["loser"] == "harkonnen" and o["may_keep_one"] == {"harkonnen": ["Crysknife", "Snooper"]}
    assert any(line["rule"] == "moritani-alliance" for line in o["lines"])
    h = host_state(client, t)
    assert {"Crysknife", "Snooper"} <= set(h["treachery"]["discard"])
    s = ok(client, t, "harkonnen", type="battle.keep", battle=bid, faction="harkonnen", card="Snooper")
    assert "Snooper" in s["factions"]["harkonnen"]["private"]["cards"] and "Crysknife" not in s["factions"]["harkonnen"]["private"]["cards"]
    h = host_state(client, t)
    assert "Snooper" not in h["treachery"]["discard"] and "Crysknife" in h["treachery"]["discard"]
    assert h["factions"]["harkonnen"]["hand_size"] == 2
    refused(client, t, "harkonnen", "moritani-alliance", "already kept", type="battle.keep", battle=bid,
            faction="harkonnen", card="Crysknife")


KEEP_REFUSED = [
    ("not the Moritani's ally", False, None, "Crysknife", "not the Moritani's ally"),
    ('"they would have been able to keep had they won": never a Cheap Hero', True,
     {"cheap_hero": True, "forces": 1, "weapon": "Crysknife"}, "Cheap Hero", "could have kept"),
    ("a card it did not play", True, None, "Lasgun", "could have kept"),
]


@pytest.mark.parametrize("why,allied,hark_plan,card,needle", KEEP_REFUSED, ids=["unallied", "cheap-hero", "not-played"])
def test_keeping_a_card_is_refused_outside_the_rule(client, why, allied, hark_plan, card, needle):
    t, bid, o = ally_loses(client, allied, hark_plan)
    assert ("harkonnen" in o["may_keep_one"]) == allied
    refused(client, t, "harkonnen", "moritani-alliance", needle, type="battle.keep", battle=bid, faction="harkonnen",
            card=card)


def test_no_card_is_kept_after_an_explosion_nobody_won(client):
    t = create_table(client, ["atreides", "harkonnen", "moritani"])
    ok(client, t, type="alliance.form", factions=["harkonnen", "moritani"], override=True, reason="a Nexus")
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=3)
    ok(client, t, type="cards.set", faction="harkonnen", cards=["Lasgun"])
    ok(client, t, type="cards.set", faction="atreides", cards=["Shield"])
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "Arrakeen", "atreides", "harkonnen")
    plan(client, t, "atreides", bid, leader="Thufir Hawat", forces=6, defense="Shield")
    plan(client, t, "harkonnen", bid, leader="Umman Kudu", forces=1, weapon="Lasgun")
    o = reveal_apply(client, t, "harkonnen", bid)["battles"][-1]["outcome"]
    assert o["explosion"] and o["may_keep_one"] == {}
    refused(client, t, "harkonnen", "moritani-alliance", "had a winner", type="battle.keep", battle=bid,
            faction="harkonnen", card="Lasgun")


# -- Tleilaxu alliance: the winning ally returns up to 2 lost forces ------------------------------------

def ally_wins(client, allied=True, emperor_plan=None):
    t = create_table(client, ["atreides", "emperor", "tleilaxu"])
    if allied:
        ok(client, t, type="alliance.form", factions=["emperor", "tleilaxu"], override=True, reason="a Nexus")
    ok(client, t, type="forces.place", faction="emperor", territory="Arrakeen", forces=5, starred=2)
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "Arrakeen", "atreides", "emperor")
    plan(client, t, "atreides", bid, leader="Duncan Idaho", forces=2)
    plan(client, t, "emperor", bid, **(emperor_plan or {"leader": "Bashar", "forces": 2, "starred": 1}))
    return t, bid, reveal_apply(client, t, "emperor", bid)


RETURN_CASES = [
    # (forces, starred returned, accepted?, needle)
    (1, 1, True, None),
    (2, 0, True, None),
    (0, 2, False, "lost 1 starred force"),
    (2, 1, False, "1 or 2"),
]


@pytest.mark.parametrize("forces,starred,accepted,needle", RETURN_CASES, ids=["one-each", "two", "too-many-starred",
                                                                             "three"])
def test_the_tleilaxus_winning_ally_returns_up_to_two_lost_forces_of_any_type(client, forces, starred, accepted,
                                                                              needle):
    """kiss-rules.txt, Tleilaxu alliance: "when your ally wins a battle, they may return up to 2 of their
    forces of any type lost in that battle back to their reserves." """
    t, bid, before = ally_wins(client)
    assert before["battles"][-1]["outcome"]["winner"] == "emperor"
    entry = dict(type="battle.ally_return", battle=bid, faction="emperor", forces=forces, starred=starred)
    if not accepted:
        refused(client, t, "emperor", "tleilaxu-alliance", needle, **entry)
        return
    ok(client, t, "emperor", **entry)
    h = host_state(client, t)
    for kind, n in (("forces", forces), ("starred", starred)):
        assert h["factions"]["emperor"]["reserves"][kind] == before["factions"]["emperor"]["reserves"][kind] + n
        assert h["factions"]["emperor"]["tanks"][kind] == before["factions"]["emperor"]["tanks"][kind] - n
    refused(client, t, "emperor", "tleilaxu-alliance", "already returned", type="battle.ally_return", battle=bid,
            faction="emperor", forces=1)


def test_only_the_tleilaxus_ally_and_only_after_a_win_returns_forces(client):
    t, bid, _ = ally_wins(client, allied=False)
    refused(client, t, "emperor", "tleilaxu-alliance", "not the Tleilaxu's ally", type="battle.ally_return",
            battle=bid, faction="emperor", forces=1)
    t, bid, s = ally_wins(client, emperor_plan={"leader": "Bashar", "forces": 0})
    assert s["battles"][-1]["outcome"]["winner"] == "atreides"
    refused(client, t, "emperor", "tleilaxu-alliance", "did not win", type="battle.ally_return", battle=bid,
            faction="emperor", forces=1)


# -- Ecaz Ambassadors and the explosion -----------------------------------------------------------------

def test_an_explosion_returns_the_ecaz_ambassador_there_to_the_supply(client):
    """kiss-rules.txt, Ecaz: "Ambassadors are vulnerable to game effects like Storm or explosions,
    returning to your supply." """
    t = create_table(client, ["atreides", "harkonnen", "ecaz"])
    ok(client, t, "ecaz", type="ambassadors.set", faction="ecaz", ambassadors=["Ecaz", "Fremen"])
    set_phase(client, t, "revival")
    ok(client, t, "ecaz", type="ambassador.place", faction="ecaz", territory="Arrakeen", ambassador="Fremen")
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=3)
    ok(client, t, type="cards.set", faction="harkonnen", cards=["Lasgun"])
    ok(client, t, type="cards.set", faction="atreides", cards=["Shield"])
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "Arrakeen", "atreides", "harkonnen")
    plan(client, t, "atreides", bid, leader="Thufir Hawat", forces=6, defense="Shield")
    plan(client, t, "harkonnen", bid, leader="Umman Kudu", forces=1, weapon="Lasgun")
    s = reveal_apply(client, t, "harkonnen", bid)
    assert "Arrakeen" not in s["board"].get("markers", {})
    assert stack(s, "Arrakeen", "atreides")["forces"] == 0
    ecaz = state(client, t.code, t.token("ecaz"))["factions"]["ecaz"]["private"]
    assert "Fremen" in ecaz["ambassadors"] and "Arrakeen" not in ecaz.get("ambassadors_placed", {})
    line = next(e for e in history(client, t) if e["type"] == "battle.apply")["summary"]
    assert "Ambassador" in line and "Fremen" not in line  # which one it was stays Ecaz's secret


# -- the phones offer these powers as taps ---------------------------------------------------------------

def page_of(app, t, seat: str) -> str:
    from conftest import join_seat
    return join_seat(app, t.code, seat).get(f"/t/{t.code}/view").get_data(as_text=True)


def test_the_phones_offer_each_after_battle_power_only_to_its_owner(app, client):
    # the Moritani's ally lost: "Keep" buttons on its phone only
    t, bid, _ = ally_loses(client)
    h, m, a = page_of(app, t, "harkonnen"), page_of(app, t, "moritani"), page_of(app, t, "atreides")
    assert 'data-keep="Crysknife"' in h and 'data-keep="Snooper"' in h
    assert "data-keep=" not in m and "data-keep=" not in a and "data-keep=" not in page_of(app, t, "board")
    # the Moritani lost: reveal a recorded Atreides traitor other than the leader opposed
    t, bid = moritani_loses(client)
    assert 'data-assassinate="Gurney Halleck"' in page_of(app, t, "moritani")
    assert "data-assassinate=" not in page_of(app, t, "atreides")
    t, bid = moritani_loses(client, traitors=("Duncan Idaho",))  # the leader opposed is never offered
    assert "data-assassinate=" not in page_of(app, t, "moritani")
    # the Tleilaxu's ally won: the choices of what to return
    t, bid, _ = ally_wins(client)
    e = page_of(app, t, "emperor")
    assert 'data-ally-return="2-0"' in e and 'data-ally-return="1-1"' in e
    assert "data-ally-return=" not in page_of(app, t, "tleilaxu")
    # Ecaz, revealed with a weaker leader and no weapon or defence: the Special Karama and what it adds
    t, bid = ecaz_battle(client, {"leader": "Bindikk Narvi", "forces": 3}, {"leader": "Feyd-Rautha", "forces": 3})
    e = page_of(app, t, "ecaz")
    assert f'data-ecaz-karama="{bid}"' in e and "add 4 to your dial" in e
    assert "data-ecaz-karama" not in page_of(app, t, "harkonnen")


# -- the Moritani and Tleilaxu Special Karamas ------------------------------------------------------------

def moritani_lose_to_cards(client):
    t = create_table(client, ["atreides", "harkonnen", "moritani"])
    ok(client, t, type="forces.place", faction="moritani", territory="Arrakeen", forces=3)
    ok(client, t, type="cards.set", faction="atreides", cards=["Crysknife", "Snooper"])
    ok(client, t, type="cards.set", faction="moritani", cards=["Karama"])
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "Arrakeen", "atreides", "moritani")
    plan(client, t, "atreides", bid, leader="Duncan Idaho", forces=5, weapon="Crysknife", defense="Snooper")
    plan(client, t, "moritani", bid, leader="Vando Terboli", forces=1)
    reveal_apply(client, t, "moritani", bid)
    return t, bid


def test_the_moritani_special_karama_forces_the_winner_to_discard_the_cards_it_played(client):
    """kiss-rules.txt, Moritani Special Karama: "Once per game, if you lose a battle, force your opponent
    to discard or to keep any or all Treachery Cards they played." """
    t, bid = moritani_lose_to_cards(client)
    assert {"Crysknife", "Snooper"} <= set(state(client, t.code, t.token("atreides"))["factions"]["atreides"]["private"]["cards"])
    refused(client, t, "moritani", "moritani-special-karama", "played and kept", type="karama.special",
            faction="moritani", battle=bid, discard=["Lasgun"])
    s = ok(client, t, "moritani", type="karama.special", faction="moritani", battle=bid, discard=["Crysknife"],
           keep=["Snooper"])
    assert s["factions"]["moritani"]["special_karama_used"]
    h = host_state(client, t)
    assert "Crysknife" in h["treachery"]["discard"] and "Karama" in h["treachery"]["discard"]
    cards = state(client, t.code, t.token("atreides"))["factions"]["atreides"]["private"]["cards"]
    assert "Crysknife" not in cards and "Snooper" in cards
    assert h["battles"][-1]["moritani_karama"] == {"discard": ["Crysknife"], "keep": ["Snooper"]}


def test_the_moritani_special_karama_needs_a_battle_the_moritani_lost(client):
    t, bid, _ = ally_loses(client)  # the Harkonnen lost to the Atreides; the Moritani did not fight
    ok(client, t, type="cards.set", faction="moritani", cards=["Karama"])
    refused(client, t, "moritani", "moritani-special-karama", "the moritani lost", type="karama.special",
            faction="moritani", battle=bid, discard=["Crysknife"])


TLEILAXU_KARAMA = [
    # (leader, take, status after, captured_by)
    ("Gurney Halleck", True, "captured", "tleilaxu"),   # "take it yourself"
    ("Gurney Halleck", False, "alive", None),           # "or return it to their faction"
    ("Wykk", True, "alive", None),                      # a Tleilaxu leader taken is simply theirs again
]


@pytest.mark.parametrize("leader,take,status,by", TLEILAXU_KARAMA, ids=["take", "return", "own"])
def test_the_tleilaxu_special_karama_takes_or_returns_a_leader_from_the_tanks(client, leader, take, status, by):
    """kiss-rules.txt, Tleilaxu Special Karama: "Once per game, at any time, select any leader from the
    Tleilaxu tanks and take it yourself or return it to their faction." """
    t = create_table(client, ["atreides", "harkonnen", "tleilaxu"])
    ok(client, t, type="cards.set", faction="tleilaxu", cards=["Karama"])
    owner = "tleilaxu" if leader == "Wykk" else "atreides"
    refused(client, t, "tleilaxu", "tleilaxu-special-karama", "not in the tleilaxu tanks", type="karama.special",
            faction="tleilaxu", leader=leader, take=take)
    ok(client, t, type="leader.tanks", faction=owner, leader=leader)
    ok(client, t, "tleilaxu", type="karama.special", faction="tleilaxu", leader=leader, take=take)
    ld = next(x for x in host_state(client, t)["factions"][owner]["leaders"] if x["name"] == leader)
    assert ld["status"] == status and ld.get("captured_by") == by


def test_the_after_battle_buttons_record_their_entries_from_the_phones(app, client):
    """The buttons post what the entries need (form fields only, no typing): one tap each."""
    import re
    from conftest import csrf, join_seat

    def tap(t, seat, **form):
        phone = join_seat(app, t.code, seat)
        rev = re.search(r'name="revision" value="(\d+)"', phone.get(f"/t/{t.code}/view").get_data(as_text=True)).group(1)
        r = phone.post(f"/t/{t.code}/act", data={"revision": rev, **form, "csrf_token": csrf(phone, t.code)})
        assert r.status_code == 200 and 'id="refusal"' not in r.get_data(as_text=True), r.get_data(as_text=True)

    t, bid, _ = ally_loses(client)
    tap(t, "harkonnen", type="battle.keep", battle=bid, faction="harkonnen", card="Snooper")
    assert host_state(client, t)["battles"][-1]["kept"] == {"faction": "harkonnen", "card": "Snooper"}
    t, bid = moritani_loses(client)
    tap(t, "moritani", type="battle.assassinate", battle=bid, faction="moritani", leader="Gurney Halleck")
    assert host_state(client, t)["factions"]["moritani"]["assassinated"] == {"atreides": "Gurney Halleck"}
    t, bid, _ = ally_wins(client)
    tap(t, "emperor", type="battle.ally_return", battle=bid, faction="emperor", forces="1", starred="1")
    assert host_state(client, t)["battles"][-1]["ally_returned"] == {"forces": 1, "starred": 1}
    t, bid = ecaz_battle(client, {"leader": "Bindikk Narvi", "forces": 3}, {"leader": "Feyd-Rautha", "forces": 3})
    tap(t, "ecaz", type="karama.special", faction="ecaz", battle=bid)
    assert host_state(client, t)["battles"][-1]["special_karama"] == ["ecaz"]

"""CHOAM & Richese powers beyond the first cut (issue 15, second part): Karama against CHOAM's Charity
and revival, the Tleilaxu's half-price revival, ally spice toward a cache bid, bribes under Inflation,
the Auditor and Leader Skills. Each test quotes the line of shared/seeds/choam-richese.txt it plays."""
from __future__ import annotations

import json

import pytest

from conftest import act, create_table, join_seat, undo
from table_helpers import get, history, host_state, its_turn, ok, refused, set_phase, spice

from companion.games.dune.rules import choam as C
from companion.games.dune.rules.economy import check_revival
from companion.games.dune.rules.errors import RuleViolation

ADDON = ["atreides", "harkonnen", "emperor", "guild", "choam", "richese"]


@pytest.fixture
def t(client):
    return create_table(client, ADDON)


def karama_in_hand(client, t, f):
    ok(client, t, type="cards.set", faction=f, cards=["Karama", "Baliset"])


# -- Karama on CHOAM's special Charity --------------------------------------------------------------
# "Prevent CHOAM's special Charity collection. It may still take ordinary Charity if it qualifies.
#  Other factions' Charity is paid by the Bank for this use."

@pytest.mark.parametrize("choam_spice,choam_gets", [(2, None), (1, 1), (0, 2)])
def test_karama_stops_choams_special_charity_and_the_bank_pays(client, t, choam_spice, choam_gets):
    set_phase(client, t, "charity")
    karama_in_hand(client, t, "atreides")
    ok(client, t, type="spice.set", faction="atreides", amount=0)
    ok(client, t, type="spice.set", faction="choam", amount=choam_spice)
    s = ok(client, t, "atreides", type="karama.choam_charity", faction="atreides")
    assert s["factions"]["atreides"]["hand_size"] == 1 and "Karama" in s["treachery"]["discard"]
    assert get(client, t, "atreides", "state")["factions"]["atreides"]["private"]["cards"] == ["Baliset"]
    # nobody waits for CHOAM now, and the Atreides' 2 come from the bank, not from CHOAM
    ok(client, t, "atreides", type="charity.claim", faction="atreides")
    h = host_state(client, t)
    assert spice(h, "atreides") == 2 and spice(h, "choam") == choam_spice
    if choam_gets is None:
        refused(client, t, "choam", "karama-choam", "no ordinary Charity", type="charity.claim", faction="choam")
    else:
        s = ok(client, t, "choam", type="charity.claim", faction="choam")
        assert spice(s, "choam") == choam_spice + choam_gets


def test_choams_phone_shows_the_charity_it_may_still_take(client, t):
    set_phase(client, t, "charity")
    assert get(client, t, "choam", "state")["my_charity"] == 12
    karama_in_hand(client, t, "harkonnen")
    ok(client, t, "harkonnen", type="karama.choam_charity", faction="harkonnen")
    assert get(client, t, "choam", "state")["my_charity"] == 0  # 2 spice: no ordinary Charity either
    ok(client, t, type="spice.set", faction="choam", amount=0)
    assert get(client, t, "choam", "state")["my_charity"] == 2


def test_karama_on_choam_charity_refusals(client, t):
    set_phase(client, t, "charity")
    karama_in_hand(client, t, "choam")
    # never against one's own advantage: the same rule /api/karama applies
    refused(client, t, "choam", "kiss-karama", "own", type="karama.choam_charity", faction="choam")
    ok(client, t, type="cards.set", faction="atreides", cards=["Baliset"])
    refused(client, t, "atreides", "kiss-karama", "no Karama", type="karama.choam_charity",
            faction="atreides")
    ok(client, t, "choam", type="charity.claim", faction="choam")
    karama_in_hand(client, t, "atreides")
    refused(client, t, "atreides", "karama-choam", "already collected", type="karama.choam_charity",
            faction="atreides")
    set_phase(client, t, "bidding", turn=2)
    refused(client, t, "atreides", "karama-choam", "Charity phase", type="karama.choam_charity", faction="atreides")


def test_karama_on_choam_lasts_one_turn(client, t):
    set_phase(client, t, "charity")
    karama_in_hand(client, t, "atreides")
    ok(client, t, "atreides", type="karama.choam_charity", faction="atreides")
    set_phase(client, t, "charity", turn=2)
    s = ok(client, t, "choam", type="charity.claim", faction="choam")
    assert spice(s, "choam") == 2 + 12


def test_the_karama_data_and_api_agree_on_the_entries(client):
    """Every Karama entry against CHOAM names an effect /api/karama offers a non-CHOAM player."""
    from companion.games.dune.entries.karama_stops import KARAMA_ON_CHOAM
    r = client.get("/api/karama", query_string={"player": "atreides", "factions": ",".join(ADDON)})
    offered = {o["id"] for o in r.get_json()["options"]}
    assert {v[0] for v in KARAMA_ON_CHOAM.values()} <= offered
    mine = client.get("/api/karama", query_string={"player": "choam", "factions": ",".join(ADDON)}).get_json()
    assert not {o["id"] for o in mine["options"]} & {v[0] for v in KARAMA_ON_CHOAM.values()}


# -- CHOAM's revival: the Tleilaxu's half price and the Karama --------------------------------------
# "With Tleilaxu as ally, it may offer half-price revival for your total force-revival bill. Round up
#  that total after halving. You pay the Tleilaxu; it cannot pay the bill for you."
# "Prevent the revival advantage. CHOAM then revives at most 3 forces at 2 spice each, or up to 5 if
#  Tleilaxu permits the raised limit."

@pytest.mark.parametrize("forces,half,karama,raised,cost", [
    (5, False, False, False, 5), (5, True, False, False, 3), (4, True, False, False, 2),
    (3, False, True, False, 6), (3, True, True, False, 3), (5, False, True, True, 10),
])
def test_choam_revival_bill(forces, half, karama, raised, cost):
    c = check_revival("choam", 2, forces, ally="tleilaxu", tleilaxu_half=half, karama_on_choam=karama,
                      tleilaxu_raised=raised)
    assert (c.free, c.cost, c.payee) == (0, cost, "tleilaxu" if half else "bank")


@pytest.mark.parametrize("faction,ally,forces,karama,rule", [
    ("choam", "tleilaxu", 4, True, "base-revival"),  # Karama: 3 at most without the raised limit
    ("choam", "atreides", 2, False, "choam-revival"),  # half price only from a Tleilaxu ally
    ("atreides", "tleilaxu", 2, False, "choam-revival"),  # and only for CHOAM
])
def test_choam_revival_refusals(faction, ally, forces, karama, rule):
    with pytest.raises(RuleViolation) as e:
        check_revival(faction, 2, forces, ally=ally, tleilaxu_half=faction == "choam" and ally == "atreides"
                      or faction == "atreides", karama_on_choam=karama)
    assert e.value.rule == rule


def choam_in_tanks(client, t, n=6, spice_=10):
    ok(client, t, type="spice.set", faction="choam", amount=spice_)
    ok(client, t, type="forces.place", faction="choam", territory="The Great Flat", forces=n)
    ok(client, t, type="forces.remove", faction="choam", territory="The Great Flat", forces=n, to="tanks")


def test_half_price_revival_pays_the_tleilaxu_with_their_consent(client):
    t = create_table(client, ["atreides", "tleilaxu", "choam", "richese"])
    ok(client, t, type="alliance.form", factions=["choam", "tleilaxu"], override=True, reason="a Nexus")
    choam_in_tanks(client, t)
    set_phase(client, t, "revival")
    before = spice(host_state(client, t), "tleilaxu")
    entry = {"type": "revive", "faction": "choam", "forces": 5, "tleilaxu_half": True}
    r = act(client, t.code, t.token("choam"), expect=403, **entry)
    assert "Tleilaxu's consent" in r.get_json()["error"]["message"]
    s = ok(client, t, "choam", type="consent.request", faction="choam", entry=entry)
    [p] = s["proposals"]
    ok(client, t, "tleilaxu", type="consent.give", faction="tleilaxu", proposal=p["id"])
    h = host_state(client, t)
    assert spice(h, "choam") == 10 - 3 and spice(h, "tleilaxu") == before + 3
    assert h["factions"]["choam"]["reserves"]["forces"] == 20 - 6 + 5


def test_karama_stops_choams_revival_advantage(client, t):
    choam_in_tanks(client, t)
    set_phase(client, t, "revival")
    karama_in_hand(client, t, "emperor")
    ok(client, t, "emperor", type="karama.choam_revival", faction="emperor")
    refused(client, t, "choam", "base-revival", "at most 3", type="revive", faction="choam", forces=4)
    s = ok(client, t, "choam", type="revive", faction="choam", forces=3)
    assert spice(s, "choam") == 10 - 6
    set_phase(client, t, "revival", turn=2)  # next turn the advantage is back
    s = ok(client, t, "choam", type="revive", faction="choam", forces=3)
    assert spice(s, "choam") == 4 - 3


# -- ally spice toward a cache bid -----------------------------------------------------------------
# "You may contribute to an ally's bid, including a Silent bid. The ally's own spice goes to you; your
#  contribution goes to the Emperor or, if absent, the Bank. You must already have the contribution."

def open_cache(client, t, method):
    set_phase(client, t, "bidding")
    return ok(client, t, "richese", type="cache.announce", card="Distrans", when="first", method=method)


def test_richese_adds_to_its_allys_once_around_bid(client, t):
    ok(client, t, type="alliance.form", factions=["richese", "atreides"], override=True,
       reason="a Nexus")
    a = open_cache(client, t, "once_around")["cache_auction"]
    s = ok(client, t, "richese", type="cache.pledge", faction="richese", spice=4)
    assert "cache_pledge" not in json.dumps(get(client, t, "harkonnen", "state"))
    assert get(client, t, "atreides", "state")["factions"]["atreides"]["private"]["cache_ally_pledge"] == 4
    for f in a["order"][:-1]:
        if f == "atreides":
            err = refused(client, t, f, "richese-cache-ally-bid", "at most 4", type="cache.bid", faction=f,
                          amount=14, ally_spice=5)
            assert "5" not in err["message"]  # the pledge (4) is told, never Richese's 5
            ok(client, t, f, type="cache.bid", faction=f, amount=13, ally_spice=4)  # 9 own + 4 of Richese's
        else:
            ok(client, t, f, type="cache.bid", faction=f)
    s = ok(client, t, "richese", type="cache.bid", faction="richese")
    h = host_state(client, t)
    assert s["cache_auction"]["winner"] == "atreides" and s["cache_auction"]["price"] == 13
    # the Atreides' 9 go to Richese; Richese's own 4 go to the Emperor
    assert (spice(h, "atreides"), spice(h, "richese"), spice(h, "emperor")) == (10 - 9, 5 - 4 + 9, 10 + 4)


def test_an_allys_part_of_a_sealed_bid_stays_sealed(client, t):
    ok(client, t, type="alliance.form", factions=["emperor", "harkonnen"], override=True,
       reason="a Nexus")
    a = open_cache(client, t, "silent")["cache_auction"]
    ok(client, t, "emperor", type="cache.pledge", faction="emperor", spice=6)
    ok(client, t, "harkonnen", type="cache.silent_bid", faction="harkonnen", amount=16, ally_spice=6)
    for who in ("atreides", "richese", "guild"):
        assert "16" not in json.dumps(get(client, t, who, "state")["cache_auction"])
    for f in a["order"]:
        if f != "harkonnen":
            ok(client, t, f, type="cache.silent_bid", faction=f, amount=0)
    h = host_state(client, t)
    assert h["cache_auction"]["winner"] == "harkonnen" and h["cache_auction"]["ally_paid"] == 6
    # both parts go to Richese: neither bidder is Richese
    assert (spice(h, "harkonnen"), spice(h, "emperor"), spice(h, "richese")) == (10 - 10, 10 - 6, 5 + 16)
    assert "cache_pledge" not in json.dumps(h)


def test_a_pledge_needs_an_ally_and_the_spice(client, t):
    open_cache(client, t, "silent")
    refused(client, t, "emperor", "richese-cache-ally-bid", "no ally", type="cache.pledge",
            faction="emperor", spice=2)
    ok(client, t, type="alliance.form", factions=["emperor", "harkonnen"], override=True,
       reason="a Nexus")
    refused(client, t, "emperor", "richese-cache-ally-bid", "cannot pledge 11", type="cache.pledge",
            faction="emperor", spice=11)


# -- bribes and Inflation -------------------------------------------------------------------------------
# "No spice bribes may be made while Double is face up in play, including the interval after you place it."

def test_a_bribe_is_public_and_needs_the_payers_consent(client, t):
    s = ok(client, t, "atreides", type="bribe", **{"from": "atreides"}, to="guild", spice=3)
    assert history(client, t, "harkonnen")[-1]["summary"] == "Atreides bribe Spacing Guild with 3 spice"
    r = act(client, t.code, t.token("guild"), expect=403, type="bribe", **{"from": "atreides"}, to="guild", spice=2)
    assert "Atreides's consent" in r.get_json()["error"]["message"] or "consent" in r.get_json()["error"]["message"]
    s = ok(client, t, "guild", type="consent.request", faction="guild",
           entry={"type": "bribe", "from": "atreides", "to": "guild", "spice": 2})
    ok(client, t, "atreides", type="consent.give", faction="atreides", proposal=s["proposals"][0]["id"])
    h = host_state(client, t)
    assert (spice(h, "atreides"), spice(h, "guild")) == (10 - 5, 5 + 5)


@pytest.mark.parametrize("side,phase,turn,barred", [
    ("double", "mentat_pause", 1, True),  # the interval after placing it
    ("double", "battle", 2, True), ("double", "battle", 3, False),
    ("cancel", "battle", 2, False), ("cancel", "mentat_pause", 2, True), ("cancel", "charity", 3, True),
])
def test_no_bribes_while_double_is_face_up(client, t, side, phase, turn, barred):
    set_phase(client, t, "mentat_pause")
    ok(client, t, "choam", type="inflation.place", faction="choam", side=side)
    if (phase, turn) != ("mentat_pause", 1):
        set_phase(client, t, phase, turn=turn)
    bribe = {"type": "bribe", "from": "emperor", "to": "atreides", "spice": 1}
    if barred:
        refused(client, t, "emperor", "choam-inflation", "Double", **bribe)
    else:
        ok(client, t, "emperor", **bribe)


# -- the Auditor (Advanced) -----------------------------------------------------------------------------
# "If the Auditor survived, inspect 2 random cards from the opponent's hand, excluding cards it used in the
#  battle. If the Auditor died, inspect 1. Inspect only as many as are actually available."

def auditor_battle(client, t, *, hand, weapon=None, choam_weapon=None, dial=1):
    ok(client, t, type="cards.set", faction="atreides", cards=hand)
    if choam_weapon:
        ok(client, t, type="cards.set", faction="choam", cards=[choam_weapon])
    ok(client, t, type="spice.set", faction="atreides", amount=10)
    ok(client, t, type="forces.place", faction="choam", territory="Arrakeen", forces=3)
    set_phase(client, t, "battle")
    s = ok(client, t, "choam", type="battle.open", territory="Arrakeen", aggressor="choam", opponent="atreides", override=True, reason="the table lets this aggressor attack first")
    b = s["battles"][-1]["id"]
    ok(client, t, "choam", type="battle.plan", battle=b, faction="choam", leader="The Auditor", forces=dial,
       weapon=choam_weapon)
    ok(client, t, "atreides", type="battle.plan", battle=b, faction="atreides", leader="Duncan Idaho", forces=2,
       weapon=weapon)
    ok(client, t, "choam", type="battle.reveal", battle=b)
    ok(client, t, "host", type="battle.apply", battle=b)
    return b


@pytest.fixture
def adv(client):
    return create_table(client, ADDON, options={"advanced": True})


@pytest.mark.parametrize("hand,weapon,choam_weapon,seen", [
    (["Baliset", "Snooper", "Shield", "Lasgun"], None, None, 2),  # survived: 2
    (["Baliset"], None, None, 1),  # only as many as there are
    (["Baliset", "Snooper", "Chaumas"], "Chaumas", None, 1),  # poisoned: the Auditor died, 1
])
def test_the_auditor_inspects_random_cards_seen_by_choam_only(client, adv, hand, weapon, choam_weapon, seen):
    t = adv
    b = auditor_battle(client, t, hand=hand, weapon=weapon, choam_weapon=choam_weapon)
    s = ok(client, t, "choam", type="auditor.inspect", faction="choam", battle=b)
    [audit] = s["factions"]["choam"]["private"]["audited"]
    assert len(audit["cards"]) == seen and set(audit["cards"]) <= set(hand) - {weapon}
    assert s["factions"]["choam"]["audits"][0]["cards"] == seen
    for who in ("atreides", "harkonnen", "richese"):
        view = get(client, t, who, "state")
        assert "audited" not in json.dumps(view) and "audited" not in json.dumps(history(client, t, who))
        assert "audited" not in json.dumps(view["factions"]["choam"])
    refused(client, t, "choam", "choam-auditor", "already audited", type="auditor.inspect",
            faction="choam", battle=b)


@pytest.mark.parametrize("hand,size,used,n,pool", [
    (["Shield", "Baliset", "Snooper"], 3, ["Shield"], 2, {"Baliset", "Snooper"}),  # a kept, used card is out
    (["Shield"], 2, ["Shield"], 2, {"(unnamed card)"}),  # an unnamed card is seen as one
    (["Baliset", "Kulon"], 2, [], 5, {"Baliset", "Kulon"}),  # never more than there are
])
def test_cards_used_in_the_battle_are_not_inspected(hand, size, used, n, pool):
    seen = C.audit_pick(hand, size, used, n, "seed")
    assert set(seen) <= pool and len(seen) == min(n, size - len(used))
    assert seen == C.audit_pick(hand, size, used, n, "seed")  # the same on replay


def test_the_audit_can_be_paid_off_one_spice_a_card(client, adv):
    b = auditor_battle(client, adv, hand=["Baliset", "Snooper", "Shield"])
    before = spice(host_state(client, adv), "choam")
    ok(client, adv, "atreides", type="auditor.cancel", faction="atreides", battle=b)
    h = host_state(client, adv)
    assert spice(h, "choam") == before + 2 and spice(h, "atreides") == 10 - 2  # 2 dialled free; 2 cards
    refused(client, adv, "choam", "choam-auditor", "paid off", type="auditor.inspect",
            faction="choam", battle=b)


def test_a_karama_stops_one_audit(client, adv):
    """"In Advanced, prevent support-spice income for one battle, or prevent one audit." """
    b = auditor_battle(client, adv, hand=["Karama", "Baliset", "Snooper"])
    refused(client, adv, "choam", "kiss-karama", "own", type="karama.choam_audit", faction="choam", battle=b)
    s = ok(client, adv, "atreides", type="karama.choam_audit", faction="atreides", battle=b)
    assert s["factions"]["atreides"]["hand_size"] == 2 and "Karama" not in s["factions"]["atreides"]["private"]["cards"]
    refused(client, adv, "choam", "choam-auditor", "already audited", type="auditor.inspect", faction="choam",
            battle=b)


def test_the_auditor_is_advanced_only_and_never_captured(client, t, adv):
    refused(client, t, "choam", "choam-auditor", "Advanced", type="auditor.inspect", faction="choam", battle="b1")
    refused(client, adv, "harkonnen", "choam-auditor", "cannot be captured", type="leader.capture",
            faction="choam", leader="The Auditor", by="harkonnen")


def test_the_auditor_is_revived_even_while_other_leaders_live(client, adv):
    ok(client, adv, type="spice.set", faction="choam", amount=5)
    ok(client, adv, type="leader.tanks", faction="choam", leader="The Auditor")
    ok(client, adv, type="leader.tanks", faction="choam", leader="Lady Jalma")
    set_phase(client, adv, "revival")
    refused(client, adv, "choam", "base-leader-revival", "all of its leaders", type="leader.revive",
            faction="choam", leader="Lady Jalma")
    s = ok(client, adv, "choam", type="leader.revive", faction="choam", leader="The Auditor")
    assert spice(s, "choam") == 5 - 2
    ok(client, adv, type="leader.tanks", faction="choam", leader="The Auditor")
    refused(client, adv, "choam", "base-leader-revival", "already revived", type="leader.revive",
            faction="choam", leader="The Auditor")


# -- Leader Skills ----------------------------------------------------------------------------------------
# "Put the chosen card face up in front of your shield and assign one eligible leader disc beside it."
# "When the skilled leader dies, shuffle its card back into the Skill Deck."
# "A captured leader takes its skill with it."

def test_the_skill_deck_has_fourteen_cards_with_the_seeds_names():
    names = C.skill_names()
    assert len(names) == 14 == len(set(names))
    seed = open("/work/shared/seeds/choam-richese.txt", encoding="utf-8").read() \
        if __import__("os").path.exists("/work/shared/seeds/choam-richese.txt") else ""
    for quoted in ("Mentat", "Spice Banker", "Rihani Decipherer", "Smuggler"):
        assert quoted in names and (not seed or quoted in seed)


@pytest.fixture
def skills(client):
    return create_table(client, ADDON, options={"advanced": True, "leader_skills": True})


def test_a_face_up_skill_is_public_and_a_hidden_one_private(client, skills):
    t = skills
    ok(client, t, "atreides", type="skill.assign", faction="atreides", leader="Duncan Idaho", skill="mentat")
    ok(client, t, "emperor", type="skill.assign", faction="emperor", leader="Bashar", skill="Warmaster",
       hidden=True)
    seen = get(client, t, "harkonnen", "state")
    assert seen["factions"]["atreides"]["skill"] == {"name": "Mentat", "leader": "Duncan Idaho"}
    assert seen["factions"]["emperor"]["skill"] == {"hidden": True}
    assert "Warmaster" not in json.dumps(seen) and "Warmaster" not in json.dumps(history(client, t, "harkonnen"))
    assert get(client, t, "emperor", "state")["factions"]["emperor"]["private"]["skill"]["name"] == "Warmaster"
    assert seen["skill_deck"] == {"size": 14, "in_deck": 12}
    ok(client, t, "emperor", type="skill.show", faction="emperor", face_up=True)
    assert get(client, t, "harkonnen", "state")["factions"]["emperor"]["skill"]["name"] == "Warmaster"


@pytest.mark.parametrize("who,leader,skill,rule,needle", [
    ("choam", "The Auditor", "Mentat", "choam-auditor", "Auditor"),
    ("atreides", "Duncan Idaho", "Kwisatz", "choam-richese-leader-skills", "not a Leader Skill"),
    ("atreides", "Duncan Idaho", "Smuggler", "choam-richese-leader-skills", "already out"),  # Harkonnen's
    ("harkonnen", "Feyd-Rautha", "Mentat", "choam-richese-leader-skills", "one skill a faction"),
])
def test_skill_refusals(client, skills, who, leader, skill, rule, needle):
    ok(client, skills, "harkonnen", type="skill.assign", faction="harkonnen", leader="Piter de Vries",
       skill="Smuggler")
    refused(client, skills, who, rule, needle, type="skill.assign", faction=who, leader=leader,
            skill=skill)


def test_skills_need_the_module(client, adv):
    refused(client, adv, "atreides", "choam-richese-leader-skills", "optional module", type="skill.assign",
            faction="atreides", leader="Duncan Idaho", skill="Mentat")


def test_a_dead_skilled_leader_returns_its_card_and_a_captured_one_keeps_it(client, skills):
    t = skills
    ok(client, t, "atreides", type="skill.assign", faction="atreides", leader="Duncan Idaho", skill="Mentat")
    ok(client, t, "harkonnen", type="leader.capture", faction="atreides", leader="Duncan Idaho", by="harkonnen")
    s = get(client, t, "guild", "state")
    assert s["factions"]["atreides"]["skill"]["name"] == "Mentat"
    assert [ld for ld in s["factions"]["atreides"]["leaders"] if ld["name"] == "Duncan Idaho"][0][
        "captured_by"] == "harkonnen"
    s = ok(client, t, type="leader.tanks", faction="atreides", leader="Duncan Idaho")
    assert s["factions"]["atreides"]["skill"] is None and s["skill_deck"]["in_deck"] == 14
    # reviving one's own leader while holding no skill: a new one may be assigned
    ok(client, t, "atreides", type="skill.assign", faction="atreides", leader="Gurney Halleck", skill="Mentat")


def test_a_skilled_leader_killed_in_battle_returns_its_card(client, skills):
    t = skills
    ok(client, t, "choam", type="skill.assign", faction="choam", leader="Lady Jalma", skill="Diplomat")
    ok(client, t, type="cards.set", faction="atreides", cards=["Chaumas"])
    ok(client, t, type="spice.set", faction="atreides", amount=10)
    ok(client, t, type="forces.place", faction="choam", territory="Arrakeen", forces=3)
    set_phase(client, t, "battle")
    s = ok(client, t, "choam", type="battle.open", territory="Arrakeen", aggressor="choam", opponent="atreides", override=True, reason="the table lets this aggressor attack first")
    b = s["battles"][-1]["id"]
    ok(client, t, "choam", type="battle.plan", battle=b, faction="choam", leader="Lady Jalma", forces=1)
    ok(client, t, "atreides", type="battle.plan", battle=b, faction="atreides", leader="Duncan Idaho", forces=2,
       weapon="Chaumas")
    ok(client, t, "choam", type="battle.reveal", battle=b)
    s = ok(client, t, "host", type="battle.apply", battle=b)
    assert "Lady Jalma" in s["battles"][-1]["outcome"]["leaders_killed"]
    assert s["factions"]["choam"]["skill"] is None and s["skill_deck"]["in_deck"] == 14


# -- Worthless cards' CHOAM effects -----------------------------------------------------------------------
# "Instead of taking spice, discard a Worthless Card for its named effect when that effect applies."

def test_choam_discards_a_worthless_card_for_its_effect_or_for_spice(client, t):
    ok(client, t, type="cards.set", faction="choam", cards=["Kulon", "La La La"])
    s = ok(client, t, "choam", type="choam.discard", faction="choam", card="Kulon", effect=True)
    assert spice(s, "choam") == 2 and s["factions"]["choam"]["hand_size"] == 1
    assert "Kulon" in s["treachery"]["discard"]
    assert "effect" in history(client, t, "atreides")[-1]["summary"]
    s = ok(client, t, "choam", type="choam.discard", faction="choam", card="La La La")
    assert spice(s, "choam") == 4
    ok(client, t, type="cards.set", faction="choam", cards=["Lasgun", "Lasgun"])
    refused(client, t, "choam", "choam-discard", "Worthless", type="choam.discard", faction="choam", card="Lasgun",
            effect=True)


# -- Karama against the other CHOAM & Richese advantages (karama.addon) -------------------------------
# "Prevent a discard for spice ... in that phase", "Prevent placing Inflation during Mentat Pause",
# "At the start of Bidding, prevent the cache auction", "Prevent the use of a No-Field token for
# shipment, including the allied No-Field shipment", "In Advanced, prevent the Black Market sale",
# "Alliance advantages can also be stopped for one use, such as the CHOAM two-way card trade".

def _cards(client, t, f, cards):
    ok(client, t, type="cards.set", faction=f, cards=cards)


ADDON_KARAMA = [
    # effect, phase, setup, the blocked entry (seat, payload), rule
    ("choam-discard", "collection", lambda c, t: _cards(c, t, "choam", ["Kulon", "La La La"]),
     ("choam", {"type": "choam.discard", "faction": "choam", "card": "Kulon"}), "karama-choam"),
    ("choam-inflation", "mentat_pause", None,
     ("choam", {"type": "inflation.place", "faction": "choam", "side": "double"}), "karama-choam"),
    ("choam-ally-trade", "bidding",
     lambda c, t: (ok(c, t, type="alliance.form", factions=["choam", "atreides"], override=True, reason="a Nexus"),
                   _cards(c, t, "choam", ["Kulon"]), _cards(c, t, "atreides", ["Baliset"])),
     ("choam", {"type": "choam.trade", "faction": "choam", "gives": "Kulon", "receives": "Baliset"}), "karama-choam"),
    ("richese-cache-auction", "bidding", None,
     ("richese", {"type": "cache.announce", "card": "Distrans", "when": "first", "method": "once_around"}),
     "karama-richese"),
    ("richese-no-field", "shipment_movement", lambda c, t: its_turn(c, t, "richese"),
     ("richese", {"type": "nofield.ship", "faction": "richese", "territory": "The Great Flat", "token": 5}),
     "karama-richese"),
    ("richese-ally-benefit", "shipment_movement",
     lambda c, t: (ok(c, t, type="alliance.form", factions=["richese", "atreides"], override=True, reason="a Nexus"),
                   its_turn(c, t, "atreides")),
     ("richese", {"type": "nofield.ally_ship", "faction": "richese", "territory": "The Great Flat", "token": 5,
                  "payer": "ally"}), "karama-richese"),
]


@pytest.mark.parametrize("effect,phase,setup,blocked,rule", ADDON_KARAMA, ids=[x[0] for x in ADDON_KARAMA])
def test_a_karama_stops_the_addon_advantage_and_undo_lifts_it(client, t, effect, phase, setup, blocked, rule):
    set_phase(client, t, phase)
    if setup:
        setup(client, t)
    seat, entry = blocked
    owner = effect.split("-")[0]
    refused(client, t, owner, "kiss-karama", "own", type="karama.addon", faction=owner, effect=effect)
    karama_in_hand(client, t, "harkonnen")
    s = ok(client, t, "harkonnen", type="karama.addon", faction="harkonnen", effect=effect)
    assert s["factions"]["harkonnen"]["hand_size"] == 1 and s["treachery"]["discard"][-1] == "Karama"
    refused(client, t, seat, rule, "played a Karama", **entry)
    refused(client, t, "emperor", rule, "already stopped", type="karama.addon", faction="emperor", effect=effect,
            override=True, reason="a second Karama")
    assert "play a Karama: no" in history(client, t, "atreides")[-1]["summary"]
    undo(client, t.code, t.host)
    ok(client, t, seat, **entry)


def test_a_karama_on_the_addon_is_played_in_its_phase(client, t):
    set_phase(client, t, "revival")
    karama_in_hand(client, t, "harkonnen")
    refused(client, t, "harkonnen", "karama-richese", "Bidding", type="karama.addon", faction="harkonnen",
            effect="richese-cache-auction")
    set_phase(client, t, "bidding")
    ok(client, t, "richese", type="cache.announce", card="Distrans", when="first", method="once_around")
    refused(client, t, "harkonnen", "karama-richese", "already under way", type="karama.addon",
            faction="harkonnen", effect="richese-cache-auction")


def test_the_discard_stop_lasts_one_phase(client, t):
    set_phase(client, t, "collection")
    _cards(client, t, "choam", ["Kulon", "La La La"])
    karama_in_hand(client, t, "harkonnen")
    ok(client, t, "harkonnen", type="karama.addon", faction="harkonnen", effect="choam-discard")
    refused(client, t, "choam", "karama-choam", "this phase", type="choam.discard", faction="choam", card="Kulon")
    set_phase(client, t, "mentat_pause")
    s = ok(client, t, "choam", type="choam.discard", faction="choam", card="Kulon")
    assert spice(s, "choam") == 2 + 2


def test_the_addon_karama_buttons_on_the_phones(client, t, app):
    set_phase(client, t, "bidding")
    karama_in_hand(client, t, "harkonnen")
    phones = {f: join_seat(app, t.code, f) for f in ("harkonnen", "richese", "choam")}

    def page(f):
        return phones[f].get(f"/t/{t.code}/view").get_data(as_text=True)
    h = page("harkonnen")
    for effect in ("richese-cache-auction", "choam-discard"):
        assert f'data-addon-karama="{effect}"' in h
    assert 'data-addon-karama="richese-no-field"' not in h  # a Shipment & Movement Karama
    assert 'data-addon-karama="choam-ally-trade"' not in h  # CHOAM has no ally to trade with
    assert 'data-addon-karama="richese-black-market"' not in h  # the Black Market is Advanced play
    ok(client, t, type="alliance.form", factions=["choam", "emperor"], override=True, reason="a Nexus")
    assert 'data-addon-karama="choam-ally-trade"' in page("harkonnen")
    assert 'data-addon-karama="richese-' not in page("richese")  # never against one's own advantage
    ok(client, t, type="karama.addon", faction="harkonnen", effect="richese-cache-auction")
    r = page("richese")
    assert 'data-karama-stopped="richese-cache-auction"' in r and "Harkonnen played a Karama: no cache auction this turn" in r
    assert 'data-addon-karama="richese-cache-auction"' not in page("harkonnen")


def test_a_karama_stops_choams_support_income_from_one_battle(client, app):
    """"In Advanced, prevent support-spice income for one battle, or prevent one audit. Those are
    separate uses.\""""
    t = create_table(client, ["atreides", "harkonnen", "choam"], options={"advanced": True})
    for f in ("atreides", "harkonnen"):
        ok(client, t, type="spice.set", faction=f, amount=10)
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    set_phase(client, t, "battle")
    b = ok(client, t, "harkonnen", type="battle.open", territory="Arrakeen", aggressor="harkonnen",
           opponent="atreides", override=True, reason="the table lets this aggressor attack first")["battles"][-1]["id"]
    ok(client, t, "harkonnen", type="battle.plan", battle=b, faction="harkonnen", leader="Feyd-Rautha", forces=5)
    ok(client, t, "atreides", type="battle.plan", battle=b, faction="atreides", leader="Duncan Idaho", forces=2)
    ok(client, t, "harkonnen", type="battle.reveal", battle=b)
    atreides, choam = join_seat(app, t.code, "atreides"), join_seat(app, t.code, "choam")
    assert 'data-addon-karama="choam-support-income"' in atreides.get(f"/t/{t.code}/view").get_data(as_text=True)
    assert 'data-addon-karama="choam-support-income"' not in choam.get(f"/t/{t.code}/view").get_data(as_text=True)
    refused(client, t, "host", "karama-choam", "which battle", type="karama.addon", faction="atreides",
            effect="choam-support-income")
    karama_in_hand(client, t, "atreides")
    ok(client, t, type="karama.addon", faction="atreides", effect="choam-support-income", battle=b)
    s = ok(client, t, type="battle.apply", battle=b)
    assert spice(s, "choam") == 2 and s["battles"][-1]["choam_income"] == 0  # the dials paid nothing to CHOAM
    assert "takes no support income" in choam.get(f"/t/{t.code}/view").get_data(as_text=True)
    refused(client, t, "host", "karama-choam", "applied", type="karama.addon", faction="harkonnen",
            effect="choam-support-income", battle=b)

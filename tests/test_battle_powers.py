"""Prescience and Voice as pure rules (companion.games.dune.rules.battle_powers), table-driven from the seed:

- KISS Bene Gesserit, VOICE: "force your opponent to do as you wish with respect to one of the cards
  they play ... to play or not play a weapon type (poison or projectile), defense type (poison or
  projectile), or a Worthless Card. Other cards ... such as the Lasgun, need to be named to be directly
  affected, though some may be indirectly affected by falling under the targeted weapon or defense
  types. You cannot voice a Cheap Hero. If your opponent cannot comply with your command, they may do
  as they wish."
- KISS Atreides, BATTLE: "force your opponent to reveal your choice of one of the four elements ...
  the leader, the weapon, the defense, or the number dialed. If you choose to ask about a weapon or
  defense and your opponent tells you that they are not playing that element during this battle, you
  may not then ask to see a different element."
"""
from __future__ import annotations

import pytest

from companion.games.dune.rules import battle_powers as bp
from companion.games.dune.rules.errors import RuleViolation


def plan(weapon=None, defense=None, leader="Feyd-Rautha", cheap_hero=False, forces=3, starred=0):
    return {"leader": leader, "cheap_hero": cheap_hero, "forces": forces, "starred": starred,
            "weapon": weapon, "defense": defense}


# -- Voice: reading the command ------------------------------------------------------------------

@pytest.mark.parametrize("command,card,kind,name,text", [
    ("play", "poison weapon", "weapon-poison", None, "play a poison weapon"),
    ("not_play", "projectile weapon", "weapon-projectile", None, "do not play a projectile weapon"),
    ("play", "Poison Defence", "defense-poison", None, "play a poison defense"),
    ("not_play", "projectile defense", "defense-projectile", None, "do not play a projectile defense"),
    ("play", "worthless", "worthless", None, "play a Worthless card"),
    ("not_play", "lasgun", None, "Lasgun", "do not play the Lasgun"),
    ("play", "Baliset", None, "Baliset", "play the Baliset"),
])
def test_voice_reads_types_and_named_cards(command, card, kind, name, text):
    v = bp.read_voice(command, card)
    assert (v["kind"], v["name"], v["text"]) == (kind, name, text)


@pytest.mark.parametrize("card,rule", [
    ("Cheap Hero", "qa-bg-voice-cheap-hero"),     # "You cannot voice a Cheap Hero."
    ("cheap-heroine", "qa-bg-voice-cheap-hero"),
    ("Family Atomics", "bg-voice"),               # not a card of the battle plan
    ("Poison Blade", "kiss-treachery-deck"),      # not in the deck
])
def test_voice_refuses_what_it_cannot_command(card, rule):
    with pytest.raises(RuleViolation) as e:
        bp.read_voice("not_play", card)
    assert e.value.rule == rule and not e.value.overridable


# -- Voice: what a plan may be under it -------------------------------------------------------------

V = bp.read_voice
CASES = [
    # (voice, plan, named hand, unnamed cards, expected: None | "hard" | "soft")
    # "not play": any card of the type (or the card named) is refused
    (V("not_play", "poison weapon"), plan(weapon="Chaumas"), ["Chaumas"], 0, "hard"),
    (V("not_play", "poison weapon"), plan(weapon="Crysknife"), ["Crysknife", "Chaumas"], 0, None),
    (V("not_play", "projectile defense"), plan(defense="Shield"), ["Shield"], 0, "hard"),
    (V("not_play", "worthless"), plan(defense="Kulon"), ["Kulon"], 0, "hard"),
    (V("not_play", "Lasgun"), plan(weapon="Lasgun"), ["Lasgun"], 0, "hard"),
    # the Lasgun is a weapon of its own kind: a command on projectile weapons does not catch it
    (V("not_play", "projectile weapon"), plan(weapon="Lasgun"), ["Lasgun"], 0, None),
    # a named card also falls under its type ("indirectly affected")
    (V("not_play", "projectile weapon"), plan(weapon="Maula Pistol"), ["Maula Pistol"], 0, "hard"),
    # "play": refused when the hand holds one and the plan does not play it
    (V("play", "poison weapon"), plan(), ["Gom Jabbar"], 0, "hard"),
    (V("play", "poison weapon"), plan(weapon="Gom Jabbar"), ["Gom Jabbar"], 0, None),
    (V("play", "worthless"), plan(weapon="Baliset"), ["Baliset"], 0, None),
    (V("play", "worthless"), plan(defense="Baliset"), ["Baliset"], 0, None),
    (V("play", "Lasgun"), plan(weapon="Crysknife"), ["Lasgun", "Crysknife"], 0, "hard"),
    # "if your opponent cannot comply with your command, they may do as they wish"
    (V("play", "poison weapon"), plan(weapon="Crysknife"), ["Crysknife"], 0, None),
    (V("play", "projectile defense"), plan(), [], 0, None),
    # unnamed cards: the companion cannot know, the player may say "I cannot comply" (an override)
    (V("play", "poison weapon"), plan(), ["Crysknife"], 2, "soft"),
]


@pytest.mark.parametrize("voice,p,hand,unknown,expected", CASES)
def test_voice_constrains_the_plan(voice, p, hand, unknown, expected):
    problem = bp.voice_problem(voice, p, hand, unknown)
    if expected is None:
        assert problem is None
    else:
        assert problem is not None and problem.rule == "bg-voice"
        assert problem.overridable == (expected == "soft")


def test_voice_yields_when_no_leader_can_carry_the_card():
    voice = V("play", "poison weapon")
    assert bp.voice_problem(voice, plan(leader=None), ["Chaumas"], 0, can_field=True) is not None
    assert bp.voice_problem(voice, plan(leader=None), ["Chaumas"], 0, can_field=False) is None


def test_voice_yields_to_a_prescience_answer_that_fixed_the_slot():
    voice = V("play", "poison weapon")
    assert bp.voice_problem(voice, plan(), ["Chaumas"], 0, fixed=("weapon",)) is None
    # a Worthless card goes in either slot: fixing one slot still leaves the other
    assert bp.voice_problem(V("play", "worthless"), plan(), ["Baliset"], 0, fixed=("weapon",)) is not None


def test_not_play_disables_the_chips_it_covers():
    voice = V("not_play", "projectile weapon")
    assert not bp.chip_allowed(voice, "Crysknife") and not bp.chip_allowed(voice, "Slip Tip")
    assert bp.chip_allowed(voice, "Chaumas") and bp.chip_allowed(voice, "Lasgun")
    assert bp.chip_allowed(None, "Crysknife") and bp.chip_allowed(V("play", "projectile weapon"), "Chaumas")


# -- Prescience -------------------------------------------------------------------------------------

@pytest.mark.parametrize("element,raw,value", [
    ("leader", {"leader": "Feyd-Rautha"}, {"leader": "Feyd-Rautha"}),
    ("leader", {"leader": "cheap hero"}, {"leader": "Cheap Hero"}),
    ("leader", {"leader": None}, {"leader": None}),
    ("weapon", {"weapon": "maula-pistol"}, {"weapon": "Maula Pistol"}),
    ("weapon", {"weapon": "none"}, {"weapon": None}),
    ("defense", {"defense": "Baliset"}, {"defense": "Baliset"}),   # a Worthless card in the defense slot
    ("dial", {"forces": 4, "starred": 1}, {"forces": 4, "starred": 1}),
    ("dial", {"forces": 0}, {"forces": 0, "starred": 0}),
])
def test_answers_read(element, raw, value):
    assert bp.read_answer(element, raw) == value


@pytest.mark.parametrize("element,raw", [
    ("weapon", {"weapon": "Shield"}), ("defense", {"defense": "Lasgun"}), ("dial", {}), ("plan", {}),
])
def test_impossible_answers_refused(element, raw):
    with pytest.raises(RuleViolation) as e:
        bp.read_answer(element, raw)
    assert not e.value.overridable


@pytest.mark.parametrize("element,value,p,binds", [
    ("leader", {"leader": "Feyd-Rautha"}, plan(), True),
    ("leader", {"leader": "Feyd-Rautha"}, plan(leader="Beast Rabban"), False),
    ("leader", {"leader": "Cheap Hero"}, plan(leader=None, cheap_hero=True), True),
    ("leader", {"leader": None}, plan(leader=None), True),
    ("weapon", {"weapon": "Crysknife"}, plan(weapon="Crysknife"), True),
    ("weapon", {"weapon": "Crysknife"}, plan(weapon="Chaumas"), False),
    ("weapon", {"weapon": None}, plan(weapon="Chaumas"), False),
    ("defense", {"defense": None}, plan(), True),
    ("dial", {"forces": 3, "starred": 0}, plan(forces=3), True),
    ("dial", {"forces": 3, "starred": 0}, plan(forces=4), False),
])
def test_the_answer_binds_the_plan(element, value, p, binds):
    problem = bp.answer_problem(element, value, p)
    assert (problem is None) == binds
    if problem:
        assert problem.rule == "atreides-prescience-battle" and not problem.overridable


def test_one_question_per_battle_and_none_spends_it():
    assert bp.ask_problem(None, "weapon") is None
    spent = bp.ask_problem({"element": "weapon", "answered": True, "none": True}, "leader")
    assert "spent" in spent.message and spent.rule == "atreides-prescience-battle"
    again = bp.ask_problem({"element": "dial", "answered": True, "none": False}, "leader")
    assert "one element per battle" in again.message
    with pytest.raises(RuleViolation):
        bp.ask_problem(None, "traitor")


# -- the Karama against the Sardaukar / Fedaykin bonus, and the Ecaz alliance bonus ---------------------

from companion.games.dune.rules.battle import outcome  # noqa: E402


def test_karama_makes_sardaukar_count_one():
    """KISS Emperor: "worth two normal forces in battle"; the karama list: "Prevent Emperor from using
    Sardaukar bonus in one battle"."""
    plans = {"emperor": {"leader": "Hasimir Fenring", "forces": 0, "starred": 3},
             "harkonnen": {"leader": "Beast Rabban", "forces": 6}}
    normal = outcome(plans, "emperor")
    stopped = outcome(plans, "emperor", no_starred_bonus=["emperor"])
    assert normal.totals["emperor"] == 6 + 6 and stopped.totals["emperor"] == 6 + 3
    assert stopped.winner == "harkonnen" and normal.winner == "emperor"
    assert any(x["rule"] == "karama-emperor" for x in stopped.lines)


@pytest.mark.parametrize("ecaz_forces,bonus,kept_if_win", [(1, 1, 0), (4, 2, 2), (5, 3, 2)])
def test_ecaz_adds_half_rounded_up_and_keeps_half_rounded_down(ecaz_forces, bonus, kept_if_win):
    """KISS Ecaz Occupy: only the ally's forces are dialed, half the Ecaz forces there rounded up are
    added to the dial free; if their side wins, half the Ecaz forces rounded down stay."""
    win = outcome({"atreides": {"leader": "Duncan Idaho", "forces": 4}, "harkonnen": {"leader": "Umman Kudu"}},
                  "harkonnen", ecaz={"ally": "atreides", "forces": ecaz_forces})
    assert win.totals["atreides"] == 2 + 4 + bonus and win.spice_paid["atreides"] == 2  # the bonus costs nothing
    assert win.winner == "atreides" and win.forces_lost["ecaz"] == {"forces": ecaz_forces - kept_if_win, "starred": 0}
    lose = outcome({"atreides": {"leader": "Duncan Idaho"}, "harkonnen": {"leader": "Feyd-Rautha", "forces": 9}},
                   "harkonnen", ecaz={"ally": "atreides", "forces": ecaz_forces})
    assert lose.winner == "harkonnen" and lose.forces_lost["ecaz"] == {"forces": ecaz_forces, "starred": 0}
    assert any(x["rule"] == "ecaz-occupy" for x in lose.lines)


def test_ecaz_bonus_counts_toward_the_cap_of_20():
    with pytest.raises(RuleViolation) as e:
        outcome({"atreides": {"leader": "Duncan Idaho", "forces": 18}, "harkonnen": {"leader": "Umman Kudu"}},
                "harkonnen", ecaz={"ally": "atreides", "forces": 6})
    assert e.value.rule == "kiss-simple-dialing"

"""Prescience, Voice, the Karama that stops them and the Harkonnen capture, as table entries:
battle.prescience, battle.answer (secret), battle.voice, battle.karama, battle.capture."""
from __future__ import annotations

import json

import pytest

from conftest import bearer, create_table, join_seat, undo
from table_helpers import history, host_state, ok, refused, set_phase, spice

FACTIONS = ["atreides", "harkonnen", "fremen", "bg"]


@pytest.fixture()
def arrakeen(client):
    """Atreides 10 in Arrakeen, Harkonnen 6 shipped beside them; Fremen and BG at the table; Battle phase."""
    t = create_table(client, FACTIONS)
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    ok(client, t, "bg", type="setup.bg", faction="bg", territory="Polar Sink")
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    ok(client, t, "harkonnen", type="cards.set", faction="harkonnen", cards=["Crysknife", "Chaumas", "Shield"])
    ok(client, t, "atreides", type="cards.set", faction="atreides", cards=["Snooper"])
    set_phase(client, t, "battle")
    return t


def open_battle(client, t, aggressor="harkonnen", opponent="atreides", territory="Arrakeen") -> str:
    s = ok(client, t, aggressor, type="battle.open", territory=territory, aggressor=aggressor, opponent=opponent, override=True, reason="the table lets this aggressor attack first")
    return s["battles"][-1]["id"]


def battle(s: dict, bid: str) -> dict:
    return next(b for b in s["battles"] if b["id"] == bid)


def raw_state(client, t, who: str) -> str:
    return client.get(f"/api/tables/{t.code}/state", headers=bearer(t.token(who))).get_data(as_text=True)


# -- Prescience -------------------------------------------------------------------------------------

def test_prescience_question_public_answer_secret_and_binding(client, arrakeen):
    t = arrakeen
    bid = open_battle(client, t)
    s = ok(client, t, "atreides", type="battle.prescience", battle=bid, faction="atreides", element="weapon")
    assert battle(s, bid)["prescience"] == {"by": "atreides", "for": "atreides", "target": "harkonnen",
                                            "element": "weapon", "answered": False}
    # only the Harkonnen answer, and only with a weapon they hold
    refused(client, t, "atreides", "atreides-prescience-battle", "for harkonnen",
            type="battle.answer", battle=bid, faction="atreides", weapon="none")
    refused(client, t, "harkonnen", "kiss-treachery-deck", "does not hold",
            type="battle.answer", battle=bid, faction="harkonnen", weapon="Lasgun")
    ok(client, t, "harkonnen", type="battle.answer", battle=bid, faction="harkonnen", weapon="Chaumas")
    # the Atreides and the Harkonnen see the answer; the Fremen, the BG and the board see only "answered"
    for seat in ("atreides", "harkonnen"):
        mine = json.loads(raw_state(client, t, seat))["factions"][seat]["private"]["prescience"][bid]
        assert mine == {"element": "weapon", "value": {"weapon": "Chaumas"}}
    for seat in ("fremen", "bg"):
        seen = raw_state(client, t, seat)
        assert "Chaumas" not in seen and json.loads(seen)["battles"][0]["prescience"]["answered"] is True
    board = client.get(f"/t/{t.code}/board").get_data(as_text=True)
    assert "Chaumas" not in board
    assert all(e["payload"] is None for e in history(client, t, "fremen") if e["type"] == "battle.answer")
    # the answer binds the plan (hard: no override)
    r = refused(client, t, "harkonnen", "atreides-prescience-battle", "chaumas", type="battle.plan", battle=bid,
                faction="harkonnen", leader="Feyd-Rautha", forces=3, weapon="Crysknife")
    assert r["overridable"] is False
    refused(client, t, "harkonnen", "atreides-prescience-battle", "chaumas", type="battle.plan", battle=bid,
            faction="harkonnen", leader="Feyd-Rautha", forces=3)
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Feyd-Rautha",
       forces=3, weapon="Chaumas")
    # one question per battle
    refused(client, t, "atreides", "atreides-prescience-battle", "one element per battle",
            type="battle.prescience", battle=bid, faction="atreides", element="dial")


def test_a_none_answer_spends_the_question(client, arrakeen):
    t = arrakeen
    bid = open_battle(client, t)
    ok(client, t, "atreides", type="battle.prescience", battle=bid, faction="atreides", element="defense")
    ok(client, t, "harkonnen", type="battle.answer", battle=bid, faction="harkonnen", defense="none")
    refused(client, t, "atreides", "atreides-prescience-battle", "spent",
            type="battle.prescience", battle=bid, faction="atreides", element="leader")
    refused(client, t, "harkonnen", "atreides-prescience-battle", "no defense", type="battle.plan", battle=bid,
            faction="harkonnen", leader="Feyd-Rautha", defense="Shield")


def test_an_answer_after_sealing_is_the_sealed_element(client, arrakeen):
    t = arrakeen
    bid = open_battle(client, t)
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Piter de Vries",
       forces=4)
    ok(client, t, "atreides", type="battle.prescience", battle=bid, faction="atreides", element="dial")
    refused(client, t, "harkonnen", "atreides-prescience-battle", "sealed plan plays dial 4",
            type="battle.answer", battle=bid, faction="harkonnen", forces=2, starred=0)
    ok(client, t, "harkonnen", type="battle.answer", battle=bid, faction="harkonnen", forces=4, starred=0)
    assert host_state(client, t)["factions"]["atreides"]["private"]["prescience"][bid]["value"] == \
        {"forces": 4, "starred": 0}


def test_prescience_for_the_ally_shows_the_ally(client):
    t = create_table(client, FACTIONS)
    ok(client, t, "fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    ok(client, t, "bg", type="setup.bg", faction="bg", territory="Polar Sink")
    ok(client, t, type="forces.place", faction="harkonnen", territory="Sietch Tabr", forces=4)
    ok(client, t, type="alliance.form", factions=["atreides", "fremen"], override=True, reason="a Nexus")
    set_phase(client, t, "battle")
    bid = open_battle(client, t, "harkonnen", "fremen", "Sietch Tabr")
    refused(client, t, "bg", "atreides-prescience-battle", "only the atreides",
            type="battle.prescience", battle=bid, faction="bg", element="leader")
    ok(client, t, "atreides", type="battle.prescience", battle=bid, faction="atreides", element="leader")
    ok(client, t, "harkonnen", type="battle.answer", battle=bid, faction="harkonnen", leader="Beast Rabban")
    h = host_state(client, t)
    for seat in ("atreides", "fremen", "harkonnen"):
        assert h["factions"][seat]["private"]["prescience"][bid]["value"] == {"leader": "Beast Rabban"}
    bg = json.loads(raw_state(client, t, "bg"))
    assert all("prescience" not in f.get("private", {}) for f in bg["factions"].values())
    assert '"leader": "Beast Rabban"' not in json.dumps(bg)


def test_prescience_outside_the_atreides_battles_refused(client, arrakeen):
    t = arrakeen
    ok(client, t, type="forces.place", faction="harkonnen", territory="Sietch Tabr", forces=2)
    bid = open_battle(client, t, "harkonnen", "fremen", "Sietch Tabr")
    refused(client, t, "atreides", "atreides-alliance", "ally",
            type="battle.prescience", battle=bid, faction="atreides", element="leader")


def test_karama_stops_prescience_in_one_battle_and_undo_lifts_it(client, arrakeen):
    t = arrakeen
    bid = open_battle(client, t)
    refused(client, t, "atreides", "kiss-karama", "own", type="battle.karama", battle=bid, faction="atreides",
            power="prescience")
    refused(client, t, "harkonnen", "karama-atreides", "no Karama", type="battle.karama", battle=bid,
            faction="harkonnen", power="prescience")  # a hand of named cards without one (overridable)
    ok(client, t, "harkonnen", type="cards.set", faction="harkonnen", cards=["Crysknife", "Chaumas", "Karama"])
    s = ok(client, t, "harkonnen", type="battle.karama", battle=bid, faction="harkonnen", power="prescience")
    assert battle(s, bid)["karama"] == {"prescience": "harkonnen"}
    assert s["treachery_deck"]["discard"][-1] == "Karama"  # the card is played: face up on the discard pile
    assert "Karama" not in s["factions"]["harkonnen"]["private"]["cards"]
    refused(client, t, "atreides", "karama-atreides", "karama", type="battle.prescience", battle=bid,
            faction="atreides", element="leader")
    undo(client, t.code, t.host)
    s = host_state(client, t)
    assert "Karama" in s["factions"]["harkonnen"]["private"]["cards"] and "Karama" not in s["treachery_deck"]["discard"]
    ok(client, t, "atreides", type="battle.prescience", battle=bid, faction="atreides", element="leader")
    refused(client, t, "harkonnen", "karama-atreides", "already used", type="battle.karama", battle=bid,
            faction="harkonnen", power="prescience")


def test_karama_stops_the_kwisatz_haderach(client, arrakeen):
    t = arrakeen
    bid = open_battle(client, t)
    ok(client, t, "harkonnen", type="battle.karama", battle=bid, faction="harkonnen", power="kh", override=True,
       reason="the Karama was bought this turn and not entered")
    refused(client, t, "atreides", "karama-atreides", "kwisatz haderach", type="battle.plan", battle=bid,
            faction="atreides", leader="Duncan Idaho", forces=2, kh=True, override=True, reason="KH is active")


# -- Voice ------------------------------------------------------------------------------------------

def test_voice_not_play_refuses_the_type_hard(client, arrakeen):
    t = arrakeen
    ok(client, t, type="alliance.form", factions=["atreides", "bg"], override=True, reason="a Nexus")
    bid = open_battle(client, t)
    refused(client, t, "bg", "qa-bg-voice-cheap-hero", "cheap hero", type="battle.voice", battle=bid,
            faction="bg", command="not_play", card="Cheap Hero")
    s = ok(client, t, "bg", type="battle.voice", battle=bid, faction="bg", command="not_play",
           card="poison weapon")
    v = battle(s, bid)["voice"]
    assert v["target"] == "harkonnen" and v["text"] == "do not play a poison weapon"
    assert "do not play a poison weapon" in history(client, t, "fremen")[-1]["summary"]
    r = refused(client, t, "harkonnen", "bg-voice", "chaumas", type="battle.plan", battle=bid, faction="harkonnen",
                leader="Feyd-Rautha", forces=2, weapon="Chaumas")
    assert r["overridable"] is False
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Feyd-Rautha",
       forces=2, weapon="Crysknife")
    refused(client, t, "bg", "bg-voice", "already used", type="battle.voice", battle=bid, faction="bg",
            command="play", card="worthless")


def test_voice_play_with_the_card_named_in_hand_is_hard(client, arrakeen):
    t = arrakeen
    ok(client, t, type="alliance.form", factions=["atreides", "bg"], override=True, reason="a Nexus")
    bid = open_battle(client, t)
    ok(client, t, "bg", type="battle.voice", battle=bid, faction="bg", command="play", card="projectile weapon")
    refused(client, t, "harkonnen", "bg-voice", "you hold crysknife", type="battle.plan", battle=bid,
            faction="harkonnen", leader="Feyd-Rautha", forces=2, weapon="Chaumas", override=True, reason="no")
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Feyd-Rautha",
       forces=2, weapon="Crysknife")


def test_voice_play_with_unnamed_cards_may_be_refused_by_cannot_comply(client, arrakeen):
    t = arrakeen
    ok(client, t, type="alliance.form", factions=["atreides", "bg"], override=True, reason="a Nexus")
    ok(client, t, "harkonnen", type="cards.set", faction="harkonnen", cards=["Shield"])
    ok(client, t, "harkonnen", type="hand.set", faction="harkonnen", size=3)
    bid = open_battle(client, t)
    ok(client, t, "bg", type="battle.voice", battle=bid, faction="bg", command="play", card="Lasgun")
    r = refused(client, t, "harkonnen", "bg-voice", "cannot comply", type="battle.plan", battle=bid,
                faction="harkonnen", leader="Feyd-Rautha", forces=2)
    assert r["overridable"] is True
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Feyd-Rautha",
       forces=2, override=True, reason="I cannot comply")


def test_voice_only_in_the_bg_or_their_allys_battle_and_before_the_target_seals(client, arrakeen):
    t = arrakeen
    bid = open_battle(client, t)
    refused(client, t, "bg", "bg-alliance", "ally", type="battle.voice", battle=bid, faction="bg",
            command="play", card="worthless")
    ok(client, t, type="alliance.form", factions=["atreides", "bg"], override=True, reason="a Nexus")
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Feyd-Rautha",
       forces=2, weapon="Chaumas")
    refused(client, t, "bg", "bg-voice", "already sealed", type="battle.voice", battle=bid, faction="bg",
            command="not_play", card="poison weapon")
    # with an override the Voice stands and the target seals again under it
    s = ok(client, t, "bg", type="battle.voice", battle=bid, faction="bg", command="not_play",
           card="poison weapon", override=True, reason="Voice was spoken before they sealed")
    assert battle(s, bid)["sealed"] == []
    assert bid not in host_state(client, t)["factions"]["harkonnen"]["private"].get("battle_plans", {})


def test_karama_stops_voice(client, arrakeen):
    t = arrakeen
    ok(client, t, type="alliance.form", factions=["atreides", "bg"], override=True, reason="a Nexus")
    bid = open_battle(client, t)
    ok(client, t, "atreides", type="cards.set", faction="atreides", cards=["Snooper", "Karama"])
    ok(client, t, "atreides", type="battle.karama", battle=bid, faction="atreides", power="voice")
    refused(client, t, "bg", "karama-bg", "karama", type="battle.voice", battle=bid, faction="bg",
            command="play", card="worthless")


# -- the Harkonnen capture ----------------------------------------------------------------------------

def won_by_harkonnen(client, t) -> str:
    bid = open_battle(client, t)
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Feyd-Rautha", forces=5)
    ok(client, t, "atreides", type="battle.plan", battle=bid, faction="atreides", leader="Duncan Idaho", forces=1)
    ok(client, t, "atreides", type="battle.reveal", battle=bid)
    ok(client, t, type="battle.apply", battle=bid)
    return bid


@pytest.mark.parametrize("keep", [True, False])
def test_capture_keep_or_kill(client, arrakeen, keep):
    t = arrakeen
    refused(client, t, "harkonnen", "base-battle", "no battle", type="battle.capture",
            battle="1-1", leader="Gurney Halleck", keep=keep)
    bid = won_by_harkonnen(client, t)
    before = host_state(client, t)
    assert battle(before, bid)["outcome"]["capture"] == {"from": "atreides"}
    refused(client, t, "atreides", "harkonnen-captured-leaders", "only the harkonnen", type="battle.capture",
            battle=bid, leader="Gurney Halleck", keep=keep)
    refused(client, t, "harkonnen", "harkonnen-captured-leaders", "no leader called", type="battle.capture",
            battle=bid, leader="Feyd-Rautha", keep=keep)
    s = ok(client, t, "harkonnen", type="battle.capture", battle=bid, leader="gurney halleck", keep=keep)
    assert battle(s, bid)["captured"] == {"leader": "Gurney Halleck", "keep": keep}
    h = host_state(client, t)
    gurney = next(ld for ld in h["factions"]["atreides"]["leaders"] if ld["name"] == "Gurney Halleck")
    if keep:
        assert (gurney["status"], gurney["captured_by"]) == ("captured", "harkonnen")
        assert spice(h, "harkonnen") == spice(before, "harkonnen")
    else:
        assert gurney["status"] == "tanks" and spice(h, "harkonnen") == spice(before, "harkonnen") + 2
    refused(client, t, "harkonnen", "harkonnen-captured-leaders", "already took", type="battle.capture",
            battle=bid, leader="Thufir Hawat", keep=keep)
    undo(client, t.code, t.host)
    h = host_state(client, t)
    gurney = next(ld for ld in h["factions"]["atreides"]["leaders"] if ld["name"] == "Gurney Halleck")
    assert gurney["status"] == "alive" and spice(h, "harkonnen") == spice(before, "harkonnen")


def test_a_kept_leader_fights_once_for_the_harkonnen_and_goes_home(client, arrakeen):
    t = arrakeen
    bid = won_by_harkonnen(client, t)
    ok(client, t, "harkonnen", type="battle.capture", battle=bid, leader="Gurney Halleck", keep=True)
    ok(client, t, type="forces.place", faction="atreides", territory="Arrakeen", forces=3)
    bid2 = open_battle(client, t)
    ok(client, t, "harkonnen", type="battle.plan", battle=bid2, faction="harkonnen", leader="Gurney Halleck",
       forces=1)
    ok(client, t, "atreides", type="battle.plan", battle=bid2, faction="atreides", leader="Thufir Hawat", forces=0)
    ok(client, t, "atreides", type="battle.reveal", battle=bid2)
    ok(client, t, type="battle.apply", battle=bid2)
    gurney = next(ld for ld in host_state(client, t)["factions"]["atreides"]["leaders"]
                  if ld["name"] == "Gurney Halleck")
    assert gurney["status"] == "alive" and gurney["captured_by"] is None


# -- the starred-force Karama and the Ecaz alliance bonus, reachable from the table --------------------

@pytest.fixture()
def four(client):
    t = create_table(client, ["atreides", "harkonnen", "emperor", "ecaz"])
    ok(client, t, type="forces.place", faction="emperor", territory="Carthag", starred=3, override=True,
       reason="test")
    ok(client, t, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    ok(client, t, type="forces.place", faction="ecaz", territory="Arrakeen", forces=3, override=True, reason="test")
    ok(client, t, type="alliance.form", factions=["atreides", "ecaz"], override=True, reason="a Nexus")
    set_phase(client, t, "battle")
    return t


def test_karama_stops_the_sardaukar_bonus_in_one_battle(client, four):
    t = four
    bid = open_battle(client, t, "emperor", "harkonnen", "Carthag")
    refused(client, t, "emperor", "kiss-karama", "own", type="battle.karama", battle=bid, faction="emperor",
            power="sardaukar")
    refused(client, t, "atreides", "karama-fremen", "nothing to stop", type="battle.karama", battle=bid,
            faction="atreides", power="fedaykin")
    ok(client, t, "atreides", type="battle.karama", battle=bid, faction="atreides", power="sardaukar")
    ok(client, t, "emperor", type="battle.plan", battle=bid, faction="emperor", leader="Hasimir Fenring", starred=3)
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Beast Rabban", forces=6)
    s = ok(client, t, "emperor", type="battle.reveal", battle=bid)
    o = ok(client, t, type="battle.apply", battle=bid)["battles"][0]["outcome"]
    assert o["totals"] == {"emperor": 9, "harkonnen": 10} and o["winner"] == "harkonnen"
    assert battle(s, bid)["karama"] == {"sardaukar": "atreides"}


def test_ecaz_forces_add_to_their_allys_dial_and_share_the_losses(client, four):
    t = four
    bid = open_battle(client, t, "harkonnen", "atreides", "Arrakeen")
    ok(client, t, "atreides", type="battle.plan", battle=bid, faction="atreides", leader="Duncan Idaho", forces=4)
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Umman Kudu", forces=6)
    ok(client, t, "atreides", type="battle.reveal", battle=bid)
    o = ok(client, t, type="battle.apply", battle=bid)["battles"][0]["outcome"]
    # Atreides 2 + 4 + 2 (half of 3 Ecaz, rounded up) = 8 against 1 + 6 = 7
    assert o["totals"] == {"harkonnen": 7, "atreides": 8} and o["winner"] == "atreides"
    assert o["forces_lost"]["ecaz"] == {"forces": 2, "starred": 0}
    h = host_state(client, t)
    assert h["board"]["territories"]["Arrakeen"]["forces"]["ecaz"]["forces"] == 1
    assert h["factions"]["ecaz"]["tanks"]["forces"] == 2


def test_a_karama_stops_the_capture_once_the_harkonnen_have_won(client, arrakeen):
    """KISS Harkonnen: "Karama can prevent you ... from capturing a leader, once"."""
    t = arrakeen
    bid = won_by_harkonnen(client, t)
    refused(client, t, "harkonnen", "kiss-karama", "own", type="battle.karama", battle=bid, faction="harkonnen",
            power="capture")
    refused(client, t, "atreides", "karama-harkonnen", "no Karama", type="battle.karama", battle=bid,
            faction="atreides", power="capture")  # their only card is a named Snooper (overridable)
    ok(client, t, "atreides", type="cards.set", faction="atreides", cards=["Snooper", "Karama"])
    s = ok(client, t, "atreides", type="battle.karama", battle=bid, faction="atreides", power="capture")
    assert battle(s, bid)["karama"] == {"capture": "atreides"} and s["treachery_deck"]["discard"][-1] == "Karama"
    refused(client, t, "harkonnen", "karama-harkonnen", "karama", type="battle.capture", battle=bid,
            leader="Gurney Halleck", keep=True)
    undo(client, t.code, t.host)
    ok(client, t, "harkonnen", type="battle.capture", battle=bid, leader="Gurney Halleck", keep=True)
    refused(client, t, "atreides", "karama-harkonnen", "already took", type="battle.karama", battle=bid,
            faction="atreides", power="capture")


def test_the_capture_karama_on_the_phones(client, arrakeen, app):
    t = arrakeen
    bid = won_by_harkonnen(client, t)
    phones = {f: join_seat(app, t.code, f) for f in ("atreides", "harkonnen", "fremen", "board")}

    def page(seat):
        return phones[seat].get(f"/t/{t.code}/view").get_data(as_text=True)
    for seat in ("atreides", "fremen"):  # any other seat may stop it; never the Harkonnen, never the board
        assert 'data-karama-power="capture"' in page(seat) and "Karama: stop the capture" in page(seat)
    assert 'data-karama-power="capture"' not in page("harkonnen") and 'data-capture="keep"' in page("harkonnen")
    assert 'data-karama-power="capture"' not in page("board")
    ok(client, t, type="battle.karama", battle=bid, faction="fremen", power="capture")
    h = page("harkonnen")
    assert 'data-capture="keep"' not in h and "the Harkonnen capture no leader from this battle" in h
    assert 'data-karama-power="capture"' not in page("atreides")


def test_a_karama_on_the_capture_needs_a_harkonnen_win(client, arrakeen):
    t = arrakeen
    bid = open_battle(client, t)
    ok(client, t, "harkonnen", type="battle.plan", battle=bid, faction="harkonnen", leader="Feyd-Rautha", forces=0)
    ok(client, t, "atreides", type="battle.plan", battle=bid, faction="atreides", leader="Duncan Idaho", forces=5)
    ok(client, t, "atreides", type="battle.reveal", battle=bid)
    ok(client, t, type="battle.apply", battle=bid)
    refused(client, t, "atreides", "karama-harkonnen", "did not win", type="battle.karama", battle=bid,
            faction="atreides", power="capture")


def test_captured_leaders_go_home_when_every_harkonnen_leader_is_dead(client, arrakeen):
    """KISS Captured Leaders: "When all of your own leaders have been killed, you must return all
    captured leaders immediately to their factions"."""
    t = arrakeen
    bid = won_by_harkonnen(client, t)
    ok(client, t, "harkonnen", type="battle.capture", battle=bid, leader="Gurney Halleck", keep=True)
    own = [ld["name"] for ld in host_state(client, t)["factions"]["harkonnen"]["leaders"]]
    for n in own[:-1]:
        s = ok(client, t, type="leader.tanks", faction="harkonnen", leader=n)
        gurney = next(ld for ld in s["factions"]["atreides"]["leaders"] if ld["name"] == "Gurney Halleck")
        assert gurney["status"] == "captured"  # one Harkonnen leader still lives
    s = ok(client, t, type="leader.tanks", faction="harkonnen", leader=own[-1])
    gurney = next(ld for ld in s["factions"]["atreides"]["leaders"] if ld["name"] == "Gurney Halleck")
    assert gurney["status"] == "alive" and gurney["captured_by"] is None
    assert "Gurney Halleck goes home" in history(client, t)[-1]["summary"]
    undo(client, t.code, t.host)
    gurney = next(ld for ld in host_state(client, t)["factions"]["atreides"]["leaders"] if ld["name"] == "Gurney Halleck")
    assert gurney["status"] == "captured"

"""What the board screen announces (issue 24): a storm move from -> to with what it killed, a worm with
what it ate and the Nexus it starts, a battle's reveal with its totals and winner, a win. Derived from
the entries into the public state (``announcements``), the same for every seat, undone with the entry."""
from __future__ import annotations

import json
import re
from html import unescape

from conftest import act, create_table, state, undo

SIX = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]


def table(client):
    t = create_table(client, SIX)
    act(client, t.code, t.seats["fremen"], type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    act(client, t.code, t.seats["bg"], type="setup.bg", faction="bg", territory="Polar Sink")
    return t


def items(client, t, who="host"):
    return (state(client, t.code, t.token(who)).get("announcements") or {}).get("items", [])


def test_a_storm_move_says_from_to_and_what_it_killed(client):
    t = table(client)
    act(client, t.code, t.host, type="phase.set", turn=2, phase="storm")
    act(client, t.code, t.host, type="forces.place", faction="harkonnen", territory="Cielago South", sector=2,
        forces=3)
    act(client, t.code, t.host, type="storm.move", sectors=3)
    a = items(client, t)[-1]
    assert a["kind"] == "storm" and a["title"] == "Storm moves 3: sector 18 → 3"
    assert a["text"].startswith("Killed: Harkonnen 3.")
    assert a["speech"].startswith("Storm moves 3 sectors, to sector 3. It kills Harkonnen 3.")
    assert a["speech"].endswith("Fremen, look at the next storm card.")
    # public: every seat and the board screen carry the same item
    assert items(client, t, "atreides")[-1] == a
    html = client.get(f"/t/{t.code}/board").get_data(as_text=True)
    assert 'id="announce"' in html and "Storm moves 3: sector 18 \\u2192 3" in html
    # undone with its entry
    undo(client, t.code, t.host)
    assert all(x["kind"] != "storm" for x in items(client, t))


def test_an_empty_storm_says_nobody_was_caught(client):
    t = table(client)
    act(client, t.code, t.host, type="phase.set", turn=2, phase="storm")
    act(client, t.code, t.host, type="storm.move", sectors=1)
    assert items(client, t)[-1]["text"] == "Nobody caught in it."


def test_a_worm_says_where_what_it_ate_and_the_nexus(client):
    t = table(client)
    act(client, t.code, t.host, type="phase.set", turn=2, phase="spice_blow")
    act(client, t.code, t.host, type="spice.blow", card="Red Chasm", pile="A")
    act(client, t.code, t.host, type="forces.place", faction="harkonnen", territory="Red Chasm", forces=2)
    act(client, t.code, t.host, type="spice.blow", card="Shai-Hulud", pile="A")
    worm, nexus = items(client, t)[-2:]
    assert worm["kind"] == "worm" and worm["title"] == "Shai-Hulud in Red Chasm"
    assert worm["text"] == "Eaten: Harkonnen 2."
    assert nexus["kind"] == "nexus" and nexus["id"] == worm["id"] + 1


def revealed_battle(client, t, h_plan=None, a_plan=None):
    act(client, t.code, t.host, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="battle")
    act(client, t.code, t.seats["harkonnen"], type="battle.open", territory="Arrakeen", aggressor="harkonnen",
        opponent="atreides", override=True, reason="the table lets this aggressor attack first")
    bid = state(client, t.code, t.host)["battles"][-1]["id"]
    act(client, t.code, t.seats["harkonnen"], type="battle.plan", battle=bid, faction="harkonnen",
        **(h_plan or {"leader": "Feyd-Rautha", "forces": 3}))
    act(client, t.code, t.seats["atreides"], type="battle.plan", battle=bid, faction="atreides",
        **(a_plan or {"leader": "Duncan Idaho", "forces": 2}))
    before = items(client, t)
    assert all(x["kind"] != "battle" for x in before)      # sealed plans announce nothing
    act(client, t.code, t.host, type="battle.reveal", battle=bid)
    return bid


def test_a_revealed_battle_shows_both_plans_the_totals_and_the_winner(client):
    t = table(client)
    act(client, t.code, t.host, type="cards.set", faction="harkonnen", cards=["Crysknife"])
    revealed_battle(client, t, {"leader": "Feyd-Rautha", "forces": 3, "weapon": "Crysknife"})
    a = items(client, t)[-1]
    assert a["kind"] == "battle" and a["title"] == "Battle in Arrakeen: Harkonnen vs Atreides"
    # the Crysknife kills Duncan Idaho (no defense): his 2 do not count
    assert a["text"] == "Plans revealed: Harkonnen 9, Atreides 2. Harkonnen win."
    # both plans, one line each: leader, dial, weapon, defense, total (Feyd-Rautha 6 + 3; 2 dialed)
    assert a["lines"] == ["Harkonnen 9: Feyd-Rautha · dial 3 · Crysknife · no defense",
                          "Atreides 2: Duncan Idaho · dial 2 · no weapon · no defense", "Harkonnen win."]
    assert "Harkonnen 9: Feyd-Rautha, dial 3, Crysknife, no defense." in a["speech"]
    # the board screen carries them (for #announce) as soon as the reveal is in
    html = client.get(f"/t/{t.code}/board/view").get_data(as_text=True)
    data = json.loads(unescape(re.search(r'id="announce-data" hidden data-items=\'([^\']*)\'', html).group(1)))
    assert data[-1]["lines"] == a["lines"]


def test_a_traitor_call_is_announced_with_the_new_winner(client):
    t = table(client)
    bid = revealed_battle(client, t)
    act(client, t.code, t.seats["atreides"], type="battle.traitor", battle=bid, faction="atreides")
    a = items(client, t)[-1]
    assert a["kind"] == "traitor" and a["title"] == "Traitor! Feyd-Rautha"
    assert a["text"] == ("Atreides call Feyd-Rautha, the Harkonnen leader, a traitor in Arrakeen. "
                         "Atreides win.")
    undo(client, t.code, t.host)
    assert items(client, t)[-1]["kind"] == "battle"


def test_a_battles_applied_outcome_says_who_won_and_what_each_side_lost(client):
    t = table(client)
    act(client, t.code, t.host, type="cards.set", faction="harkonnen", cards=["Crysknife"])
    bid = revealed_battle(client, t, {"leader": "Feyd-Rautha", "forces": 3, "weapon": "Crysknife"})
    act(client, t.code, t.host, type="battle.apply", battle=bid)
    a = items(client, t)[-1]
    # Harkonnen 9 beat Atreides 2: the loser loses every force there, the Crysknife killed Duncan Idaho
    # (the winner takes his 2 as spice), the winner loses its dial of 3 and pays 1 spice for it
    assert a["kind"] == "outcome" and a["title"] == "Harkonnen win in Arrakeen"
    assert a["lines"] == ["Harkonnen lose 3 forces; pay 1 spice; take 2 spice",
                          "Atreides lose 10 forces and Duncan Idaho"], a["lines"]
    assert a["speech"].startswith("Harkonnen win in Arrakeen. Harkonnen lose 3 forces")


def test_only_the_last_few_are_kept_and_numbers_keep_growing(client):
    t = table(client)
    act(client, t.code, t.host, type="phase.set", turn=2, phase="storm")
    for turn in range(2, 9):
        act(client, t.code, t.host, type="phase.set", turn=turn, phase="storm")
        act(client, t.code, t.host, type="storm.move", sectors=1)
    got = state(client, t.code, t.host)["announcements"]
    assert got["seq"] == 7 and [x["id"] for x in got["items"]] == [3, 4, 5, 6, 7]

"""Discovery tokens at the table: spawned by their spice cards, peeked at by the Fremen (Hiereg)
and the Guild (Smuggler), revealed during collection; a revealed territory token becomes a place
forces can ship and move into (stronghold price, two factions at most, safe from the storm)."""
from __future__ import annotations

from conftest import SIX, act, create_table, state
from table_helpers import its_turn


def reveal_token(client, t, card, token, faction, territory, sector, forces=2):
    """Turn ``card`` in the spice blow, put ``forces`` of ``faction`` on the token, reveal it."""
    act(client, t.code, t.host, type="phase.set", turn=2, phase="spice_blow")
    act(client, t.code, t.host, type="spice.blow", card=card, pile="A")
    act(client, t.code, t.host, type="forces.place", faction=faction, territory=territory, sector=sector,
        forces=forces)
    act(client, t.code, t.host, type="phase.set", turn=2, phase="collection")
    return act(client, t.code, t.seats[faction], type="discovery.reveal", faction=faction,
               territory=territory, sector=sector, token=token)


def test_card_spawns_a_face_down_token_that_only_the_fremen_may_peek_at(client):
    t = create_table(client, SIX)
    act(client, t.code, t.host, type="phase.set", turn=2, phase="spice_blow")
    s = act(client, t.code, t.host, type="spice.blow", card="Rock Outcroppings", pile="A").json
    assert s["board"]["discovery"] == {"Meridian@18": {"kind": "hiereg", "revealed": None}}
    r = act(client, t.code, t.seats["guild"], type="discovery.peek", faction="guild", territory="Meridian",
            sector=18, token="Shrine", expect=422)
    assert r.json["error"]["rule"] == "kiss-discovery-tokens"
    act(client, t.code, t.seats["fremen"], type="discovery.peek", faction="fremen", territory="Meridian",
        sector=18, token="Shrine")
    assert state(client, t.code, t.seats["fremen"])["factions"]["fremen"]["private"]["peeks"] == {
        "Meridian@18": "Shrine"}
    assert "private" not in state(client, t.code, t.seats["guild"])["factions"]["fremen"]


def test_spice_stash_gives_7_and_leaves_the_game(client):
    t = create_table(client, SIX)
    s = reveal_token(client, t, "Funeral Plain", "Spice Stash", "harkonnen", "Pasty Mesa", 6).json
    assert s["factions"]["harkonnen"]["spice"] == 17
    assert s["board"]["discovery"] == {}


def test_jacurutu_becomes_a_sixth_stronghold_with_stronghold_rules(client):
    t = create_table(client, SIX)
    s = reveal_token(client, t, "Hagga Basin", "Jacurutu Sietch", "harkonnen", "Gara Kulon", 7).json
    assert s["token_territories"] == {"Jacurutu Sietch": "Gara Kulon@7"}
    act(client, t.code, t.host, type="phase.set", turn=3, phase="shipment_movement")
    act(client, t.code, t.host, type="storm.set", sector=1)
    # the Harkonnen on the token move in: the token touches the piece it lies on
    act(client, t.code, t.host, type="move", faction="harkonnen", **{"from": "Gara Kulon"}, to="jacurutu-sietch",
        forces=2)
    # shipping in costs the stronghold rate, paid to the Guild
    its_turn(client, t, "atreides")  # storm order from sector 1: the Atreides dot (1) comes last
    before = state(client, t.code, t.host)["factions"]
    s = act(client, t.code, t.host, type="ship", faction="atreides", to="Jacurutu Sietch", forces=3).json
    assert s["factions"]["atreides"]["spice"] == before["atreides"]["spice"] - 3
    assert s["factions"]["guild"]["spice"] == before["guild"]["spice"] + 3
    # two factions already there: a third is refused
    r = act(client, t.code, t.host, type="ship", faction="emperor", to="Jacurutu Sietch", forces=1, expect=422)
    assert r.json["error"]["rule"] == "discovery-token-territories"
    # the storm over sector 7 kills nothing inside it
    act(client, t.code, t.host, type="storm.set", sector=5)
    act(client, t.code, t.host, type="phase.set", turn=4, phase="storm")
    s = act(client, t.code, t.host, type="storm.move", sectors=2).json
    assert s["board"]["territories"]["Jacurutu Sietch"]["forces"]["harkonnen"]["forces"] == 2
    assert s["board"]["territories"]["Jacurutu Sietch"]["type"] == "discovery"


def test_jacurutu_counts_toward_victory(client):
    t = create_table(client, ["harkonnen", "atreides", "guild"])
    reveal_token(client, t, "Hagga Basin", "Jacurutu Sietch", "harkonnen", "Gara Kulon", 7)
    act(client, t.code, t.host, type="forces.remove", faction="atreides", territory="Arrakeen", forces=10, to="reserves")
    act(client, t.code, t.host, type="forces.remove", faction="guild", territory="Tuek's Sietch", forces=5, to="reserves")
    act(client, t.code, t.host, type="forces.place", faction="harkonnen", territory="Arrakeen", forces=1)
    act(client, t.code, t.host, type="phase.set", turn=3, phase="mentat_pause")
    assert state(client, t.code, t.host)["victory_preview"]["winners"] == []
    act(client, t.code, t.host, type="phase.set", turn=3, phase="shipment_movement")
    act(client, t.code, t.host, type="move", faction="harkonnen", **{"from": "Gara Kulon"}, to="Jacurutu Sietch",
        forces=2)
    act(client, t.code, t.host, type="phase.set", turn=3, phase="mentat_pause")
    v = state(client, t.code, t.host)["victory_preview"]
    assert v["winners"] == ["harkonnen"]


def test_peeking_where_there_is_no_token_is_refused_clearly(client):
    t = create_table(client, SIX)
    r = act(client, t.code, t.seats["fremen"], type="discovery.peek", faction="fremen", territory="Meridian",
            sector=18, token="Shrine", expect=422)
    assert r.json["error"]["message"] == "There is no Discovery token in Meridian."
    assert r.json["error"]["overridable"] is False

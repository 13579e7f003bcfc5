"""Face-down markers: Moritani terror tokens and Ecaz ambassadors in strongholds. Everyone sees
that a marker is there; only its owner knows which one, until it is revealed."""
from __future__ import annotations

from conftest import act, bearer, create_table, state

NINE = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu"]


def test_terror_token_is_public_as_a_marker_and_secret_as_a_token(client):
    t = create_table(client, NINE)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="mentat_pause")
    act(client, t.code, t.seats["moritani"], type="terror.place", faction="moritani", territory="arrakeen",
        token="Robbery")
    for seat in ("atreides", "ecaz"):
        s = state(client, t.code, t.seats[seat])
        assert s["board"]["markers"] == {"Arrakeen": {"terror": True}}
        raw = client.get(f"/api/tables/{t.code}/state", headers=bearer(t.seats[seat])).get_data(as_text=True)
        assert "Robbery" not in raw
        history = client.get(f"/api/tables/{t.code}/history", headers=bearer(t.seats[seat])).get_data(as_text=True)
        assert "Robbery" not in history
    mine = state(client, t.code, t.seats["moritani"])["factions"]["moritani"]["private"]
    assert mine["terror_placed"] == {"Arrakeen": "Robbery"} and "Robbery" not in mine["terror_tokens"]
    # one token per stronghold; only strongholds; only tokens still in hand
    r = act(client, t.code, t.seats["moritani"], type="terror.place", faction="moritani", territory="Arrakeen",
            token="Atomics", expect=422)
    assert r.json["error"]["rule"] == "moritani-terrorize"
    r = act(client, t.code, t.seats["moritani"], type="terror.place", faction="moritani", territory="The Great Flat",
            token="Atomics", expect=422)
    assert "not a stronghold" in r.json["error"]["message"]
    r = act(client, t.code, t.seats["moritani"], type="terror.place", faction="moritani", territory="Carthag",
            token="Robbery", expect=422)
    assert r.json["error"]["rule"] == "moritani-terror-tokens"
    s = act(client, t.code, t.seats["moritani"], type="terror.reveal", faction="moritani", territory="Arrakeen").json
    assert s["board"]["markers"] == {}
    assert state(client, t.code, t.seats["atreides"])["last_revealed"]["marker"] == "terror token: Robbery"


def test_ambassadors_first_free_then_two_spice_and_not_into_the_storm(client):
    t = create_table(client, NINE)
    e = t.seats["ecaz"]
    act(client, t.code, e, type="ambassadors.set", faction="ecaz", ambassadors=["Ecaz", "Fremen", "Emperor"])
    act(client, t.code, t.host, type="phase.set", turn=2, phase="revival")
    act(client, t.code, t.host, type="storm.set", sector=10)
    r = act(client, t.code, e, type="ambassador.place", faction="ecaz", territory="Carthag", ambassador="Fremen",
            expect=422)
    assert "storm" in r.json["error"]["message"]
    act(client, t.code, e, type="ambassador.place", faction="ecaz", territory="Arrakeen", ambassador="Fremen")
    assert state(client, t.code, e)["factions"]["ecaz"]["spice"] == 12
    act(client, t.code, e, type="ambassador.place", faction="ecaz", territory="Sietch Tabr", ambassador="Ecaz")
    assert state(client, t.code, e)["factions"]["ecaz"]["spice"] == 10
    assert state(client, t.code, t.seats["harkonnen"])["board"]["markers"] == {
        "Arrakeen": {"ambassador": True}, "Sietch Tabr": {"ambassador": True}}
    act(client, t.code, e, type="ambassador.trigger", faction="ecaz", territory="Sietch Tabr")
    mine = state(client, t.code, e)["factions"]["ecaz"]["private"]
    assert mine["ambassadors"] == ["Emperor", "Ecaz"]  # the Ecaz ambassador comes back
    assert mine["ambassadors_placed"] == {"Arrakeen": "Fremen"}


def test_owner_phone_shows_its_markers_and_others_only_see_that_one_is_there(app, client):
    from conftest import join_seat
    t = create_table(client, NINE)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="mentat_pause")
    act(client, t.code, t.seats["moritani"], type="terror.place", faction="moritani", territory="Carthag",
        token="Sabotage")
    moritani = join_seat(app, t.code, "moritani")
    # "My secrets" loads when opened (and a refresh renders it whole while it is open)
    for html in (moritani.get(f"/t/{t.code}/secrets").get_data(as_text=True),
                 moritani.get(f"/t/{t.code}/view", headers={"HX-Request": "true", "X-Open-Folds": "secrets"}
                              ).get_data(as_text=True)):
        assert "Carthag: <b>Sabotage</b>" in html and "Place face down" in html
    ecaz = join_seat(app, t.code, "ecaz")
    html = ecaz.get(f"/t/{t.code}/view").get_data(as_text=True)
    assert "Carthag: terror token" in html and "Sabotage" not in html
    mine = ecaz.get(f"/t/{t.code}/secrets").get_data(as_text=True)
    assert "Ambassadors in supply" in mine and "Sabotage" not in mine

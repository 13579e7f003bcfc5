"""The story of a game, told once it is over: 403 to everyone before, 200 to every seat, the host and
the board after; the series match the state folded to each turn's end; the page draws its charts
server-side; Secret Harkonnen's story tells every role and every vote."""
from __future__ import annotations

import re

import pytest

from conftest import bearer, create_table, undo
from sh_helpers import NAMES, SH
from table_helpers import ok, set_phase
from test_secret_harkonnen import play_to_the_end

THREE = ["atreides", "harkonnen", "emperor"]


def a_short_game(client):
    """Three turns with spice, cards and forces moving, then the host ends the game."""
    t = create_table(client, THREE, turns=5)
    set_phase(client, t, "bidding")
    ok(client, t, "atreides", type="cards.seen", faction="atreides", card="Lasgun")
    ok(client, t, "emperor", type="bid.buy", faction="emperor", price=2)
    ok(client, t, type="spice.set", faction="harkonnen", amount=13)
    set_phase(client, t, "storm", turn=2)
    ok(client, t, type="forces.place", faction="harkonnen", territory="Carthag", forces=4)
    ok(client, t, type="spice.set", faction="atreides", amount=3)
    set_phase(client, t, "storm", turn=3)
    ok(client, t, type="forces.place", faction="emperor", territory="Arrakeen", forces=2)
    undo(client, t.code, t.host)  # an undone entry is not part of the story's figures
    ok(client, t, type="spice.set", faction="emperor", amount=21)
    return t


def story(client, t, token, status=200):
    r = client.get(f"/api/tables/{t.code}/story", headers=bearer(token))
    assert r.status_code == status, r.get_data(as_text=True)
    return r.get_json()


def test_403_before_the_end_200_after_for_every_role(app, client):
    t = a_short_game(client)
    board = app.extensions["tables"].spectator_token(t.code)
    tokens = [t.host, board, *t.seats.values()]
    for token in tokens:
        assert "over" in story(client, t, token, 403)["error"]["message"]
    assert client.get(f"/t/{t.code}/story").status_code == 403
    ok(client, t, type="game.end", reason="out of time")
    bodies = [story(client, t, token) for token in tokens]
    assert all(b == bodies[0] for b in bodies)
    assert set(bodies[0]) == {"winner", "turns", "entries", "series", "battles", "secrets"}
    undo(client, t.code, t.host)  # game.end is undoable: the story closes again
    story(client, t, t.token("emperor"), 403)


def test_the_series_match_the_state_folded_to_each_turn_end(app, client):
    t = a_short_game(client)
    ok(client, t, type="game.end", reason="out of time")
    d = story(client, t, t.host)
    assert d["turns"] == [1, 2, 3]
    service = app.extensions["tables"]
    table = service.table(t.code)
    events = service.all_events(table)
    # the last entry of each turn: the entry before the first one made in the next turn
    from companion.games.dune.story import figures
    ends = {}
    for i in range(1, len(events) + 1):
        state, _ = service.fold(t.code, table.config, events[:i])
        ends[state["turn"]] = state
    for k, turn in enumerate(d["turns"]):
        fig = figures(ends[turn])
        for key in ("spice", "forces_on_board", "strongholds", "cards_in_hand"):
            for f in THREE:
                assert d["series"][key][f][k] == fig[key][f], (key, f, turn)
    assert d["series"]["spice"]["harkonnen"][0] == 13 and d["series"]["spice"]["emperor"][2] == 21
    assert d["series"]["forces_on_board"]["emperor"][2] == 0  # the undone placement is not counted
    assert d["series"]["strongholds"]["harkonnen"][1] >= 1 and d["series"]["cards_in_hand"]["emperor"][0] == 2


def test_the_story_tells_the_secrets(client):
    t = a_short_game(client)
    ok(client, t, "harkonnen", type="traitors.set", faction="harkonnen", traitors=["Duncan Idaho"])
    ok(client, t, type="game.end", reason="out of time")
    d = story(client, t, t.token("emperor"))
    seen = [e for e in d["entries"] if e["type"] == "cards.seen"]
    assert seen and seen[0]["payload"]["card"] == "Lasgun"  # the Atreides' note, told after the game
    assert d["secrets"]["traitors"]["harkonnen"]["held"] == ["Duncan Idaho"]
    assert "prediction" in d["secrets"] and d["winner"]["summary"].endswith("out of time")


def test_the_story_page_draws_the_charts(client):
    t = a_short_game(client)
    ok(client, t, type="game.end", reason="out of time")
    html = client.get(f"/t/{t.code}/story").get_data(as_text=True)
    for key in ("spice", "forces_on_board", "strongholds"):
        chart = re.search(rf'<svg class="chart" data-series="{key}".*?</svg>', html, re.S)
        assert chart, key
        lines = re.findall(r'<g class="line" data-faction="(\w+)">.*?<polyline points="([^"]+)"', chart.group(0), re.S)
        assert {f for f, _ in lines} == set(THREE)
        assert all(len(pts.split()) == 3 for _, pts in lines)  # one point per turn
    assert html.count('class="dune-map"') == 3  # the map at each turn's end
    assert "<img" not in html and "http" not in re.sub(r'href="[^"]*"|xmlns="[^"]*"', "", html)


@pytest.mark.parametrize("n", [5, 7])
def test_secret_harkonnen_story_tells_every_vote(app, client, n):
    g = SH(app, client, n)
    r = client.get(f"/api/tables/{g.code}/story", headers=bearer(g.host))
    assert r.status_code == 403
    votes_cast = []
    orig = g.act

    def act(name, expect=200, **entry):
        if entry.get("type") == "sh.vote":
            votes_cast.append((name, entry["vote"]))
        return orig(name, expect, **entry)
    g.act = act
    play_to_the_end(g, "choam")
    for token in [g.host, *g.seats.values()]:
        r = client.get(f"/api/tables/{g.code}/story", headers=bearer(token))
        assert r.status_code == 200
    d = r.get_json()
    assert d["roles"] == g.roles()
    told = [(p, v) for ballot in d["votes"] for p, v in ballot["votes"].items()]
    assert sorted(told) == sorted(votes_cast)
    for x in d["legislative"]:
        assert x["discarded"] in x["hand"]
    html = client.get(f"/t/{g.code}/story").get_data(as_text=True)
    assert all(p in html for p in NAMES[:n]) and "Every vote" in html

"""The board part of a view is rendered once per (table, revision, what it shows) and reused by every
seat and the board phone (issue 30): every seat's page is the same with and without the cache, and
a seat's private board data (its face-down No-Field's number) never reaches another seat's page."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import act, bearer, create_table

MIDGAME = Path(__file__).resolve().parents[1] / "benchmarks" / "midgame_6f.json"


def phones(app, code: str, seats: dict) -> dict:
    out = {}
    for role, token in seats.items():
        c = app.test_client()
        c.set_cookie(f"seat_{code}", token)
        out[role] = c
    return out


def views(app, code: str, clients: dict, cached: bool) -> dict[str, str]:
    app.config["BOARD_PART_CACHE"] = cached
    return {role: c.get(f"/t/{code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
            for role, c in clients.items()}


def test_every_seat_sees_the_same_page_with_and_without_the_cache(app, client):
    r = client.post("/api/tables/import", json=json.loads(MIDGAME.read_text("utf-8")))
    made = r.get_json()
    code = made["table"]
    board_token = app.extensions["tables"].spectator_token(code)
    clients = phones(app, code, {"host": made["host_token"], **made["seats"], "board": board_token})
    from companion.games.dune.web.board_part import cache
    before = cache(app).hits
    cached = views(app, code, clients, True)
    assert cache(app).hits - before >= len(clients) - 1  # rendered once, reused by the other screens
    plain = views(app, code, clients, False)
    for role in clients:
        assert 'id="board"' in cached[role], role
        assert cached[role] == plain[role], f"{role}: the cached page differs"


def test_a_seats_own_board_secret_stays_on_its_page(app, client):
    factions = ["atreides", "harkonnen", "guild", "choam", "richese"]
    t = create_table(client, factions)
    s = act(client, t.code, t.host, type="phase.set", turn=1, phase="shipment_movement").get_json()
    while s["whose_turn"]["faction"] != "richese":
        s = act(client, t.code, t.host, type="turn.done", faction=s["whose_turn"]["faction"]).get_json()
    act(client, t.code, t.seats["richese"], type="nofield.ship", faction="richese", territory="The Great Flat",
        token=5)
    clients = phones(app, t.code, {"host": t.host, **t.seats})
    order = ["richese", "atreides", "host", "choam"]  # the owner renders first: its part is cached first
    cached = views(app, t.code, {r: clients[r] for r in order}, True)
    plain = views(app, t.code, {r: clients[r] for r in order}, False)
    assert ">NF5<" in cached["richese"]
    for role in order:
        assert cached[role] == plain[role], role
        if role not in ("richese", "host"):
            assert ">NF5<" not in cached[role] and "NF?" in cached[role], role
    state = client.get(f"/api/tables/{t.code}/state", headers=bearer(t.seats["atreides"])).get_json()
    assert "nofield_token" not in json.dumps(state)


def test_rendering_every_seats_pages_leaves_the_table_state_as_it_was(app, client):
    """The pages read the state itself (no copy per render): none of them may change it."""
    import copy
    r = client.post("/api/tables/import", json=json.loads(MIDGAME.read_text("utf-8")))
    made = r.get_json()
    code = made["table"]
    t = app.extensions["tables"].table(code)
    before = copy.deepcopy(t.state)
    board_token = app.extensions["tables"].spectator_token(code)
    clients = phones(app, code, {"host": made["host_token"], **made["seats"], "board": board_token})
    for role, c in clients.items():
        for path in ("", "/view", "/board", "/history", "/proposals", "/enter"):
            r = c.get(f"/t/{code}{path}", headers={"HX-Request": "true", "X-Open-Folds": "enter"} if path == "/view" else {})
            assert r.status_code in (200, 302, 401, 403), (role, path, r.status_code)
    assert client.get(f"/t/{code}/board?fragment=1").status_code == 200
    assert t.state == before

"""The board part of a view is rendered once per (table, what it shows) and reused by every seat, the
board phone and the next revisions while the board is as it was (issue 30): every seat's page is
the same with and without the cache, and a seat's private board data (its face-down No-Field's
number) never reaches another seat's page."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import act, bearer, create_table, seat_clients as phones

MIDGAME = Path(__file__).resolve().parents[1] / "benchmarks" / "midgame_6f.json"


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
        for path in ("", "/view", "/board", "/history", "/proposals", "/enter", "/ship", "/secrets", "/leaders"):
            r = c.get(f"/t/{code}{path}", headers={"HX-Request": "true", "X-Open-Folds": "enter,ship-box,secrets,leaders"}
                      if path == "/view" else {})
            assert r.status_code in (200, 302, 401, 403), (role, path, r.status_code)
    assert client.get(f"/t/{code}/board?fragment=1").status_code == 200
    assert t.state == before


def board_of(html: str) -> str:
    import re
    return re.search(r'<section class="card board-view" id="board"[^>]*>.*?</section>', html, re.S).group(0)


def test_a_refresh_leaves_out_the_board_the_phone_already_shows(app, client):
    """A change that leaves the public board as it was (a seat's spice behind its shield) sends no
    board: the answer has an empty ``data-same`` section and the phone keeps its own; a change on
    the board (the storm) sends the new board, with a new etag."""
    import re
    t = create_table(client, ["atreides", "harkonnen"])
    phone = phones(app, t.code, {"atreides": t.seats["atreides"]})["atreides"]
    for cached in (True, False):
        app.config["BOARD_PART_CACHE"] = cached
        first = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
        etag = re.search(r'id="board" data-etag="([0-9a-f]{16})"', first).group(1)
        have = {"HX-Request": "true", "X-Have-Board": etag}
        act(client, t.code, t.host, type="spice.set", faction="harkonnen", amount=7)
        again = phone.get(f"/t/{t.code}/view", headers=have).get_data(as_text=True)
        assert f'<section class="card board-view" id="board" data-etag="{etag}" data-same></section>' in again
        assert "dune-map" not in again and len(again) < len(first) - 5000
        # another etag, or no htmx request (a whole page): the board is sent
        for headers in ({"HX-Request": "true", "X-Have-Board": "0" * 16}, {"X-Have-Board": etag}):
            full = phone.get(f"/t/{t.code}/view", headers=headers).get_data(as_text=True)
            assert "data-same" not in full and board_of(full) == board_of(first)
        assert "data-same" not in phone.get(f"/t/{t.code}", headers=have).get_data(as_text=True)
        act(client, t.code, t.host, type="storm.set", sector=(3 if cached else 12))
        moved = phone.get(f"/t/{t.code}/view", headers=have).get_data(as_text=True)
        assert "data-same" not in moved and "dune-map" in moved
        assert re.search(r'id="board" data-etag="([0-9a-f]{16})"', moved).group(1) != etag


def test_an_entry_that_leaves_the_board_as_it_was_does_not_render_it_again(app, client):
    """Spice behind a shield, a bribe: the next revision's board is the one already rendered (the
    same etag, no new render); forces moved or the storm: a new render. Every page is the same as
    without the cache after each entry."""
    import re
    from companion.games.dune.web.board_part import cache
    t = create_table(client, ["atreides", "harkonnen", "fremen"])
    clients = phones(app, t.code, {"host": t.host, **t.seats})

    def pages():
        cached = views(app, t.code, clients, True)
        assert cached == views(app, t.code, clients, False)
        app.config["BOARD_PART_CACHE"] = True
        return {re.search(r'id="board" data-etag="([0-9a-f]{16})"', h).group(1) for h in cached.values()}

    etags = pages()
    assert len(etags) == 1
    for entry in ({"type": "spice.set", "faction": "harkonnen", "amount": 3},
                  {"type": "spice.set", "faction": "fremen", "amount": 9}):
        misses = cache(app).misses
        act(client, t.code, t.host, **entry)
        assert pages() == etags, entry  # the same board, not rendered again
        assert cache(app).misses == misses, entry
    for entry in ({"type": "storm.set", "sector": 7},
                  {"type": "forces.remove", "faction": "atreides", "territory": "Arrakeen", "forces": 2}):
        misses = cache(app).misses
        act(client, t.code, t.host, **entry)
        now = pages()
        assert len(now) == 1 and now != etags, entry  # a new board, rendered once for every seat
        assert cache(app).misses == misses + 1, entry
        etags = now

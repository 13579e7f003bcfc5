"""The host's tools on the laptop: restoring an exported table, the big-screen board view."""
from __future__ import annotations

import io
import json
import re

from conftest import SIX, act, bearer, create_table, csrf, join_seat, state


def test_export_then_restore_from_the_start_page_gives_the_same_game(app, client):
    t = create_table(client, SIX)
    act(client, t.code, t.host, type="storm.set", sector=11)
    act(client, t.code, t.seats["atreides"], type="spice.set", faction="atreides", amount=23)
    exported = client.get(f"/api/tables/{t.code}/export", headers=bearer(t.host)).json
    laptop = app.test_client()
    laptop.get("/")
    r = laptop.post("/tables/import", data={"csrf_token": csrf(laptop),
                                            "file": (io.BytesIO(json.dumps(exported).encode()), "t.json")},
                    content_type="multipart/form-data")
    assert r.status_code == 302
    new_code = r.location.split("/")[2]
    assert new_code != t.code
    # the laptop is the new table's host: it can open the host page
    assert laptop.get(f"/t/{new_code}/host").status_code == 200
    restored = laptop.get(f"/api/tables/{new_code}/state").json
    original = state(client, t.code, t.host)
    for key in ("table", "viewer"):
        restored.pop(key), original.pop(key)
    assert restored == original


def test_restore_refuses_a_file_that_is_not_an_export(app):
    laptop = app.test_client()
    laptop.get("/")
    r = laptop.post("/tables/import", data={"csrf_token": csrf(laptop),
                                            "file": (io.BytesIO(b"not json"), "t.json")},
                    content_type="multipart/form-data")
    assert r.status_code == 422
    assert "not a table export" in r.get_data(as_text=True)


def test_board_view_shows_storm_turn_and_stacks_but_no_spice_behind_shields(app, client):
    t = create_table(client, SIX)
    act(client, t.code, t.host, type="storm.set", sector=5)
    act(client, t.code, t.host, type="spice.set", faction="harkonnen", amount=61)
    screen = join_seat(app, t.code, "board")
    for path in (f"/t/{t.code}/board", f"/t/{t.code}/view"):
        html = screen.get(path).get_data(as_text=True)
        assert 'class="dune-map"' in html and "storm over sector 5" in html
        assert re.search(r"Turn <b>1</b>/10", html)
        assert "Harkonnen" in html and not re.search(r"(?<![\w.])61(?![\w.])", html)
    # the board view can only watch
    r = screen.post(f"/t/{t.code}/act", data={"type": "storm.set", "sector": "3", "revision": "2"},
                    headers={"X-CSRF-Token": csrf(screen)})
    assert r.status_code == 403 and "can only watch" in r.get_data(as_text=True)

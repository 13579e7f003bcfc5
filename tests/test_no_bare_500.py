"""No bare 500s (audit finding 6): a route of one game asked about a table of another game answers
404; an import file of the wrong shape answers 422 before any field is read, and so does a mutated
export; the host credential can be re-issued (a leaked host link dies at once)."""
from __future__ import annotations

import copy
import json
import random

import pytest

from conftest import act, bearer, create_table
from sh_helpers import SH

DUNE_API = ["battles", "karama", "reach?territory=Arrakeen", "reach"]


def test_dune_routes_answer_a_secret_harkonnen_table_with_404(app, client):
    g = SH(app, client, 5)
    for token in (g.host, g.seats["Ann"]):
        for path in DUNE_API:
            r = client.get(f"/api/tables/{g.code}/{path}", headers=bearer(token))
            assert r.status_code == 404, (path, r.status_code)
            assert "another game" in r.get_json()["error"]["message"]
    phone = app.test_client()
    phone.set_cookie(f"seat_{g.code}", g.seats["Ann"])
    for path in ("battle", "reach?territory=Arrakeen", "battle/panel"):
        r = phone.get(f"/t/{g.code}/{path}")
        assert r.status_code == 404, (path, r.status_code)


def test_no_table_route_answers_500_for_a_table_of_the_other_game(app, client):
    """Every route with a table code in it, asked about a table of each game by its host."""
    dune = create_table(client, ["atreides", "harkonnen"])
    g = SH(app, client, 5)
    rules = sorted({(m, r.rule) for r in app.url_map.iter_rules() if "<code>" in r.rule
                    for m in r.methods - {"HEAD", "OPTIONS"} if not r.rule.endswith("/events")})
    assert len(rules) > 20
    for code, host in ((dune.code, dune.host), (g.code, g.host)):
        for method, rule in rules:
            url = rule.replace("<code>", code)
            while "<" in url:
                url = url[:url.index("<")] + "x" + url[url.index(">") + 1:]
            r = client.open(url, method=method, headers=bearer(host), json={})
            assert r.status_code < 500, (method, url, r.status_code)


@pytest.mark.parametrize("data", [
    {"format": "dune-table-companion/1", "config": "x", "events": []},
    {"format": "dune-table-companion/1", "config": {"game": "secret-harkonnen"}, "events": "x"},
    {"format": "dune-table-companion/1", "config": {}, "events": [1]},
    {"format": "dune-table-companion/1", "config": {}, "events": [{"seq": 1, "payload": "x"}]},
    {"format": "dune-table-companion/1", "config": {"game": 3}, "events": []},
    {"format": "dune-table-companion/1", "config": {}, "events": [], "extra": 1},
    ["dune-table-companion/1"],
])
def test_an_import_of_the_wrong_shape_is_refused_with_422(client, data):
    r = client.post("/api/tables/import", json=data)
    assert r.status_code == 422, r.get_data(as_text=True)
    assert r.get_json()["error"]["message"]


def mutations(value, rng, depth=0):
    """One random change somewhere in a JSON value: a field dropped, retyped or doubled."""
    odd = ["x", 0, -1, 10**12, None, True, [], {}, "host", 1.5, "undo"]
    if isinstance(value, dict) and value:
        key = rng.choice(sorted(value))
        out = dict(value)
        roll = rng.random()
        if roll < 0.15:
            del out[key]
        elif roll < 0.35 or depth > 4:
            out[key] = rng.choice(odd)
        else:
            out[key] = mutations(value[key], rng, depth + 1)
        return out
    if isinstance(value, list) and value:
        i = rng.randrange(len(value))
        out = list(value)
        roll = rng.random()
        if roll < 0.2:
            out.insert(i, copy.deepcopy(value[i]))
        elif roll < 0.35:
            del out[i]
        else:
            out[i] = mutations(value[i], rng, depth + 1)
        return out
    return rng.choice(odd)


def test_mutated_exports_never_answer_500(app, client):
    t = create_table(client, ["atreides", "harkonnen", "choam", "richese"])
    act(client, t.code, t.host, type="phase.next", override=True, reason="setup done")
    for f in t.factions:
        act(client, t.code, t.seats[f], type="spice.set", faction=f, amount=12)
    act(client, t.code, t.host, type="storm.set", sector=5)
    act(client, t.code, t.host, type="phase.set", turn=2, phase="shipment_movement")
    dune = client.get(f"/api/tables/{t.code}/export", headers=bearer(t.host)).get_json()
    g = SH(app, client, 5)
    sh_export = {"format": dune["format"], "table": g.code, "config": {"game": "secret-harkonnen",
                                                                       "players": list(g.seats)},
                 "events": [dict(e, seq=e["seq"]) for e in app.extensions["tables"].all_events(
                     app.extensions["tables"].table(g.code))]}
    rng = random.Random(26)
    for base in (dune, sh_export):
        for _ in range(60):
            data = mutations(base, rng)
            r = client.post("/api/tables/import", data=json.dumps(data), content_type="application/json")
            assert r.status_code in (201, 422), (r.status_code, r.get_data(as_text=True)[:300])


def test_the_host_credential_is_re_issued_and_the_old_one_dies_at_once(app, client):
    t = create_table(client, ["atreides", "harkonnen"])
    r = client.post(f"/api/tables/{t.code}/host/reissue", headers=bearer(t.seats["atreides"]))
    assert r.status_code == 403
    r = client.post(f"/api/tables/{t.code}/host/reissue", headers=bearer(t.host))
    assert r.status_code == 200
    new = r.get_json()["host_token"]
    assert new != t.host
    assert client.get(f"/api/tables/{t.code}/state", headers=bearer(t.host)).status_code == 401
    assert client.get(f"/api/tables/{t.code}/export", headers=bearer(new)).status_code == 200
    # from the host page: this browser keeps the host seat with a new credential
    host = app.test_client()
    host.set_cookie(f"seat_{t.code}", new)
    page = host.get(f"/t/{t.code}/host").get_data(as_text=True)
    assert 'id="host-reissue"' in page
    csrf = page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]
    r = host.post(f"/t/{t.code}/host/reissue", data={"csrf_token": csrf})
    assert r.status_code == 302 and "reissued=1" in r.headers["Location"]
    assert "old host credential no longer works" in host.get(r.headers["Location"]).get_data(as_text=True)
    assert client.get(f"/api/tables/{t.code}/state", headers=bearer(new)).status_code == 401


def test_a_host_stream_of_the_old_credential_ends_when_it_is_re_issued(app, client):
    import threading
    app.config["SSE_HEARTBEAT"] = 0.05
    t = create_table(client, ["atreides", "harkonnen"])
    lines, done = [], threading.Event()

    def listen():
        r = app.test_client().get(f"/t/{t.code}/events?since=0", headers=bearer(t.host))
        for chunk in r.response:
            lines.append(chunk)
            if len(lines) > 400:
                break
        done.set()
    th = threading.Thread(target=listen, daemon=True)
    th.start()
    while not lines:
        done.wait(0.05)
    assert client.post(f"/api/tables/{t.code}/host/reissue", headers=bearer(t.host)).status_code == 200
    assert done.wait(10), "the old host credential's stream is still open"
    assert len(lines) <= 400

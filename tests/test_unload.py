"""Idle tables leave memory and come back transparently (issue 30: memory stays bounded)."""
from __future__ import annotations

from conftest import act, bearer, create_table, join_seat, state


def test_an_unloaded_table_reloads_transparently(app, client):
    tables = app.extensions["tables"]
    t = create_table(client)
    for sector in (3, 7, 11):
        act(client, t.code, t.host, type="storm.set", sector=sector)
    phone = join_seat(app, t.code, "atreides")
    page = phone.get(f"/t/{t.code}/view").get_data(as_text=True)
    before = tables.table(t.code).state
    rev = before["revision"]

    assert tables.unload_idle(0) == [t.code]
    assert tables.loaded(t.code) is None  # out of memory

    # the phone goes on as if nothing happened: its view, then an entry on the revision it saw
    assert phone.get(f"/t/{t.code}/view").get_data(as_text=True) == page
    assert tables.loaded(t.code) is not None and tables.table(t.code).state == before
    tables.unload_idle(0)
    r = client.post(f"/api/tables/{t.code}/actions", json={"type": "storm.set", "sector": 15, "revision": rev},
                    headers=bearer(t.host))
    assert r.status_code == 200, r.get_data(as_text=True)
    assert state(client, t.code, t.host)["storm"]["sector"] == 15
    assert [e["seq"] for e in client.get(f"/api/tables/{t.code}/history", headers=bearer(t.host))
            .get_json()["entries"]] == [1, 2, 3, 4]


def test_only_idle_tables_without_watchers_are_unloaded(app, client):
    tables = app.extensions["tables"]
    a, b, c = (create_table(client) for _ in range(3))
    for x in (a, b, c):
        tables.table(x.code)
    assert tables.unload_idle(3600) == []  # all used just now
    gone = tables.unload_idle(0, keep=lambda code: code == b.code)  # a stream is open on b
    assert sorted(gone) == sorted([a.code, c.code])
    assert tables.loaded(b.code) is not None

"""Acknowledged means durable and findable (audit finding 3): the store's journal (``-wal``, ``-shm``)
or its file removed or replaced while the server runs is noticed before the next write is
acknowledged: the write answers a clear 503, what was saved before is kept (written into the store
file, or copied among the backups), and after a restart every acknowledged entry is there."""
from __future__ import annotations

import os
import shutil

from companion import create_app
from conftest import SIX, act, bearer, close_app, create_table, revision, state


def storm(client, t, sector):
    return client.post(f"/api/tables/{t.code}/actions", headers=bearer(t.host),
                       json={"type": "storm.set", "sector": sector, "revision": revision(client, t.code, t.host)})


def test_a_removed_journal_refuses_the_next_write_and_keeps_every_acknowledged_entry(tmp_path):
    data = tmp_path / "data"
    app = create_app({"DATA_DIR": str(data), "TESTING": True})
    client = app.test_client()
    t = create_table(client, SIX)
    for i in range(20):
        assert storm(client, t, 1 + i % 18).status_code == 200
    db = data / "companion.sqlite3"
    assert (data / "companion.sqlite3-wal").exists()
    for suffix in ("-wal", "-shm"):
        os.remove(f"{db}{suffix}")
    r = storm(client, t, 5)
    assert r.status_code == 503, r.get_data(as_text=True)
    body = r.get_json()
    assert "companion.sqlite3-wal was removed" in body["message"] and "restart the server" in body["message"]
    assert storm(client, t, 6).status_code == 503  # every later write too, until the restart
    assert state(client, t.code, t.host)["revision"] == 20  # reads go on
    close_app(app)
    again = create_app({"DATA_DIR": str(data), "TESTING": True})
    c2 = again.test_client()
    assert state(c2, t.code, t.host)["revision"] == 20  # the 20 acknowledged entries, all of them
    assert storm(c2, t, 7).status_code == 200
    close_app(again)


def test_a_replaced_store_file_refuses_the_next_write_and_keeps_a_copy_among_the_backups(tmp_path):
    data = tmp_path / "data"
    app = create_app({"DATA_DIR": str(data), "TESTING": True})
    client = app.test_client()
    t = create_table(client, SIX)
    for i in range(5):
        assert storm(client, t, 1 + i).status_code == 200
    db = data / "companion.sqlite3"
    shutil.copyfile(db, tmp_path / "copy.sqlite3")
    os.replace(tmp_path / "copy.sqlite3", db)  # another program put another file in its place
    r = storm(client, t, 9)
    assert r.status_code == 503
    message = r.get_json()["message"]
    assert "companion.sqlite3 was replaced" in message and "rescue" in message
    rescued = [p for p in (data / "backups").iterdir() if p.name.endswith("-rescue.sqlite3")]
    assert len(rescued) == 1
    close_app(app)
    import sqlite3
    with sqlite3.connect(rescued[0]) as conn:
        assert conn.execute("SELECT MAX(seq) FROM events WHERE table_code=?", (t.code,)).fetchone()[0] == 5


def test_a_journal_with_a_damaged_header_is_reported_at_start_up_in_one_sentence(tmp_path):
    """SQLite ignores a journal whose header fails its checksum, and every entry in it with it."""
    from test_store_faults import make_tables, one_sentence
    from companion.table.store import open_store
    live = tmp_path / "live"
    t = make_tables(live, {"one": 0}, pad=0)["one"]
    store = open_store(str(live / "companion.sqlite3"), backup_at_start=False)
    for i in range(6):
        store.append_event(t.code, i, "host", "storm.set", {"type": "storm.set", "sector": 1 + i}, None, "storm")
    snap = tmp_path / "snap"
    snap.mkdir()
    for suffix in ("", "-wal"):  # what is on disk when the power goes
        shutil.copyfile(live / f"companion.sqlite3{suffix}", snap / f"companion.sqlite3{suffix}")
    store.close()
    with open(snap / "companion.sqlite3-wal", "r+b") as f:  # the header's checkpoint counter goes bad
        f.seek(13)
        byte = f.read(1)
        f.seek(13)
        f.write(bytes([byte[0] ^ 0x01]))
    app = create_app({"DATA_DIR": str(snap), "TESTING": True})
    report = app.extensions["store_report"]
    assert len(report) == 1 and "journal" in report[0] and "missing" in report[0] and one_sentence(report[0]), report
    assert "the last 6 saved change(s)" in report[0]
    close_app(app)

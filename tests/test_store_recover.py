"""A damaged store is recovered, not just moved aside (audit finding 4): every table and entry
SQLite can still read comes back (the ``sqlite3`` command's ``.recover`` where installed, row by row
in any case), else the newest backup holding the table; the terminal's note and the host page say,
per table, how many entries came back and from where."""
from __future__ import annotations

import os
import random
import sqlite3

import pytest

from companion import create_app
from companion.table.store import open_store
from conftest import bearer, close_app, state
from test_store_faults import make_tables, one_sentence


def made_with_a_backup(data):
    """Three tables; a start-up backup holds them; then table ``a`` gets 3 more entries."""
    made = make_tables(data, {"a": 5, "b": 40, "c": 40})
    close_app(create_app({"DATA_DIR": str(data), "TESTING": True}))   # takes the start-up backup
    store = open_store(str(data / "companion.sqlite3"), backup_at_start=False)
    for i in range(5, 8):
        store.append_event(made["a"].code, i, "host", "storm.set", {"type": "storm.set", "sector": 1 + i}, None,
                           "later storm")
    store.close()
    with sqlite3.connect(str(data / "companion.sqlite3")) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert list((data / "backups").glob("companion-*-start.sqlite3"))
    return made


def host_page(app, t):
    host = app.test_client()
    host.set_cookie(f"seat_{t.code}", t.host)
    return host.get(f"/t/{t.code}/host").get_data(as_text=True)


def test_an_overwritten_store_comes_back_from_the_newest_backup_table_by_table(tmp_path):
    data = tmp_path / "data"
    made = made_with_a_backup(data)
    db = data / "companion.sqlite3"
    rng = random.Random(4)
    db.write_bytes(bytes(rng.randrange(256) for _ in range(db.stat().st_size)))  # every byte garbage
    app = create_app({"DATA_DIR": str(data), "TESTING": True})
    report = app.extensions["store_report"]
    assert len(report) == 1 and "was damaged" in report[0] and "3 table(s) came back" in report[0], report
    assert one_sentence(report[0])
    client = app.test_client()
    for name, n in (("a", 5), ("b", 40), ("c", 40)):
        t = made[name]
        assert state(client, t.code, t.host)["revision"] == n   # the backup's entries: it held 5 of a's 8
        assert f"{t.code} {n} entries from the backup companion-" in report[0]
        page = host_page(app, t)
        assert 'id="store-recovered"' in page and f"{n} entries" in page and "from the backup" in page
    close_app(app)


@pytest.mark.parametrize("cli", [True, False], ids=["sqlite3-recover", "row-by-row"])
def test_a_store_with_a_broken_header_is_read_back_whole(tmp_path, monkeypatch, cli):
    """A bad header is not taken for another program's file: the pages behind it are read back,
    so table ``a`` comes back with all 8 entries, newer than the backup."""
    if cli and not __import__("shutil").which("sqlite3"):
        pytest.skip("the sqlite3 command is not installed")
    if not cli:
        from companion.table.store import sqlite_recover
        monkeypatch.setattr(sqlite_recover.shutil, "which", lambda name: None)
    data = tmp_path / "data"
    made = made_with_a_backup(data)
    db = data / "companion.sqlite3"
    with open(db, "r+b") as f:
        f.write(os.urandom(100))
    app = create_app({"DATA_DIR": str(data), "TESTING": True})
    report = app.extensions["store_report"]
    assert len(report) == 1 and "was damaged" in report[0] and "not a Dune Table Companion" not in report[0]
    client = app.test_client()
    assert state(client, made["a"].code, made["a"].host)["revision"] == 8
    assert f"{made['a'].code} 8 entries from the damaged file" in report[0]
    for name in ("b", "c"):
        assert state(client, made[name].code, made[name].host)["revision"] == 40
    r = client.post(f"/api/tables/{made['a'].code}/actions", headers=bearer(made["a"].host),
                    json={"type": "storm.set", "sector": 3, "revision": 8})
    assert r.status_code == 200   # and the table goes on
    close_app(app)

"""The store interface, run against both backends in one run: SQLite (always) and PostgreSQL
(``COMPANION_TEST_DATABASE``; see conftest). Same promises on both: one transaction per entry,
StaleWrite on a concurrent append, one winner per seat claim, every process hears every write."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from companion.table.store import StaleWrite, Store, TableDamaged, open_store
from conftest import ROOT

CONFIG = {"factions": ["atreides", "fremen"], "turns": 10, "options": {}}


@pytest.fixture()
def target(backend, database, tmp_path):
    """What open_store gets: the test's PostgreSQL schema URL or an SQLite file."""
    return database or str(tmp_path / "data" / "companion.sqlite3")


@pytest.fixture()
def store(target):
    s = open_store(target)
    yield s
    s.close()


def entry(store, code, seq, seat="host", **payload):
    return store.append_event(code, seq, seat, "storm.set", payload or {"sector": seq}, None, f"entry {seq + 1}")


def wait_for(predicate, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def test_the_backend_is_the_one_asked_for(store, backend):
    assert store.backend == backend
    assert isinstance(store, Store)


def test_tables_seats_and_entries_round_trip(store):
    store.create_table("ABCDE", CONFIG, {"host": "h-token", "atreides": "a-token", "fremen": "f-token"})
    assert store.table_exists("ABCDE") and not store.table_exists("ZZZZZ")
    assert store.table_config("ABCDE") == CONFIG and store.table_config("ZZZZZ") is None
    assert [t["code"] for t in store.list_tables()] == ["ABCDE"]
    assert store.seat_for_token("ABCDE", "h-token") == "host"
    assert store.seat_for_token("ABCDE", "a-token") == "atreides"
    assert store.seat_for_token("ABCDE", "nope") is None
    assert store.seat_status("ABCDE") == {"atreides": False, "fremen": False}

    ts = 1_700_000_000.123456
    assert store.append_event("ABCDE", 0, "atreides", "spice.set", {"faction": "atreides", "amount": 12},
                              "atreides", "Atreides: 12 spice", ts) == 1
    assert entry(store, "ABCDE", 1) == 2
    events = store.events("ABCDE")
    assert [e["seq"] for e in events] == [1, 2]
    assert events[0] == {"seq": 1, "seat": "atreides", "type": "spice.set",
                         "payload": {"faction": "atreides", "amount": 12}, "ts": ts,
                         "secret_for": "atreides", "summary": "Atreides: 12 spice"}
    assert store.head("ABCDE") == 2 and store.head("ZZZZZ") == 0

    # a re-issued credential cancels the old one
    store.add_seat("ABCDE", "fremen", "f-new", claimed=False, replace=True)
    assert store.seat_for_token("ABCDE", "f-token") is None
    assert store.seat_for_token("ABCDE", "f-new") == "fremen"
    # a board credential is added beside the others
    store.add_seat("ABCDE", "board", "b-token", claimed=True, replace=False)
    assert store.seat_for_token("ABCDE", "b-token") == "board"
    # taking a seat: the first phone wins, the second is refused and the winner keeps it
    assert store.take_seat("ABCDE", "atreides", "phone-1") is True
    assert store.take_seat("ABCDE", "atreides", "phone-2") is False
    assert store.seat_for_token("ABCDE", "phone-1") == "atreides"
    assert store.seat_for_token("ABCDE", "a-token") is None
    assert store.seat_status("ABCDE") == {"atreides": True, "fremen": False}


def test_an_append_on_a_stale_revision_is_refused_and_changes_nothing(store):
    store.create_table("ABCDE", CONFIG, {"host": "h"})
    entry(store, "ABCDE", 0)
    entry(store, "ABCDE", 1)
    with pytest.raises(StaleWrite) as exc:
        entry(store, "ABCDE", 1, sector=17)
    assert exc.value.current == 2
    assert [e["payload"] for e in store.events("ABCDE")] == [{"sector": 0}, {"sector": 1}]


def test_an_import_keeps_every_entry_and_its_numbering(store):
    events = [{"seq": i, "seat": "host", "type": "storm.set", "payload": {"sector": i}, "ts": 100.0 + i,
               "secret_for": None, "summary": f"storm {i}"} for i in range(1, 6)]
    store.import_table("IMPRT", CONFIG, {"host": "h", "atreides": "a"}, events)
    assert store.events("IMPRT") == events
    assert entry(store, "IMPRT", 5) == 6
    with pytest.raises(StaleWrite):
        entry(store, "IMPRT", 3)


def test_two_writers_racing_for_the_same_entry_number_one_wins(target):
    """Separate store objects (separate connections), many threads, the same revision each round:
    exactly one append per revision succeeds, the others get StaleWrite with the winner's number."""
    stores = [open_store(target) for _ in range(3)]
    try:
        stores[0].create_table("RACES", CONFIG, {"host": "h"})
        for rnd in range(8):
            results = []
            barrier = threading.Barrier(6)

            def write(s, i):
                barrier.wait()
                try:
                    results.append(("ok", entry(s, "RACES", rnd, sector=i)))
                except StaleWrite as exc:
                    results.append(("stale", exc.current))
            threads = [threading.Thread(target=write, args=(stores[i % 3], i)) for i in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(results) == [("ok", rnd + 1)] + [("stale", rnd + 1)] * 5, results
        assert [e["seq"] for e in stores[1].events("RACES")] == list(range(1, 9))
    finally:
        for s in stores:
            s.close()


def test_two_phones_claiming_one_seat_at_once_leave_one_winner(target):
    stores = [open_store(target) for _ in range(2)]
    try:
        stores[0].create_table("SEATS", CONFIG, {"host": "h", "atreides": "a", "fremen": "f"})
        for rnd in range(5):
            seat = "atreides" if rnd % 2 == 0 else "fremen"
            stores[0].add_seat("SEATS", seat, f"fresh-{rnd}", claimed=False, replace=True)  # free the seat
            won = []
            barrier = threading.Barrier(6)

            def claim(i):
                barrier.wait()
                if stores[i % 2].take_seat("SEATS", seat, f"phone-{rnd}-{i}"):
                    won.append(i)
            threads = [threading.Thread(target=claim, args=(i,)) for i in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert len(won) == 1, won
            assert stores[1].seat_for_token("SEATS", f"phone-{rnd}-{won[0]}") == seat
    finally:
        for s in stores:
            s.close()


def test_subscribe_hears_appends_from_another_store_object(target):
    listener, writer = open_store(target), open_store(target)
    heard = []
    try:
        unsubscribe = listener.subscribe(lambda code, seq: heard.append((code, seq)))
        writer.create_table("HEARD", CONFIG, {"host": "h"})
        for seq in range(3):
            entry(writer, "HEARD", seq)
        assert wait_for(lambda: ("HEARD", 3) in heard), heard
        assert all(code == "HEARD" and 1 <= seq <= 3 for code, seq in heard)
        unsubscribe()
        entry(writer, "HEARD", 3)
        time.sleep(0.4)
        assert ("HEARD", 4) not in heard
    finally:
        listener.close()
        writer.close()


WRITER = """
import json, sys, time
from companion.table.store import open_store, StaleWrite
store = open_store(sys.argv[1])
code, n = sys.argv[2], int(sys.argv[3])
done = stale = 0
while done < n:
    head = store.head(code)
    try:
        store.append_event(code, head, "host", "storm.set", {"sector": 1 + done % 18}, None, sys.argv[4])
        done += 1
    except StaleWrite:
        stale += 1
print(json.dumps({"done": done, "stale": stale}))
"""


def run_writers(target, code, n, count=2):
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, target, code, str(n), f"process {i}"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=str(ROOT))
             for i in range(count)]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr.decode()
        out.append(json.loads(stdout))
    return out


def test_two_processes_appending_to_one_table_lose_nothing_and_hear_each_other(store, target):
    """Two other processes append to one table as fast as they can, each retrying on StaleWrite;
    this process subscribes and hears their writes up to the last one."""
    store.create_table("PROCS", CONFIG, {"host": "h"})
    heard = []
    store.subscribe(lambda code, seq: heard.append((code, seq)))
    results = run_writers(target, "PROCS", 40)
    assert [r["done"] for r in results] == [40, 40]
    events = store.events("PROCS")
    assert [e["seq"] for e in events] == list(range(1, 81))
    assert sorted(e["summary"] for e in events) == ["process 0"] * 40 + ["process 1"] * 40
    assert wait_for(lambda: ("PROCS", 80) in heard), heard[-3:]
    seqs = [seq for _, seq in heard]
    assert seqs == sorted(seqs)  # reported in order, each process's writes included


def test_unknown_database_kinds_are_refused_in_one_sentence():
    with pytest.raises(ValueError, match="Unknown database"):
        open_store("mysql://somewhere/db")


def test_garbage_in_one_tables_rows_is_reported_for_that_table_only(store, backend, target):
    store.create_table("GOODT", CONFIG, {"host": "h"})
    store.create_table("BADTT", CONFIG, {"host": "h2"})
    for seq in range(3):
        entry(store, "GOODT", seq)
        entry(store, "BADTT", seq)
    raw_update(backend, target, "UPDATE events SET payload = '{not json' WHERE table_code = 'BADTT' AND seq = 2")
    with pytest.raises(TableDamaged) as exc:
        store.events("BADTT")
    assert "BADTT" in exc.value.message and "entry 2" in exc.value.message and exc.value.retry is False
    assert [e["seq"] for e in store.events("GOODT")] == [1, 2, 3]


def raw_update(backend, target, sql):
    if backend == "sqlite":
        import sqlite3
        with sqlite3.connect(target) as conn:
            conn.execute(sql)
        return
    import psycopg

    from companion.table.store.postgres import split_url
    conninfo, schema = split_url(target)
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute(f'SET search_path TO "{schema}"')
        conn.execute(sql)


def test_subscribe_seats_hears_claims_and_reissues_from_another_store_object(target):
    listener, writer = open_store(target), open_store(target)
    heard = []
    try:
        writer.create_table("SEATH", CONFIG, {"host": "h", "atreides": "a", "fremen": "f"})
        unsubscribe = listener.subscribe_seats(heard.append)
        entries = []
        listener.subscribe(lambda code, seq: entries.append((code, seq)))
        assert writer.take_seat("SEATH", "atreides", "phone-a") is True
        assert wait_for(lambda: heard.count("SEATH") >= 1), heard
        writer.add_seat("SEATH", "fremen", "f-new", claimed=False, replace=True)   # a re-issue
        assert wait_for(lambda: heard.count("SEATH") >= 2), heard
        assert writer.take_seat("SEATH", "atreides", "phone-b") is False           # refused: no news
        time.sleep(0.3)
        assert heard.count("SEATH") == 2 and entries == []
        unsubscribe()
        writer.take_seat("SEATH", "fremen", "phone-f")
        time.sleep(0.3)
        assert heard.count("SEATH") == 2
    finally:
        listener.close()
        writer.close()


def test_a_store_from_the_previous_version_opens_and_keeps_everything(tmp_path):
    """An SQLite file written before the store knew about heads and seat_heads: it opens, every
    entry is there, the next entry gets the next number, and other processes hear it."""
    import sqlite3
    path = tmp_path / "companion.sqlite3"
    old_schema = """
    CREATE TABLE tables (code TEXT PRIMARY KEY, created REAL NOT NULL, config TEXT NOT NULL);
    CREATE TABLE seats (token_hash TEXT PRIMARY KEY, table_code TEXT NOT NULL REFERENCES tables(code),
        role TEXT NOT NULL, active INTEGER NOT NULL DEFAULT 1, claimed INTEGER NOT NULL DEFAULT 0,
        issued REAL NOT NULL);
    CREATE INDEX seats_by_table ON seats(table_code, role);
    CREATE TABLE events (table_code TEXT NOT NULL REFERENCES tables(code), seq INTEGER NOT NULL,
        seat TEXT NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL, ts REAL NOT NULL, secret_for TEXT,
        summary TEXT NOT NULL DEFAULT '', PRIMARY KEY (table_code, seq));
    """
    with sqlite3.connect(path) as conn:
        conn.executescript(old_schema)
        conn.execute("INSERT INTO tables VALUES ('OLDTB', 1.0, ?)", (json.dumps(CONFIG),))
        for seq in (1, 2, 3):
            conn.execute("INSERT INTO events VALUES ('OLDTB', ?, 'host', 'storm.set', ?, 1.0, NULL, 's')",
                         (seq, json.dumps({"sector": seq})))
    store, other = open_store(path), open_store(path)
    try:
        assert store.report == []
        assert [e["seq"] for e in store.events("OLDTB")] == [1, 2, 3]
        heard = []
        store.subscribe(lambda code, seq: heard.append((code, seq)))
        with pytest.raises(StaleWrite):
            entry(other, "OLDTB", 2)
        assert entry(other, "OLDTB", 3) == 4
        assert wait_for(lambda: ("OLDTB", 4) in heard), heard
    finally:
        store.close()
        other.close()

"""Embedded storage: one SQLite file holds every table, seat credential and entry.

Entries are append-only. An undo is itself an entry naming the entry it undoes; nothing is
ever updated or deleted, so the history is complete and a restart replays it exactly.
Each write is one transaction with ``synchronous=FULL``: once a request is acknowledged its
entry survives a ``kill -9`` or a power cut.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    code TEXT PRIMARY KEY,
    created REAL NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    token_hash TEXT PRIMARY KEY,
    table_code TEXT NOT NULL REFERENCES tables(code),
    role TEXT NOT NULL,              -- 'host', 'board' or a faction id
    active INTEGER NOT NULL DEFAULT 1,
    claimed INTEGER NOT NULL DEFAULT 0,
    issued REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS seats_by_table ON seats(table_code, role);
CREATE TABLE IF NOT EXISTS events (
    table_code TEXT NOT NULL REFERENCES tables(code),
    seq INTEGER NOT NULL,
    seat TEXT NOT NULL,              -- who entered it: 'host' or a faction id
    type TEXT NOT NULL,
    payload TEXT NOT NULL,           -- JSON
    ts REAL NOT NULL,
    secret_for TEXT,                 -- faction whose secret the payload is, or NULL
    summary TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (table_code, seq)
);
"""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Store:
    def __init__(self, path: str | Path):
        self.path = str(path)
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._conn().executescript(SCHEMA)

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            conn.row_factory = sqlite3.Row
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._local.conn = conn
        return conn

    class _Tx:
        def __init__(self, conn):
            self.conn = conn

        def __enter__(self):
            self.conn.execute("BEGIN IMMEDIATE")
            return self.conn

        def __exit__(self, exc_type, exc, tb):
            if exc_type is None:
                self.conn.execute("COMMIT")
            else:
                self.conn.execute("ROLLBACK")
            return False

    def _tx(self):
        return self._Tx(self._conn())

    # -- tables and seats ----------------------------------------------------------------------
    def create_table(self, code: str, config: dict, seats: dict[str, str]) -> None:
        """``seats`` maps role -> token (the host token included)."""
        self.import_table(code, config, seats, [])

    def table_exists(self, code: str) -> bool:
        return self._conn().execute("SELECT 1 FROM tables WHERE code=?", (code,)).fetchone() is not None

    def table_config(self, code: str) -> dict | None:
        row = self._conn().execute("SELECT config FROM tables WHERE code=?", (code,)).fetchone()
        return json.loads(row["config"]) if row else None

    def list_tables(self) -> list[dict]:
        rows = self._conn().execute("SELECT code, created, config FROM tables ORDER BY created DESC").fetchall()
        return [{"code": r["code"], "created": r["created"], "config": json.loads(r["config"])} for r in rows]

    def seat_for_token(self, code: str, token: str) -> str | None:
        row = self._conn().execute(
            "SELECT role FROM seats WHERE token_hash=? AND table_code=? AND active=1",
            (token_hash(token), code)).fetchone()
        return row["role"] if row else None

    def add_seat(self, code: str, role: str, token: str, *, claimed: bool, replace: bool) -> None:
        """Issue a credential; with ``replace`` every earlier credential for that role is cancelled."""
        with self._tx() as db:
            if replace:
                db.execute("UPDATE seats SET active=0 WHERE table_code=? AND role=?", (code, role))
            db.execute("INSERT INTO seats(token_hash, table_code, role, active, claimed, issued) VALUES (?,?,?,1,?,?)",
                       (token_hash(token), code, role, 1 if claimed else 0, time.time()))

    def take_seat(self, code: str, role: str, token: str) -> bool:
        """A phone takes a free seat with a fresh credential, in one transaction: refused if a
        phone already holds it; otherwise every earlier credential of the seat is cancelled.
        (Two phones tapping the same seat at once: one wins, and nobody cancels the winner.)"""
        with self._tx() as db:
            if db.execute("SELECT 1 FROM seats WHERE table_code=? AND role=? AND active=1 AND claimed=1",
                          (code, role)).fetchone():
                return False
            db.execute("UPDATE seats SET active=0 WHERE table_code=? AND role=?", (code, role))
            db.execute("INSERT INTO seats(token_hash, table_code, role, active, claimed, issued) VALUES (?,?,?,1,1,?)",
                       (token_hash(token), code, role, time.time()))
            return True

    def seat_status(self, code: str) -> dict[str, bool]:
        """role -> claimed, for the active credential of each faction seat."""
        rows = self._conn().execute(
            "SELECT role, MAX(claimed) AS claimed FROM seats WHERE table_code=? AND active=1 "
            "AND role NOT IN ('host','board') GROUP BY role", (code,)).fetchall()
        return {r["role"]: bool(r["claimed"]) for r in rows}

    # -- events --------------------------------------------------------------------------------
    def append_event(self, code: str, expected_seq: int, seat: str, type_: str, payload: dict,
                     secret_for: str | None, summary: str, ts: float | None = None) -> int:
        """Append entry number ``expected_seq + 1``; refuses if someone else got there first."""
        with self._tx() as db:
            row = db.execute("SELECT COALESCE(MAX(seq), 0) AS n FROM events WHERE table_code=?", (code,)).fetchone()
            if row["n"] != expected_seq:
                raise StaleWrite(row["n"])
            seq = expected_seq + 1
            db.execute("INSERT INTO events(table_code, seq, seat, type, payload, ts, secret_for, summary) "
                       "VALUES (?,?,?,?,?,?,?,?)",
                       (code, seq, seat, type_, json.dumps(payload, sort_keys=True), ts or time.time(),
                        secret_for, summary))
            return seq

    def events(self, code: str) -> list[dict]:
        rows = self._conn().execute(
            "SELECT seq, seat, type, payload, ts, secret_for, summary FROM events WHERE table_code=? ORDER BY seq",
            (code,)).fetchall()
        return [{"seq": r["seq"], "seat": r["seat"], "type": r["type"], "payload": json.loads(r["payload"]),
                 "ts": r["ts"], "secret_for": r["secret_for"], "summary": r["summary"]} for r in rows]

    def import_table(self, code: str, config: dict, seats: dict[str, str], events: list[dict]) -> None:
        """A table with its credentials and (when restoring an export) its entries, in one transaction."""
        now = time.time()
        with self._tx() as db:
            db.execute("INSERT INTO tables(code, created, config) VALUES (?,?,?)", (code, now, json.dumps(config)))
            for role, token in seats.items():
                db.execute("INSERT INTO seats(token_hash, table_code, role, active, claimed, issued) "
                           "VALUES (?,?,?,1,?,?)", (token_hash(token), code, role, 1 if role == "host" else 0, now))
            for e in events:
                db.execute("INSERT INTO events(table_code, seq, seat, type, payload, ts, secret_for, summary) "
                           "VALUES (?,?,?,?,?,?,?,?)",
                           (code, e["seq"], e["seat"], e["type"], json.dumps(e["payload"], sort_keys=True),
                            e["ts"], e.get("secret_for"), e.get("summary", "")))


class StaleWrite(Exception):
    def __init__(self, current: int):
        super().__init__(f"stale write: the table is at revision {current}")
        self.current = current

"""Embedded storage: one SQLite file holds every table, seat credential and entry.

Entries are append-only. An undo is itself an entry naming the entry it undoes; nothing is
ever updated or deleted, so the history is complete and a restart replays it exactly.
Each write is one transaction with ``synchronous=FULL``: once a request is acknowledged its
entry survives a ``kill -9`` or a power cut.

Faults: every SQLite error that is the storage's fault (disk full, read-only, locked, I/O) is
raised as ``StorageUnavailable`` with one sentence saying what to do, and every thread's
connection is dropped, so the next request opens a fresh one: when the fault clears, writes work
again without a restart. The file itself (the start-up check, salvage of a damaged file, the
timestamped backups) is looked after by ``sqlite_files``.

Other processes: ``subscribe`` watches ``PRAGMA data_version`` on a dedicated connection (it
changes whenever any other connection, in any process, commits) and reads which tables moved
from the small ``heads`` table that every append updates in its own transaction.
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path

from .base import (AnswerTaken, CodeTaken, StaleWrite, StorageUnavailable, Store, answer_row, check_config, check_row,
                   listed_table, log, token_hash)
from .sqlite_files import SQLiteFiles, _stamp, fault_message

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    code TEXT PRIMARY KEY,
    created REAL NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    token_hash TEXT PRIMARY KEY,
    table_code TEXT NOT NULL REFERENCES tables(code),
    role TEXT NOT NULL,              -- 'host', 'board' or one of the game's seats
    active INTEGER NOT NULL DEFAULT 1,
    claimed INTEGER NOT NULL DEFAULT 0,
    issued REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS seats_by_table ON seats(table_code, role);
CREATE TABLE IF NOT EXISTS events (
    table_code TEXT NOT NULL REFERENCES tables(code),
    seq INTEGER NOT NULL,
    seat TEXT NOT NULL,              -- who entered it: 'host' or one of the game's seats
    type TEXT NOT NULL,
    payload TEXT NOT NULL,           -- JSON
    ts REAL NOT NULL,
    secret_for TEXT,                 -- the seat whose secret the payload is, or NULL
    summary TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (table_code, seq)
);
-- the latest entry of each table; tick grows by one with every append (any process), so a
-- watcher learns which tables moved with one indexed query
CREATE TABLE IF NOT EXISTS heads (
    table_code TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    tick INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS heads_by_tick ON heads(tick);
-- the same for seat credentials (issued, re-issued, claimed): other processes wake their
-- 'seats' streams
CREATE TABLE IF NOT EXISTS seat_heads (
    table_code TEXT PRIMARY KEY,
    tick INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS seat_heads_by_tick ON seat_heads(tick);
"""

# made on the first request sent with a key (a store that never saw one keeps its file as it was)
ANSWERS_SCHEMA = """
-- the answer to each request sent with an Idempotency-Key, kept for the table's life: a repeat
-- of the request is answered this again (seq: the entry it made, or NULL for a refusal)
CREATE TABLE IF NOT EXISTS answers (
    table_code TEXT NOT NULL REFERENCES tables(code),
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,       -- a hash of who sent what where: the same key with another body is refused
    status INTEGER NOT NULL,
    body TEXT NOT NULL,              -- JSON
    seq INTEGER,
    ts REAL NOT NULL,
    PRIMARY KEY (table_code, key)
);
"""

BUSY_TIMEOUT = 5.0          # seconds a write waits for another writer before answering 503
POLL_INTERVAL = 0.05        # seconds between data_version checks of the watcher


class SQLiteStore(SQLiteFiles, Store):
    backend = "sqlite"

    def __init__(self, path, *, check: bool = True, keep_backups: int = 5, backup_dir=None,
                 poll_interval: float = POLL_INTERVAL, busy_timeout: float = BUSY_TIMEOUT,
                 backup_at_start: bool = True):
        super().__init__()
        path = str(path)
        if path.startswith("sqlite:///"):
            path = path[len("sqlite:///") - 1:] if path.startswith("sqlite:////") else path[len("sqlite:///"):]
        self.path = path
        self.keep_backups = keep_backups
        self.backup_dir = Path(backup_dir) if backup_dir else Path(self.path).parent / "backups"
        self.poll_interval = poll_interval
        self.busy_timeout = busy_timeout
        self._local = threading.local()
        self._generation = 0          # bumped on a fault: every thread reopens its connection
        self._in_fault = False        # a fault was seen and no write has succeeded since
        self._ready = False           # schema ensured
        self._ready_lock = threading.Lock()
        self._watcher: threading.Thread | None = None
        self._last_export_backup = 0.0
        self._damaged_at_start = False
        self._vanished: str | None = None  # the store's file or journal was removed/replaced under it
        Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        if check:
            self._check_at_start()
        try:
            self._ensure_schema()
        except StorageUnavailable as exc:   # e.g. read-only or locked at start: serve 503s, recover later
            self.report.append(exc.message)
        if not self._writable():  # e.g. a read-only data folder: say so, and recover once it is writable
            self._in_fault = True
            self.report.append(f"The data folder {Path(self.path).parent} is read-only: the tables are shown, but "
                               f"no entry can be saved until the server may write there again (no restart needed).")
        elif backup_at_start and keep_backups > 0 and not self._damaged_at_start:
            try:
                if self._has_tables():
                    self.backup("start")
            except (StorageUnavailable, OSError, sqlite3.Error) as exc:
                self.report.append(f"No start-up backup could be taken ({exc}); the tables are served anyway.")
        # no connection opened at start-up stays open: one opened while the files could not be
        # written would keep every later one of this process read-only (SQLite shares its journal
        # index per file), so a fault would never clear without a restart
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._drop(conn)

    def _writable(self) -> bool:
        folder = Path(self.path).parent
        files = [Path(self.path + suffix) for suffix in ("", "-wal", "-shm")]
        return os.access(folder, os.W_OK) and all(os.access(f, os.W_OK) for f in files if f.exists())

    def describe(self) -> str:
        return f"SQLite file {self.path}"

    # -- connections -------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None,
                               check_same_thread=False)
        conn.row_factory = sqlite3.Row
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("PRAGMA foreign_keys=ON")
        return conn

    def _conn(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is not None and getattr(self._local, "generation", None) != self._generation:
            self._drop(conn)
            conn = None
        if conn is None:
            try:
                conn = self._connect()
            except sqlite3.Error as exc:
                self._fault(exc)
            self._local.conn, self._local.generation = conn, self._generation
            self._local.ident = self._identity(conn)
            # opened during a fault (e.g. while the folder was read-only): such a connection may
            # stay read-only for good, so the next write opens a fresh one
            self._local.suspect = self._in_fault
        if not self._ready:
            self._ensure_schema(conn)
        return conn

    # -- the files under the open connection -------------------------------------------------------
    def _identity(self, conn) -> tuple | None:
        """(device, inode) of the store file and of its WAL journal as this connection opened them."""
        try:
            conn.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # opens (creates) the journal
            return tuple((st.st_dev, st.st_ino) for st in (os.stat(self.path), os.stat(self.path + "-wal")))
        except (OSError, sqlite3.Error):
            return None

    def _moved(self) -> str | None:
        """Why the files at the store's path are no longer the ones this thread's connection writes
        into (removed or replaced while the server runs), or None."""
        ident = getattr(self._local, "ident", None)
        if ident is None:
            return None
        for (dev, ino), suffix in zip(ident, ("", "-wal")):
            try:
                st = os.stat(self.path + suffix)
            except OSError:
                return f"{Path(self.path).name}{suffix} was removed"
            if (st.st_dev, st.st_ino) != (dev, ino):
                return f"{Path(self.path).name}{suffix} was replaced by another file"
        return None

    def _vanish(self, conn, why: str):
        """The store's file or journal left under the running server: save what this connection
        still reads (its journal into the store file if only the journal went; else a copy among the
        backups), refuse every write from now on with a 503 (a restart opens the files afresh)."""
        saved = ""
        try:
            if why.startswith(Path(self.path).name + "-wal"):
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                saved = " The entries saved before were written into the store file."
            else:
                self.backup_dir.mkdir(parents=True, exist_ok=True)
                final = self.backup_dir / f"companion-{_stamp()}-rescue.sqlite3"
                dst = sqlite3.connect(str(final))
                try:
                    conn.backup(dst)
                finally:
                    dst.close()
                saved = f" The entries saved before are kept in {final}."
        except (OSError, sqlite3.Error) as exc:
            log.error("store %s: nothing could be rescued from the open connection (%s)", self.path, exc)
        self._vanished = (f"The table's storage {why} while the server was running, so the entry was not "
                          f"saved: restart the server.{saved}")
        log.error("%s", self._vanished)
        self._generation += 1
        raise StorageUnavailable(self._vanished)

    def _drop(self, conn) -> None:
        try:
            conn.close()
        except Exception:  # noqa: BLE001
            pass
        if getattr(self._local, "conn", None) is conn:
            self._local.conn = None

    def _fault(self, exc: sqlite3.Error):
        """Drop every thread's connection (they reopen on next use) and raise the 503 error."""
        self._generation += 1
        self._in_fault = True
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._drop(conn)
        log.warning("storage fault on %s: %s", self.path, exc)
        raise StorageUnavailable(fault_message(exc)) from exc

    def _ensure_schema(self, conn=None) -> None:
        with self._ready_lock:
            if self._ready:
                return
            own = conn is None
            try:
                if own:
                    conn = self._connect()
                fresh = conn.execute("SELECT 1 FROM sqlite_master WHERE name='heads'").fetchone() is None
                conn.executescript(SCHEMA)
                if fresh:  # a store from before heads existed: note every table's latest entry
                    conn.execute("INSERT OR IGNORE INTO heads(table_code, seq, tick) "
                                 "SELECT table_code, MAX(seq), 0 FROM events GROUP BY table_code")
                self._ready = True
            except sqlite3.Error as exc:
                if own and conn is not None:
                    conn.close()
                self._generation += 1
                raise StorageUnavailable(fault_message(exc)) from exc
            if own:
                conn.close()

    class _Tx:
        def __init__(self, store: "SQLiteStore"):
            self.store = store

        def __enter__(self):
            store = self.store
            if store._vanished:
                raise StorageUnavailable(store._vanished)
            self.conn = store._conn()
            if getattr(store._local, "suspect", False):
                store._drop(self.conn)
                self.conn = store._conn()
            try:
                self.conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                self.store._fault(exc)
            return self.conn

        def __exit__(self, exc_type, exc, tb):
            if exc_type is None:
                moved = self.store._moved()  # acknowledged means findable after a restart
                if moved:
                    self._rollback()
                    self.store._vanish(self.conn, moved)
                try:
                    self.conn.execute("COMMIT")
                except sqlite3.Error as err:
                    self._rollback()
                    self.store._fault(err)
                self.store._in_fault = False   # writes work again
                self.store._local.suspect = False
                return False
            self._rollback()
            if isinstance(exc, sqlite3.Error) and not isinstance(exc, sqlite3.IntegrityError):
                self.store._fault(exc)
            return False

        def _rollback(self):
            try:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass

    def _tx(self):
        return self._Tx(self)

    def _read(self, sql: str, args=(), one: bool = False):
        cached = getattr(self._local, "conn", None)
        if self._in_fault and (cached is None or getattr(self._local, "generation", None) != self._generation):
            # during a fault reads use a connection of their own, closed at once: none opened
            # while the files cannot be written lingers to keep the next ones read-only
            if cached is not None:
                self._drop(cached)
            try:
                conn = self._connect()
            except sqlite3.Error as exc:
                self._fault(exc)
            try:
                cur = conn.execute(sql, args)
                return cur.fetchone() if one else cur.fetchall()
            except sqlite3.Error as exc:
                self._fault(exc)
            finally:
                conn.close()
        conn = self._conn()
        try:
            cur = conn.execute(sql, args)
            return cur.fetchone() if one else cur.fetchall()
        except sqlite3.Error as exc:
            self._fault(exc)

    # -- tables and seats ----------------------------------------------------------------------
    def table_exists(self, code: str) -> bool:
        return self._read("SELECT 1 FROM tables WHERE code=?", (code,), one=True) is not None

    def table_config(self, code: str) -> dict | None:
        row = self._read("SELECT config FROM tables WHERE code=?", (code,), one=True)
        return check_config(code, row["config"]) if row else None

    def list_tables(self) -> list[dict]:
        return [listed_table(r) for r in self._read("SELECT code, created, config FROM tables ORDER BY created DESC")]

    def seat_for_token(self, code: str, token: str) -> str | None:
        row = self._read("SELECT role FROM seats WHERE token_hash=? AND table_code=? AND active=1",
                         (token_hash(token), code), one=True)
        return row["role"] if row else None

    def add_seat(self, code: str, role: str, token: str, *, claimed: bool, replace: bool) -> None:
        """Issue a credential; with ``replace`` every earlier credential for that role is cancelled."""
        with self._tx() as db:
            if replace:
                db.execute("UPDATE seats SET active=0 WHERE table_code=? AND role=?", (code, role))
            db.execute("INSERT INTO seats(token_hash, table_code, role, active, claimed, issued) VALUES (?,?,?,1,?,?)",
                       (token_hash(token), code, role, 1 if claimed else 0, time.time()))
            self._bump_seats(db, code)

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
            self._bump_seats(db, code)
            return True

    def seat_status(self, code: str) -> dict[str, bool]:
        """role -> claimed, for the active credential of each game seat."""
        rows = self._read(
            "SELECT role, MAX(claimed) AS claimed FROM seats WHERE table_code=? AND active=1 "
            "AND role NOT IN ('host','board') GROUP BY role", (code,))
        return {r["role"]: bool(r["claimed"]) for r in rows}

    # -- events --------------------------------------------------------------------------------
    def append_event(self, code: str, expected_seq: int, seat: str, type_: str, payload: dict,
                     secret_for: str | None, summary: str, ts: float | None = None,
                     answer: tuple | None = None) -> int:
        """Append entry number ``expected_seq + 1``; refuses if someone else got there first."""
        with self._tx() as db:
            if answer is not None:
                self._ensure_answers(db)
                if db.execute("SELECT 1 FROM answers WHERE table_code=? AND key=?", (code, answer[0])).fetchone():
                    raise AnswerTaken(code, answer[0])
            row = db.execute("SELECT COALESCE(MAX(seq), 0) AS n FROM events WHERE table_code=?", (code,)).fetchone()
            if row["n"] != expected_seq:
                raise StaleWrite(row["n"])
            seq = expected_seq + 1
            db.execute("INSERT INTO events(table_code, seq, seat, type, payload, ts, secret_for, summary) "
                       "VALUES (?,?,?,?,?,?,?,?)",
                       (code, seq, seat, type_, json.dumps(payload, sort_keys=True), ts or time.time(),
                        secret_for, summary))
            if answer is not None:
                self._insert_answer(db, code, answer, seq)
            self._bump_head(db, code, seq)
            return seq

    @staticmethod
    def _insert_answer(db, code: str, answer: tuple, seq: int | None) -> None:
        key, fingerprint, status, body = answer
        db.execute("INSERT INTO answers(table_code, key, fingerprint, status, body, seq, ts) VALUES (?,?,?,?,?,?,?)",
                   (code, key, fingerprint, status, json.dumps(body, sort_keys=True), seq, time.time()))

    @staticmethod
    def _ensure_answers(db) -> None:
        db.execute(ANSWERS_SCHEMA.strip().rstrip(";"))

    def answer(self, code: str, key: str) -> dict | None:
        if self._read("SELECT 1 FROM sqlite_master WHERE type='table' AND name='answers'", one=True) is None:
            return None
        row = self._read("SELECT fingerprint, status, body, seq FROM answers WHERE table_code=? AND key=?",
                         (code, key), one=True)
        return answer_row(row) if row else None

    def keep_answer(self, code: str, key: str, fingerprint: str, status: int, body: dict) -> dict:
        with self._tx() as db:
            self._ensure_answers(db)
            row = db.execute("SELECT fingerprint, status, body, seq FROM answers WHERE table_code=? AND key=?",
                             (code, key)).fetchone()
            if row is not None:
                return answer_row(row)
            self._insert_answer(db, code, (key, fingerprint, status, body), None)
        return {"fingerprint": fingerprint, "status": status, "body": body, "seq": None}

    @staticmethod
    def _bump_head(db, code: str, seq: int) -> None:
        db.execute("INSERT INTO heads(table_code, seq, tick) "
                   "VALUES (?, ?, (SELECT COALESCE(MAX(tick), 0) + 1 FROM heads)) "
                   "ON CONFLICT(table_code) DO UPDATE SET seq=excluded.seq, tick=excluded.tick",
                   (code, seq))

    @staticmethod
    def _bump_seats(db, code: str) -> None:
        db.execute("INSERT INTO seat_heads(table_code, tick) "
                   "VALUES (?, (SELECT COALESCE(MAX(tick), 0) + 1 FROM seat_heads)) "
                   "ON CONFLICT(table_code) DO UPDATE SET tick=excluded.tick", (code,))

    def events(self, code: str) -> list[dict]:
        rows = self._read(
            "SELECT seq, seat, type, payload, ts, secret_for, summary FROM events WHERE table_code=? ORDER BY seq",
            (code,))
        return [check_row(code, r) for r in rows]

    def events_since(self, code: str, after: int) -> list[dict]:
        rows = self._read(
            "SELECT seq, seat, type, payload, ts, secret_for, summary FROM events WHERE table_code=? AND seq>? "
            "ORDER BY seq", (code, after))
        return [check_row(code, r) for r in rows]

    def head(self, code: str) -> int:
        row = self._read("SELECT COALESCE(MAX(seq), 0) AS n FROM events WHERE table_code=?", (code,), one=True)
        return row["n"]

    def import_table(self, code: str, config: dict, seats: dict[str, str], events: list[dict]) -> None:
        """A table with its credentials and (when restoring an export) its entries, in one transaction."""
        now = time.time()
        try:
            self._import(code, config, seats, events, now)
        except sqlite3.IntegrityError as exc:  # the code was taken meanwhile (another process's import)
            if self.table_exists(code):
                raise CodeTaken(code) from exc
            raise

    def _import(self, code: str, config: dict, seats: dict[str, str], events: list[dict], now: float) -> None:
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
            if events:
                self._bump_head(db, code, events[-1]["seq"])

    # -- other processes' writes -----------------------------------------------------------------
    def _start_watcher(self) -> None:
        if self._watcher is not None and self._watcher.is_alive():
            return
        conn, ticks = None, None
        try:
            if self._writable():  # (never a connection opened on files it cannot write: see _watch)
                conn = self._watch_connection()
                ticks = self._ticks(conn)
        except (sqlite3.Error, StorageUnavailable) as exc:  # the watcher retries until the storage is back
            log.warning("store watcher could not start yet: %s", exc)
            if conn is not None:
                conn.close()
            conn, ticks = None, None
        self._watcher = threading.Thread(target=self._watch, args=(conn, ticks), name="store-watch", daemon=True)
        self._watcher.start()

    @staticmethod
    def _ticks(conn) -> list[int]:
        return [conn.execute("SELECT COALESCE(MAX(tick), 0) FROM heads").fetchone()[0],
                conn.execute("SELECT COALESCE(MAX(tick), 0) FROM seat_heads").fetchone()[0]]

    def _watch_connection(self) -> sqlite3.Connection:
        self._ensure_schema()
        conn = sqlite3.connect(self.path, timeout=self.busy_timeout, isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        return conn

    def _watch(self, conn, ticks) -> None:
        version = None
        while not self._closed.wait(self.poll_interval if conn is not None else 1.0):
            try:
                if conn is None:
                    if not self._writable():
                        # a connection opened on files this process cannot write would keep the
                        # next ones read-only (SQLite shares its journal index per file): no write
                        # could land after the folder is writable again, until a restart
                        continue
                    conn = self._watch_connection()
                    version = None
                    if ticks is None:
                        ticks = self._ticks(conn)
                v = conn.execute("PRAGMA data_version").fetchone()[0]
                if v != version:
                    version = v
                    rows = conn.execute("SELECT table_code, seq, tick FROM heads WHERE tick > ? ORDER BY tick",
                                        (ticks[0],)).fetchall()
                    for code, seq, t in rows:
                        ticks[0] = max(ticks[0], t)
                        self._publish(code, seq)
                    rows = conn.execute("SELECT table_code, tick FROM seat_heads WHERE tick > ? ORDER BY tick",
                                        (ticks[1],)).fetchall()
                    for code, t in rows:
                        ticks[1] = max(ticks[1], t)
                        self._publish_seats(code)
                if self._in_fault:  # not held open through a fault (see ``_read``), changed or not
                    conn.close()
                    conn = None
            except (sqlite3.Error, StorageUnavailable) as exc:
                log.warning("store watcher: %s (retrying)", exc)
                if conn is not None:
                    try:
                        conn.close()
                    except sqlite3.Error:
                        pass
                conn = None
        if conn is not None:
            conn.close()

    def close(self) -> None:
        super().close()
        if self._watcher is not None:
            self._watcher.join(2)
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            self._drop(conn)

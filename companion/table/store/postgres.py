"""PostgreSQL storage, for when one machine is outgrown: several server processes (on one host or
many, behind a reverse proxy) share one database.

The same promises as the SQLite store: one transaction per entry; the primary key
``(table_code, seq)`` makes two concurrent appends of the same entry number impossible, so the
loser gets ``StaleWrite``; a seat claim locks its table's row, so two phones tapping one seat
leave exactly one winner. Each append sends ``NOTIFY`` in its own transaction (delivered on
commit), and ``subscribe`` LISTENs on a dedicated connection, so every process on every host hears
every write. After a lost connection the listener reconnects and reports every table's head once,
so nothing that happened meanwhile goes unheard.

The URL is a libpq URL. Extra query parameters: ``schema=NAME`` keeps the companion's tables in
their own schema (created if missing), so several companions (or test runs) can share one
database; ``pool_size=N`` sets how many connections each process keeps (default 8).
"""
from __future__ import annotations

import json
import re
import threading
import time
from contextlib import contextmanager
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
import psycopg.rows
from psycopg import errors as pgerr

from .base import (AnswerTaken, CodeTaken, StaleWrite, StorageUnavailable, Store, answer_row, check_config, check_row,
                   listed_table, log,
                   token_hash)

SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    code TEXT PRIMARY KEY,
    created DOUBLE PRECISION NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    token_hash TEXT PRIMARY KEY,
    table_code TEXT NOT NULL REFERENCES tables(code),
    role TEXT NOT NULL,
    active BOOLEAN NOT NULL DEFAULT TRUE,
    claimed BOOLEAN NOT NULL DEFAULT FALSE,
    issued DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS seats_by_table ON seats(table_code, role);
CREATE TABLE IF NOT EXISTS events (
    table_code TEXT NOT NULL REFERENCES tables(code),
    seq INTEGER NOT NULL,
    seat TEXT NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    ts DOUBLE PRECISION NOT NULL,
    secret_for TEXT,
    summary TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (table_code, seq)
);
CREATE TABLE IF NOT EXISTS answers (
    table_code TEXT NOT NULL REFERENCES tables(code),
    key TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    body TEXT NOT NULL,
    seq INTEGER,
    ts DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_code, key)
);
"""

POOL_SIZE = 8            # connections per process (requests borrow one per store call)
POOL_WAIT = 10.0         # seconds a request waits for a free connection before answering 503
CONNECT_TIMEOUT = 5
NAME = re.compile(r"^[a-z_][a-z0-9_]{0,40}$")


def fault_message(exc: Exception) -> str:
    if isinstance(exc, (pgerr.DiskFull, pgerr.InsufficientResources, pgerr.OutOfMemory)):
        return ("The database server's disk is full, so the entry was not saved: free some space on "
                "it, then tap Retry.")
    if isinstance(exc, pgerr.ReadOnlySqlTransaction):
        return ("The database is read-only just now (a standby or maintenance), so the entry was not "
                "saved: tap Retry once it accepts writes again.")
    if isinstance(exc, (pgerr.LockNotAvailable, pgerr.QueryCanceled, pgerr.DeadlockDetected,
                        pgerr.SerializationFailure)):
        return "The table's database is busy: tap Retry in a moment."
    return ("The table's database server cannot be reached just now, so nothing was saved: tap Retry "
            "in a moment (the host should check that PostgreSQL is running).")


FAULTS = (psycopg.OperationalError, psycopg.InterfaceError, pgerr.ReadOnlySqlTransaction,
          pgerr.SerializationFailure, pgerr.DeadlockDetected)


OWN_PARAMS = ("schema", "pool_size")


def split_url(url: str) -> tuple[str, str | None]:
    """(libpq URL without our own parameters, schema or None)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schema = next((v for k, v in query if k == "schema"), None)
    rest = [(k, v) for k, v in query if k not in OWN_PARAMS]
    if schema is not None and not NAME.match(schema):
        raise ValueError(f"schema={schema!r}: use lower-case letters, digits and _")
    scheme = "postgresql" if parts.scheme in ("postgres", "postgresql") else parts.scheme
    return urlunsplit((scheme, parts.netloc, parts.path, urlencode(rest), parts.fragment)), schema


class PostgresStore(Store):
    backend = "postgresql"

    def __init__(self, url: str, *, pool_size: int = POOL_SIZE, pool_wait: float = POOL_WAIT, **_ignored):
        super().__init__()
        self.url = url
        self.conninfo, self.schema = split_url(url)
        asked = dict(parse_qsl(urlsplit(url).query)).get("pool_size")
        if asked is not None:
            if not asked.isdigit() or not 1 <= int(asked) <= 200:
                raise ValueError(f"pool_size={asked!r}: use a number of connections from 1 to 200")
            pool_size = int(asked)
        self.channel = "companion_events" + (f"_{self.schema}" if self.schema else "")
        self.pool_size, self.pool_wait = pool_size, pool_wait
        self._idle: list[psycopg.Connection] = []
        self._count = 0
        self._pool_cond = threading.Condition()
        self._listener: threading.Thread | None = None
        self._ready = False
        self._ready_lock = threading.Lock()
        try:
            self._ensure_schema()
        except StorageUnavailable as exc:  # not reachable at start: serve 503s, recover later
            self.report.append(exc.message)

    def describe(self) -> str:
        safe = re.sub(r"//([^:@/]*):[^@/]*@", r"//\1:***@", self.url)
        return f"PostgreSQL {safe}"

    # -- connections -------------------------------------------------------------------------------
    def _connect(self) -> psycopg.Connection:
        conn = psycopg.connect(self.conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT,
                               application_name="dune-table-companion")
        if self.schema:
            conn.execute(f'SET search_path TO "{self.schema}"')
        return conn

    def _ensure_schema(self) -> None:
        with self._ready_lock:
            if self._ready:
                return
            try:
                with psycopg.connect(self.conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as conn:
                    with conn.transaction():
                        # one process at a time creates the schema (several start together)
                        conn.execute("SELECT pg_advisory_xact_lock(7406531)")
                        if self.schema:
                            conn.execute(f'CREATE SCHEMA IF NOT EXISTS "{self.schema}"')
                            conn.execute(f'SET LOCAL search_path TO "{self.schema}"')
                        conn.execute(SCHEMA)
            except FAULTS as exc:
                raise StorageUnavailable(fault_message(exc)) from exc
            self._ready = True

    @contextmanager
    def _db(self, write: bool = False):
        """Borrow a connection for one store call; a connection that failed is thrown away. Before
        a write, a pooled connection is checked first (after a database restart every pooled
        connection is dead, and a write must not fail for that)."""
        if not self._ready:
            self._ensure_schema()
        conn = None
        with self._pool_cond:
            deadline = time.monotonic() + self.pool_wait
            while not self._idle and self._count >= self.pool_size:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise StorageUnavailable("The table's database is busy: tap Retry in a moment.")
                self._pool_cond.wait(left)
            if self._idle:
                conn = self._idle.pop()
            else:
                self._count += 1
        try:
            if conn is not None and write and not conn.closed:
                try:
                    conn.execute("SELECT 1")
                except FAULTS:
                    conn.close()
            if conn is None or conn.closed:
                conn = self._connect()
        except FAULTS as exc:
            self._release(None)
            raise StorageUnavailable(fault_message(exc)) from exc
        except BaseException:
            self._release(None)
            raise
        try:
            yield conn
        except FAULTS as exc:
            self._release(None, conn)
            log.warning("database fault: %s", exc)
            raise StorageUnavailable(fault_message(exc)) from exc
        except BaseException:
            self._release(conn)
            raise
        else:
            self._release(conn)

    def _release(self, conn, broken=None) -> None:
        if broken is not None:
            try:
                broken.close()
            except Exception:  # noqa: BLE001
                pass
        with self._pool_cond:
            if conn is not None and not conn.closed and conn.info.transaction_status == 0 and not self._closed.is_set():
                self._idle.append(conn)
            else:
                if conn is not None:
                    try:
                        conn.close()
                    except Exception:  # noqa: BLE001
                        pass
                self._count -= 1
            self._pool_cond.notify()

    def _rows(self, sql: str, args=()):
        """A read; retried once on a fresh connection if a pooled one turns out to be dead."""
        for attempt in (1, 2):
            try:
                with self._db() as conn:
                    cur = conn.cursor(row_factory=psycopg.rows.dict_row)
                    return cur.execute(sql, args).fetchall()
            except StorageUnavailable as exc:
                if attempt == 2 or not isinstance(exc.__cause__, psycopg.Error):
                    raise

    # -- tables and seats ----------------------------------------------------------------------
    def table_exists(self, code: str) -> bool:
        return bool(self._rows("SELECT 1 FROM tables WHERE code=%s", (code,)))

    def table_config(self, code: str) -> dict | None:
        rows = self._rows("SELECT config FROM tables WHERE code=%s", (code,))
        return check_config(code, rows[0]["config"]) if rows else None

    def list_tables(self) -> list[dict]:
        return [listed_table(r) for r in self._rows("SELECT code, created, config FROM tables ORDER BY created DESC")]

    def seat_for_token(self, code: str, token: str) -> str | None:
        rows = self._rows("SELECT role FROM seats WHERE token_hash=%s AND table_code=%s AND active",
                          (token_hash(token), code))
        return rows[0]["role"] if rows else None

    def add_seat(self, code: str, role: str, token: str, *, claimed: bool, replace: bool) -> None:
        with self._db(write=True) as conn, conn.transaction():
            conn.execute("SELECT 1 FROM tables WHERE code=%s FOR UPDATE", (code,))
            if replace:
                conn.execute("UPDATE seats SET active=FALSE WHERE table_code=%s AND role=%s", (code, role))
            conn.execute("INSERT INTO seats(token_hash, table_code, role, active, claimed, issued) "
                         "VALUES (%s,%s,%s,TRUE,%s,%s)", (token_hash(token), code, role, bool(claimed), time.time()))
            conn.execute("SELECT pg_notify(%s, %s)", (self.channel, f"seats {code}"))

    def take_seat(self, code: str, role: str, token: str) -> bool:
        with self._db(write=True) as conn, conn.transaction():
            # the table's row lock serialises seat claims: two phones, one winner
            conn.execute("SELECT 1 FROM tables WHERE code=%s FOR UPDATE", (code,))
            if conn.execute("SELECT 1 FROM seats WHERE table_code=%s AND role=%s AND active AND claimed",
                            (code, role)).fetchone():
                return False
            conn.execute("UPDATE seats SET active=FALSE WHERE table_code=%s AND role=%s", (code, role))
            conn.execute("INSERT INTO seats(token_hash, table_code, role, active, claimed, issued) "
                         "VALUES (%s,%s,%s,TRUE,TRUE,%s)", (token_hash(token), code, role, time.time()))
            conn.execute("SELECT pg_notify(%s, %s)", (self.channel, f"seats {code}"))
            return True

    def seat_status(self, code: str) -> dict[str, bool]:
        rows = self._rows("SELECT role, BOOL_OR(claimed) AS claimed FROM seats WHERE table_code=%s AND active "
                          "AND role NOT IN ('host','board') GROUP BY role", (code,))
        return {r["role"]: bool(r["claimed"]) for r in rows}

    # -- events --------------------------------------------------------------------------------
    def append_event(self, code: str, expected_seq: int, seat: str, type_: str, payload: dict,
                     secret_for: str | None, summary: str, ts: float | None = None,
                     answer: tuple | None = None) -> int:
        seq = expected_seq + 1
        with self._db(write=True) as conn:
            try:
                with conn.transaction():
                    if answer is not None and conn.execute("SELECT 1 FROM answers WHERE table_code=%s AND key=%s",
                                                           (code, answer[0])).fetchone():
                        raise AnswerTaken(code, answer[0])
                    n = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_code=%s",
                                     (code,)).fetchone()[0]
                    if n != expected_seq:
                        raise StaleWrite(n)
                    conn.execute("INSERT INTO events(table_code, seq, seat, type, payload, ts, secret_for, summary) "
                                 "VALUES (%s,%s,%s,%s,%s,%s,%s,%s)",
                                 (code, seq, seat, type_, json.dumps(payload, sort_keys=True), ts or time.time(),
                                  secret_for, summary))
                    if answer is not None:
                        self._insert_answer(conn, code, answer, seq)
                    conn.execute("SELECT pg_notify(%s, %s)", (self.channel, f"{code} {seq}"))
            except pgerr.UniqueViolation:  # another writer committed this entry number (or key) first
                if answer is not None and self.answer(code, answer[0]) is not None:
                    raise AnswerTaken(code, answer[0]) from None
                n = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE table_code=%s",
                                 (code,)).fetchone()[0]
                raise StaleWrite(n) from None
        return seq

    @staticmethod
    def _insert_answer(conn, code: str, answer: tuple, seq: int | None) -> None:
        key, fingerprint, status, body = answer
        conn.execute("INSERT INTO answers(table_code, key, fingerprint, status, body, seq, ts) "
                     "VALUES (%s,%s,%s,%s,%s,%s,%s)",
                     (code, key, fingerprint, status, json.dumps(body, sort_keys=True), seq, time.time()))

    def answer(self, code: str, key: str) -> dict | None:
        rows = self._rows("SELECT fingerprint, status, body, seq FROM answers WHERE table_code=%s AND key=%s",
                          (code, key))
        return answer_row(rows[0]) if rows else None

    def keep_answer(self, code: str, key: str, fingerprint: str, status: int, body: dict) -> dict:
        with self._db(write=True) as conn, conn.transaction():
            cur = conn.execute("INSERT INTO answers(table_code, key, fingerprint, status, body, seq, ts) "
                               "VALUES (%s,%s,%s,%s,%s,NULL,%s) ON CONFLICT (table_code, key) DO NOTHING",
                               (code, key, fingerprint, status, json.dumps(body, sort_keys=True), time.time()))
            inserted = cur.rowcount == 1
        if inserted:
            return {"fingerprint": fingerprint, "status": status, "body": body, "seq": None}
        return self.answer(code, key)

    def events(self, code: str) -> list[dict]:
        rows = self._rows("SELECT seq, seat, type, payload, ts, secret_for, summary FROM events "
                          "WHERE table_code=%s ORDER BY seq", (code,))
        return [check_row(code, r) for r in rows]

    def events_since(self, code: str, after: int) -> list[dict]:
        rows = self._rows("SELECT seq, seat, type, payload, ts, secret_for, summary FROM events "
                          "WHERE table_code=%s AND seq>%s ORDER BY seq", (code, after))
        return [check_row(code, r) for r in rows]

    def head(self, code: str) -> int:
        return self._rows("SELECT COALESCE(MAX(seq), 0) AS n FROM events WHERE table_code=%s", (code,))[0]["n"]

    def import_table(self, code: str, config: dict, seats: dict[str, str], events: list[dict]) -> None:
        now = time.time()
        try:
            self._import(code, config, seats, events, now)
        except psycopg.errors.UniqueViolation as exc:  # the code was taken meanwhile (another process's import)
            if self.table_exists(code):
                raise CodeTaken(code) from exc
            raise

    def _import(self, code: str, config: dict, seats: dict[str, str], events: list[dict], now: float) -> None:
        with self._db(write=True) as conn, conn.transaction():
            conn.execute("INSERT INTO tables(code, created, config) VALUES (%s,%s,%s)", (code, now, json.dumps(config)))
            with conn.cursor() as cur:
                cur.executemany("INSERT INTO seats(token_hash, table_code, role, active, claimed, issued) "
                                "VALUES (%s,%s,%s,TRUE,%s,%s)",
                                [(token_hash(t), code, role, role == "host", now) for role, t in seats.items()])
                if events:
                    cur.executemany("INSERT INTO events(table_code, seq, seat, type, payload, ts, secret_for, summary) "
                                    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s)",
                                    [(code, e["seq"], e["seat"], e["type"], json.dumps(e["payload"], sort_keys=True),
                                      e["ts"], e.get("secret_for"), e.get("summary", "")) for e in events])
            if events:
                conn.execute("SELECT pg_notify(%s, %s)", (self.channel, f"{code} {events[-1]['seq']}"))

    # -- every process hears every write: LISTEN/NOTIFY ------------------------------------------
    def _start_watcher(self) -> None:
        if self._listener is not None and self._listener.is_alive():
            return
        ready = threading.Event()
        self._listener = threading.Thread(target=self._listen, args=(ready,), name="store-listen", daemon=True)
        self._listener.start()
        ready.wait(CONNECT_TIMEOUT + 1)  # LISTEN is in place before subscribe returns (when reachable)

    def _listen(self, ready: threading.Event) -> None:
        first = True
        while not self._closed.is_set():
            conn = None
            try:
                conn = self._connect()
                conn.execute(f'LISTEN "{self.channel}"')
                ready.set()
                if not first:  # what happened while we were deaf: every table's head, once
                    try:
                        heads = conn.execute("SELECT table_code, MAX(seq) FROM events GROUP BY table_code").fetchall()
                    except psycopg.errors.UndefinedTable:
                        heads = []
                    for code, seq in heads:
                        self._publish(code, seq)
                first = False
                while not self._closed.is_set():
                    for note in conn.notifies(timeout=0.5):
                        first_word, _, rest = note.payload.partition(" ")
                        if first_word == "seats":        # "seats CODE"
                            self._publish_seats(rest)
                            continue
                        try:                             # "CODE SEQ"
                            self._publish(first_word, int(rest))
                        except ValueError:
                            pass
            except (psycopg.Error, OSError) as exc:
                ready.set()
                first = False
                if not self._closed.is_set():
                    log.warning("store listener lost the database (%s); reconnecting", exc)
                    self._closed.wait(1.0)
            finally:
                if conn is not None:
                    try:
                        conn.close()
                    except Exception:  # noqa: BLE001
                        pass

    def close(self) -> None:
        super().close()
        if self._listener is not None:
            self._listener.join(3)
        with self._pool_cond:
            for conn in self._idle:
                conn.close()
            self._count -= len(self._idle)
            self._idle.clear()

    # -- maintenance -----------------------------------------------------------------------------
    def drop_schema(self) -> None:
        """Tests: remove this store's schema and everything in it."""
        if not self.schema:
            raise ValueError("only a store opened with schema=... can be dropped")
        with psycopg.connect(self.conninfo, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA IF EXISTS "{self.schema}" CASCADE')

"""The store interface every backend implements, its errors, and change subscriptions."""
from __future__ import annotations

import hashlib
import logging
import threading
from typing import Callable

log = logging.getLogger("companion.store")

Callback = Callable[[str, int], None]


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class StaleWrite(Exception):
    """Someone (this process or another) appended to the table first."""

    def __init__(self, current: int):
        super().__init__(f"stale write: the table is at revision {current}")
        self.current = current


class CodeTaken(Exception):
    """``import_table``: another writer (this process or another one on the same store) took that
    table code first; the caller picks another code."""


class AnswerTaken(Exception):
    """An answer is already kept with this request key (another request with the same key got
    there first): nothing of this request was stored."""

    def __init__(self, code: str, key: str):
        super().__init__(f"table {code}: an answer is already kept with that key")
        self.code, self.key = code, key


class StorageUnavailable(Exception):
    """The storage cannot be read or written just now (disk full, read-only, locked, database
    server unreachable). ``message`` is one sentence a player understands; ``retry`` says whether
    trying again later can succeed."""

    retry = True

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class TableDamaged(StorageUnavailable):
    """One table's stored rows cannot be read (garbage inside the file): that table answers this
    error, every other table keeps working. Retrying does not help; restoring does."""

    retry = False

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


class Store:
    """Append-only storage of tables, seat credentials and entries.

    ``Store(path_or_url)`` (or ``open_store``) picks the backend: a file path or ``sqlite:///path``
    is the embedded SQLite store, ``postgresql://...`` the PostgreSQL one.

    Every backend keeps the same promises: one transaction per entry, acknowledged entries are
    durable, ``append_event`` raises ``StaleWrite`` when another writer got there first, two phones
    taking one seat at once leave exactly one winner, storage faults raise ``StorageUnavailable``,
    and ``subscribe`` hears every append by every process.
    """

    backend = "abstract"
    # how ``Store(target)`` picks its backend class: ``factory`` installs its ``backend_class``
    # here (the factory imports the backends, which import this module: nothing here imports them)
    _pick_backend: Callable[[object], type[Store]] | None = None

    def __new__(cls, target=None, *args, **kwargs):
        if cls is Store:
            if Store._pick_backend is None:  # (importing the package installs it)
                raise TypeError("import companion.table.store to open a store")
            cls = Store._pick_backend(target)
        return super().__new__(cls)

    def __init__(self) -> None:  # backends call this first
        self._subscribers: list[Callback] = []
        self._seat_subscribers: list[Callable[[str], None]] = []
        self._sub_lock = threading.Lock()
        self._closed = threading.Event()
        self.report: list[str] = []   # start-up findings, one sentence each (damaged file, ...)
        self.recovery: dict[str, str] = {}  # table code -> how it came back from a damaged store

    # -- change notifications --------------------------------------------------------------------
    def subscribe(self, callback: Callback) -> Callable[[], None]:
        """Call ``callback(table_code, latest_seq)`` from a background thread whenever an entry is
        appended to a table by ANY process (this one included). Returns an unsubscribe function."""
        with self._sub_lock:
            self._subscribers.append(callback)
            self._start_watcher()

        def unsubscribe() -> None:
            with self._sub_lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)
        return unsubscribe

    def subscribe_seats(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call ``callback(table_code)`` from a background thread whenever a seat credential of
        that table is issued, re-issued or claimed by ANY process (e.g. to wake ``event: seats``
        streams served by another process). Returns an unsubscribe function."""
        with self._sub_lock:
            self._seat_subscribers.append(callback)
            self._start_watcher()

        def unsubscribe() -> None:
            with self._sub_lock:
                if callback in self._seat_subscribers:
                    self._seat_subscribers.remove(callback)
        return unsubscribe

    def _publish_seats(self, code: str) -> None:
        for cb in list(self._seat_subscribers):
            try:
                cb(code)
            except Exception:  # noqa: BLE001
                log.exception("store seat subscriber failed for %s", code)

    def _publish(self, code: str, seq: int) -> None:
        for cb in list(self._subscribers):
            try:
                cb(code, seq)
            except Exception:  # noqa: BLE001 - one bad listener must not deafen the others
                log.exception("store subscriber failed for %s@%s", code, seq)

    def _start_watcher(self) -> None:  # called with _sub_lock held
        raise NotImplementedError

    def close(self) -> None:
        self._closed.set()

    # -- maintenance -----------------------------------------------------------------------------
    def backup(self, reason: str = "manual") -> str | None:
        """Take a copy of the whole store now (where the backend can); returns where, or None."""
        return None

    def backup_soon(self, reason: str = "export", min_interval: float = 60.0) -> None:
        """A backup in the background, rate-limited (taken on export). Default: nothing."""

    def describe(self) -> str:
        return self.backend

    # -- the interface ---------------------------------------------------------------------------
    def create_table(self, code: str, config: dict, seats: dict[str, str]) -> None:
        """``seats`` maps role -> token (the host token included)."""
        self.import_table(code, config, seats, [])

    def table_exists(self, code: str) -> bool: raise NotImplementedError
    def table_config(self, code: str) -> dict | None: raise NotImplementedError
    def list_tables(self) -> list[dict]: raise NotImplementedError
    def seat_for_token(self, code: str, token: str) -> str | None: raise NotImplementedError

    def add_seat(self, code: str, role: str, token: str, *, claimed: bool, replace: bool) -> None:
        raise NotImplementedError

    def take_seat(self, code: str, role: str, token: str) -> bool: raise NotImplementedError
    def seat_status(self, code: str) -> dict[str, bool]: raise NotImplementedError

    def append_event(self, code: str, expected_seq: int, seat: str, type_: str, payload: dict,
                     secret_for: str | None, summary: str, ts: float | None = None,
                     answer: tuple | None = None) -> int:
        """``answer`` = (key, fingerprint, status, body): the answer to the request that made this
        entry, kept with its key in the same transaction (``AnswerTaken`` if the key is taken:
        then the entry is not stored either)."""
        raise NotImplementedError

    # -- answers kept with a request key (Idempotency-Key), for the table's life -----------------
    def answer(self, code: str, key: str) -> dict | None:
        """The answer kept with ``key`` at table ``code``: {fingerprint, status, body, seq}, or None."""
        raise NotImplementedError

    def keep_answer(self, code: str, key: str, fingerprint: str, status: int, body: dict) -> dict:
        """Keep an answer that made no entry (a refusal) with ``key``, unless one is kept already;
        returns the answer that is kept (this one, or the one that got there first)."""
        raise NotImplementedError

    def events(self, code: str) -> list[dict]: raise NotImplementedError
    def head(self, code: str) -> int: raise NotImplementedError

    def events_since(self, code: str, after: int) -> list[dict]:
        """The entries numbered above ``after``, in order (a long table's tail after its snapshot)."""
        return [e for e in self.events(code) if e["seq"] > after]

    def import_table(self, code: str, config: dict, seats: dict[str, str], events: list[dict]) -> None:
        """Store a whole table in one transaction; ``CodeTaken`` when ``code`` is already a table's."""
        raise NotImplementedError


def check_row(code: str, r) -> dict:
    """One stored entry as a dict, or ``TableDamaged`` naming it if its row is garbage."""
    import json
    try:
        payload = json.loads(r["payload"])
        seq, ts = r["seq"], r["ts"]
        if (not isinstance(payload, dict) or not isinstance(seq, int) or isinstance(ts, bool)
                or not isinstance(ts, (int, float)) or not isinstance(r["type"], str)
                or not isinstance(r["seat"], str) or not isinstance(r["summary"], str)
                or not (r["secret_for"] is None or isinstance(r["secret_for"], str))):
            raise ValueError("wrong types")
    except (ValueError, TypeError) as exc:
        raise TableDamaged(code, f"Table {code} cannot be read: its stored entry {r['seq']!r} is damaged "
                                 f"({exc}); restore the table from its latest export or a backup "
                                 f"(other tables are not affected).") from None
    return {"seq": seq, "seat": r["seat"], "type": r["type"], "payload": payload, "ts": float(ts),
            "secret_for": r["secret_for"], "summary": r["summary"]}


def answer_row(r) -> dict:
    import json
    return {"fingerprint": r["fingerprint"], "status": int(r["status"]), "body": json.loads(r["body"]),
            "seq": r["seq"]}


def listed_table(r) -> dict:
    """One row of ``list_tables`` (code, created, config): a damaged config is listed, marked, not raised."""
    try:
        return {"code": r["code"], "created": r["created"], "config": check_config(r["code"], r["config"])}
    except StorageUnavailable:
        return {"code": r["code"], "created": r["created"], "config": {}, "damaged": True}


def check_config(code: str, text) -> dict:
    import json
    try:
        config = json.loads(text)
        if not isinstance(config, dict) or not config:
            raise ValueError("not a table configuration")
    except (ValueError, TypeError) as exc:
        raise TableDamaged(code, f"Table {code} cannot be read: its stored settings are damaged ({exc}); "
                                 f"restore the table from its latest export or a backup "
                                 f"(other tables are not affected).") from None
    return config

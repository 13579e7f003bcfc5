"""The table service: credentials, entries, undo, replay and change notification.

Every entry goes through ``submit``: validate the payload (pydantic), check who may make it,
check the revision the phone saw, apply it to a private copy of the state through its handler,
append it to the store in one transaction, then publish the new state and wake the live streams.

The service plays no particular game: everything game-specific (the entry types, a new table's
settings and first state, who may make an entry, which entries are secret, the invariants, the
views) comes from the table's game (``companion.games``), found by ``config["game"]``.
"""
from __future__ import annotations

import copy
import hashlib
import itertools
import json
import logging
import pickle
import secrets
import threading
import time
from pathlib import Path
from typing import Callable

from pydantic import ValidationError

from .. import games
from .once import AlreadyAnswered
from .store import AnswerTaken, StaleWrite, Store
from .export_format import EXPORT_FORMAT  # noqa: F401 - the export format's id (Secret Harkonnen reads it here)
from .errors import EntryError, Forbidden, Stale  # noqa: F401 - the service's refusals, raised here
from .reading import Reading
from .transfer import Transfer
from .snapshot_file import in_background, write_in_order
from . import amend as amending
from .amend import Conflicts  # noqa: F401 - raised by amend(), answered 409 by the API

log = logging.getLogger(__name__)

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no I/O/0/1: easy to read aloud and type


def validation_message(exc: ValidationError) -> tuple[str, list]:
    fields = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"] if x not in ("function-after",)) or "entry"
        fields.append({"field": loc, "message": err["msg"]})
    first = fields[0]
    more = f" (and {len(fields) - 1} more)" if len(fields) > 1 else ""
    return f"{first['field']}: {first['message']}{more}", fields


def copy_state(state: dict) -> dict:
    """A deep copy of a table's state for an entry to fold into (the published one is never
    changed). The state is JSON-like data, which pickling copies in C about five times faster than
    ``copy.deepcopy`` (0.09 against 0.46 ms for a mid-game table), shared parts staying shared
    as with ``deepcopy``; anything pickling cannot copy goes to ``deepcopy``."""
    try:
        return pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    except (pickle.PicklingError, TypeError, AttributeError):
        return copy.deepcopy(state)


class Table:
    """One table in memory: its config, its entries and the state they fold to."""

    def __init__(self, code: str, config: dict):
        self.code = code
        self.config = config
        self.lock = threading.RLock()
        self.changed = threading.Condition(self.lock)
        self.events: list[dict] = []  # the entries numbered above events_from (0: all of them)
        self.events_from = 0          # a table loaded from its snapshot reads older entries on demand
        self.undone: dict[int, int] = {}  # undone seq -> seq of the undo entry
        self.state: dict = {}
        self.latest = 0          # the newest seq known to exist (another process may be ahead of us)
        self.snapshot_seq = 0    # the seq of the last snapshot written or read
        self.snapshot_tickets = itertools.count(1)  # snapshots asked for, in order (a newer one
        self.snapshot_done = 0     # is never overwritten by an older one finishing later): the last on disk
        self.snapshot_lock = threading.Lock()
        self.used = time.monotonic()  # the last time a request asked for it (idle tables are unloaded)

    @property
    def revision(self) -> int:
        return self.events[-1]["seq"] if self.events else self.events_from

    @property
    def behind(self) -> bool:
        """Another process appended entries this one has not folded yet."""
        return self.latest > self.revision

    @property
    def known_revision(self) -> int:
        return max(self.latest, self.revision)


def initial_state(code: str, config: dict) -> dict:
    return games.of_config(config).new_state(code, config)


SNAPSHOT_EVERY = 1000  # a table this many entries past its last snapshot gets a new one


def rules_fingerprint() -> str:
    """A hash of the code and data a fold depends on: a snapshot made by other rules is not used."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        root = Path(__file__).resolve().parents[1]
        h = hashlib.sha256()
        for folder in ("table", "data", "games"):
            for f in sorted((root / folder).rglob("*.*")):
                if f.suffix in (".py", ".json"):
                    h.update(f.name.encode())
                    h.update(f.read_bytes())
        _FINGERPRINT = h.hexdigest()[:16]
    return _FINGERPRINT


_FINGERPRINT: str | None = None


class TableService(Reading, Transfer):
    """Tables in memory, each with its own lock: loading, replaying or writing one table never
    holds a lock another table needs (``_guard`` only guards the dictionaries, for microseconds).

    Writes from other processes (another server on the same data folder, or on the same
    PostgreSQL database) arrive through ``store.subscribe``: the table is marked behind, its
    streams are woken and the next read folds the new entries in."""

    def __init__(self, store: Store, snapshot_dir: str | Path | None = None):
        self.store = store
        self.registry = games.get(None).registry  # the default game's entry types (GET /api/actions)
        self._tables: dict[str, Table] = {}
        self._loading: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()
        self._import_lock = threading.Lock()
        self._listeners: list[Callable[[str, int], None]] = []
        if snapshot_dir is None and getattr(store, "path", None):
            snapshot_dir = Path(store.path).parent / "snapshots"
        self.snapshot_dir = Path(snapshot_dir) if snapshot_dir else None
        store.subscribe(self.heard)

    # -- change notification -------------------------------------------------------------------
    def listen(self, callback: Callable[[str, int], None]) -> None:
        """``callback(code, revision)`` after every entry on any table, made by this process or
        another one (called from the writing or the watching thread: keep it short)."""
        self._listeners.append(callback)

    def _publish(self, code: str, seq: int) -> None:
        for cb in list(self._listeners):
            try:
                cb(code, seq)
            except Exception:  # noqa: BLE001 - a listener never breaks a write
                log.exception("change listener failed")

    def heard(self, code: str, latest_seq: int) -> None:
        """The store reports entry ``latest_seq`` on table ``code`` (from any process)."""
        t = self._tables.get(code)
        if t is None or latest_seq <= t.known_revision:
            return  # not loaded here (the next read loads it fresh) or already known
        t.latest = max(t.latest, latest_seq)
        if t.lock.acquire(blocking=False):  # never wait here for a table that is busy loading
            try:
                t.changed.notify_all()
            finally:
                t.lock.release()
        self._publish(code, latest_seq)

    def loaded(self, code: str) -> Table | None:
        """The table if this process has it in memory (never loads, never waits)."""
        return self._tables.get((code or "").upper())

    def cached_revision(self, code: str) -> int | None:
        """The newest revision known for a loaded table, without loading or waiting (for streams)."""
        t = self._tables.get(code.upper())
        return None if t is None else t.known_revision

    def written_by(self, code: str, revision: int) -> str | None:
        """The seat that made entry ``revision`` when it is this loaded table's latest (never
        loads, never waits; None when not known here)."""
        t = self._tables.get(code.upper())
        last = t.events[-1] if t is not None and t.events else None
        return last.get("seat") if last is not None and last["seq"] == revision else None

    # -- creating and loading ------------------------------------------------------------------
    @staticmethod
    def code_ok(code) -> bool:
        """A table code as the service makes them: 5 characters of ``CODE_ALPHABET``."""
        return isinstance(code, str) and len(code) == 5 and all(c in CODE_ALPHABET for c in code)

    def new_code(self) -> str:
        while True:
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(5))
            if not self.store.table_exists(code):
                return code

    @staticmethod
    def new_token() -> str:
        return secrets.token_urlsafe(24)  # 192 bits

    def create(self, *args, game: str | None = None, **kwargs) -> dict:
        """A new table of ``game`` (default: the default game), from that game's own settings
        (``Game.settings`` turns the arguments into the body ``POST /api/tables`` would send)."""
        g = games.get(game)
        return self.create_table(g.id, g.settings(*args, **kwargs))

    def create_table(self, game_id: str | None, body: dict) -> dict:
        try:
            g = games.get(game_id)
            config = g.configure(body)
        except games.ConfigError as exc:
            raise EntryError(exc.message, exc.rule) from None
        if g.id != games.DEFAULT_GAME:
            config = {"game": g.id, **config}
        code = self.new_code()
        seats = {"host": self.new_token()}
        seats.update({s: self.new_token() for s in g.seats(config)})
        self.store.create_table(code, config, seats)
        for entry in g.opening_entries(config):  # e.g. a hidden deal, stored before anyone plays
            self.store.append_event(code, self.store.head(code), "host", entry["type"], entry["payload"],
                                    entry.get("secret_for"), entry["summary"], time.time())
        return {"code": code, "host_token": seats.pop("host"), "seats": seats}

    def table(self, code: str) -> Table | None:
        code = (code or "").upper()
        t = self._tables.get(code)
        if t is not None and not t.behind:
            t.used = time.monotonic()
            return t
        with self._guard:
            loading = self._loading.setdefault(code, threading.Lock())
        with loading:  # only this table waits while it loads; every other table goes on
            t = self._tables.get(code)
            if t is None:
                t = self._load(code)
                if t is None:
                    with self._guard:
                        self._loading.pop(code, None)
                    return None
                self._tables[code] = t
            elif t.behind:
                with t.lock:
                    self._catch_up(t)
            return t

    def unload_idle(self, idle_seconds: float, keep: Callable[[str], bool] = lambda code: False) -> list[str]:
        """Forget the tables nobody asked for in ``idle_seconds`` (memory stays bounded by the tables
        in play); ``keep(code)`` keeps one anyway (e.g. a live stream is open on it). A table busy
        right now is kept. The next request loads an unloaded table again, from the store (and its
        snapshot), exactly as after a restart. Returns the codes unloaded."""
        now = time.monotonic()
        gone = []
        for code, t in list(self._tables.items()):
            if now - t.used < idle_seconds or keep(code) or not t.lock.acquire(blocking=False):
                continue
            try:
                with self._guard:
                    if self._tables.get(code) is t and now - t.used >= idle_seconds:
                        del self._tables[code]  # (its loading lock stays: a load under way keeps it)
                        gone.append(code)
            finally:
                t.lock.release()
        return gone

    def _load(self, code: str) -> Table | None:
        config = self.store.table_config(code)
        if config is None:
            return None
        t = Table(code, config)
        snap = self._read_snapshot(t)
        if snap is not None:  # t.events holds the snapshot's last entry and the ones after it only
            t.state, t.undone = snap
            t.snapshot_seq = t.state["revision"]
            t.events_from = t.snapshot_seq - 1
            self._fold_on(t, t.events[1:])
        else:
            t.events = self.store.events(code)
            t.state, t.undone = self.fold(code, config, t.events)
            if len(t.events) >= SNAPSHOT_EVERY:
                self._write_snapshot_later(t)
        t.latest = t.revision
        return t

    def _check_revision(self, t: Table, seen: int) -> None:
        """The phone saw revision ``seen``; refuse (409) unless that is the table's newest. A
        phone may know a newer revision than this process has heard of yet (another process
        wrote it a moment ago): look at the store before refusing. Called with ``t.lock`` held."""
        if seen != t.revision and (seen > t.revision or t.behind) and self.store.head(t.code) > t.revision:
            t.latest = max(t.latest, seen)
            self._catch_up(t)
        if seen != t.revision:
            raise Stale(t.revision)

    def _catch_up(self, t: Table) -> None:
        """Fold in the entries another process appended (called with ``t.lock`` held)."""
        new = [e for e in self.store.events_since(t.code, t.revision) if e["seq"] > t.revision]
        if new:
            t.events.extend(new)
            self._fold_on(t, new)
        t.latest = max(t.latest, t.revision)
        t.changed.notify_all()

    def _fold_on(self, t: Table, new: list[dict]) -> None:
        """Apply ``new`` entries to the table's state; an undo among them replays everything."""
        if not new:
            return
        if any(e["type"] in amending.SPINE_TYPES for e in new):  # an undo or an amendment: replay all
            t.state, t.undone = self.fold(t.code, t.config, self.all_events(t))
            return
        state = copy_state(t.state)
        self._replay(t.code, state, new, strict=False)
        state["revision"] = new[-1]["seq"]
        t.state = state

    def all_events(self, t: Table) -> list[dict]:
        """Every entry of the table, reading the ones before its snapshot now if they were not
        read at load (called with ``t.lock`` held)."""
        if t.events_from:
            older = [e for e in self.store.events(t.code) if e["seq"] <= t.events_from]
            t.events = older + t.events
            t.events_from = 0
        return t.events

    # -- snapshots: a long table loads from its last cached fold --------------------------------
    def _snapshot_path(self, code: str) -> Path | None:
        return self.snapshot_dir / f"{code}.json" if self.snapshot_dir else None

    def _read_snapshot(self, t: Table) -> tuple[dict, dict] | None:
        path = self._snapshot_path(t.code)
        if path is None or not path.exists():
            return None
        try:
            snap = json.loads(path.read_text("utf-8"))
            seq = snap["seq"]
            if snap["rules"] != rules_fingerprint() or not isinstance(seq, int) or seq < 1:
                return None
            tail = self.store.events_since(t.code, seq - 1)  # the snapshot's last entry and what follows
            if not tail or tail[0]["seq"] != seq or snap["last"] != [tail[0]["type"], tail[0]["ts"]]:
                return None
            undone = {int(k): v for k, v in snap["undone"].items()}
            t.events = tail  # the latest entry stays at hand (pages show its summary)
            return snap["state"], undone
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("table %s: snapshot not used (%s)", t.code, exc)
            return None

    def _write_snapshot_later(self, t: Table) -> None:
        """Write the table's current fold in the background (the state is never mutated once
        published: every entry folds into a copy), in order (``snapshot_file``)."""
        path = self._snapshot_path(t.code)
        if path is None or not t.events:
            return
        state, undone, last = t.state, dict(t.undone), t.events[-1]
        t.snapshot_seq = state["revision"]
        ticket = next(t.snapshot_tickets)

        doc = {"seq": state["revision"], "rules": rules_fingerprint(), "last": [last["type"], last["ts"]],
               "state": state, "undone": undone}
        in_background(lambda: write_in_order(t, ticket, path, doc), f"snapshot-{t.code}")

    def fold(self, code: str, config: dict, events: list[dict], *, strict: bool = False) -> tuple[dict, dict]:
        """Replay entries into a state. Undone entries are skipped. A stored entry that no longer
        applies (e.g. after a rules fix) is skipped with a warning, never lost; with ``strict``
        (importing a file) it is refused instead."""
        undone = {e["payload"]["target"]: e["seq"] for e in events if e["type"] == "undo"}
        state = initial_state(code, config)
        self._replay(code, state, amending.effective(events, undone), strict=strict)
        state["revision"] = events[-1]["seq"] if events else 0
        return state, undone

    def _replay(self, code: str, state: dict, events: list[dict], *, strict: bool) -> None:
        for e in events:
            if e["type"] in amending.SPINE_TYPES:
                continue
            game = games.of_state(state)
            at = game.registry.get(e["type"])
            try:
                payload = at.model.model_validate(e["payload"])
                # entries were checked when made; replay trusts the rules they passed
                at.handler(game.context(e["seat"], True, None), state, payload)
            except Exception as exc:  # noqa: BLE001 - keep the table alive, report the entry
                if strict:
                    raise EntryError(f"Entry {e['seq']} ({e['type']}) does not apply: "
                                     f"{getattr(exc, 'message', exc)}") from None
                log.warning("table %s: entry %s (%s) no longer applies: %s", code, e["seq"], e["type"], exc)

    # -- credentials ---------------------------------------------------------------------------
    def role_for(self, code: str, token: str | None) -> str | None:
        if not token:
            return None
        return self.store.seat_for_token(code.upper(), token)

    def reissue(self, code: str, role: str) -> str:
        t = self.table(code)
        if t is None:
            raise EntryError(f"There is no table {str(code)[:10].upper()!r} on this server.")
        seats = games.of_config(t.config).seats(t.config)
        if role not in seats:
            raise EntryError(f"{str(role)[:20]!r} is not a seat at this table: the seats are "
                             f"{', '.join(seats)}.")
        token = self.new_token()
        self.store.add_seat(t.code, role, token, claimed=False, replace=True)
        return token

    def reissue_host(self, code: str) -> str:
        """A new host credential; every earlier one (a leaked host link) stops working at once."""
        t = self.table(code)
        if t is None:
            raise EntryError(f"There is no table {str(code)[:10].upper()!r} on this server.")
        token = self.new_token()
        self.store.add_seat(t.code, "host", token, claimed=True, replace=True)
        return token

    def spectator_token(self, code: str) -> str:
        token = self.new_token()
        self.store.add_seat(code.upper(), "board", token, claimed=True, replace=False)
        return token

    # -- entries -------------------------------------------------------------------------------
    def submit(self, code: str, role: str, body: dict, once=None) -> dict:
        """``once`` (a ``once.Once``): the request's key, its answer kept with the entry."""
        t = self.table(code)
        if not isinstance(body, dict):
            raise EntryError("An entry is a JSON object with a 'type'.")
        type_ = body.get("type")
        game = games.of_config(t.config)
        at = game.registry.get(type_) if isinstance(type_, str) else None
        if at is None:
            known = ", ".join(sorted(game.registry))
            raise EntryError(f"Unknown entry type {type_!r}. Known types: {known}.")
        try:
            payload = at.model.model_validate(body)
        except ValidationError as exc:
            message, fields = validation_message(exc)
            raise EntryError(message, fields=fields) from None
        self.authorise(role, at, payload, t)
        if payload.override and not (payload.reason or "").strip():
            raise EntryError("An override needs a short reason, so the table's history says why.")
        if payload.revision is None:
            raise EntryError("revision: say which revision of the table this entry was made on.")
        with t.lock:
            self._check_revision(t, payload.revision)
            work = copy_state(t.state)
            ctx = game.context(role, payload.override, payload.reason)
            try:
                at.handler(ctx, work, payload)
            except game.refusal as exc:
                if not exc.overridable:
                    raise EntryError(exc.message, exc.rule) from None
                waives, hard = self._would_waive(game, at, role, t.state, payload)
                if hard is not None:  # an override would be refused anyway: say why now
                    raise EntryError(f"{exc.message} An override would not pass either: {hard.message}",
                                     exc.rule) from None
                raise EntryError(exc.message, exc.rule, overridable=True, waives=waives) from None
            problems = game.invariants(work)
            if problems:  # a handler bug must never corrupt a table
                log.error("entry %s refused, it breaks an invariant: %s", type_, problems)
                raise EntryError(f"That entry would break the game's bookkeeping ({problems[0]}); it was refused.")
            stored = payload.model_dump(by_alias=True, exclude={"revision"}, exclude_defaults=False)
            summary = ctx.summary or (at.summary(payload) if at.summary else type_)
            if payload.override:
                waived = "; ".join(w["message"] for w in (ctx.waived or []))
                summary += f" [OVERRIDE: {payload.reason}" + (f" — waived: {waived}" if waived else "") + "]"
            secret_for = game.secret_for(at, payload, role)
            self._append(t, role, type_, stored, secret_for, summary, work, once)
            return t.state

    @staticmethod
    def _would_waive(game, at, role: str, state: dict, payload):
        """What an override of this refused entry would waive: the entry tried on a copy with the
        override, so every rule it breaks is named before the tap that waives them (not only the
        first). (waived [{message, rule}], the refusal no override passes or None)."""
        ctx = game.context(role, True, "(what an override would waive)")
        try:
            at.handler(ctx, copy_state(state), payload)
        except game.refusal as exc:
            return [], exc
        seen, out = set(), []
        for w in ctx.waived or []:
            key = (w.get("message"), w.get("rule"))
            if key not in seen:
                seen.add(key)
                out.append({"message": w.get("message"), "rule": w.get("rule")})
        return out, None

    def authorise(self, role: str, at, payload, t: Table | None = None) -> None:
        if role == "board":
            raise Forbidden("The board view can only watch.")
        game = games.of_config(t.config) if t is not None else games.get(None)
        why = game.forbidden(role, at, payload, t.state if t is not None else {})
        if why:
            raise Forbidden(why)

    def _append(self, t: Table, role: str, type_: str, stored: dict, secret_for, summary: str, work: dict,
                once=None) -> None:
        work["revision"] = t.revision + 1
        answer = None if once is None else once.for_entry(
            work, {"seq": t.revision + 1, "type": type_, "summary": summary})
        try:
            ts = time.time()  # one timestamp: the one stored is the one shown before a restart
            seq = self.store.append_event(t.code, t.revision, role, type_, stored, secret_for, summary, ts,
                                          answer=answer)
        except StaleWrite as exc:  # another process wrote: fold its entries in, then refuse
            if once is not None:
                once.kept = None
            t.latest = max(t.latest, exc.current)
            self._catch_up(t)
            raise Stale(t.revision) from None
        except AnswerTaken:  # another process answered this request's key first: nothing stored
            once.kept = None
            raise AlreadyAnswered() from None
        except BaseException:
            if once is not None:
                once.kept = None
            raise
        t.events.append({"seq": seq, "seat": role, "type": type_, "payload": stored, "ts": ts,
                         "secret_for": secret_for, "summary": summary})
        t.state = work
        t.latest = max(t.latest, seq)
        t.changed.notify_all()
        if seq - t.snapshot_seq >= SNAPSHOT_EVERY:
            self._write_snapshot_later(t)
        self._publish(t.code, seq)

    def undo(self, code: str, role: str, revision: int | None = None, once=None) -> dict:
        t = self.table(code)
        if role == "board":
            raise Forbidden("The board view can only watch.")
        if revision is not None and (not isinstance(revision, int) or isinstance(revision, bool)):
            raise EntryError("revision: the number of the revision you saw.")
        with t.lock:
            if revision is not None:
                self._check_revision(t, revision)
            target = next((e for e in reversed(self.all_events(t))
                           if e["type"] != "undo" and e["seq"] not in t.undone), None)
            if target is None:
                raise EntryError("There is nothing to undo.")
            game = games.of_config(t.config)
            why = game.undoable(target)
            if why:
                raise EntryError(why)
            if role != "host" and role != target["seat"]:
                raise Forbidden(f"Only the host or {game.seat_name(target['seat'])}, who made the latest entry, "
                                f"can undo it.")
            events = t.events + [{"seq": t.revision + 1, "type": "undo", "payload": {"target": target["seq"]},
                                  "seat": role}]
            state, undone = self.fold(t.code, t.config, events)
            summary = f"undo #{target['seq']}" + ("" if target["secret_for"] else f": {target['summary']}")
            self._append(t, role, "undo", {"type": "undo", "target": target["seq"]}, None, summary, state, once)
            t.undone = undone
            return t.state

    def amend(self, code: str, role: str, body: dict, *, dry_run: bool = False):
        """Replace (or strike) an earlier entry, replay all after it (``amend.py``); ``Conflicts``
        unless ``override``; ``dry_run``: only the plan (the phones' preview)."""
        t = self.table(code)
        if role == "board":
            raise Forbidden("The board view can only watch.")
        with t.lock:
            try:
                seq, entry, reason, revision, override = amending.check_body(body)
                self._check_revision(t, revision)
                p = amending.plan(self, t, role, seq, entry, override, reason)
            except amending.AmendError as exc:
                if exc.forbidden:
                    raise Forbidden(exc.message) from None
                if exc.validation is not None:
                    message, fields = validation_message(exc.validation)
                    raise EntryError(f"entry.{message}", fields=fields) from None
                raise EntryError(exc.message, exc.rule, overridable=exc.overridable) from None
            if dry_run:
                return p
            if p.conflicts and (not override or p.hard):
                raise amending.Conflicts(p.conflicts, hard=p.hard)
            stored, summary = amending.amend_entry(p, reason, override)
            snap = t.snapshot_seq  # p.state is what a fold of the entries with this one gives
            self._append(t, role, "amend", stored, p.secret_for, summary, p.state)
            if snap >= seq and t.snapshot_seq == snap:  # it folded the entry as it was: a new one
                self._write_snapshot_later(t)
            return t.state

    # -- reading -------------------------------------------------------------------------------
    def wait_for_change(self, code: str, since: int, timeout: float) -> int:
        t = self.table(code)
        with t.lock:
            if t.known_revision == since:
                t.changed.wait(timeout)
            return t.known_revision

"""Every request lands once: the answers kept with a request key (the ``Idempotency-Key`` header).

A write sent with a key is handled as usual the first time, and its answer (status and JSON body)
is kept with the key in the store, per table, for the table's life: in the same transaction as
the entry it made, or on its own for a refusal. A repeat of the same request with the same key
is answered the kept answer again, whatever the table's revision is now, and changes nothing; the
same key with another request is refused (422) and changes nothing. Answers that say the storage
failed (503) are not kept: nothing was stored, so the retry is handled afresh.

``run_once(service, code, once, run)``: ``run(once)`` handles the request the usual way and
returns ``(status, body)``; an entry it makes through ``TableService.submit``/``undo`` with
``once=`` gets its answer from ``once.answer(state, entry)`` and stored with the entry.
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Callable

KEY_MIN, KEY_MAX = 8, 128


class KeyRefused(Exception):
    """A malformed key, or a key already used for another request (HTTP 422)."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class AlreadyAnswered(Exception):
    """Another request with the same key got its answer stored first (raised inside a write)."""


def parse_key(raw: str | None) -> str | None:
    """The key of a request (None without one), or ``KeyRefused``. A key is 8-128 printable ASCII
    characters; the header may send it as a quoted string (``"abc..."``), as the IETF draft does."""
    if raw is None:
        return None
    key = raw.strip()
    if len(key) >= 2 and key[0] == key[-1] == '"':
        key = key[1:-1]
    if not KEY_MIN <= len(key) <= KEY_MAX or any(not (0x20 <= ord(c) <= 0x7E) for c in key):
        raise KeyRefused(f"Idempotency-Key: {KEY_MIN} to {KEY_MAX} printable characters "
                         f"(letters, digits, punctuation), made once per entry and sent again with its retries.")
    return key


def fingerprint(role: str, kind: str, body) -> str:
    """What a key stands for: who sent which request with which body."""
    text = json.dumps([role, kind, body], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class Once:
    key: str
    fingerprint: str
    # the answer to the entry just made: (state after it, {"seq", "type", "summary"}) -> JSON body
    answer: Callable[[dict, dict], dict]
    kept: tuple[int, dict] | None = field(default=None)

    def for_entry(self, state: dict, entry: dict) -> tuple:
        body = self.answer(state, entry)
        self.kept = (200, body)
        return (self.key, self.fingerprint, 200, body)


@dataclass
class Outcome:
    status: int
    body: dict
    replayed: bool = False   # the answer kept from the first request with this key


def replay(kept: dict, once: Once) -> Outcome:
    if kept["fingerprint"] != once.fingerprint:
        raise KeyRefused("Idempotency-Key: this key was already used for another request at this table; "
                         "nothing was changed. Make a new key for a new entry.")
    return Outcome(kept["status"], kept["body"], True)


def run_once(service, code: str, once: Once | None, run: Callable[[Once | None], tuple[int, dict]]) -> Outcome:
    if once is None:
        return Outcome(*run(None))
    t = service.table(code)
    with t.lock:  # one request per key at a time in this process; the store's key settles the rest
        kept = service.store.answer(t.code, once.key)
        if kept is not None:
            return replay(kept, once)
        try:
            status, body = run(once)
        except AlreadyAnswered:
            return replay(service.store.answer(t.code, once.key), once)
        if once.kept is not None:  # an entry was made: its answer is stored with it
            return Outcome(*once.kept)
        if status >= 500:
            return Outcome(status, body)
        kept = service.store.keep_answer(t.code, once.key, once.fingerprint, status, body)
        if kept["body"] != body or kept["status"] != status or kept["fingerprint"] != once.fingerprint:
            return replay(kept, once)  # another process answered this key first
        return Outcome(status, body)

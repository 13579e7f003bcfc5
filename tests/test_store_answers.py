"""The store keeps the answer to a request sent with a key (issue 23), on both backends: with the
entry it made, in the same transaction, or on its own for a refusal; one answer per key and table."""
from __future__ import annotations

import pytest

from companion.table.store import AnswerTaken, StaleWrite, open_store

CONFIG = {"factions": ["atreides", "fremen"], "turns": 10, "options": {}}


@pytest.fixture()
def target(backend, database, tmp_path):
    return database or str(tmp_path / "data" / "companion.sqlite3")


@pytest.fixture()
def store(target):
    s = open_store(target)
    s.create_table("AAAAA", CONFIG, {"host": "h-token"})
    s.create_table("BBBBB", CONFIG, {"host": "h2-token"})
    yield s
    s.close()


def append(store, seq, answer=None, code="AAAAA"):
    return store.append_event(code, seq, "host", "storm.set", {"sector": seq + 1}, None, f"entry {seq + 1}",
                              answer=answer)


def test_an_answer_is_kept_with_its_entry_and_read_back(store, target):
    assert store.answer("AAAAA", "key-00001") is None
    append(store, 0, ("key-00001", "fp1", 200, {"revision": 1, "storm": {"sector": 1}}))
    kept = store.answer("AAAAA", "key-00001")
    assert kept == {"fingerprint": "fp1", "status": 200, "body": {"revision": 1, "storm": {"sector": 1}}, "seq": 1}
    assert store.answer("BBBBB", "key-00001") is None  # per table
    reopened = open_store(target)
    try:
        assert reopened.answer("AAAAA", "key-00001") == kept
    finally:
        reopened.close()


def test_a_taken_key_stores_neither_the_entry_nor_the_answer(store):
    append(store, 0, ("key-00002", "fp1", 200, {"revision": 1}))
    with pytest.raises(AnswerTaken):
        append(store, 1, ("key-00002", "fp2", 200, {"revision": 2}))
    assert store.head("AAAAA") == 1
    assert store.answer("AAAAA", "key-00002")["fingerprint"] == "fp1"


def test_a_stale_append_keeps_no_answer(store):
    append(store, 0)
    with pytest.raises(StaleWrite):
        append(store, 0, ("key-00003", "fp", 200, {"revision": 1}))
    assert store.answer("AAAAA", "key-00003") is None


def test_a_refusal_is_kept_once_and_the_first_one_wins(store):
    first = store.keep_answer("AAAAA", "key-00004", "fp", 422, {"error": {"message": "no"}})
    assert first["status"] == 422 and first["seq"] is None
    second = store.keep_answer("AAAAA", "key-00004", "fp-other", 403, {"error": {"message": "other"}})
    assert second == first
    with pytest.raises(AnswerTaken):  # an entry cannot take a key a refusal holds
        append(store, 0, ("key-00004", "fp", 200, {"revision": 1}))
    assert store.head("AAAAA") == 0

"""Every entry lands once (issue 23, point 1): ``POST /api/tables/{code}/actions`` and ``/undo``
honour ``Idempotency-Key``. A repeat with the same key and body answers the first answer again
(same status, same revision) and changes nothing; the same key with another body is 422 and
changes nothing; without a key nothing changes from before. The answers are kept in the store:
on both backends, across a kill -9 and a restart."""
from __future__ import annotations

import pytest

from conftest import SIX, bearer, create_table, revision


def post(client, code, token, body, key=None, path="actions"):
    headers = bearer(token)
    if key is not None:
        headers["Idempotency-Key"] = key
    return client.post(f"/api/tables/{code}/{path}", json=body, headers=headers)


def history(client, code, token):
    r = client.get(f"/api/tables/{code}/history", headers=bearer(token))
    assert r.status_code == 200
    return r.get_json()["entries"]


def test_a_repeat_answers_the_first_answer_and_records_nothing(client, table6):
    code, fremen = table6.code, table6.seats["fremen"]
    body = {"type": "storm.set", "sector": 7, "revision": 0}
    first = post(client, code, fremen, body, key="tap-0001-storm")
    assert first.status_code == 200 and first.get_json()["revision"] == 1
    again = post(client, code, fremen, body, key="tap-0001-storm")
    assert again.status_code == 200
    assert again.get_json() == first.get_json()
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert [e["type"] for e in history(client, code, table6.host)] == ["storm.set"]


def test_a_repeat_after_the_table_moved_on_still_answers_the_first_answer(client, table6):
    code, fremen = table6.code, table6.seats["fremen"]
    body = {"type": "storm.set", "sector": 7, "revision": 0}
    first = post(client, code, fremen, body, key="tap-0002-storm").get_json()
    r = post(client, code, table6.host, {"type": "spice.set", "faction": "atreides", "amount": 30, "revision": 1})
    assert r.status_code == 200 and r.get_json()["revision"] == 2
    again = post(client, code, fremen, body, key="tap-0002-storm")
    # not 409 although revision 0 is long gone: the first answer, revision 1, storm at 7
    assert again.status_code == 200
    assert again.get_json()["revision"] == 1 and again.get_json() == first
    assert revision(client, code, table6.host) == 2
    assert len(history(client, code, table6.host)) == 2


def test_the_same_key_with_another_body_is_refused_and_changes_nothing(client, table6):
    code, fremen = table6.code, table6.seats["fremen"]
    post(client, code, fremen, {"type": "storm.set", "sector": 7, "revision": 0}, key="tap-0003-storm")
    other = post(client, code, fremen, {"type": "storm.set", "sector": 9, "revision": 1}, key="tap-0003-storm")
    assert other.status_code == 422
    assert "already used" in other.get_json()["error"]["message"]
    s = client.get(f"/api/tables/{code}/state", headers=bearer(fremen)).get_json()
    assert s["revision"] == 1 and s["storm"]["sector"] == 7
    # another seat sending the same key is another request too
    host = post(client, code, table6.host, {"type": "storm.set", "sector": 7, "revision": 0}, key="tap-0003-storm")
    assert host.status_code == 422
    assert len(history(client, code, table6.host)) == 1
    # and the key still answers its own request
    assert post(client, code, fremen, {"type": "storm.set", "sector": 7, "revision": 0},
                key="tap-0003-storm").status_code == 200


def test_without_a_key_a_stale_revision_is_409_as_before(client, table6):
    code, fremen = table6.code, table6.seats["fremen"]
    body = {"type": "storm.set", "sector": 7, "revision": 0}
    assert post(client, code, fremen, body).status_code == 200
    r = post(client, code, fremen, body)
    assert r.status_code == 409 and r.get_json()["error"]["revision"] == 1
    assert "Idempotent-Replayed" not in r.headers
    assert len(history(client, code, table6.host)) == 1


@pytest.mark.parametrize("key", ["short", "x" * 129, "tab\there-12", "ünïcode-key-1", "", '""'])
def test_a_malformed_key_is_422_and_records_nothing(client, table6, key):
    code = table6.code
    r = post(client, code, table6.seats["fremen"], {"type": "storm.set", "sector": 7, "revision": 0}, key=key)
    assert r.status_code == 422
    assert "Idempotency-Key" in r.get_json()["error"]["message"]
    r = post(client, code, table6.host, {}, key=key, path="undo")
    assert r.status_code == 422
    assert history(client, code, table6.host) == []


@pytest.mark.parametrize("key", ["abcdefgh", "y" * 128, "with spaces & punctuation!", '"quoted-key-1"'])
def test_keys_of_8_to_128_printable_characters_are_taken(client, table6, key):
    r = post(client, table6.code, table6.seats["fremen"], {"type": "storm.set", "sector": 3, "revision": 0}, key=key)
    assert r.status_code == 200, r.get_data(as_text=True)
    r = post(client, table6.code, table6.seats["fremen"], {"type": "storm.set", "sector": 3, "revision": 0}, key=key)
    assert r.status_code == 200 and r.get_json()["revision"] == 1


def test_a_refusal_is_kept_too_and_answered_again(client, table6):
    code, atreides = table6.code, table6.seats["atreides"]
    body = {"type": "spice.set", "faction": "harkonnen", "amount": 5, "revision": 0}  # not theirs to set
    first = post(client, code, atreides, body, key="tap-0004-spice")
    assert first.status_code in (403, 422)
    again = post(client, code, atreides, body, key="tap-0004-spice")
    assert again.status_code == first.status_code and again.get_json() == first.get_json()
    assert history(client, code, table6.host) == []


def test_a_stale_first_answer_is_kept_as_the_answer(client, table6):
    """The first answer was 409 (the phone was behind): the same request again is that 409 again,
    never an entry made on a table the phone had not seen."""
    code, fremen = table6.code, table6.seats["fremen"]
    post(client, code, table6.host, {"type": "storm.set", "sector": 2, "revision": 0})
    body = {"type": "storm.set", "sector": 7, "revision": 0}
    first = post(client, code, fremen, body, key="tap-0005-stale")
    assert first.status_code == 409
    again = post(client, code, fremen, body, key="tap-0005-stale")
    assert again.status_code == 409 and again.get_json() == first.get_json()
    assert len(history(client, code, table6.host)) == 1


def test_undo_with_a_key_undoes_once(client, table6):
    code, host = table6.code, table6.host
    post(client, code, host, {"type": "storm.set", "sector": 4, "revision": 0})
    post(client, code, host, {"type": "storm.set", "sector": 6, "revision": 1})
    first = post(client, code, host, {"revision": 2}, key="undo-0001-key", path="undo")
    assert first.status_code == 200 and first.get_json()["revision"] == 3
    again = post(client, code, host, {"revision": 2}, key="undo-0001-key", path="undo")
    assert again.status_code == 200 and again.get_json() == first.get_json()
    entries = history(client, code, host)
    assert [e["type"] for e in entries] == ["storm.set", "storm.set", "undo"]
    assert entries[0]["undone_by"] is None  # the second undo did not take the first entry too
    other = post(client, code, host, {}, key="undo-0001-key", path="undo")
    assert other.status_code == 422 and len(history(client, code, host)) == 3


def test_keys_are_per_table(client, table6):
    other = create_table(client, ["atreides", "fremen"])
    body = {"type": "storm.set", "sector": 7, "revision": 0}
    assert post(client, table6.code, table6.host, body, key="same-key-both").status_code == 200
    r = post(client, other.code, other.host, body, key="same-key-both")
    assert r.status_code == 200 and r.get_json()["revision"] == 1
    assert len(history(client, other.code, other.host)) == 1


def test_answers_survive_kill_9_and_restart(live_server, tmp_path):
    data = tmp_path / "data"
    srv = live_server(data)
    status, t = srv.request("POST", "/api/tables", {"factions": SIX, "turns": 10, "options": {}})
    code, host, fremen = t["table"], t["host_token"], t["seats"]["fremen"]
    body = {"type": "storm.set", "sector": 11, "revision": 0}
    status, first = srv.request("POST", f"/api/tables/{code}/actions", body, fremen,
                                headers={"Idempotency-Key": "restart-key-1"})
    assert status == 200 and first["revision"] == 1
    status, refused = srv.request("POST", f"/api/tables/{code}/actions",
                                  {"type": "spice.set", "faction": "bg", "amount": 3, "revision": 1}, fremen,
                                  headers={"Idempotency-Key": "restart-key-2"})
    assert status in (403, 422)
    status, undone = srv.request("POST", f"/api/tables/{code}/undo", {"revision": 1}, host,
                                 headers={"Idempotency-Key": "restart-undo-1"})
    assert status == 200 and undone["revision"] == 2
    srv.kill9()

    again = live_server(data)
    status, body_again = again.request("POST", f"/api/tables/{code}/actions", body, fremen,
                                       headers={"Idempotency-Key": "restart-key-1"})
    assert status == 200 and body_again == first
    status, refused_again = again.request("POST", f"/api/tables/{code}/actions",
                                          {"type": "spice.set", "faction": "bg", "amount": 3, "revision": 1},
                                          fremen, headers={"Idempotency-Key": "restart-key-2"})
    assert refused_again == refused
    status, undone_again = again.request("POST", f"/api/tables/{code}/undo", {"revision": 1}, host,
                                         headers={"Idempotency-Key": "restart-undo-1"})
    assert status == 200 and undone_again == undone
    status, mismatch = again.request("POST", f"/api/tables/{code}/actions",
                                     {"type": "storm.set", "sector": 12, "revision": 2}, fremen,
                                     headers={"Idempotency-Key": "restart-key-1"})
    assert status == 422
    status, h = again.request("GET", f"/api/tables/{code}/history", token=host)
    assert [e["type"] for e in h["entries"]] == ["storm.set", "undo"]

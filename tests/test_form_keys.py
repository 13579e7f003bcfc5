"""The phones' forms land once (issue 23, point 2): a form's submit sent again with the same
Idempotency-Key (a retry after a lost answer) records nothing more and shows the entry as recorded;
a refusal is answered again; the same key with another body changes nothing; no key: as before."""
from __future__ import annotations

import json
import re

from conftest import SIX, bearer, create_table, csrf, join_seat
from test_secret_harkonnen_pages import make_table, phone_for


def history(client, code, token):
    return client.get(f"/api/tables/{code}/history", headers=bearer(token)).get_json()["entries"]


def post(phone, code, data, key=None, path="act"):
    headers = {"X-CSRF-Token": csrf(phone), "HX-Request": "true"}
    if key:
        headers["Idempotency-Key"] = key
    return phone.post(f"/t/{code}/{path}", data=data, headers=headers)


def toast(r) -> str | None:
    trigger = r.headers.get("HX-Trigger")
    return json.loads(trigger)["entry-done"]["text"] if trigger else None


def test_a_retried_form_records_once_and_says_it_was_recorded(app, client):
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "atreides")
    data = {"type": "spice.add", "faction": "atreides", "amount": "1", "revision": "0"}
    first = post(phone, t.code, data, key="form-key-0001")
    assert first.status_code == 200 and toast(first) and "Already" not in toast(first)
    again = post(phone, t.code, data, key="form-key-0001")
    assert again.status_code == 200
    assert toast(again).startswith("Already recorded")
    body = again.get_data(as_text=True)
    assert "send your entry again" not in body and "table changed" not in body
    assert len(history(client, t.code, t.host)) == 1
    # without a key the same stale form is met as before: the table changed, send it again
    stale = post(phone, t.code, data)
    assert "send your entry again" in stale.get_data(as_text=True)
    assert len(history(client, t.code, t.host)) == 1


def test_the_same_form_key_with_another_body_changes_nothing(app, client):
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "atreides")
    post(phone, t.code, {"type": "spice.add", "faction": "atreides", "amount": "1", "revision": "0"}, key="form-key-0002")
    r = post(phone, t.code, {"type": "spice.add", "faction": "atreides", "amount": "2", "revision": "1"},
             key="form-key-0002")
    assert "already used" in r.get_data(as_text=True)
    assert len(history(client, t.code, t.host)) == 1
    bad = post(phone, t.code, {"type": "spice.add", "faction": "atreides", "amount": "2", "revision": "1"},
               key="short")
    assert bad.status_code == 422 and len(history(client, t.code, t.host)) == 1


def test_a_refused_form_is_refused_again_with_the_same_key(app, client):
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "atreides")
    data = {"type": "spice.add", "faction": "harkonnen", "amount": "1", "revision": "0"}  # not theirs
    first = post(phone, t.code, data, key="form-key-0003").get_data(as_text=True)
    again = post(phone, t.code, data, key="form-key-0003").get_data(as_text=True)
    assert again == first and history(client, t.code, t.host) == []


def test_a_retried_undo_undoes_once(app, client):
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "atreides")
    post(phone, t.code, {"type": "spice.add", "faction": "atreides", "amount": "1", "revision": "0"})
    post(phone, t.code, {"type": "spice.add", "faction": "atreides", "amount": "1", "revision": "1"})
    for _ in range(2):
        r = post(phone, t.code, {}, key="undo-form-0001", path="undo")
        assert r.status_code == 200
    entries = history(client, t.code, t.host)
    assert [e["type"] for e in entries] == ["spice.add", "spice.add", "undo"]
    assert entries[0]["undone_by"] is None


def test_a_retried_secret_harkonnen_nomination_lands_once(app, client):
    code = make_table(app, client)
    service = app.extensions["tables"]
    emperor = service.table(code).state["emperor"]
    phone = phone_for(app, code, emperor)
    nominee = next(p for p in service.table(code).state["players"] if p != emperor)
    data = {"type": "sh.nominate", "governor": nominee, "revision": str(service.table(code).revision),
            "csrf_token": csrf(phone, code)}
    for _ in range(2):
        r = phone.post(f"/t/{code}/sh/act", data=data, headers={"HX-Request": "true", "Idempotency-Key": "sh-key-0001"})
        assert r.status_code == 200
        assert 'class="error"' not in r.get_data(as_text=True)
    types = [e["type"] for e in service.history(code, "host")]
    assert types.count("sh.nominate") == 1

"""Entry payloads are private unless the entry type declares a field public.

The history JSON (``GET /api/tables/{code}/history``) carries payloads: another seat and the board
read only the fields the entry's type names in ``public_fields``; the host and the seat that made
the entry read everything. A Black Market sale's card stays Richese's (audit finding 1).
"""
from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import bearer, create_table
from sh_helpers import SH
from table_helpers import ok, set_phase

from companion import games
from companion.table.entries import SPINE_PUBLIC

ADDON = ["atreides", "harkonnen", "emperor", "guild", "choam", "richese"]


def history_as(client, code, token):
    r = client.get(f"/api/tables/{code}/history", headers=bearer(token))
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()["entries"]


def test_a_black_market_sale_shows_its_card_to_richese_and_the_host_only(client):
    t = create_table(client, ADDON, options={"advanced": True})
    ok(client, t, type="cards.set", faction="richese", cards=["Lasgun"])
    set_phase(client, t, "bidding")
    ok(client, t, "richese", type="blackmarket.sell", faction="richese", buyer="atreides", price=3, card="Lasgun")
    board = client.application.extensions["tables"].spectator_token(t.code)
    for who, token in [*((f, t.token(f)) for f in ADDON if f != "richese"), ("board", board)]:
        sale = [e for e in history_as(client, t.code, token) if e["type"] == "blackmarket.sell"][0]
        assert sale["payload"]["buyer"] == "atreides" and sale["payload"]["price"] == 3, who
        assert "card" not in sale["payload"] and "Lasgun" not in json.dumps(sale), who
    for who in ("richese", "host"):
        sale = [e for e in history_as(client, t.code, t.token(who)) if e["type"] == "blackmarket.sell"][0]
        assert sale["payload"]["card"] == "Lasgun", who


# -- the property: every entry type of every game --------------------------------------------------

def every_type():
    return [(gid, name) for gid in games.game_ids() for name in sorted(games.get(gid).registry)]


@pytest.fixture(scope="module")
def tables_app(tmp_path_factory):
    from companion import create_app
    return create_app({"DATA_DIR": str(tmp_path_factory.mktemp("privacy")), "TESTING": True})


@pytest.fixture(scope="module")
def two_tables(tables_app):
    """A Dune table (every seat that can sit with the add-on) and a Secret Harkonnen table."""
    client = tables_app.test_client()
    dune = create_table(client, ["atreides", "harkonnen", "fremen", "bg", "choam", "richese"])
    sh = SH(tables_app, client, 5)
    board = {code: tables_app.extensions["tables"].spectator_token(code) for code in (dune.code, sh.code)}
    return {"dune": (dune.code, dune.host, dune.seats, board[dune.code]),
            "secret-harkonnen": (sh.code, sh.host, sh.seats, board[sh.code])}


@pytest.mark.parametrize("kind", every_type(), ids="/".join)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_other_seat_or_board_reads_a_private_field_of_an_entry(tables_app, two_tables, kind, data):
    gid, type_ = kind
    code, host, seats, board = two_tables[gid]
    game = games.get(gid)
    at = game.registry[type_]
    author = data.draw(st.sampled_from(sorted(seats)), label="author")
    secret_for = data.draw(st.sampled_from([None, author]), label="secret_for")
    # every field of the payload holds a marker that can be searched for in the answers
    fields = {(f.alias or k) for k, f in at.model.model_fields.items() if k != "revision"} | {"override", "reason"}
    serial = data.draw(st.integers(0, 10**9), label="serial")
    payload = {k: f"MARK-{k}-{serial}" for k in fields}
    payload["type"] = type_
    service = tables_app.extensions["tables"]
    t = service.table(code)
    with t.lock:  # an entry as stored (the filter is what is tested, not the entry's rules)
        seq = t.revision + 1
        t.events.append({"seq": seq, "seat": author, "type": type_, "payload": payload, "ts": time.time(),
                         "secret_for": secret_for, "summary": f"entry {seq}"})
    client = tables_app.test_client()
    private = {k for k in fields if k not in at.public_fields and k not in SPINE_PUBLIC}
    for viewer, token in [*((s, tok) for s, tok in seats.items() if s != author), ("board", board)]:
        entry = next(e for e in history_as(client, code, token) if e["seq"] == seq)
        may_read = secret_for is not None and game.may_read(viewer, secret_for, t.state, type_)
        if may_read:
            continue  # the game lets this seat read that secret
        if secret_for is not None:
            assert entry["payload"] is None, (type_, viewer)
            continue
        assert set(entry["payload"]) <= set(at.public_fields) | SPINE_PUBLIC, (type_, viewer)
        text = json.dumps(entry)
        leaked = [k for k in private if f"MARK-{k}-{serial}" in text]
        assert not leaked, (type_, viewer, leaked)
    for viewer, token in (("host", host), (author, seats[author])):
        entry = next(e for e in history_as(client, code, token) if e["seq"] == seq)
        if secret_for is not None and not game.may_read(viewer, secret_for, t.state, type_):
            assert entry["payload"] is None, type_  # Secret Harkonnen's host reads no seat's secret
        else:
            assert entry["payload"] == payload, type_  # the host and the author read it whole


def test_every_declared_public_field_is_a_field_of_its_payload():
    for gid, type_ in every_type():
        at = games.get(gid).registry[type_]
        names = {(f.alias or k) for k, f in at.model.model_fields.items()}
        assert set(at.public_fields) <= names, (gid, type_)
        if at.secret:
            assert not at.public_fields, (gid, type_)  # a secret entry is all private

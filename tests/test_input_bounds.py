"""Bounded input (issue 12 item 4): a body limit, bounded texts, counts and nesting, strict types,
no control characters, and imports checked whole before a single entry is replayed."""
from __future__ import annotations

import copy
import io
import json

import pytest

from conftest import SIX, act, bearer, create_table, csrf, join_seat, state


def nested(depth: int, leaf="x") -> str:
    return "[" * depth + json.dumps(leaf) + "]" * depth


def error_message(r) -> str:
    return r.get_json()["error"]["message"]


# -- the body limit -------------------------------------------------------------------------------

def test_a_body_over_the_limit_is_refused_with_413_before_anything_is_read(client, table6):
    big = b'{"factions": ["atreides", "fremen"], "options": {"x": "' + b"a" * (2 * 1024 * 1024) + b'"}}'
    r = client.post("/api/tables", data=big, content_type="application/json")
    assert r.status_code == 413
    assert "too large" in error_message(r)
    r = client.post(f"/api/tables/{table6.code}/actions", data=big, content_type="application/json",
                    headers=bearer(table6.host))
    assert r.status_code == 413
    assert state(client, table6.code, table6.host)["revision"] == 0
    # no credential at all: still 413 (nothing of it is read to find out)
    r = client.post(f"/api/tables/{table6.code}/actions", data=big, content_type="application/json")
    assert r.status_code == 413


def test_a_form_over_the_limit_answers_an_html_413(app, client):
    client.get("/")
    r = client.post("/tables", data={"factions": ["atreides", "fremen"], "csrf_token": csrf(client),
                                     "junk": "a" * (2 * 1024 * 1024)})
    assert r.status_code == 413
    assert r.headers["Content-Type"].startswith("text/html") and "too large" in r.get_data(as_text=True)


def test_the_limit_is_configurable(tmp_path):
    from companion import create_app
    app = create_app({"DATA_DIR": str(tmp_path / "d"), "TESTING": True, "MAX_CONTENT_LENGTH": 2000})
    r = app.test_client().post("/api/tables", json={"factions": SIX, "options": {"discovery_tokens": True},
                                                    "padding": "x" * 3000})
    assert r.status_code == 413


# -- nesting ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("where", ["actions", "create", "import", "undo"])
def test_deeply_nested_json_is_refused_never_a_500(client, table6, where):
    body = nested(50_000)
    url = {"actions": f"/api/tables/{table6.code}/actions", "create": "/api/tables",
           "import": "/api/tables/import", "undo": f"/api/tables/{table6.code}/undo"}[where]
    r = client.post(url, data=body, content_type="application/json", headers=bearer(table6.host))
    assert r.status_code == 400, r.get_data(as_text=True)[:300]
    assert "nested too deeply" in error_message(r)
    # also inside an object, in a field the entry knows
    r = client.post(f"/api/tables/{table6.code}/actions", headers=bearer(table6.host), content_type="application/json",
                    data='{"type": "cards.set", "faction": "atreides", "revision": 0, "cards": ' + nested(40) + "}")
    assert r.status_code in (400, 422)
    assert state(client, table6.code, table6.host)["revision"] == 0


def test_moderate_nesting_inside_an_entry_is_a_clear_422(client, table6):
    r = act(client, table6.code, table6.host, expect=422, type="cards.set", faction="atreides",
            cards=json.loads(nested(10)))
    assert "nested" in error_message(r)


def test_a_deeply_nested_import_file_on_the_start_page_is_refused(app, client):
    client.get("/")
    r = client.post("/tables/import", data={"csrf_token": csrf(client),
                                            "file": (io.BytesIO(nested(100_000).encode()), "deep.json")},
                    content_type="multipart/form-data")
    assert r.status_code == 422
    assert "nested too deeply" in r.get_data(as_text=True)


# -- strict types -----------------------------------------------------------------------------------

@pytest.mark.parametrize("entry, field", [
    ({"type": "spice.add", "faction": "atreides", "amount": True}, "amount"),
    ({"type": "spice.set", "faction": "atreides", "amount": "12"}, "amount"),
    ({"type": "spice.set", "faction": "atreides", "amount": 12.0}, "amount"),
    ({"type": "storm.set", "sector": False}, "sector"),
    ({"type": "ship", "faction": "atreides", "to": "Arrakeen", "forces": 1, "karama": "no"}, "karama"),
    ({"type": "spice.blow", "card": "Cielago North", "protect_ally": 0}, "protect_ally"),
    ({"type": "forces.flip", "territory": "Arrakeen", "to": "fighters", "override": "yes"}, "override"),
])
def test_no_bool_for_a_number_and_no_string_for_a_bool(client, table6, entry, field):
    before = state(client, table6.code, table6.host)
    r = act(client, table6.code, table6.host, expect=422, **entry)
    assert error_message(r).startswith(field)
    assert state(client, table6.code, table6.host) == before


def test_amount_true_is_not_stored_as_one(client, table6):
    act(client, table6.code, table6.seats["atreides"], expect=422, type="spice.add", faction="atreides", amount=True)
    assert state(client, table6.code, table6.host)["factions"]["atreides"]["spice"] == 10


@pytest.mark.parametrize("body, field", [
    ({"factions": ["atreides", "fremen"], "options": {"discovery_tokens": "no"}}, "discovery_tokens"),
    ({"factions": ["atreides", "fremen"], "options": {"discovery_tokens": 0}}, "discovery_tokens"),
    ({"factions": ["atreides", "fremen"], "options": {"player_dots": [1, 2]}}, "player_dots"),
    ({"factions": ["atreides", "fremen"], "options": {"player_dots": {"atreides": "3"}}}, "player_dots"),
    ({"factions": ["atreides", "fremen"], "options": {"player_dots": {"atreides": True}}}, "player_dots"),
    ({"factions": ["atreides", "fremen"], "options": {"player_dots": "north"}}, "player_dots"),
    ({"factions": ["atreides", "fremen"], "options": {"mystery": "x" * 1000}}, "mystery"),
    ({"factions": ["atreides", "fremen"], "turns": "ten"}, "turns"),
    ({"factions": ["atreides", "fremen"], "turns": True}, "turns"),
    ({"factions": ["atreides"] * 500}, "factions"),
    ({"factions": ["atreides", "fremen"], "spare": 1}, "spare"),
])
def test_a_new_table_is_checked_strictly(client, body, field):
    before = len(client.application.extensions["tables"].store.list_tables())
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422, r.get_data(as_text=True)
    assert field in error_message(r)
    assert len(client.application.extensions["tables"].store.list_tables()) == before


def test_the_start_page_form_still_creates_tables(app, client):
    client.get("/")
    r = client.post("/tables", data={"factions": ["atreides", "fremen"], "turns": "8", "csrf_token": csrf(client)})
    assert r.status_code == 302


def test_phone_forms_still_post_strings_and_are_converted(app, client):
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "atreides")
    h = {"X-CSRF-Token": csrf(phone)}
    r = phone.post(f"/t/{t.code}/act", data={"type": "spice.add", "faction": "atreides", "amount": "5",
                                             "revision": "0"}, headers=h)
    assert 'id="my-spice">15<' in r.get_data(as_text=True)
    r = phone.post(f"/t/{t.code}/act", data={"type": "spice.add", "faction": "atreides", "amount": "lots",
                                             "revision": "1"}, headers=h)
    assert "amount: Input should be a valid integer" in r.get_data(as_text=True)
    assert state(client, t.code, t.host)["factions"]["atreides"]["spice"] == 15


# -- texts: length and control characters --------------------------------------------------------------

def test_traitor_names_are_bounded(client, table6):
    r = act(client, table6.code, table6.seats["harkonnen"], expect=422, type="traitors.set", faction="harkonnen",
            traitors=["x" * 5000])
    assert error_message(r).startswith("traitors.0")
    r = act(client, table6.code, table6.seats["harkonnen"], expect=422, type="traitors.set", faction="harkonnen",
            traitors=["y" * 61])
    assert "60 characters" in error_message(r)
    act(client, table6.code, table6.seats["harkonnen"], type="traitors.set", faction="harkonnen",
        traitors=["Duncan Idaho"])


@pytest.mark.parametrize("entry", [
    {"type": "traitors.set", "faction": "atreides", "traitors": ["Piter\x00de Vries"]},
    {"type": "cards.set", "faction": "atreides", "cards": ["Lasgun\x00"]},
    {"type": "leader.tanks", "faction": "atreides", "leader": "Duncan\x00"},
    {"type": "board.spice", "territory": "The Great Flat\x1b[31m", "amount": 3},
    {"type": "spice.set", "faction": "atreides", "amount": 3, "override": True, "reason": "ok\x00"},
    {"type": "traitors.set", "faction": "atreides", "traitors": ["Duncan \u202eoildI"]},
])
def test_control_characters_are_refused_in_names(client, table6, entry):
    r = act(client, table6.code, table6.host, expect=422, **entry)
    assert "control characters" in error_message(r)
    assert state(client, table6.code, table6.host)["revision"] == 0


def test_every_free_text_is_bounded(client, table6):
    for entry in ({"type": "board.spice", "territory": "T" * 400, "amount": 1},
                  {"type": "spice.set", "faction": "atreides", "amount": 3, "override": True, "reason": "r" * 301},
                  {"type": "cards.set", "faction": "atreides", "cards": ["c"] * 100}):
        r = act(client, table6.code, table6.host, expect=422, **entry)
        assert "at most" in error_message(r)


# -- seats and undo ------------------------------------------------------------------------------------

def test_reissuing_a_seat_that_does_not_exist_is_a_clear_4xx(app, client):
    t = create_table(client, ["atreides", "fremen"])
    for seat in ("emperor", "nobody", "host", "x" * 300):
        r = client.post(f"/api/tables/{t.code}/seats/{seat}/reissue", headers=bearer(t.host))
        assert r.status_code == 422 and "not a seat" in error_message(r)
    laptop = app.test_client()
    laptop.set_cookie(f"seat_{t.code}", t.host)
    laptop.get(f"/t/{t.code}/host")
    r = laptop.post(f"/t/{t.code}/seats/emperor/reissue", data={"csrf_token": csrf(laptop, t.code)})
    assert r.status_code == 404 and "not a seat" in r.get_data(as_text=True)


@pytest.mark.parametrize("body", ['[1, 2]', '"undo"', '3', '{"revision": "0"}', '{"revision": true}',
                                  '{"revision": 0, "extra": 1}'])
def test_undo_with_a_bad_body_is_refused_and_keeps_its_revision_check(client, table6, body):
    act(client, table6.code, table6.host, type="storm.set", sector=5)
    r = client.post(f"/api/tables/{table6.code}/undo", data=body, content_type="application/json",
                    headers=bearer(table6.host))
    assert r.status_code == 422
    assert state(client, table6.code, table6.host)["storm"]["sector"] == 5


def test_undo_with_a_stale_revision_is_refused(client, table6):
    act(client, table6.code, table6.host, type="storm.set", sector=5)
    r = client.post(f"/api/tables/{table6.code}/undo", json={"revision": 0}, headers=bearer(table6.host))
    assert r.status_code == 409
    r = client.post(f"/api/tables/{table6.code}/undo", json={"revision": 1}, headers=bearer(table6.host))
    assert r.status_code == 200


# -- imports ---------------------------------------------------------------------------------------------

@pytest.fixture()
def exported(client, table6):
    t = table6
    act(client, t.code, t.host, type="storm.set", sector=3)
    act(client, t.code, t.seats["atreides"], type="spice.set", faction="atreides", amount=12)
    act(client, t.code, t.seats["harkonnen"], type="traitors.set", faction="harkonnen", traitors=["Duncan Idaho"])
    client.post(f"/api/tables/{t.code}/undo", json={}, headers=bearer(t.seats["harkonnen"]))
    return client.get(f"/api/tables/{t.code}/export", headers=bearer(t.host)).get_json()


BAD_IMPORTS = [
    ("ts yesterday", lambda d: d["events"][0].update(ts="yesterday"), "ts"),
    ("ts infinite", lambda d: d["events"][0].update(ts=1e400), "ts"),
    ("ts true", lambda d: d["events"][0].update(ts=True), "ts"),
    ("turns ten", lambda d: d["config"].update(turns="ten"), "turns"),
    ("turns 999", lambda d: d["config"].update(turns=999), "turns"),
    ("factions unknown", lambda d: d["config"].update(factions=["atreides", "sardaukar"]), "factions"),
    ("options wrong", lambda d: d["config"].update(options={"discovery_tokens": "no"}), "discovery_tokens"),
    ("dots wrong", lambda d: d["config"].update(options={"player_dots": {"atreides": "x"}}), "player_dots"),
    ("event not an object", lambda d: d["events"].__setitem__(0, "storm.set"), "events.0"),
    ("payload not an object", lambda d: d["events"][0].update(payload=[1, 2]), "payload"),
    ("payload amount true", lambda d: d["events"][1]["payload"].update(amount=True), "amount"),
    ("payload extra field", lambda d: d["events"][0]["payload"].update(colour="red"), "colour"),
    ("seq text", lambda d: d["events"][0].update(seq="1"), "seq"),
    ("seat unknown", lambda d: d["events"][0].update(seat="tleilaxu"), "seat"),
    ("seat garbage", lambda d: d["events"][0].update(seat=None), "seat"),
    ("secret_for unknown", lambda d: d["events"][1].update(secret_for="nobody"), "secret_for"),
    ("summary huge", lambda d: d["events"][0].update(summary="s" * 5000), "summary"),
    ("extra key", lambda d: d["events"][0].update(hacked=True), "hacked"),
    ("undo target missing", lambda d: d["events"][3]["payload"].update(target=99), "target"),
    ("undo target text", lambda d: d["events"][3]["payload"].update(target="3"), "target"),
    ("a malformed entry", lambda d: d["events"][0]["payload"].update(sector=40), "malformed"),
    ("an entry that does not apply", lambda d: d["events"][1]["payload"].update(faction="tleilaxu"),
     "does not replay"),
    ("a NUL in a name", lambda d: d["events"][2]["payload"].update(traitors=["Dun\x00can"]), "control"),
    ("too many events", lambda d: d.update(events=[copy.deepcopy(d["events"][0]) | {"seq": i + 1}
                                                 for i in range(50_001)]), "events"),
]


@pytest.mark.parametrize("name, mutate, needle", BAD_IMPORTS, ids=[x[0] for x in BAD_IMPORTS])
def test_a_bad_import_is_refused_and_changes_nothing(client, exported, name, mutate, needle):
    store = client.application.extensions["tables"].store
    before = [t["code"] for t in store.list_tables()]
    data = copy.deepcopy(exported)
    mutate(data)
    r = client.post("/api/tables/import", json=data)
    assert r.status_code == 422, r.get_data(as_text=True)[:400]
    assert needle in error_message(r)
    assert [t["code"] for t in store.list_tables()] == before


def test_a_good_import_still_works_and_its_pages_all_answer(app, client, exported):
    r = client.post("/api/tables/import", json=exported)
    assert r.status_code == 201, r.get_data(as_text=True)
    d = r.get_json()
    code, host = d["table"], d["host_token"]
    s = state(client, code, host)
    assert s["storm"]["sector"] == 3 and s["factions"]["atreides"]["spice"] == 12
    assert s["factions"]["harkonnen"]["private"]["traitors"] == []  # the undo was kept
    laptop = app.test_client()
    laptop.set_cookie(f"seat_{code}", host)
    for path in (f"/t/{code}/host", f"/t/{code}", f"/t/{code}/view", f"/t/{code}/history", f"/t/{code}/board"):
        assert laptop.get(path).status_code in (200, 302), path
    # a secret entry stays hidden from other seats, whatever the file said about it
    history = client.get(f"/api/tables/{code}/history", headers=bearer(d["seats"]["fremen"])).get_json()["entries"]
    assert history[1]["payload"] is None


def test_an_import_that_hides_nothing_cannot_unhide_a_secret(client, exported):
    data = copy.deepcopy(exported)
    data["events"][1]["secret_for"] = None  # the file claims the spice entry is public
    d = client.post("/api/tables/import", json=data).get_json()
    history = client.get(f"/api/tables/{d['table']}/history", headers=bearer(d["seats"]["fremen"])).get_json()
    assert history["entries"][1]["payload"] is None


def test_an_import_whose_pages_would_not_render_is_refused(client, exported, monkeypatch):
    """Every seat's page is rendered from the replayed state before the table is stored: a file
    that would break a page is refused whole (here a page is made to fail on purpose)."""
    import companion.web.api as api
    real = api.renders

    def fussy(state, config):
        real(state, config)  # the real pages render...
        if state["storm"]["sector"] == 3:
            raise KeyError("a page would break")  # ...and this one is made to fail
    monkeypatch.setattr(api, "renders", fussy)
    store = client.application.extensions["tables"].store
    before = len(store.list_tables())
    r = client.post("/api/tables/import", json=exported)
    assert r.status_code == 422 and "does not replay" in error_message(r)
    assert len(store.list_tables()) == before


# -- property: whatever a file says, an import answers 201 or 422, and an imported table's pages answer --

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

json_value = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6)
event_keys = st.sampled_from(["seq", "seat", "type", "payload", "ts", "secret_for", "summary"])
payload_keys = st.sampled_from(["faction", "amount", "sector", "traitors", "target", "type", "override", "reason"])


@pytest.fixture(scope="module")
def fuzz_app(tmp_path_factory):
    from companion import create_app
    app = create_app({"DATA_DIR": str(tmp_path_factory.mktemp("fuzz")), "TESTING": True})
    client = app.test_client()
    t = create_table(client, SIX)
    act(client, t.code, t.host, type="storm.set", sector=3)
    act(client, t.code, t.seats["atreides"], type="spice.set", faction="atreides", amount=12)
    act(client, t.code, t.seats["harkonnen"], type="traitors.set", faction="harkonnen", traitors=["Duncan Idaho"])
    client.post(f"/api/tables/{t.code}/undo", json={}, headers=bearer(t.seats["harkonnen"]))
    return app, client.get(f"/api/tables/{t.code}/export", headers=bearer(t.host)).get_json()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(changes=st.lists(st.tuples(st.integers(0, 3), st.booleans(), event_keys, payload_keys, json_value),
                        min_size=1, max_size=3))
def test_any_mangled_import_answers_201_or_422_and_its_pages_work(fuzz_app, changes):
    app, exported = fuzz_app
    data = copy.deepcopy(exported)
    for i, in_payload, key, pkey, value in changes:
        event = data["events"][i]
        if in_payload and isinstance(event.get("payload"), dict):
            event["payload"][pkey] = value
        else:
            event[key] = value
    client = app.test_client()
    r = client.post("/api/tables/import", json=data)
    assert r.status_code in (201, 422), r.get_data(as_text=True)[:300]
    if r.status_code == 201:
        d = r.get_json()
        laptop = app.test_client()
        laptop.set_cookie(f"seat_{d['table']}", d["host_token"])
        for path in ("/host", "", "/view", "/history", "/board"):
            assert laptop.get(f"/t/{d['table']}{path}").status_code == 200, path
        for seat, token in d["seats"].items():
            assert client.get(f"/api/tables/{d['table']}/history", headers=bearer(token)).status_code == 200

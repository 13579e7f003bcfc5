"""The JSON API of the table server (issue 2, section 8), through the Flask test client."""
from __future__ import annotations

import re

import pytest

from conftest import SIX, act, bearer, create_table, csrf, join_seat, shows_number, state, undo

CODE_RE = re.compile(r"^[A-HJ-NP-Z2-9]{5}$")  # the code alphabet has no I, O, 0 or 1
TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]+$")


# -- creating a table --------------------------------------------------------------------------

def test_create_returns_201_with_code_tokens_and_join_url(client):
    r = client.post("/api/tables", json={"factions": ["atreides", "fremen", "bg"], "turns": 10, "options": {}})
    assert r.status_code == 201
    body = r.get_json()
    assert set(body) == {"table", "host_token", "seats", "join_url"}
    code = body["table"]
    assert CODE_RE.match(code)
    assert set(body["seats"]) == {"atreides", "fremen", "bg"}
    assert body["join_url"].endswith(f"/t/{code}/join")
    assert body["join_url"].startswith("http")
    tokens = [body["host_token"], *body["seats"].values()]
    assert len(set(tokens)) == len(tokens)


def test_join_url_uses_public_url_when_configured(tmp_path):
    from companion import create_app
    app = create_app({"DATA_DIR": str(tmp_path), "TESTING": True, "PUBLIC_URL": "http://192.168.1.20:8765/"})
    t = create_table(app.test_client(), ["atreides", "fremen"])
    assert t.join_url == f"http://192.168.1.20:8765/t/{t.code}/join"


def test_defaults_turns_and_discovery_tokens(client):
    r = client.post("/api/tables", json={"factions": ["atreides", "fremen"]})
    assert r.status_code == 201
    d = r.get_json()
    s = state(client, d["table"], d["host_token"])
    assert s["last_turn"] == 10
    assert s["options"]["discovery_tokens"] is True


def test_codes_are_short_and_tokens_unguessable(client):
    codes, tokens = set(), set()
    for _ in range(25):
        t = create_table(client, ["atreides", "harkonnen"])
        codes.add(t.code)
        for tok in (t.host, *t.seats.values()):
            assert TOKEN_RE.match(tok)
            # URL-safe base64: 6 bits a character; 22 characters are 132 bits
            assert len(tok) * 6 >= 128, tok
            tokens.add(tok)
        assert CODE_RE.match(t.code), t.code
    assert len(codes) == 25 and len(tokens) == 75


def test_tokens_come_from_the_csprng_with_at_least_128_bits():
    from companion.table.service import TableService
    tok = TableService.new_token()
    assert len(tok) * 6 >= 128
    assert len({TableService.new_token() for _ in range(1000)}) == 1000


@pytest.mark.parametrize("body, needle", [
    ({"factions": ["atreides"]}, "2 to 11"),
    ({"factions": []}, "2 to 11"),
    ({"factions": SIX + ["ecaz", "moritani", "tleilaxu", "choam", "richese", "atreides"]}, "2 to 11"),
    ({"factions": ["atreides", "sardaukar"]}, "Unknown faction 'sardaukar'"),
    ({"factions": ["Atreides", "fremen"]}, "Unknown faction 'Atreides'"),
    ({"factions": ["atreides", "atreides"]}, "only once"),
    ({"factions": ["atreides", "fremen"], "turns": 0}, "1 to 20 turns"),
    ({"factions": ["atreides", "fremen"], "turns": 21}, "1 to 20 turns"),
    ({"factions": ["atreides", "fremen"], "turns": "ten"}, "turns"),
    ({"factions": ["atreides", "fremen"], "turns": True}, "turns"),
    ({"factions": ["atreides", "fremen"], "turns": 10.5}, "turns"),
    ({"factions": "atreides,fremen"}, "factions"),
    ({"factions": ["atreides", 3]}, "factions"),
    ({"turns": 10}, "factions"),
    ({"factions": ["atreides", "fremen"], "options": []}, "options"),
])
def test_create_validation(client, body, needle):
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422, r.get_data(as_text=True)
    err = r.get_json()["error"]
    assert needle in err["message"]
    assert "rule" in err


def test_create_nine_factions_and_two(client):
    assert create_table(client, SIX + ["ecaz", "moritani", "tleilaxu"]).code
    assert create_table(client, ["ecaz", "tleilaxu"]).code


def test_create_refuses_non_json(client):
    r = client.post("/api/tables", data="factions=atreides", content_type="application/x-www-form-urlencoded")
    assert r.status_code == 422
    assert r.get_json()["error"]["message"]


# -- reading the state -------------------------------------------------------------------------

def test_state_has_the_required_fields(client, table6):
    s = state(client, table6.code, table6.host)
    for key in ("revision", "turn", "phase", "storm", "factions"):
        assert key in s
    assert s["revision"] == 0 and s["turn"] == 1 and s["phase"] == "storm"
    assert s["storm"] == {"sector": 18}
    assert set(s["factions"]) == set(SIX)


def test_state_per_credential(client, app, table6):
    code = table6.code
    act(client, code, table6.host, type="spice.set", faction="atreides", amount=47)
    act(client, code, table6.host, type="spice.set", faction="harkonnen", amount=53)

    host = state(client, code, table6.host)
    assert host["viewer"] == "host"
    assert host["factions"]["atreides"]["spice"] == 47
    assert host["factions"]["harkonnen"]["spice"] == 53
    assert all("private" in host["factions"][f] for f in SIX)

    a = state(client, code, table6.seats["atreides"])
    assert a["viewer"] == "atreides"
    assert a["factions"]["atreides"]["spice"] == 47
    assert a["factions"]["atreides"]["private"]["spice"] == 47
    for f in SIX:
        if f != "atreides":
            assert a["factions"][f]["spice"] is None
            assert "private" not in a["factions"][f]
    assert "private" not in a

    h = state(client, code, table6.seats["harkonnen"])
    assert h["factions"]["harkonnen"]["spice"] == 53
    assert h["factions"]["atreides"]["spice"] is None

    # the board / spectator credential (from the join page) sees no faction's spice
    board = join_seat(app, code, "board")
    board_token = board.get_cookie(f"seat_{code}").value
    b = state(client, code, board_token)
    assert b["viewer"] == "board"
    for f in SIX:
        assert b["factions"][f]["spice"] is None
        assert "private" not in b["factions"][f]


def test_public_parts_are_the_same_for_everyone(client, table6):
    act(client, table6.code, table6.host, type="storm.set", sector=7)
    views = [state(client, table6.code, tok) for tok in (table6.host, *table6.seats.values())]
    for v in views:
        assert v["storm"] == {"sector": 7}
        assert v["revision"] == 1
        assert v["factions"]["fremen"]["reserves"] == views[0]["factions"]["fremen"]["reserves"]


def test_code_is_case_insensitive(client, table6):
    assert state(client, table6.code.lower(), table6.host)["table"] == table6.code


def test_unknown_table_is_404(client, table6):
    r = client.get("/api/tables/ZZZZZ/state", headers=bearer(table6.host))
    assert r.status_code == 404
    assert "ZZZZZ" in r.get_json()["error"]["message"]


# -- credentials -------------------------------------------------------------------------------

def test_missing_or_forged_credential_is_401(client, table6):
    code = table6.code
    for headers in ({}, bearer("forged-" + table6.host[7:]), bearer(""), {"Authorization": table6.host},
                    {"Authorization": "Basic " + table6.host}):
        r = client.get(f"/api/tables/{code}/state", headers=headers)
        assert r.status_code == 401, headers
        assert r.get_json()["error"]["message"]
        r = client.post(f"/api/tables/{code}/actions", json={"type": "storm.set", "sector": 3, "revision": 0},
                        headers=headers)
        assert r.status_code == 401
        r = client.post(f"/api/tables/{code}/undo", json={}, headers=headers)
        assert r.status_code == 401
    assert state(client, code, table6.host)["revision"] == 0


def test_a_token_is_only_valid_at_its_own_table(client, table6):
    other = create_table(client, ["atreides", "fremen"])
    r = client.get(f"/api/tables/{table6.code}/state", headers=bearer(other.host))
    assert r.status_code == 401
    r = client.get(f"/api/tables/{other.code}/state", headers=bearer(table6.seats["atreides"]))
    assert r.status_code == 401


# -- entries -----------------------------------------------------------------------------------

def test_action_returns_200_and_the_new_visible_state(client, table6):
    r = act(client, table6.code, table6.seats["fremen"], type="storm.set", sector=5)
    s = r.get_json()
    assert s["revision"] == 1
    assert s["storm"]["sector"] == 5
    assert s["viewer"] == "fremen"
    assert s["factions"]["atreides"]["spice"] is None

    r = act(client, table6.code, table6.seats["atreides"], type="spice.set", faction="atreides", amount=33)
    s = r.get_json()
    assert s["revision"] == 2
    assert s["factions"]["atreides"]["spice"] == 33


def test_spice_add(client, table6):
    act(client, table6.code, table6.seats["atreides"], type="spice.set", faction="atreides", amount=10)
    s = act(client, table6.code, table6.seats["atreides"], type="spice.add", faction="atreides", amount=-3).get_json()
    assert s["factions"]["atreides"]["spice"] == 7


def test_stale_revision_is_409_with_fresh_state(client, table6):
    code = table6.code
    act(client, code, table6.host, type="spice.set", faction="harkonnen", amount=61)
    act(client, code, table6.host, type="storm.set", sector=4)
    r = act(client, code, table6.seats["atreides"], expect=409, type="storm.set", sector=9, revision=1)
    body = r.get_json()
    assert body["error"]["revision"] == 2
    assert "revision 2" in body["error"]["message"]
    fresh = body["state"]
    assert fresh["revision"] == 2 and fresh["storm"]["sector"] == 4
    assert fresh["viewer"] == "atreides"
    assert fresh["factions"]["harkonnen"]["spice"] is None  # still filtered for the seat
    assert state(client, code, table6.host)["storm"]["sector"] == 4  # nothing merged


def test_a_revision_from_the_future_is_stale_too(client, table6):
    r = act(client, table6.code, table6.host, expect=409, type="storm.set", sector=9, revision=5)
    assert r.get_json()["state"]["revision"] == 0


@pytest.mark.parametrize("entry, field, needle", [
    ({"type": "no.such.entry"}, None, "Unknown entry type 'no.such.entry'"),
    ({}, None, "Unknown entry type None"),
    ({"type": 5}, None, "Unknown entry type 5"),
    ({"type": "storm.set", "sector": 19}, "sector", "sector: Input should be less than or equal to 18"),
    ({"type": "storm.set", "sector": 0}, "sector", "sector: Input should be greater than or equal to 1"),
    ({"type": "storm.set", "sector": "north"}, "sector", "sector: Input should be a valid integer"),
    ({"type": "storm.set"}, "sector", "sector: Field required"),
    ({"type": "storm.set", "sector": 3, "colour": "red"}, "colour", "colour: Extra inputs are not permitted"),
    ({"type": "spice.set", "faction": "atreides", "amount": -1}, "amount",
     "amount: Input should be greater than or equal to 0"),
    ({"type": "spice.set", "faction": "sardaukar", "amount": 3}, "faction", "faction: Input should be"),
    ({"type": "spice.set", "faction": "atreides"}, "amount", "amount: Field required"),
])
def test_malformed_entries_are_422_with_a_precise_message(client, table6, entry, field, needle):
    r = act(client, table6.code, table6.host, expect=422, **entry)
    err = r.get_json()["error"]
    assert err["message"].startswith(needle), err["message"]
    assert "rule" in err
    if field:
        assert err["fields"][0]["field"] == field
    assert state(client, table6.code, table6.host)["revision"] == 0


def test_missing_revision_is_422(client, table6):
    r = client.post(f"/api/tables/{table6.code}/actions", json={"type": "storm.set", "sector": 3},
                    headers=bearer(table6.host))
    assert r.status_code == 422
    assert r.get_json()["error"]["message"].startswith("revision:")


def test_body_that_is_not_an_object_is_422(client, table6):
    for body in ([1, 2], "storm", None):
        r = client.post(f"/api/tables/{table6.code}/actions", json=body, headers=bearer(table6.host))
        assert r.status_code == 422
        assert r.get_json()["error"]["message"]


def test_illegal_entry_is_422_with_a_rule_id(client, table6):
    r = act(client, table6.code, table6.seats["atreides"], expect=422, type="spice.add", faction="atreides",
            amount=-500)
    err = r.get_json()["error"]
    assert err["rule"] == "base-spice"
    assert "500" in err["message"]


def test_a_seat_cannot_act_for_another_faction(client, table6):
    r = act(client, table6.code, table6.seats["atreides"], expect=403, type="spice.set", faction="harkonnen",
            amount=0)
    assert "Atreides" in r.get_json()["error"]["message"]
    act(client, table6.code, table6.seats["atreides"], expect=403, type="alliance.form",
        factions=["fremen", "bg"])
    assert state(client, table6.code, table6.host)["revision"] == 0


def test_host_only_entries(client, table6):
    act(client, table6.code, table6.seats["fremen"], expect=403, type="phase.set", turn=2, phase="storm")
    act(client, table6.code, table6.host, type="phase.set", turn=2, phase="storm")


def test_the_host_may_act_for_any_faction(client, table6):
    for i, f in enumerate(SIX):
        act(client, table6.code, table6.host, type="spice.set", faction=f, amount=100 + i)
    s = state(client, table6.code, table6.host)
    assert [s["factions"][f]["spice"] for f in SIX] == [100 + i for i in range(6)]


def test_the_board_view_cannot_act(client, app, table6):
    board = join_seat(app, table6.code, "board")
    token = board.get_cookie(f"seat_{table6.code}").value
    act(client, table6.code, token, expect=403, type="storm.set", sector=3)
    undo(client, table6.code, token, expect=403)


def test_action_types_lists_schemas(client):
    d = client.get("/api/actions").get_json()
    assert {"spice.set", "spice.add", "storm.set"} <= set(d)
    schema = d["storm.set"]["schema"]
    assert schema["properties"]["sector"]["maximum"] == 18
    assert d["spice.set"]["secret"] is True and d["storm.set"]["secret"] is False
    assert d["storm.set"]["acting_faction_field"] is None


# -- undo --------------------------------------------------------------------------------------

def test_host_undoes_the_latest_entry(client, table6):
    code = table6.code
    act(client, code, table6.seats["fremen"], type="storm.set", sector=5)
    act(client, code, table6.seats["fremen"], type="storm.set", sector=8)
    s = undo(client, code, table6.host).get_json()
    assert s["storm"]["sector"] == 5
    assert s["revision"] == 3
    s = undo(client, code, table6.host).get_json()
    assert s["storm"]["sector"] == 18
    hist = client.get(f"/api/tables/{code}/history", headers=bearer(table6.host)).get_json()["entries"]
    assert [(e["seq"], e["type"], e["undone_by"]) for e in hist] == [
        (1, "storm.set", 4), (2, "storm.set", 3), (3, "undo", None), (4, "undo", None)]
    assert undo(client, code, table6.host, expect=422).get_json()["error"]["message"] == "There is nothing to undo."


def test_the_seat_that_made_the_latest_entry_may_undo_it(client, table6):
    code = table6.code
    act(client, code, table6.seats["atreides"], type="spice.set", faction="atreides", amount=21)
    r = undo(client, code, table6.seats["harkonnen"], expect=403)
    assert "Atreides" in r.get_json()["error"]["message"]
    s = undo(client, code, table6.seats["atreides"]).get_json()
    assert s["factions"]["atreides"]["spice"] == 10  # back to the start
    assert s["revision"] == 2


def test_undo_with_a_stale_revision_is_409(client, table6):
    act(client, table6.code, table6.host, type="storm.set", sector=5)
    r = client.post(f"/api/tables/{table6.code}/undo", json={"revision": 0}, headers=bearer(table6.host))
    assert r.status_code == 409
    assert r.get_json()["state"]["revision"] == 1


def test_undone_entries_stay_in_history_and_the_state_replays(client, table6):
    code = table6.code
    act(client, code, table6.host, type="storm.set", sector=2)
    act(client, code, table6.host, type="storm.set", sector=3)
    undo(client, code, table6.host)
    act(client, code, table6.host, type="storm.set", sector=4)
    undo(client, code, table6.host)  # undoes #4, not #2
    s = state(client, code, table6.host)
    assert s["storm"]["sector"] == 2
    hist = client.get(f"/api/tables/{code}/history", headers=bearer(table6.host)).get_json()["entries"]
    assert {e["seq"]: e["undone_by"] for e in hist} == {1: None, 2: 3, 3: None, 4: 5, 5: None}


# -- history -----------------------------------------------------------------------------------

def test_history_lists_who_what_when_and_hides_other_seats_secrets(client, table6):
    code = table6.code
    act(client, code, table6.seats["atreides"], type="spice.set", faction="atreides", amount=947)
    act(client, code, table6.seats["bg"], type="prediction.set", faction="bg", target="emperor", turn=7)
    act(client, code, table6.seats["fremen"], type="storm.set", sector=11)

    def hist(token):
        r = client.get(f"/api/tables/{code}/history", headers=bearer(token))
        assert r.status_code == 200
        return r.get_json()["entries"]

    host = hist(table6.host)
    assert [e["seat"] for e in host] == ["atreides", "bg", "fremen"]
    assert all(isinstance(e["ts"], float) and e["summary"] for e in host)
    assert host[0]["payload"]["amount"] == 947 and "947" in host[0]["summary"]
    assert host[1]["payload"]["target"] == "emperor"

    mine = hist(table6.seats["atreides"])
    assert mine[0]["payload"]["amount"] == 947
    assert mine[1]["payload"] is None and "private" in mine[1]["summary"]
    assert mine[2]["payload"]["sector"] == 11

    other = hist(table6.seats["harkonnen"])
    assert other[0]["payload"] is None and other[1]["payload"] is None
    assert other[0]["summary"] == "Atreides: private entry"
    assert other[2]["payload"]["sector"] == 11
    text = client.get(f"/api/tables/{code}/history", headers=bearer(table6.seats["harkonnen"])).get_data(as_text=True)
    assert not shows_number(text, 947) and "emperor" not in text


def test_undo_of_a_secret_entry_does_not_reveal_it(client, table6):
    code = table6.code
    act(client, code, table6.seats["atreides"], type="spice.set", faction="atreides", amount=947)
    undo(client, code, table6.seats["atreides"])
    text = client.get(f"/api/tables/{code}/history", headers=bearer(table6.seats["emperor"])).get_data(as_text=True)
    # a whole number 947, not digits inside a timestamp such as 1764523947.1
    assert not re.search(r"(?<![\d.])947(?![\d.])", text), text


# -- export and import -------------------------------------------------------------------------

def comparable(view: dict) -> dict:
    return {k: v for k, v in view.items() if k not in ("table",)}


def test_export_then_import_gives_the_identical_state(client, table6):
    code = table6.code
    act(client, code, table6.host, type="spice.set", faction="atreides", amount=12)
    act(client, code, table6.seats["bg"], type="prediction.set", faction="bg", target="harkonnen", turn=4)
    act(client, code, table6.host, type="storm.set", sector=3)
    act(client, code, table6.host, type="cards.set", faction="emperor", cards=["Lasgun", "Karama"])
    act(client, code, table6.host, type="storm.set", sector=6)
    undo(client, code, table6.host)
    act(client, code, table6.seats["fremen"], type="storm.card", faction="fremen", card=4)
    act(client, code, table6.host, type="phase.next", override=True, reason="setup done on the board")

    r = client.get(f"/api/tables/{code}/export", headers=bearer(table6.seats["atreides"]))
    assert r.status_code == 403
    r = client.get(f"/api/tables/{code}/export", headers=bearer(table6.host))
    assert r.status_code == 200
    assert "attachment" in r.headers["Content-Disposition"]
    exported = r.get_json()
    assert exported["format"] == "dune-table-companion/1"
    assert len(exported["events"]) == 8

    r = client.post("/api/tables/import", json=exported)
    assert r.status_code == 201, r.get_data(as_text=True)
    imp = r.get_json()
    assert imp["table"] != code  # the original still exists on this server
    assert set(imp["seats"]) == set(SIX)
    new_state = state(client, imp["table"], imp["host_token"])
    assert comparable(new_state) == comparable(state(client, code, table6.host))
    assert new_state["table"] == imp["table"]
    # each seat's filtered view matches too, and the history with its undo marks
    for f in SIX:
        assert comparable(state(client, imp["table"], imp["seats"][f])) == comparable(
            state(client, code, table6.seats[f]))
    h_old = client.get(f"/api/tables/{code}/history", headers=bearer(table6.host)).get_json()
    h_new = client.get(f"/api/tables/{imp['table']}/history", headers=bearer(imp["host_token"])).get_json()
    assert h_old == h_new
    # old credentials do not open the imported table
    assert client.get(f"/api/tables/{imp['table']}/state", headers=bearer(table6.host)).status_code == 401


def test_import_into_a_fresh_server_keeps_the_code(client, table6, tmp_path):
    from companion import create_app
    act(client, table6.code, table6.host, type="storm.set", sector=3)
    exported = client.get(f"/api/tables/{table6.code}/export", headers=bearer(table6.host)).get_json()
    other = create_app({"DATA_DIR": str(tmp_path / "other"), "TESTING": True}).test_client()
    imp = other.post("/api/tables/import", json=exported).get_json()
    assert imp["table"] == table6.code
    assert state(other, imp["table"], imp["host_token"]) == state(client, table6.code, table6.host)


@pytest.mark.parametrize("mutate, needle", [
    (lambda d: d.update(format="something-else"), "Not a table export"),
    (lambda d: d.pop("events"), "needs 'config' and 'events'"),
    (lambda d: d["events"].pop(0), "numbered 1, 2, 3"),
    (lambda d: d["events"][0].update(type="made.up"), "unknown type"),
])
def test_import_refuses_bad_exports(client, table6, mutate, needle):
    act(client, table6.code, table6.host, type="storm.set", sector=3)
    act(client, table6.code, table6.host, type="storm.set", sector=4)
    exported = client.get(f"/api/tables/{table6.code}/export", headers=bearer(table6.host)).get_json()
    mutate(exported)
    r = client.post("/api/tables/import", json=exported)
    assert r.status_code == 422
    assert needle in r.get_json()["error"]["message"]


# -- re-issuing a seat -------------------------------------------------------------------------

def test_reissue_cancels_the_old_credential(client, table6):
    code, old = table6.code, table6.seats["fremen"]
    assert state(client, code, old)["viewer"] == "fremen"
    r = client.post(f"/api/tables/{code}/seats/fremen/reissue", headers=bearer(table6.host))
    assert r.status_code == 200
    body = r.get_json()
    assert body["faction"] == "fremen"
    new = body["seat_token"]
    assert new != old and len(new) * 6 >= 128
    assert client.get(f"/api/tables/{code}/state", headers=bearer(old)).status_code == 401
    act(client, code, old, expect=401, type="storm.set", sector=2, revision=0)
    assert state(client, code, new)["viewer"] == "fremen"
    act(client, code, new, type="storm.set", sector=2)
    # other seats are untouched
    assert state(client, code, table6.seats["atreides"])["viewer"] == "atreides"


def test_only_the_host_reissues_and_only_seats_at_the_table(client, table6):
    code = table6.code
    r = client.post(f"/api/tables/{code}/seats/fremen/reissue", headers=bearer(table6.seats["atreides"]))
    assert r.status_code == 403
    r = client.post(f"/api/tables/{code}/seats/ecaz/reissue", headers=bearer(table6.host))
    assert r.status_code == 422
    r = client.post(f"/api/tables/{code}/seats/host/reissue", headers=bearer(table6.host))
    assert r.status_code == 422
    assert client.post(f"/api/tables/{code}/seats/fremen/reissue").status_code == 401


# -- cookie callers of the API need CSRF -------------------------------------------------------

def test_cookie_authenticated_api_writes_need_the_csrf_header(app, table6):
    ph = join_seat(app, table6.code, "atreides")
    code = table6.code
    assert ph.get(f"/api/tables/{code}/state").get_json()["viewer"] == "atreides"  # reads need no CSRF
    r = ph.post(f"/api/tables/{code}/actions", json={"type": "storm.set", "sector": 3, "revision": 0})
    assert r.status_code == 403
    assert "CSRF" in r.get_json()["error"]["message"]
    r = ph.post(f"/api/tables/{code}/actions", json={"type": "storm.set", "sector": 3, "revision": 0},
                headers={"X-CSRF-Token": "wrong"})
    assert r.status_code == 403
    r = ph.post(f"/api/tables/{code}/actions", json={"type": "storm.set", "sector": 3, "revision": 0},
                headers={"X-CSRF-Token": csrf(ph)})
    assert r.status_code == 200
    assert ph.post(f"/api/tables/{code}/undo", json={}).status_code == 403
    assert ph.post(f"/api/tables/{code}/undo", json={}, headers={"X-CSRF-Token": csrf(ph)}).status_code == 200


def test_table_answers_are_never_cached(client):
    from conftest import SIX, bearer, create_table
    t = create_table(client, SIX)
    r = client.get(f"/api/tables/{t.code}/state", headers=bearer(t.seats["bg"]))
    assert r.headers["Cache-Control"] == "no-store"

"""Every kind of table exports a file its own import restores (audit finding 2): every faction, both
games, the options, undone and overridden entries, and a table exported during Shipment & Movement
(whose pages need the legal shipments: the import's render check gives them)."""
from __future__ import annotations

import pytest

from conftest import act, bearer, create_table, undo
from sh_helpers import SH, NAMES
from test_secret_harkonnen import play_to_the_end

from companion.games.dune.rules.factions import FACTION_IDS, KISS_FACTION_IDS


def export(client, code, host):
    r = client.get(f"/api/tables/{code}/export", headers=bearer(host))
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()


def restore(client, data) -> dict:
    r = client.post("/api/tables/import", json=data)
    assert r.status_code == 201, r.get_data(as_text=True)
    return r.get_json()


def answer(client, code, token, what):
    r = client.get(f"/api/tables/{code}/{what}", headers=bearer(token))
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()


def same_table(client, old_code, old_tokens, new_code, new_tokens):
    """Each seat's state and history read the same on both tables (but for the table's code)."""
    def state(code, token):
        return {k: v for k, v in answer(client, code, token, "state").items() if k != "table"}

    def history(code, token):
        return [{k: v for k, v in e.items() if k != "ts"} for e in answer(client, code, token, "history")["entries"]]
    assert set(old_tokens) == set(new_tokens)
    for seat in old_tokens:
        assert state(new_code, new_tokens[seat]) == state(old_code, old_tokens[seat]), seat
        assert history(new_code, new_tokens[seat]) == history(old_code, old_tokens[seat]), seat
    page = client.get(f"/t/{new_code}/board")
    assert page.status_code == 200


def play_some_dune(client, t, phase):
    """Entries from every seat (its own secret spice), an override, an undone entry, then ``phase``."""
    act(client, t.code, t.host, type="phase.next", override=True, reason="setup done on the board")
    for i, f in enumerate(t.factions):
        act(client, t.code, t.seats[f], type="spice.set", faction=f, amount=10 + i)
    act(client, t.code, t.host, type="storm.set", sector=7)
    undo(client, t.code, t.host)
    first, second = t.factions[:2]
    act(client, t.code, t.host, type="alliance.form", factions=[first, second], override=True, reason="a Nexus")
    act(client, t.code, t.host, type="phase.set", turn=2, phase=phase)


DUNE_KINDS = [
    ("two", ["atreides", "harkonnen"], {}, "shipment_movement"),
    ("kiss-nine", list(KISS_FACTION_IDS), {"discovery_tokens": False, "kiss_cards_in_discard": True},
     "shipment_movement"),
    ("every-faction-advanced", list(FACTION_IDS), {"advanced": True, "leader_skills": True,
                                                   "stronghold_cards": True}, "shipment_movement"),
    ("addon-bidding", ["emperor", "guild", "choam", "richese"], {"advanced": True}, "bidding"),
    ("battle", ["fremen", "bg", "ecaz", "moritani", "tleilaxu"], {"player_dots": {"fremen": 3, "bg": 9}}, "battle"),
]


@pytest.mark.parametrize("kind", DUNE_KINDS, ids=[k[0] for k in DUNE_KINDS])
def test_every_kind_of_dune_table_exports_and_imports_to_the_same_table(client, kind):
    _, factions, options, phase = kind
    t = create_table(client, factions, options=options)
    play_some_dune(client, t, phase)
    data = export(client, t.code, t.host)
    assert {e["seat"] for e in data["events"]} >= set(factions)  # every faction made an entry
    new = restore(client, data)
    old_tokens = {"host": t.host, **t.seats}
    new_tokens = {"host": new["host_token"], **new["seats"]}
    same_table(client, t.code, old_tokens, new["table"], new_tokens)
    assert export(client, new["table"], new["host_token"])["events"] == data["events"]


def test_a_table_exported_during_shipment_and_movement_imports_and_shows_its_phones(client):
    t = create_table(client, ["atreides", "harkonnen"])  # no setup choice left: the phase card shows
    play_some_dune(client, t, "shipment_movement")
    new = restore(client, export(client, t.code, t.host))
    phone = client.application.test_client()
    phone.set_cookie(f"seat_{new['table']}", new["seats"]["atreides"])
    page = phone.get(f"/t/{new['table']}")
    assert page.status_code == 200 and 'id="ship-box"' in page.get_data(as_text=True)  # its legal shipments


@pytest.mark.parametrize("n", [5, 10])
def test_a_finished_secret_harkonnen_game_exports_and_imports_to_the_same_table(app, client, n):
    g = SH(app, client, n)
    g.act(g.raw["emperor"], type="sh.nominate", governor=g.eligible(avoid=(g.raw["emperor"],)))
    r = client.post(f"/api/tables/{g.code}/undo", json={}, headers=bearer(g.host))
    assert r.status_code == 200
    play_to_the_end(g, "choam" if n == 5 else "landsraad")
    data = export(client, g.code, g.host)
    assert any(e["type"] == "undo" for e in data["events"])
    new = restore(client, data)
    old_tokens = {"host": g.host, **g.seats}
    new_tokens = {"host": new["host_token"], **new["seats"]}
    assert set(new["seats"]) == set(NAMES[:n])
    same_table(client, g.code, old_tokens, new["table"], new_tokens)


def test_a_secret_harkonnen_game_with_an_amendment_exports_and_imports_to_the_same_table(app, client):
    """The host struck a nomination made by mistake (issue 27's amend); the finished game's export
    keeps the amendment and imports to the same table."""
    g = SH(app, client, 5)
    g.act(g.raw["emperor"], type="sh.nominate", governor=g.eligible(avoid=(g.raw["emperor"],)))
    wrong = g.raw["revision"]
    r = client.post(f"/api/tables/{g.code}/amend", headers=bearer(g.host),
                    json={"seq": wrong, "entry": None, "reason": "nominated the wrong player", "revision": wrong})
    assert r.status_code == 200, r.get_json()
    play_to_the_end(g, "choam")
    data = export(client, g.code, g.host)
    assert [e["type"] for e in data["events"]].count("amend") == 1
    new = restore(client, data)
    same_table(client, g.code, {"host": g.host, **g.seats}, new["table"], {"host": new["host_token"], **new["seats"]})


def test_a_secret_harkonnen_export_with_a_broken_amendment_is_refused_whole(app, client):
    g = SH(app, client, 5)
    g.act(g.raw["emperor"], type="sh.nominate", governor=g.eligible(avoid=(g.raw["emperor"],)))
    wrong = g.raw["revision"]
    client.post(f"/api/tables/{g.code}/amend", headers=bearer(g.host),
                json={"seq": wrong, "entry": None, "reason": "wrong", "revision": wrong})
    play_to_the_end(g, "choam")
    data = export(client, g.code, g.host)
    at = next(i for i, e in enumerate(data["events"]) if e["type"] == "amend")
    for broken in ({"target": 1}, {"target": at + 1}, {"entry": {"type": "sh.deal"}}, {"entry": {"type": "storm.move"}},
                   {"entry": {"type": "sh.vote", "vote": "maybe"}},
                   {"reason": 7}):
        bad = {**data, "events": [dict(e) for e in data["events"]]}
        bad["events"][at] = {**bad["events"][at], "payload": {**bad["events"][at]["payload"], **broken}}
        r = client.post("/api/tables/import", json=bad)
        assert r.status_code == 422, (broken, r.get_data(as_text=True))
        assert "amendment" in r.get_json()["error"]["message"], broken

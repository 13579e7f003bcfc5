"""The export format checks seats against the table's game: every seat the game can have (CHOAM and
Richese included for Dune), and no list of its own."""
from __future__ import annotations

import copy

import pytest
from pydantic import BaseModel, ConfigDict

from companion import games
from companion.table.export_format import parse_export
from conftest import act, bearer, create_table, state

ADDON_TABLE = ["atreides", "harkonnen", "choam", "richese"]


def test_a_table_with_choam_and_richese_entries_exports_and_imports(client):
    t = create_table(client, ADDON_TABLE)
    act(client, t.code, t.seats["choam"], type="spice.set", faction="choam", amount=7)
    act(client, t.code, t.seats["richese"], type="spice.set", faction="richese", amount=9)
    act(client, t.code, t.host, type="storm.set", sector=3)

    r = client.get(f"/api/tables/{t.code}/export", headers=bearer(t.host))
    assert r.status_code == 200
    exported = r.get_json()
    assert [e["seat"] for e in exported["events"]] == ["choam", "richese", "host"]
    assert [e["secret_for"] for e in exported["events"]] == ["choam", "richese", None]

    r = client.post("/api/tables/import", json=exported)
    assert r.status_code == 201, r.get_data(as_text=True)
    imp = r.get_json()
    assert set(imp["seats"]) == set(ADDON_TABLE)

    def comparable(view: dict) -> dict:
        return {k: v for k, v in view.items() if k != "table"}
    assert comparable(state(client, imp["table"], imp["host_token"])) == comparable(state(client, t.code, t.host))
    for seat in ADDON_TABLE:
        assert comparable(state(client, imp["table"], imp["seats"][seat])) == comparable(
            state(client, t.code, t.seats[seat]))
    mine = state(client, imp["table"], imp["seats"]["choam"])["factions"]["choam"]["spice"]
    assert mine == 7
    # Richese's entry stays Richese's secret in the imported table too
    history = client.get(f"/api/tables/{imp['table']}/history", headers=bearer(imp["seats"]["choam"])).get_json()
    assert history["entries"][0]["payload"] is not None and history["entries"][1]["payload"] is None


def test_an_export_naming_a_seat_that_is_not_at_the_table_is_refused(client):
    t = create_table(client, ADDON_TABLE)
    act(client, t.code, t.seats["choam"], type="spice.set", faction="choam", amount=7)
    exported = client.get(f"/api/tables/{t.code}/export", headers=bearer(t.host)).get_json()
    for change, needle in [({"seat": "fremen"}, "events.0.seat: fremen is not at this table"),
                           ({"seat": "nobody"}, "events.0.seat: Input should be 'host', "),
                           ({"secret_for": "nobody"}, "events.0.secret_for")]:
        data = copy.deepcopy(exported)
        data["events"][0].update(change)
        r = client.post("/api/tables/import", json=data)
        assert r.status_code == 422 and needle in r.get_json()["error"]["message"], (change, r.get_json())
    data = copy.deepcopy(exported)
    data["config"]["factions"] = ["choam", "choam"]
    with pytest.raises(games.ConfigError, match="config.factions: each faction at most once"):
        games.get("dune").parse_import(data)


def test_dune_declares_every_faction_as_a_possible_seat():
    from companion.games.dune.rules.factions import FACTION_IDS
    assert games.get("dune").seat_ids == tuple(FACTION_IDS)
    assert {"choam", "richese"} <= set(games.get("dune").seat_ids)
    assert games.get("secret-harkonnen").seat_ids is None  # its seats are the players' names


class Points(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    points: list[str]


def test_the_format_takes_its_seats_and_settings_from_the_game():
    def seats(config: Points) -> list[str]:
        return config.points
    checks = {"config": Points, "seat_ids": ("north", "south", "east"), "seats": seats}
    data = {"format": "dune-table-companion/1", "config": {"points": ["north", "south"]},
            "events": [{"seq": 1, "seat": "north", "type": "move", "payload": {}, "ts": 1.0, "secret_for": "north"},
                       {"seq": 2, "seat": "host", "type": "undo", "payload": {"target": 1}, "ts": 2.0}]}
    checked, problem = parse_export(data, **checks)
    assert problem is None and checked.config.points == ["north", "south"] and len(checked.events) == 2

    bad = copy.deepcopy(data)
    bad["events"][0]["seat"] = "east"
    assert parse_export(bad, **checks) == (None, "events.0.seat: east is not at this table")
    bad["events"][0]["seat"] = "west"
    assert parse_export(bad, **checks)[1].startswith("events.0.seat: Input should be 'host', 'north'")
    bad = copy.deepcopy(data)
    bad["config"]["points"] = ["north", "north"]
    assert parse_export(bad, **checks) == (None, "config: each seat at most once")

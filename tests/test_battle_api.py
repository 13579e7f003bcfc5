"""The /api/dial and /api/karama endpoints (companion.games.dune.web.battle_api), on a tiny test app."""
from __future__ import annotations

import pytest
from flask import Flask

from companion.games.dune.rules.factions import KISS_FACTION_IDS as FACTIONS  # the nine KISS factions
from companion.games.dune.web.battle_api import bp

ALL = ",".join(FACTIONS)


@pytest.fixture()
def client():
    app = Flask(__name__)
    app.config["TESTING"] = True
    app.register_blueprint(bp)
    return app.test_client()


def get_json(client, url, status=200):
    response = client.get(url)
    assert response.status_code == status, response.get_data(as_text=True)
    return response.get_json()


# --- /api/dial -----------------------------------------------------------------------------

def test_dial_seed_sardaukar_example(client):
    body = get_json(client, "/api/dial?faction=emperor&opponent=atreides&forces=0&starred=3")
    assert body == {"strength": 6, "troops": 3, "cost": 1, "affordable": None}


def test_dial_sardaukar_against_fremen(client):
    body = get_json(client, "/api/dial?faction=emperor&opponent=fremen&starred=3&spice=0")
    assert body == {"strength": 3, "troops": 3, "cost": 1, "affordable": False}


@pytest.mark.parametrize("n", range(1, 21))
def test_dial_breakdown_and_fremen(client, n):
    paid = get_json(client, f"/api/dial?faction=harkonnen&opponent=fremen&forces={n}&spice=5")
    assert paid == {"strength": n, "troops": n, "cost": max(0, n - 2), "affordable": n <= 7}
    free = get_json(client, f"/api/dial?faction=fremen&opponent=harkonnen&forces={n}&spice=0")
    assert free == {"strength": n, "troops": n, "cost": 0, "affordable": True}


def test_dial_want_gives_the_best_mix(client):
    body = get_json(client, "/api/dial?faction=emperor&opponent=bg&forces=10&starred=5&spice=3&want=9")
    assert body["best"] == {"forces": 1, "starred": 4, "bonus": 0, "strength": 9, "troops": 5,
                            "cost": 3, "affordable": True, "exact": True}
    assert {k: body[k] for k in ("strength", "troops", "cost", "affordable")} == {
        "strength": 9, "troops": 5, "cost": 3, "affordable": True}


def test_dial_want_with_ecaz_bonus(client):
    body = get_json(client, "/api/dial?faction=atreides&opponent=harkonnen&forces=10&want=8&ecaz=5")
    assert body["best"]["bonus"] == 3 and body["best"]["forces"] == 5 and body["cost"] == 3


def test_dial_ecaz_bonus_counts_toward_the_cap(client):
    body = get_json(client, "/api/dial?faction=atreides&opponent=harkonnen&forces=18&ecaz=5", 422)
    assert body["error"]["rule"] == "kiss-simple-dialing"


@pytest.mark.parametrize("query,rule", [
    ("faction=atreides&opponent=bg&forces=-1", "kiss-simple-dialing"),
    ("faction=atreides&opponent=bg&forces=2.5", "kiss-simple-dialing"),
    ("faction=emperor&opponent=bg&starred=0.5", "kiss-simple-dialing"),
    ("faction=atreides&opponent=bg&forces=abc", "kiss-simple-dialing"),
    ("faction=atreides&opponent=bg&forces=21", "kiss-simple-dialing"),
    ("faction=emperor&opponent=bg&forces=11&starred=5", "kiss-simple-dialing"),
    ("faction=atreides&opponent=bg&forces=2&starred=1", "atreides-at-start"),
    ("faction=harkonnen&opponent=bg&starred=2", "harkonnen-at-start"),
    ("faction=emperor&opponent=bg&starred=6", "emperor-sardaukar"),
    ("faction=fremen&opponent=bg&starred=4", "fremen-fedaykin"),
    ("faction=ixian&opponent=bg&forces=2", None),
    ("faction=atreides&opponent=ixian&forces=2", None),
    ("opponent=bg&forces=2", None),
    ("faction=atreides&opponent=bg&forces=2&spice=-1", "base-spice"),
    ("faction=atreides&opponent=bg&forces=2&want=25", "kiss-simple-dialing"),
    ("faction=atreides&opponent=bg&forces=2&want=5", "kiss-simple-dialing"),
    ("faction=atreides&opponent=bg&forces=9&want=8&spice=1", "kiss-simple-dialing"),
])
def test_dial_errors_are_422(client, query, rule):
    body = get_json(client, f"/api/dial?{query}", 422)
    assert set(body["error"]) == {"message", "rule"}
    assert body["error"]["rule"] == rule
    assert body["error"]["message"].endswith(".")


def test_dial_whole_number_written_as_float_is_fine(client):
    assert get_json(client, "/api/dial?faction=atreides&opponent=bg&forces=3.0")["cost"] == 1


# --- /api/karama ---------------------------------------------------------------------------

def test_karama_nine_factions(client):
    body = get_json(client, f"/api/karama?player=atreides&factions={ALL}")
    assert len(body["options"]) == 17  # 21 listed advantages minus Atreides' own 4
    assert {o["target"] for o in body["options"]} == set(FACTIONS) - {"atreides"}
    assert body["special"]["available"] is True
    assert body["special"]["rule"] == "atreides-special-karama"


def test_karama_absent_factions(client):
    body = get_json(client, "/api/karama?player=harkonnen&factions=harkonnen,fremen")
    assert [o["id"] for o in body["options"]] == [
        "fremen-storm-worm", "fremen-fedaykin", "emperor-free-card", "guild-ship-pay-bank"]


def test_karama_ally_and_phase(client):
    body = get_json(client, f"/api/karama?player=fremen&factions={ALL}&ally=emperor&phase=battle")
    assert body["ally"] == "emperor" and body["phase"] == "battle"
    assert body["options"][0]["applies_now"] is True
    assert any(o["id"] == "emperor-sardaukar" and o["ally"] for o in body["options"])


def test_karama_once_per_game_through_the_api(client):
    before = get_json(client, f"/api/karama?player=bg&factions={ALL}")
    assert before["special"]["available"] is True
    assert before["worthless_karama"]["available"] is True
    after = get_json(client, f"/api/karama?player=bg&factions={ALL}&worthless_used=1")
    assert after["special"]["available"] is False
    assert after["worthless_karama"]["available"] is False
    emperor = get_json(client, f"/api/karama?player=emperor&factions={ALL}&used_special=true")
    assert emperor["special"]["available"] is False


def test_karama_shrine(client):
    body = get_json(client, f"/api/karama?player=moritani&factions={ALL}&shrine=1")
    assert body["shrine"]["rule"] == "discovery-shrine"


@pytest.mark.parametrize("query", [
    f"player=ixian&factions={ALL}",
    "player=atreides&factions=atreides,ixian",
    f"factions={ALL}",
    f"player=atreides&factions={ALL}&ally=atreides",
    "player=atreides&factions=atreides,bg&ally=emperor",
    f"player=atreides&factions={ALL}&phase=nexus",
    f"player=atreides&factions={ALL}&used_special=maybe",
])
def test_karama_errors_are_422(client, query):
    body = get_json(client, f"/api/karama?{query}", 422)
    assert set(body["error"]) == {"message", "rule"} and body["error"]["message"]

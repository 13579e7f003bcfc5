"""Rules search on phones and in the API, permanent rule pages, and "show to table"."""
from __future__ import annotations

import re

import pytest

from companion import create_app
from conftest import SIX, bearer, create_table, join_seat, state


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    return create_app({"DATA_DIR": str(tmp_path_factory.mktemp("rules")), "TESTING": True})


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.mark.parametrize("q, expected", [
    ("kwizatz", "atreides-kwisatz-haderach"),
    ("sardukar", "emperor-sardaukar"),
    ("simple dialing", "kiss-simple-dialing"),
    ("thopter", "base-ornithopters"),
])
def test_search_api_finds_the_rule_best_first(client, q, expected):
    # asked as a KISS table asks (across the whole shelf, "thopter" also names Imperium cards)
    r = client.get("/api/rules/search", query_string={"q": q, "limit": 3, "ruleset": "kiss"})
    assert r.status_code == 200
    ids = [x["id"] for x in r.json["results"]]
    assert expected in ids, ids
    first = r.json["results"][0]
    assert set(first) >= {"id", "title", "snippet", "source", "url"}
    assert first["url"] == f"/rules/{first['id']}"


def test_search_filters_by_faction_and_phase(client):
    r = client.get("/api/rules/search", query_string={"q": "karama", "faction": "guild", "limit": 10})
    assert r.json["results"]
    for hit in r.json["results"]:
        entry = client.get(f"/api/rules/{hit['id']}").json
        assert "guild" in entry["factions"]
    r = client.get("/api/rules/search", query_string={"q": "storm", "phase": "storm", "limit": 10})
    for hit in r.json["results"]:
        assert "storm" in client.get(f"/api/rules/{hit['id']}").json["phases"]


def test_search_refuses_unknown_filters_and_bad_limits(client):
    assert client.get("/api/rules/search?q=storm&faction=ixian").status_code == 422
    assert client.get("/api/rules/search?q=storm&phase=lunch").status_code == 422
    assert client.get("/api/rules/search?q=storm&limit=lots").status_code == 422


def test_nothing_found_suggests_a_spelling(client):
    r = client.get("/api/rules/search", query_string={"q": "zzqxj"})
    assert r.json["results"] == []
    assert "did_you_mean" in r.json


def test_rule_entry_api_and_404(client):
    r = client.get("/api/rules/kiss-simple-dialing")
    assert r.status_code == 200
    assert set(r.json) >= {"id", "title", "source", "text", "related"}
    assert "20" in r.json["text"]
    assert client.get("/api/rules/no-such-rule").status_code == 404


def test_rule_page_renders_markdown_and_related_links(client):
    r = client.get("/rules/kiss-simple-dialing")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "<table" in html  # the 1-20 breakdown table
    related = client.get("/api/rules/kiss-simple-dialing").json["related"]
    for rid in related:
        assert f'href="/rules/{rid}"' in html
    assert client.get("/rules/no-such-rule").status_code == 404


def test_search_as_you_type_fragment(client):
    r = client.get("/rules?q=worm", headers={"HX-Request": "true", "HX-Target": "results"})
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "<html" not in html
    assert 'class="result"' in html and "<mark>" in html


def test_show_to_table_pushes_a_banner_logged_in_history(app, client):
    t = create_table(client, SIX)
    phone = join_seat(app, t.code, "fremen")
    page = phone.get(f"/rules/fremen-wormriders?table={t.code}").get_data(as_text=True)
    assert "Show to table" in page
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    r = phone.post(f"/t/{t.code}/show-rule", data={"rule": "fremen-wormriders", "csrf_token": token})
    assert r.status_code == 204
    for role in ("atreides", "host"):
        banner = state(client, t.code, t.token(role))["banner"]
        assert banner["rule"] == "fremen-wormriders" and banner["by"] == "fremen"
    history = client.get(f"/api/tables/{t.code}/history", headers=bearer(t.host)).json["entries"]
    assert history[-1]["type"] == "rule.show"
    # without the CSRF token the push is refused
    assert phone.post(f"/t/{t.code}/show-rule", data={"rule": "fremen-wormriders"}).status_code == 403


def test_cli_prints_top_answers(capsys):
    from companion.cli import main
    assert main(["rules", "ship through storm", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert "/rules/" in out


# ---------------------------------------------------------------------------------------------
# several rulesets: KISS, War for Arrakis, Dune: Imperium


@pytest.mark.parametrize("q, ruleset, expected", [
    ("what counts as a free area", "war-for-arrakis", "wfa-free-areas"),
    ("sandworm attack dice", "war-for-arrakis", "qa-wfa-worm-dice"),
    ("steal an alliance", "imperium", "imp-alliances"),
    ("hagga basin water", "imperium", "imp-harvesting"),
    ("alliance", "kiss", "base-alliances"),
])
def test_search_by_ruleset_keeps_to_that_game(client, q, ruleset, expected):
    r = client.get("/api/rules/search", query_string={"q": q, "ruleset": ruleset, "limit": 5})
    assert r.status_code == 200 and r.json["ruleset"] == ruleset
    results = r.json["results"]
    assert expected in [x["id"] for x in results[:3]]
    assert {x["ruleset"] for x in results} == {ruleset}
    assert client.get(f"/api/rules/{results[0]['id']}").json["ruleset"] == ruleset


def test_plain_search_spans_every_game_and_a_table_defaults_to_kiss(client):
    everything = client.get("/api/rules/search", query_string={"q": "alliance", "limit": 20}).json
    assert everything["ruleset"] == "all"
    assert {x["ruleset"] for x in everything["results"]} >= {"kiss", "imperium"}
    assert all(x["ruleset_name"] for x in everything["results"])
    at_table = client.get("/api/rules/search", query_string={"q": "alliance", "limit": 20, "table": "ABCD"}).json
    assert at_table["ruleset"] == "kiss" and {x["ruleset"] for x in at_table["results"]} == {"kiss"}
    asked_all = client.get("/api/rules/search", query_string={"q": "alliance", "table": "ABCD", "ruleset": "all"}).json
    assert asked_all["ruleset"] == "all"


def test_unknown_ruleset_is_refused(client):
    r = client.get("/api/rules/search?q=storm&ruleset=monopoly")
    assert r.status_code == 422 and "war-for-arrakis" in r.json["error"]["message"]


def test_rules_page_has_a_ruleset_picker_and_labels_results(client):
    html = client.get("/rules?q=sandworm").get_data(as_text=True)
    assert '<select name="ruleset"' in html
    for name in ("Dune (KISS)", "Dune: War for Arrakis", "Dune: Imperium"):
        assert f">{name}</option>" in html
    assert 'class="ruleset ruleset-war-for-arrakis"' in html and 'class="ruleset ruleset-kiss"' in html
    only = client.get("/rules?q=sandworm&ruleset=war-for-arrakis", headers={"HX-Request": "true", "HX-Target": "results"})
    text = only.get_data(as_text=True)
    assert "ruleset-war-for-arrakis" in text and "ruleset-kiss" not in text and ">War for Arrakis<" in text
    page = client.get("/rules/imp-mentat").get_data(as_text=True)
    assert "Dune: Imperium" in page and 'href="/rules/imp-swordmaster"' in page

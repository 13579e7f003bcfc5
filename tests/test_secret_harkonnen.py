"""Secret Harkonnen: the pure rules for every table size, and whole games through the API."""
from __future__ import annotations

import json
import random

import pytest

from companion.games.secret_harkonnen import rules as R
from sh_helpers import NAMES, SH, bearer


# -- pure rules -----------------------------------------------------------------------------------

@pytest.mark.parametrize("n,atreides,imperial", [(5, 3, 1), (6, 4, 1), (7, 4, 2), (8, 5, 2), (9, 5, 3), (10, 6, 3)])
def test_team_sizes_follow_the_seed_for_every_table_size(n, atreides, imperial):
    roles = R.deal_roles(NAMES[:n], random.Random(n))
    values = list(roles.values())
    assert (values.count("atreides"), values.count("imperial"), values.count("baron")) == (atreides, imperial, 1)
    assert sorted(roles) == sorted(NAMES[:n])


@pytest.mark.parametrize("n", [4, 11])
def test_too_few_or_too_many_players_are_refused(n):
    with pytest.raises(R.Refused):
        R.team_sizes(n)


@pytest.mark.parametrize("n", range(5, 11))
def test_who_knows_whom(n):
    roles = R.deal_roles(NAMES[:n], random.Random(100 + n))
    baron = next(p for p, r in roles.items() if r == "baron")
    imperials = {p for p, r in roles.items() if r == "imperial"}
    for p, r in roles.items():
        k = R.knows(roles, p)
        if r == "atreides":
            assert k == {p: "atreides"}
        elif r == "imperial":
            assert set(k) == imperials | {baron} and k[baron] == "baron"
        else:
            assert set(k) == ({baron} | imperials if n <= 6 else {baron})


def test_powers_table_by_table_size():
    # 5-6: nothing, consult, special election, consult or sardaukar, the one not used then
    assert [R.power_choice(5, c, {}) for c in (1, 2, 3, 4)] == [(), ("consult",), ("special_election",),
                                                                ("consult", "sardaukar")]
    assert R.power_choice(6, 5, {"4": "consult"}) == ("sardaukar",)
    assert R.power_choice(6, 5, {"4": "sardaukar"}) == ("consult",)
    assert [R.power_choice(7, c, {}) for c in (1, 2, 3, 4, 5)] == [
        ("consult",), ("consult", "trance"), ("special_election",), ("trance", "sardaukar"), ("consult", "sardaukar")]
    assert R.power_choice(8, 2, {}) == ("consult", "trance")
    assert R.power_choice(9, 1, {}) == ("consult", "trance")
    assert R.power_choice(10, 2, {"1": "trance"}) == ("consult",)
    assert R.power_choice(10, 2, {"1": "consult"}) == ("trance",)
    assert [R.power_choice(9, c, {}) for c in (3, 4, 5)] == [("special_election",), ("trance", "sardaukar"),
                                                             ("sardaukar",)]
    assert R.power_choice(9, 6, {}) == ()
    assert not R.veto_unlocked(4) and R.veto_unlocked(5)


def test_eligibility_bars_the_last_government_and_only_the_governor_at_five_or_fewer():
    six = NAMES[:6]
    gov = {"emperor": "Ann", "governor": "Ben"}
    assert R.ineligible(six, "Cat", gov) == {"Cat", "Ann", "Ben"}
    assert R.ineligible(NAMES[:5], "Cat", gov) == {"Cat", "Ben"}  # five left: the last Emperor may serve
    assert R.ineligible(six, "Cat", None) == {"Cat"}


def test_majority_ties_and_the_feyd_rautha_rule():
    four_tie = {"a": "confirm", "b": "confirm", "c": "deny", "d": "deny"}
    assert R.election({"a": "confirm", "b": "confirm", "c": "deny"}, False, 0)
    assert not R.election(four_tie, False, 5)            # a tie fails
    assert not R.election(four_tie, True, 2)             # the Baron, but fewer than 3 CHOAM policies
    assert R.election(four_tie, True, 3)                 # Feyd-Rautha: even count, 3 CHOAM, the Baron
    assert not R.election({"a": "confirm", "b": "deny", "c": "deny"}, True, 3)


def test_rotation_skips_the_assassinated():
    players = NAMES[:5]
    assert R.next_living(players, ["Ann", "Ben", "Dan", "Eve"], 1) == 3
    assert R.next_living(players, players, 4) == 0


def test_reshuffle_puts_the_discards_back_and_is_exact_on_replay():
    deck, discard = ["choam", "landsraad"], ["choam"] * 8 + ["landsraad"] * 3
    assert R.reshuffle_needed(deck) and not R.reshuffle_needed(["choam"] * 3)
    a = R.reshuffle(deck, discard, "s" * 32, 0)
    assert sorted(a) == sorted(deck + discard)
    assert a == R.reshuffle(deck, discard, "s" * 32, 0)


def test_win_checks():
    roles = {"Ann": "atreides", "Ben": "baron", "Cat": "imperial", "Dan": "atreides", "Eve": "atreides"}
    alive = list(roles)
    assert R.winner({"landsraad": 5, "choam": 0}, alive, roles)[0] == "atreides"
    assert R.winner({"landsraad": 0, "choam": 6}, alive, roles)[0] == "imperial"
    assert R.winner({"landsraad": 0, "choam": 1}, [p for p in alive if p != "Ben"], roles)[0] == "atreides"
    assert R.winner({"landsraad": 0, "choam": 3}, alive, roles, "Ben")[0] == "imperial"
    assert R.winner({"landsraad": 0, "choam": 2}, alive, roles, "Ben") is None


# -- the table ------------------------------------------------------------------------------------

def test_create_a_table_and_each_phone_sees_only_its_role(app, client):
    g = SH(app, client, 7)
    assert set(g.body) == {"table", "host_token", "seats", "join_url"} and sorted(g.seats) == sorted(NAMES[:7])
    roles = g.roles()
    for name in NAMES[:7]:
        v = g.view(name)
        assert v["game"] == "secret-harkonnen" and v["phase"] == "nomination" and v["emperor"] == "Ann"
        assert v["me"]["role"] == roles[name] and v["winner"] is None
        assert set(v["me"]["knows"]) <= set(roles) and all(roles[p] == r for p, r in v["me"]["knows"].items())
        assert v["policies"] == {"landsraad": 0, "choam": 0} and v["deck_count"] == 17
        assert "secret" not in v and "private" not in v and "roles" not in v
    host = g.view("host")
    assert "me" not in host and "roles" not in host  # the host plays nobody and sees no role
    assert all(e["payload"] is None for e in g.history("host") if e["type"] == "sh.deal")


@pytest.mark.parametrize("body,word", [({"game": "secret-harkonnen", "players": NAMES[:4]}, "5 to 10"),
                                       ({"game": "secret-harkonnen", "players": ["A", "a", "B", "C", "D"]}, "different"),
                                       ({"game": "secret-harkonnen", "players": NAMES[:4] + ["host"]}, "another name"),
                                       ({"game": "chess", "players": NAMES[:5]}, "Unknown game")])
def test_bad_tables_are_refused_with_a_sentence(client, body, word):
    r = client.post("/api/tables", json=body)
    assert r.status_code == 422 and word in r.get_json()["error"]["message"]


def test_votes_stay_sealed_until_all_are_in(app, client):
    g = SH(app, client, 5)
    g.act("Ann", type="sh.nominate", governor="Ben")
    g.act("Ann", type="sh.vote", vote="deny")
    g.act("Cat", type="sh.vote", vote="confirm")
    for name in NAMES[:5]:
        v = g.view(name)
        assert v["voted"] == ["Ann", "Cat"] and v["last_vote"] is None
        assert v["me"]["vote"] == {"Ann": "deny", "Cat": "confirm"}.get(name)
    assert g.history("Ben")[-1]["payload"] is None  # Cat's vote entry
    g.act("Cat", 422, type="sh.vote", vote="deny")  # once only
    for name in ("Ben", "Dan", "Eve"):
        g.act(name, type="sh.vote", vote="confirm")
    v = g.view("Eve")
    assert v["last_vote"]["votes"] == {"Ann": "deny", "Ben": "confirm", "Cat": "confirm", "Dan": "confirm",
                                       "Eve": "confirm"}
    assert v["phase"] == "legislative_emperor" and v["governor"] == "Ben"
    assert len(g.view("Ann")["me"]["hand"]) == 3 and "hand" not in g.view("Ben")["me"]


def test_three_failed_elections_enact_the_top_card(app, client):
    g = SH(app, client, 5)
    top = g.raw["secret"]["deck"][0]
    for i in range(3):
        g.elect(g.eligible(), default="deny")
        if i < 2:
            assert g.view("Ann")["failed_elections"] == i + 1
    v = g.view("Ann")
    assert v["failed_elections"] == 0 and v["policies"][top] == 1 and v["deck_count"] == 16
    assert v["emperor"] == "Dan" and v["phase"] == "nomination"


def test_only_the_emperor_nominates_and_the_last_government_is_barred(app, client):
    g = SH(app, client, 6)
    r = g.act("Ben", 422, type="sh.nominate", governor="Cat")
    assert "Only the Emperor (Ann)" in r.get_json()["error"]["message"]
    g.act("Ann", 422, type="sh.nominate", governor="Ann")
    g.elect("Ben")
    g.legislate("landsraad")
    assert g.raw["emperor"] == "Ben"
    r = g.act("Ben", 422, type="sh.nominate", governor="Ann")  # six alive: the last Emperor is barred
    assert r.get_json()["error"]["rule"] == "sh-eligibility"
    g.act("Host" if False else "host", 403, type="sh.nominate", governor="Cat")


def play_to_the_end(g: SH, want: str, limit: int = 60):
    for _ in range(limit):
        s = g.raw
        if s["phase"] == "over":
            return
        if s["phase"] == "nomination":
            roles = g.roles()
            baron = next(p for p, r in roles.items() if r == "baron")
            g.elect(g.eligible(avoid=(baron,) if want == "landsraad" else ()))
        elif s["phase"] == "legislative_emperor":
            g.legislate(want)
        elif s["phase"] == "executive":
            g.use_power()
        else:
            raise AssertionError(s["phase"])
    raise AssertionError("no winner")


@pytest.mark.parametrize("n", [5, 8, 10])
def test_a_whole_game_to_a_win(app, client, n):
    g = SH(app, client, n)
    play_to_the_end(g, "choam")
    v = g.view(NAMES[0])
    assert v["phase"] == "over" and v["winner"] in ("imperial", "atreides") and v["win_reason"]
    assert v["roles"] == g.roles()  # at the end every role is shown
    assert any(e["payload"] for e in g.history(NAMES[1]) if e["type"] == "sh.deal")
    g.act(NAMES[0], 422, type="sh.nominate", governor=NAMES[1])


def test_the_host_cannot_export_the_roles_before_the_end(app, client):
    g = SH(app, client, 5)
    r = client.get(f"/api/tables/{g.code}/export", headers={"Authorization": f"Bearer {g.host}"})
    assert r.status_code == 403 and "over" in r.get_json()["error"]["message"]
    play_to_the_end(g, "landsraad")
    r = client.get(f"/api/tables/{g.code}/export", headers={"Authorization": f"Bearer {g.host}"})
    assert r.status_code == 200 and r.get_json()["events"][0]["payload"]["roles"] == g.roles()


def test_the_rules_page_of_a_table_searches_its_game(app, client):
    g = SH(app, client, 5)
    html = client.get(f"/rules?table={g.code}&q=feyd+rautha").get_data(as_text=True)
    assert "sh-feyd-rautha" in html


def test_the_host_can_undo_a_mistaken_vote_and_it_stays_sealed(app, client):
    g = SH(app, client, 5)
    g.act("Ann", type="sh.nominate", governor="Ben")
    g.act("Cat", type="sh.vote", vote="deny")
    r = client.post(f"/api/tables/{g.code}/undo", json={}, headers={"Authorization": f"Bearer {g.host}"})
    assert r.status_code == 200 and r.get_json()["voted"] == []
    undo_line = g.history("Dan")[-1]
    assert "deny" not in str(undo_line) and "private" not in undo_line["summary"]
    g.act("Cat", type="sh.vote", vote="confirm")
    assert g.view("Cat")["me"]["vote"] == "confirm"


def test_the_deal_cannot_be_undone_or_entered(app, client):
    g = SH(app, client, 5)
    r = client.post(f"/api/tables/{g.code}/undo", json={}, headers={"Authorization": f"Bearer {g.host}"})
    assert r.status_code == 422 and "deal" in r.get_json()["error"]["message"]
    g.act("Ann", 403, type="sh.deal", roles={}, deck=[], seed="x" * 16)


def test_a_finished_game_exports_and_imports_whole(app, client):
    """The spine's export/import serves this game too: a game that is over exports (its roles are
    no secret any more) and imports as a new table with the same history and end; a game still
    being played does not export, and a tampered file changes nothing."""
    g = SH(app, client, 5)
    r = client.get(f"/api/tables/{g.code}/export", headers=bearer(g.host))
    assert r.status_code == 403  # not before the end: the file holds every role
    play_to_the_end(g, "choam")
    r = client.get(f"/api/tables/{g.code}/export", headers=bearer(g.host))
    assert r.status_code == 200
    export = r.get_json()
    store = app.extensions["tables"].store
    before = len(store.list_tables())
    bad = json.loads(json.dumps(export))
    bad["events"][1]["seat"] = "Zed"
    r = client.post("/api/tables/import", json=bad)
    assert r.status_code == 422 and "not a player" in r.get_json()["error"]["message"]
    bad = json.loads(json.dumps(export))
    bad["events"].append(dict(bad["events"][0], seq=len(bad["events"]) + 1))  # a second deal
    assert client.post("/api/tables/import", json=bad).status_code == 422
    assert len(store.list_tables()) == before  # a refused file changes nothing
    r = client.post("/api/tables/import", json=export)
    assert r.status_code == 201, r.get_json()
    new = r.get_json()
    code = new.get("table") or new.get("code")
    seat = next(iter(new["seats"].values()))
    s = client.get(f"/api/tables/{code}/state", headers=bearer(seat)).get_json()
    old = g.view(next(iter(g.seats)))
    for key in ("phase", "winner", "policies", "alive", "failed_elections"):
        assert s[key] == old[key], key

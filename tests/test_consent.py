"""Other factions' resources need their consent (issue 12 item 7).

An entry that spends, moves or reveals another faction's private resources (forming an alliance,
a revival the Emperor pays for, spice received from another faction) is accepted only from that
faction, the host, or as a proposal (``consent.request``) the other faction confirms on its own
phone (``consent.give``). Refusals never tell the asking seat the other faction's numbers.
"""
from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SIX, act, bearer, create_table, csrf, join_seat, shows_number, state
from table_helpers import NEXUS
from test_secrets import Table


def spice(s, f):
    return s["factions"][f]["spice"]


def phase(client, t, name, turn=1):
    act(client, t.code, t.host, type="phase.set", turn=turn, phase=name)
    if name == "spice_blow":  # alliances change only in a Nexus (kiss-single-nexus)
        act(client, t.code, t.host, **NEXUS)


def propose(client, t, who, entry, expect=200):
    return act(client, t.code, t.seats[who], expect=expect, type="consent.request", faction=who, entry=entry)


def allied_with_emperor(client, t, ally="atreides", emperor_spice=3):
    """The host records an Atreides-Emperor alliance, some Atreides forces in the tanks, the
    Emperor's spice, and moves to the Revival phase."""
    phase(client, t, "spice_blow")
    act(client, t.code, t.host, type="alliance.form", factions=[ally, "emperor"])
    act(client, t.code, t.host, type="forces.remove", faction=ally, territory="Arrakeen", forces=6)
    act(client, t.code, t.host, type="spice.set", faction="emperor", amount=emperor_spice)
    phase(client, t, "revival")


# -- alliances ------------------------------------------------------------------------------------

def test_a_seat_cannot_form_an_alliance_alone(client, table6):
    t = table6
    phase(client, t, "spice_blow")
    r = act(client, t.code, t.seats["atreides"], expect=403, type="alliance.form", factions=["atreides", "emperor"])
    assert "Emperor's consent" in r.get_json()["error"]["message"]
    r = act(client, t.code, t.seats["fremen"], expect=403, type="alliance.form", factions=["atreides", "emperor"])
    assert state(client, t.code, t.host)["alliances"] == {}


def test_an_alliance_proposal_is_formed_when_the_other_faction_agrees(client, table6):
    t = table6
    phase(client, t, "spice_blow")
    s = propose(client, t, "atreides", {"type": "alliance.form", "factions": ["atreides", "emperor"]}).get_json()
    assert s["alliances"] == {}
    [p] = s["proposals"]
    assert (p["from"], p["to"], p["type"]) == ("atreides", "emperor", "alliance.form")
    # the two factions (and the host) see it; nobody else does
    assert [x["id"] for x in state(client, t.code, t.seats["emperor"])["proposals"]] == [p["id"]]
    assert [x["id"] for x in state(client, t.code, t.host)["proposals"]] == [p["id"]]
    for other in ("fremen", "harkonnen", "guild", "bg"):
        assert state(client, t.code, t.seats[other])["proposals"] == []
    # only the faction asked can agree
    act(client, t.code, t.seats["atreides"], expect=422, type="consent.give", faction="atreides", proposal=p["id"])
    act(client, t.code, t.seats["atreides"], expect=403, type="consent.give", faction="emperor", proposal=p["id"])
    s = act(client, t.code, t.seats["emperor"], type="consent.give", faction="emperor", proposal=p["id"]).get_json()
    assert s["alliances"] == {"atreides": "emperor", "emperor": "atreides"}
    assert s["proposals"] == []


def test_a_proposal_can_be_declined_or_withdrawn_and_nothing_changes(client, table6):
    t = table6
    phase(client, t, "spice_blow")
    p1 = propose(client, t, "bg", {"type": "alliance.form", "factions": ["bg", "guild"]}).get_json()["proposals"][0]
    act(client, t.code, t.seats["fremen"], expect=422, type="consent.decline", faction="fremen", proposal=p1["id"])
    act(client, t.code, t.seats["guild"], type="consent.decline", faction="guild", proposal=p1["id"])
    p2 = propose(client, t, "bg", {"type": "alliance.form", "factions": ["bg", "guild"]}).get_json()["proposals"][0]
    act(client, t.code, t.seats["bg"], type="consent.decline", faction="bg", proposal=p2["id"])
    r = act(client, t.code, t.seats["guild"], expect=422, type="consent.give", faction="guild", proposal=p2["id"])
    assert "no pending proposal" in r.get_json()["error"]["message"]
    s = state(client, t.code, t.host)
    assert s["alliances"] == {} and s["proposals"] == []


def test_a_proposal_is_checked_when_made_and_again_when_agreed(client, table6):
    t = table6
    # outside the Nexus: refused at once, with the rule, overridable
    r = propose(client, t, "atreides", {"type": "alliance.form", "factions": ["atreides", "emperor"]}, expect=422)
    assert r.get_json()["error"]["rule"] == "base-nexus"
    phase(client, t, "spice_blow")
    p = propose(client, t, "atreides", {"type": "alliance.form", "factions": ["atreides", "emperor"]}).get_json()
    pid = p["proposals"][0]["id"]
    # meanwhile the Emperor allies with someone else: agreeing is refused, nothing changes
    act(client, t.code, t.host, type="alliance.form", factions=["emperor", "fremen"])
    r = act(client, t.code, t.seats["emperor"], expect=422, type="consent.give", faction="emperor", proposal=pid)
    assert "already allied" in r.get_json()["error"]["message"]
    assert state(client, t.code, t.host)["alliances"]["emperor"] == "fremen"


# -- the Emperor's spice --------------------------------------------------------------------------

def test_a_seat_cannot_spend_the_emperors_spice(client, table6):
    t = table6
    allied_with_emperor(client, t, emperor_spice=3)
    r = act(client, t.code, t.seats["atreides"], expect=403, type="revive", faction="atreides", forces=5,
            emperor_pays=3)
    message = r.get_json()["error"]["message"]
    assert "Emperor's consent" in message
    assert not re.search(r"\d", message)  # nothing about how much the Emperor has
    s = state(client, t.code, t.host)
    assert spice(s, "emperor") == 3 and s["factions"]["atreides"]["tanks"]["forces"] == 6


def test_the_emperor_pays_a_revival_only_when_he_agrees(client, table6):
    t = table6
    allied_with_emperor(client, t, emperor_spice=3)
    entry = {"type": "revive", "faction": "atreides", "forces": 4, "emperor_pays": 2}  # Emperor's share: 4 spice
    r = propose(client, t, "atreides", entry)
    text = r.get_data(as_text=True)
    s = r.get_json()
    assert spice(s, "emperor") is None and s["factions"]["atreides"]["tanks"]["forces"] == 6
    pid = s["proposals"][0]["id"]
    assert "has 3 spice" not in text
    # the Emperor has 3 and cannot pay 4: he is told (his own number), nothing changes
    r = act(client, t.code, t.seats["emperor"], expect=422, type="consent.give", faction="emperor", proposal=pid)
    assert "The Emperor has 3 spice and cannot pay 4" in r.get_json()["error"]["message"]
    act(client, t.code, t.host, type="spice.set", faction="emperor", amount=9)
    s = act(client, t.code, t.seats["emperor"], type="consent.give", faction="emperor", proposal=pid).get_json()
    assert spice(s, "emperor") == 5  # 9 - 2 forces at 2 spice
    host = state(client, t.code, t.host)
    assert host["factions"]["atreides"]["tanks"]["forces"] == 2 and spice(host, "atreides") == 10  # 2 free
    # the Emperor made the entry that spent his spice, so he can undo it
    r = client.post(f"/api/tables/{t.code}/undo", json={}, headers=bearer(t.seats["emperor"]))
    assert r.status_code == 200
    assert spice(state(client, t.code, t.host), "emperor") == 9


def test_another_seats_history_and_state_never_show_the_emperors_spice(client, table6):
    t = table6
    allied_with_emperor(client, t, emperor_spice=687)
    propose(client, t, "atreides", {"type": "revive", "faction": "atreides", "forces": 4, "emperor_pays": 2})
    for seat in ("atreides", "fremen"):
        for path in ("state", "history"):
            text = client.get(f"/api/tables/{t.code}/{path}", headers=bearer(t.seats[seat])).get_data(as_text=True)
            assert not shows_number(text, 687), (seat, path)


# -- spice between allies -------------------------------------------------------------------------

def test_spice_is_given_by_its_owner_or_with_its_owners_consent(client, table6):
    t = table6
    phase(client, t, "spice_blow")
    act(client, t.code, t.host, type="alliance.form", factions=["atreides", "fremen"])
    s = act(client, t.code, t.seats["atreides"], type="spice.give", faction="atreides", to="fremen", amount=2).get_json()
    assert spice(s, "atreides") == 8
    assert spice(state(client, t.code, t.host), "fremen") == 5
    # the receiver cannot take it
    act(client, t.code, t.seats["fremen"], expect=403, type="spice.give", faction="atreides", to="fremen", amount=5)
    r = propose(client, t, "fremen", {"type": "spice.give", "faction": "atreides", "to": "fremen", "amount": 50})
    assert "only" not in r.get_data(as_text=True)  # the check assumed Atreides could afford it
    pid = r.get_json()["proposals"][0]["id"]
    r = act(client, t.code, t.seats["atreides"], expect=422, type="consent.give", faction="atreides", proposal=pid)
    assert "has only 8 spice" in r.get_json()["error"]["message"]
    act(client, t.code, t.seats["atreides"], type="consent.decline", faction="atreides", proposal=pid)
    assert spice(state(client, t.code, t.host), "atreides") == 8


# -- on the phones ----------------------------------------------------------------------------------

def test_phones_propose_and_agree_with_their_forms(app, client):
    t = create_table(client, SIX)
    phase(client, t, "spice_blow")
    atreides = join_seat(app, t.code, "atreides")
    emperor = join_seat(app, t.code, "emperor")
    fremen = join_seat(app, t.code, "fremen")
    rev = state(client, t.code, t.host)["revision"]
    # the phone's alliance form posts alliance.form; from a seat it becomes a proposal
    r = atreides.post(f"/t/{t.code}/act", data={"type": "alliance.form", "factions": "atreides\nemperor",
                                                "revision": str(rev)}, headers={"X-CSRF-Token": csrf(atreides)})
    assert r.status_code == 200 and 'role="alert"' not in r.get_data(as_text=True), r.get_data(as_text=True)
    assert state(client, t.code, t.host)["alliances"] == {}
    mine = atreides.get(f"/t/{t.code}/proposals").get_data(as_text=True)
    assert "Waiting for <b>Emperor</b>" in mine and "Withdraw" in mine and "Agree" not in mine
    assert "Proposals" not in fremen.get(f"/t/{t.code}/proposals").get_data(as_text=True)
    page = emperor.get(f"/t/{t.code}").get_data(as_text=True)
    assert "ask you" in page and "Agree" in page
    form = re.search(r'<form[^>]*>(?:(?!</form>).)*value="consent.give"(?:(?!</form>).)*</form>', page, re.S).group(0)
    fields = dict(re.findall(r'name="([^"]+)" value="([^"]*)"', form))
    r = emperor.post(f"/t/{t.code}/act", data=fields)
    assert r.status_code == 200
    assert state(client, t.code, t.host)["alliances"] == {"atreides": "emperor", "emperor": "atreides"}
    assert "Proposals" not in emperor.get(f"/t/{t.code}/proposals").get_data(as_text=True)


# -- property: proposals never carry another faction's secret numbers -----------------------------

BAND = {f: 300 + 100 * i for i, f in enumerate(SIX)}  # as in tests/test_secrets.py
PAIRS = [(a, b) for a in SIX for b in SIX if a != b]

step = st.one_of(
    st.builds(lambda f, j: ("host", {"type": "spice.set", "faction": f, "amount": BAND[f] + j}),
              st.sampled_from(SIX), st.integers(10, 59)),
    st.builds(lambda ab: (ab[0], {"type": "consent.request", "faction": ab[0],
                                  "entry": {"type": "alliance.form", "factions": list(ab)}}), st.sampled_from(PAIRS)),
    st.builds(lambda f, n, e: (f, {"type": "consent.request", "faction": f,
                                   "entry": {"type": "revive", "faction": f, "forces": n, "emperor_pays": e}}),
              st.sampled_from([f for f in SIX if f != "emperor"]), st.integers(1, 6), st.integers(1, 3)),
    st.builds(lambda ab, n: (ab[1], {"type": "consent.request", "faction": ab[1],
                                     "entry": {"type": "spice.give", "faction": ab[0], "to": ab[1], "amount": n}}),
              st.sampled_from(PAIRS), st.integers(1, 99)),
    st.builds(lambda ab, n: (ab[1], {"type": "spice.give", "faction": ab[0], "to": ab[1], "amount": n}),
              st.sampled_from(PAIRS), st.integers(1, 99)),
    st.builds(lambda f, pid, kind: (f, {"type": kind, "faction": f, "proposal": pid}),
              st.sampled_from(SIX), st.integers(1, 4), st.sampled_from(["consent.give", "consent.decline"])),
    st.builds(lambda f, pid: ("host", {"type": "consent.give", "faction": f, "proposal": pid}),
              st.sampled_from(SIX), st.integers(1, 4)),
    st.builds(lambda ph: ("host", {"type": "phase.set", "turn": 1, "phase": ph}),
              st.sampled_from(["spice_blow", "revival"])),
    st.builds(lambda f: ("host", {"type": "forces.remove", "faction": f, "territory": "Polar Sink", "forces": 1}),
              st.sampled_from(SIX)),
)


@pytest.fixture(scope="module")
def consent_app(tmp_path_factory):
    from companion import create_app
    return create_app({"DATA_DIR": str(tmp_path_factory.mktemp("consent")), "TESTING": True})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=6))
def test_no_seat_sees_another_factions_spice_through_proposals(consent_app, steps):
    table = Table(consent_app)
    api, code = table.api, table.code
    for f in SIX:  # forces everyone can lose to the tanks
        act(api, code, table.t.host, type="forces.place", faction=f, territory="Polar Sink", forces=2)
    for actor, entry in steps:
        if entry["type"] == "spice.set":
            table.markers[entry["faction"]].add(str(entry["amount"]))
        entry = dict(entry, revision=state(api, code, table.t.host)["revision"])
        r = api.post(f"/api/tables/{code}/actions", json=entry, headers=bearer(table.token(actor)))
        assert r.status_code in (200, 403, 422), r.get_data(as_text=True)
        table.check_leak(actor, r.get_data(as_text=True), f"answer to {entry['type']}")
        table.check_everything()
        host = state(api, code, table.t.host)
        for viewer in SIX:
            seen = table.phones[viewer].get(f"/api/tables/{code}/state").get_json()["proposals"]
            assert all(viewer in (p["from"], p["to"]) for p in seen)
            assert sorted(p["id"] for p in seen) == sorted(p["id"] for p in host["proposals"]
                                                           if viewer in (p["from"], p["to"]))
            html = table.phones[viewer].get(f"/t/{code}/proposals").get_data(as_text=True)
            table.check_leak(viewer, html, "proposals fragment")
        assert table.phones["board"].get(f"/api/tables/{code}/state").get_json()["proposals"] == []
    json.dumps(steps)  # the steps are plain data (readable when Hypothesis reports a failure)

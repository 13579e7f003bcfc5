"""Property: a face-down No-Field's number and sealed cache bids never reach another seat (state
JSON, history, the /view HTML, the live stream) until they are revealed."""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import bearer, create_table, shows_number

FACTIONS = ["atreides", "harkonnen", "guild", "choam", "richese"]
BAND = {f: 710 + 20 * i for i, f in enumerate(FACTIONS)}  # each bidder's bids lie in its own band


@pytest.fixture(scope="module")
def secrets_app(tmp_path_factory):
    from companion import create_app
    return create_app({"DATA_DIR": str(tmp_path_factory.mktemp("addon-secrets")), "TESTING": True,
                       "SSE_ONCE": True})


class Table:
    def __init__(self, app):
        self.api = app.test_client()
        self.t = create_table(self.api, FACTIONS)
        self.code = self.t.code
        self.phones = {}
        for f in FACTIONS:
            c = app.test_client()
            c.set_cookie(f"seat_{self.code}", self.t.seats[f])
            self.phones[f] = c
        self.sealed: dict[str, int] = {}  # bidder -> amount, until revealed
        self.token: int | None = None  # the face-down No-Field, until revealed

    def act(self, who: str, **entry):
        token = self.t.host if who == "host" else self.t.seats[who]
        entry["revision"] = self.api.get(f"/api/tables/{self.code}/state", headers=bearer(token)).get_json()["revision"]
        r = self.api.post(f"/api/tables/{self.code}/actions", json=entry, headers=bearer(token))
        assert r.status_code == 200, r.get_data(as_text=True)
        self.check(who, r.get_data(as_text=True), "response")
        return r.get_json()

    def check(self, viewer: str, text: str, where: str) -> None:
        if viewer == "host":
            return
        for f, amount in self.sealed.items():  # a number of its own, not a piece of a hex etag or token
            if f != viewer:
                assert not shows_number(text, amount), f"{viewer} sees {f}'s sealed bid {amount} in {where}"
        if self.token is not None and viewer != "richese":
            assert "nofield_token" not in text and "No-Field (" not in text, (viewer, where)
            assert f">NF{self.token}<" not in text, (viewer, where)  # the map chip
            assert f'"token": {self.token}' not in text, (viewer, where)

    def check_all(self, stream: bool) -> None:
        for f in FACTIONS:
            phone = self.phones[f]
            self.check(f, phone.get(f"/api/tables/{self.code}/state").get_data(as_text=True), "state JSON")
            self.check(f, phone.get(f"/t/{self.code}/view").get_data(as_text=True), "view HTML")
            self.check(f, phone.get(f"/api/tables/{self.code}/history").get_data(as_text=True), "history")
            if stream:
                text = phone.get(f"/t/{self.code}/events").get_data(as_text=True)
                self.check(f, text, "stream")


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(order=st.permutations(FACTIONS), offsets=st.lists(st.integers(0, 19), min_size=5, max_size=5),
       token=st.sampled_from([0, 3, 5]), ship_first=st.booleans())
def test_sealed_numbers_stay_with_their_seat(secrets_app, order, offsets, token, ship_first):
    table = Table(secrets_app)
    for f in FACTIONS:
        table.act("host", type="spice.set", faction=f, amount=999)
    if ship_first:
        s = table.act("host", type="phase.set", turn=1, phase="shipment_movement")
        while s["whose_turn"]["faction"] != "richese":  # the others go first in storm order
            s = table.act("host", type="turn.done", faction=s["whose_turn"]["faction"])
        table.act("richese", type="nofield.ship", faction="richese", territory="The Great Flat", token=token)
        table.token = token
        table.check_all(stream=True)
    table.act("host", type="phase.set", turn=1, phase="bidding")
    table.act("richese", type="cache.announce", card="Semuta Drug", when="first", method="silent")
    for i, f in enumerate(order):
        amount = BAND[f] + offsets[i]
        last = i == len(order) - 1
        if last:  # all in: revealed together
            table.sealed = {}
        else:
            table.sealed[f] = amount
        s = table.act(f, type="cache.silent_bid", faction=f, amount=amount)
        if last:
            assert s["cache_auction"]["bids"] == {x: BAND[x] + offsets[order.index(x)] for x in order}
        table.check_all(stream=i == 0)
    if ship_first:  # revealing makes the number public
        s = table.act("host", type="phase.set", turn=1, phase="shipment_movement")
        table.token = None
        s = table.act("richese", type="nofield.reveal", faction="richese")
        assert s["factions"]["richese"]["nofield_faceup"] == token
        seen = table.phones["atreides"].get(f"/api/tables/{table.code}/state").get_json()
        assert seen["factions"]["richese"]["nofield_faceup"] == token


def test_pledges_hidden_skills_and_traded_cards_stay_on_their_phones(secrets_app):
    """The add-on's other secrets, on every channel a phone can ask for (state JSON, the /view page,
    history, the live stream): an ally's pledge toward a sealed cache bid (the two allies only), a
    Leader Skill kept behind the shield (its owner only), the cards of CHOAM's trade (CHOAM and its
    ally only)."""
    from conftest import create_table as create
    api = secrets_app.test_client()
    t = create(api, FACTIONS, options={"advanced": True, "leader_skills": True})
    table = Table.__new__(Table)
    table.api, table.t, table.code = api, t, t.code
    table.phones = {}
    for f in FACTIONS:
        c = secrets_app.test_client()
        c.set_cookie(f"seat_{t.code}", t.seats[f])
        table.phones[f] = c
    table.sealed, table.token = {}, None
    for f in FACTIONS:
        table.act("host", type="spice.set", faction=f, amount=999)
    table.act("host", type="alliance.form", factions=["atreides", "harkonnen"], override=True, reason="a Nexus")
    table.act("host", type="alliance.form", factions=["choam", "guild"], override=True, reason="a Nexus")
    secrets = {  # the words and numbers, and the seats that may see them
        "437": {"atreides", "harkonnen"}, "611": {"harkonnen"},
        "Warmaster": {"harkonnen"}, "Chaumas": {"choam", "guild"}, "Ellaca Drug": {"choam", "guild"},
    }

    def leaks() -> list:
        out = []
        for f, phone in table.phones.items():
            channels = {"state": phone.get(f"/api/tables/{t.code}/state").get_data(as_text=True),
                        # the skill picker lists every skill not shown face up: a hidden one stays in it;
                        # the Atreides' buttons for the card up for auction list every card name
                        "view": re.sub(r'<select name="skill".*?</select>|<div class="name-card card-seen".*?'
                                       r'<!-- /card-seen -->', "",
                                       phone.get(f"/t/{t.code}/view").get_data(as_text=True), flags=re.S),
                        "history": phone.get(f"/api/tables/{t.code}/history").get_data(as_text=True),
                        "stream": phone.get(f"/t/{t.code}/events").get_data(as_text=True)}
            for word, allowed in secrets.items():
                if f in allowed:
                    continue
                for where, text in channels.items():
                    hit = shows_number(text, int(word)) if word.isdigit() else word in text
                    if hit:
                        out.append((f, word, where))
        return out

    table.act("host", type="phase.set", turn=1, phase="bidding")
    table.act("richese", type="cache.announce", card="Semuta Drug", when="first", method="silent")
    table.act("atreides", type="cache.pledge", faction="atreides", spice=437)
    table.act("harkonnen", type="cache.silent_bid", faction="harkonnen", amount=611, ally_spice=437)
    table.act("harkonnen", type="skill.assign", faction="harkonnen", leader="Feyd-Rautha", skill="Warmaster",
              hidden=True)
    table.act("host", type="cards.set", faction="choam", cards=["Chaumas"])
    table.act("host", type="cards.set", faction="guild", cards=["Ellaca Drug"])
    table.act("choam", type="choam.trade", faction="choam", gives="Chaumas", receives="Ellaca Drug")
    host = api.get(f"/api/tables/{t.code}/state", headers=bearer(t.host)).get_json()
    assert host["factions"]["choam"]["private"]["cards"] == ["Ellaca Drug"]
    assert host["factions"]["harkonnen"]["private"]["skill"]["name"] == "Warmaster"
    assert leaks() == [], leaks()
    picker = re.search(r'<select name="skill".*?</select>', table.phones["atreides"].get(f"/t/{t.code}/view")
                       .get_data(as_text=True), re.S).group(0)
    assert "<option>Warmaster</option>" in picker  # so the picker cannot give the hidden skill away
    # and the allowed seats do see theirs
    seen = table.phones["guild"].get(f"/api/tables/{t.code}/state").get_json()
    assert seen["factions"]["guild"]["private"]["cards"] == ["Chaumas"]

"""Property: a face-down No-Field's number and sealed cache bids never reach another seat (state
JSON, history, the /view HTML, the live stream) until they are revealed."""
from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import bearer, create_table

FACTIONS = ["atreides", "harkonnen", "guild", "choam", "richese"]
NUMBER = re.compile(r"(?<![\d.])\d+(?![\d.])")
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
        found = {int(x) for x in NUMBER.findall(text)}
        for f, amount in self.sealed.items():
            if f != viewer:
                assert amount not in found, f"{viewer} sees {f}'s sealed bid {amount} in {where}"
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

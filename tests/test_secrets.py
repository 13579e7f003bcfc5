"""Property: random sequences of entries from random seats never put one seat's secret into
another seat's response (JSON state, the /view HTML fragment, the view pushed down a seat's
stream, the history JSON, a 409 body, the live stream).

Secrets are made distinctive so they can also be searched for as text: each faction's spice
amounts lie in its own band (atreides 310-399, harkonnen 410-499, ...). Hands and traitors hold
real card and leader names (made-up ones are refused), so they are checked structurally.
"""
from __future__ import annotations

import asyncio
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SIX, bearer, create_table, shows_number

NUMBER = re.compile(r"(?<![\d.])\d+(?![\d.])")
BAND = {f: 300 + 100 * i for i, f in enumerate(SIX)}  # faction -> base of its spice band
SECRET_TYPES = {"spice.set", "spice.add", "cards.set", "prediction.set", "traitors.set", "kh.set", "storm.card"}
ACTORS = ["host", *SIX]


@pytest.fixture(scope="module")
def secrets_app(tmp_path_factory):
    from companion import create_app
    return create_app({"DATA_DIR": str(tmp_path_factory.mktemp("secrets")), "TESTING": True, "SSE_ONCE": True})


# -- entries -----------------------------------------------------------------------------------

faction = st.sampled_from(SIX)

secret_entry = st.one_of(
    st.builds(lambda f, j: {"type": "spice.set", "faction": f, "amount": BAND[f] + j}, faction,
              st.integers(10, 59)),  # adds keep it inside the band
    st.builds(lambda f, j: {"type": "spice.add", "faction": f, "amount": j}, faction, st.integers(-3, 5)),
    # hands and traitors hold real names only (a made-up name is refused), so they are checked
    # structurally (another seat's state and history never carry them), not searched for as text
    st.builds(lambda f, cards: {"type": "cards.set", "faction": f, "cards": cards}, faction,
              st.lists(st.sampled_from(["Crysknife", "Shield", "Lasgun", "Baliset", "Snooper"]), min_size=1,
                       max_size=3)),
    st.builds(lambda f, t: {"type": "traitors.set", "faction": f, "traitors": [t]}, faction,
              st.sampled_from(["Duncan Idaho", "Piter de Vries", "Stilgar", "Bashar"])),
    st.builds(lambda t, n: {"type": "prediction.set", "faction": "bg", "target": t, "turn": n},
              st.sampled_from([f for f in SIX if f != "bg"]), st.integers(1, 10)),
    st.builds(lambda n: {"type": "kh.set", "faction": "atreides", "losses": n}, st.integers(0, 40)),
    st.builds(lambda n: {"type": "storm.card", "faction": "fremen", "card": n}, st.integers(2, 6)),
)
public_entry = st.one_of(
    st.builds(lambda n: {"type": "storm.set", "sector": n}, st.integers(1, 18)),
    st.builds(lambda f, n: {"type": "spice.front", "faction": f, "amount": n}, faction, st.integers(0, 9)),
    st.builds(lambda n: {"type": "board.spice", "territory": "The Great Flat", "amount": n}, st.integers(0, 9)),
    st.just({"type": "undo"}),
)
step = st.tuples(st.sampled_from(ACTORS), st.one_of(secret_entry, secret_entry, public_entry))


# -- the property ------------------------------------------------------------------------------

def numbers(text: str) -> set[int]:
    return {int(x) for x in NUMBER.findall(text)}


def pushed_view(app, code: str, token: str, have: str = "") -> str:
    """The view the real server pushes down the stream of the seat holding ``token``
    (companion/web/push.py, through the ASGI app's own path), given the parts the page shows."""
    from companion.web.asgi import asgi_app
    from companion.web.push import SeatPush

    server = app.extensions.get("test-asgi")
    if server is None:
        server = app.extensions["test-asgi"] = asgi_app(app, 2)
    scope = {"type": "http", "method": "GET", "path": f"/t/{code}/events", "root_path": "", "scheme": "http",
             "http_version": "1.1", "query_string": b"parts=view", "server": ("127.0.0.1", 80),
             "headers": [(b"host", b"127.0.0.1"), (b"cookie", f"seat_{code}={token}".encode())]}
    pushed = asyncio.run(server.push_view(SeatPush(scope, code, have)))
    assert pushed is not None, "a seat's push is a plain 200 view"
    return pushed[1]


class Table:
    def __init__(self, app):
        self.app = app
        self.api = app.test_client()
        self.t = create_table(self.api, SIX)
        self.code = self.t.code
        self.phones = {}
        for f in SIX + ["board"]:
            c = app.test_client()
            token = self.t.seats[f] if f != "board" else app.extensions["tables"].spectator_token(self.code)
            c.set_cookie(f"seat_{self.code}", token)
            self.phones[f] = c
        self.markers = {f: set() for f in SIX}  # faction -> distinctive secret strings
        self.serial = 0

    def token(self, role):
        return self.t.token(role)

    def submit(self, actor: str, entry: dict):
        self.serial += 1
        entry = json.loads(json.dumps(entry).replace("{serial}", str(self.serial)))
        if entry["type"] == "undo":
            r = self.api.post(f"/api/tables/{self.code}/undo", json={}, headers=bearer(self.token(actor)))
            assert r.status_code in (200, 403, 422), r.get_data(as_text=True)
            return r
        rev = self.api.get(f"/api/tables/{self.code}/state", headers=bearer(self.token(actor))).get_json()["revision"]
        entry["revision"] = rev
        f = entry.get("faction")
        if entry["type"] in SECRET_TYPES:  # remember it even if refused: a refusal must not leak it either
            if entry["type"] == "spice.set":
                self.markers[f].add(str(entry["amount"]))
        r = self.api.post(f"/api/tables/{self.code}/actions", json=entry, headers=bearer(self.token(actor)))
        allowed = actor == "host" or entry["type"] in ("storm.set", "board.spice") or actor == f
        if allowed:
            assert r.status_code in (200, 422), r.get_data(as_text=True)  # 422: e.g. spice below zero
        else:
            assert r.status_code == 403, r.get_data(as_text=True)
        self.check_leak(actor, r.get_data(as_text=True))
        return r

    def spice_markers(self) -> dict[str, set[str]]:
        """Current spice of each faction, when it lies in that faction's own band."""
        host = self.api.get(f"/api/tables/{self.code}/state", headers=bearer(self.t.host)).get_json()
        out = {}
        for f in SIX:
            n = host["factions"][f]["spice"]
            out[f] = {str(n)} if BAND[f] + 10 <= n < BAND[f] + 100 else set()
        return out

    def check_leak(self, viewer: str, text: str, where: str = "response") -> None:
        if viewer == "host":
            return
        for f in SIX:
            if f == viewer:
                continue
            for m in self.markers[f]:
                if m.isdigit():  # a number of its own, not a piece of a hex etag or a token
                    assert not shows_number(text, int(m)), f"{viewer} sees {f}'s secret {m} in {where}"
                else:
                    assert m not in text, f"{viewer} sees {f}'s secret {m!r} in {where}"

    def check_everything(self, stream: bool = False) -> None:
        for f, ms in self.spice_markers().items():
            self.markers[f] |= ms
        host = self.api.get(f"/api/tables/{self.code}/state", headers=bearer(self.t.host)).get_json()
        for viewer in SIX + ["board"]:
            phone = self.phones[viewer]
            # JSON state, structurally and as text
            r = phone.get(f"/api/tables/{self.code}/state")
            assert r.status_code == 200
            s = r.get_json()
            assert "private" not in s
            for f in SIX:
                if f == viewer:
                    assert s["factions"][f]["private"] == host["factions"][f]["private"]
                    assert s["factions"][f]["spice"] == host["factions"][f]["spice"]
                else:
                    assert s["factions"][f]["spice"] is None, (viewer, f)
                    assert "private" not in s["factions"][f], (viewer, f)
            self.check_leak(viewer, r.get_data(as_text=True), "state JSON")
            # the HTML fragment every phone fetches after a `changed` message
            r = phone.get(f"/t/{self.code}/view")
            assert r.status_code == 200
            html = r.get_data(as_text=True)
            self.check_leak(viewer, html, "view HTML")
            if viewer != "board":
                # the view its stream pushes, with nothing and with every part it shows kept
                token = self.phones[viewer].get_cookie(f"seat_{self.code}").value
                shows = ",".join(f"{k}={v}" for k, v in re.findall(r'id="([a-z-]+)" data-etag="([0-9a-f]+)"', html))
                for have in ("", shows):
                    pushed = pushed_view(self.app, self.code, token, have)
                    self.check_leak(viewer, pushed, "pushed view")
                    assert f'id="my-spice">{host["factions"][viewer]["spice"]}<' in pushed or "my-panel" in have
                assert f'id="my-spice">{host["factions"][viewer]["spice"]}<' in html
                # "Enter by hand": loaded when opened, and rendered whole by a refresh while it is open
                # the shipment fold likewise (Shipment & Movement only; another phase says so)
                for what, r in (("Enter by hand fragment", phone.get(f"/t/{self.code}/enter")),
                                ("shipment fold", phone.get(f"/t/{self.code}/ship")),
                                ("My secrets fold", phone.get(f"/t/{self.code}/secrets")),
                                ("Leaders fold", phone.get(f"/t/{self.code}/leaders")),
                                ("view HTML with every lazy fold open", phone.get(
                                    f"/t/{self.code}/view", headers={"HX-Request": "true",
                                                                     "X-Open-Folds": "enter,ship-box,secrets,leaders"}))):
                    assert r.status_code == 200, what
                    self.check_leak(viewer, r.get_data(as_text=True), what)
            # history
            r = phone.get(f"/api/tables/{self.code}/history")
            for e in r.get_json()["entries"]:
                if e["type"] in SECRET_TYPES and e["payload"] is not None:
                    assert e["payload"]["faction"] == viewer, (viewer, e)
            self.check_leak(viewer, r.get_data(as_text=True), "history JSON")
            # a 409 body carries the fresh state: filtered too (bearer so no CSRF is needed)
            token = phone.get_cookie(f"seat_{self.code}").value
            r = self.api.post(f"/api/tables/{self.code}/actions", headers=bearer(token),
                              json={"type": "storm.set", "sector": 1, "revision": -1})
            if viewer == "board":
                assert r.status_code == 403
            else:
                assert r.status_code == 409
                body = r.get_json()["state"]
                assert all(body["factions"][f]["spice"] is None for f in SIX if f != viewer)
            self.check_leak(viewer, r.get_data(as_text=True), "409 body")
            if not stream:
                continue
            # the live stream carries the revision and nothing else
            r = phone.get(f"/t/{self.code}/events")
            text = r.get_data(as_text=True)
            assert numbers(text) <= {1000, host["revision"]}, text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=5))
def test_no_seat_ever_sees_another_seats_secret(secrets_app, steps):
    table = Table(secrets_app)
    for i, (actor, entry) in enumerate(steps):
        table.submit(actor, entry)
        table.check_everything(stream=i == len(steps) - 1)

"""Property: for random tables and random entries, no seat but the Atreides ever receives card
``records`` or a ``cards.seen`` payload while the game goes on — not another faction, not the host,
not the board — on any route: the JSON state, the phone's HTML fragment, the history, the export,
a 409 body, the live stream. (KISS, Atreides: "You, and only you, may keep written records about
cards".) Reuses tests/test_secrets.py's table of phones."""
from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import SIX, bearer
from test_secrets import Table, secrets_app  # noqa: F401 - the module's app fixture

SEEN = ["Gom Jabbar", "Tleilaxu Ghola", "Trip to Gamont", "Chaumurky"]  # only ever noted, never played
PLAYED = ["Lasgun", "Shield", "Baliset", "Snooper"]
faction = st.sampled_from(SIX)
OTHERS = [f for f in SIX if f != "atreides"]

entry = st.one_of(
    st.builds(lambda c: ("atreides", {"type": "cards.seen", "faction": "atreides", "card": c}), st.sampled_from(SEEN)),
    st.builds(lambda c: ("atreides", {"type": "cards.seen", "faction": "atreides", "card": c}), st.sampled_from(SEEN)),
    st.builds(lambda a, c: (a, {"type": "cards.seen", "faction": "atreides", "card": c}),
              st.sampled_from(["host", *OTHERS]), st.sampled_from(SEEN)),
    st.builds(lambda f: (f, {"type": "bid.buy", "faction": f, "price": 0}), faction),
    st.builds(lambda f, c: (f, {"type": "cards.set", "faction": f, "cards": c}), faction,
              st.lists(st.sampled_from(PLAYED), max_size=2)),
    st.builds(lambda f, c: (f, {"type": "cards.discard", "faction": f, "card": c}), faction, st.sampled_from(PLAYED)),
    st.builds(lambda f, n: ("host", {"type": "hand.set", "faction": f, "size": n}), faction, st.integers(0, 3)),
    st.just(("host", {"type": "bid.unsold"})),
    st.builds(lambda a: (a, {"type": "undo"}), st.sampled_from(["host", "atreides"])),
)


def no_seen_names(text: str, where: str) -> None:
    for c in SEEN:
        assert c not in text, f"{c!r} (noted by the Atreides) appears in {where}"


class RecordsTable(Table):
    def check_records(self, stream: bool) -> None:
        host = self.api.get(f"/api/tables/{self.code}/state", headers=bearer(self.t.host))
        assert "records" not in host.get_json() and host.get_json()["card_seen"] is None
        viewers = {f: self.phones[f] for f in SIX + ["board"]}
        for viewer, phone in viewers.items():
            s = phone.get(f"/api/tables/{self.code}/state").get_json()
            assert ("records" in s) == (viewer == "atreides"), viewer
            if viewer != "atreides":
                assert s["card_seen"] is None, viewer
                s.pop("name_card", None)  # a buyer's naming prompt lists every card name, as it always did
                no_seen_names(json.dumps(s), f"{viewer}'s state")
                html = phone.get(f"/t/{self.code}/view").get_data(as_text=True)
                assert 'id="card-records"' not in html and 'id="card-seen"' not in html, viewer
            hist = phone.get(f"/api/tables/{self.code}/history").get_json()["entries"]
            for e in hist:
                if e["type"] == "cards.seen":
                    assert (e["payload"] is not None) == (viewer == "atreides"), (viewer, e)
            if viewer != "atreides":
                no_seen_names(json.dumps(hist), f"{viewer}'s history")
            token = phone.get_cookie(f"seat_{self.code}").value
            r = self.api.post(f"/api/tables/{self.code}/actions", headers=bearer(token),
                              json={"type": "storm.set", "sector": 1, "revision": -1})
            if r.status_code == 409:
                assert ("records" in r.get_json()["state"]) == (viewer == "atreides")
            if stream:
                text = phone.get(f"/t/{self.code}/events").get_data(as_text=True)
                assert "records" not in text and not any(c in text for c in SEEN)
        hist = self.api.get(f"/api/tables/{self.code}/history", headers=bearer(self.t.host)).get_json()["entries"]
        assert all(e["payload"] is None for e in hist if e["type"] == "cards.seen")
        no_seen_names(json.dumps(hist), "the host's history")
        export = self.api.get(f"/api/tables/{self.code}/export", headers=bearer(self.t.host)).get_json()
        assert all(e["payload"]["card"] is None for e in export["events"] if e["type"] == "cards.seen")
        no_seen_names(json.dumps(export), "the export")
        board = self.api.get(f"/t/{self.code}/board").get_data(as_text=True)
        no_seen_names(board, "the board screen")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(steps=st.lists(entry, min_size=1, max_size=6))
def test_only_the_atreides_ever_see_their_records(secrets_app, steps):  # noqa: F811
    table = RecordsTable(secrets_app)
    table.api.post(f"/api/tables/{table.code}/actions", headers=bearer(table.t.host),
                   json={"type": "phase.set", "turn": 1, "phase": "bidding", "revision": 0})
    for i, (actor, e) in enumerate(steps):
        if e["type"] == "undo":
            table.api.post(f"/api/tables/{table.code}/undo", json={}, headers=bearer(table.token(actor)))
        else:
            rev = table.api.get(f"/api/tables/{table.code}/state", headers=bearer(table.t.host)).get_json()["revision"]
            r = table.api.post(f"/api/tables/{table.code}/actions", headers=bearer(table.token(actor)),
                               json={**e, "revision": rev})
            if actor not in ("host", e.get("faction")):
                assert r.status_code == 403
            if actor != "atreides" and r.status_code != 200:  # a refusal tells nothing either
                no_seen_names(r.get_data(as_text=True), f"{actor}'s refusal")
            elif actor != "atreides":
                body = r.get_json()
                body.pop("name_card", None)
                assert "records" not in body
                no_seen_names(json.dumps(body), f"{actor}'s answer")
        table.check_records(stream=i == len(steps) - 1)

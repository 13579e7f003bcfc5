"""Property: whatever the order of questions, answers, plans, Voices, Karamas and undos, the
Prescience answer reaches only the asking side and the answerer: never a third seat (state JSON,
/view HTML, history JSON) nor the board screen. The answer's card is named so it can be searched
for as text (a KISS-added card no other screen names); a leader or dial answer is checked
structurally (no answer block, no ``prescience`` record in a third seat's view)."""
from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import bearer, create_table

FACTIONS = ["atreides", "harkonnen", "fremen", "emperor", "bg"]
THIRD = ["fremen", "emperor", "bg", "board"]
SECRET_CARD = "Poison Weapon (KISS)"   # only the Harkonnen hold it; nobody else's page names it


@pytest.fixture(scope="module")
def powers_app(tmp_path_factory):
    from companion import create_app
    return create_app({"DATA_DIR": str(tmp_path_factory.mktemp("powers")), "TESTING": True})


answer = st.one_of(
    st.builds(lambda w: ("weapon", {"weapon": w}), st.sampled_from([SECRET_CARD, "Crysknife", "none"])),
    st.builds(lambda d: ("defense", {"defense": d}), st.sampled_from(["Snooper (KISS)", "none"])),
    st.builds(lambda n: ("leader", {"leader": n}), st.sampled_from(["Feyd-Rautha", "Piter de Vries", "none"])),
    st.builds(lambda n: ("dial", {"forces": n, "starred": 0}), st.integers(0, 6)),
)
step = st.one_of(
    st.builds(lambda a: ("ask_and_answer", a), answer),
    st.builds(lambda w: ("plan", w), st.sampled_from([SECRET_CARD, "Crysknife", None])),
    st.builds(lambda p: ("karama", p), st.sampled_from(["prescience", "voice"])),
    st.just(("voice", None)),
    st.just(("undo", None)),
)


class Table:
    def __init__(self, app):
        self.api = app.test_client()
        self.t = create_table(self.api, FACTIONS)
        self.code = self.t.code
        self.act("host", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
        self.act("host", type="setup.bg", faction="bg", territory="Polar Sink")
        self.act("host", type="forces.place", faction="harkonnen", territory="Arrakeen", forces=6)
        self.act("host", type="cards.set", faction="harkonnen", cards=[SECRET_CARD, "Crysknife", "Snooper (KISS)"])
        self.act("host", type="alliance.form", factions=["atreides", "bg"], override=True, reason="a Nexus")
        self.act("host", type="phase.set", turn=1, phase="battle")
        s = self.act("host", type="battle.open", territory="Arrakeen", aggressor="harkonnen", opponent="atreides", override=True, reason="the table lets this aggressor attack first")
        self.bid = s.get_json()["battles"][-1]["id"]
        self.phones = {}
        for f in THIRD:
            c = app.test_client()
            token = self.t.seats[f] if f != "board" else app.extensions["tables"].spectator_token(self.code)
            c.set_cookie(f"seat_{self.code}", token)
            self.phones[f] = c

    def act(self, who: str, **entry):
        rev = self.api.get(f"/api/tables/{self.code}/state", headers=bearer(self.t.token(who))).get_json()["revision"]
        r = self.api.post(f"/api/tables/{self.code}/actions", json={**entry, "revision": rev},
                          headers=bearer(self.t.token(who)))
        assert r.status_code in (200, 422), r.get_data(as_text=True)
        return r

    def run(self, kind: str, arg) -> None:
        b = self.bid
        if kind == "ask_and_answer":
            element, value = arg
            self.act("atreides", type="battle.prescience", battle=b, faction="atreides", element=element)
            self.act("harkonnen", type="battle.answer", battle=b, faction="harkonnen", **value)
        elif kind == "plan":
            self.act("harkonnen", type="battle.plan", battle=b, faction="harkonnen", leader="Feyd-Rautha",
                     forces=2, weapon=arg)
        elif kind == "karama":
            self.act("fremen", type="battle.karama", battle=b, faction="fremen", power=arg)
        elif kind == "voice":
            self.act("bg", type="battle.voice", battle=b, faction="bg", command="not_play", card="projectile weapon")
        else:
            r = self.api.post(f"/api/tables/{self.code}/undo", json={}, headers=bearer(self.t.host))
            assert r.status_code in (200, 422)

    def check(self) -> None:
        host = self.api.get(f"/api/tables/{self.code}/state", headers=bearer(self.t.host)).get_json()
        record = (host.get("battles") or [{}])[-1]  # an undo may take back the opening itself
        answered = (record.get("prescience") or {}).get("answered")
        if answered:  # the asking side and the answerer hold it
            for f in ("atreides", "harkonnen"):
                assert self.bid in host["factions"][f]["private"]["prescience"]
        for viewer, phone in self.phones.items():
            r = phone.get(f"/api/tables/{self.code}/state")
            text = r.get_data(as_text=True)
            assert SECRET_CARD not in text, viewer
            s = r.get_json()
            assert all("prescience" not in (f.get("private") or {}) for f in s["factions"].values()), viewer
            assert "value" not in json.dumps((s.get("battles") or [{}])[-1].get("prescience") or {}), viewer
            html = phone.get(f"/t/{self.code}/board" if viewer == "board" else f"/t/{self.code}/view").get_data(
                as_text=True)
            assert SECRET_CARD not in html and "data-answer>" not in html and "showed:" not in html, viewer
            if viewer != "board":
                for e in phone.get(f"/api/tables/{self.code}/history").get_json()["entries"]:
                    if e["type"] in ("battle.answer", "battle.plan"):
                        assert e["payload"] is None, (viewer, e)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                   HealthCheck.too_slow])
@given(steps=st.lists(step, min_size=1, max_size=5))
def test_no_prescience_answer_reaches_a_third_seat_or_the_board(powers_app, steps):
    table = Table(powers_app)
    for kind, arg in steps:
        table.run(kind, arg)
        table.check()

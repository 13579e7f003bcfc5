"""A restart in the middle of a legislative session loses nothing (the real server, kill -9)."""
from __future__ import annotations

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve"]


def test_kill_9_in_the_middle_of_a_legislative_session(live_server, tmp_path):
    data = tmp_path / "data"
    srv = live_server(data)
    status, t = srv.request("POST", "/api/tables", {"game": "secret-harkonnen", "players": NAMES})
    assert status == 201, t
    code, seats = t["table"], t["seats"]

    def act(name, **entry):
        _, now = srv.request("GET", f"/api/tables/{code}/state", token=seats[name])
        status, body = srv.request("POST", f"/api/tables/{code}/actions", {**entry, "revision": now["revision"]},
                                   seats[name])
        assert status == 200, body
        return body

    act("Ann", type="sh.nominate", governor="Ben")
    for name in NAMES:
        act(name, type="sh.vote", vote="confirm")
    act("Ann", type="sh.discard", policy=1)
    before = {n: srv.request("GET", f"/api/tables/{code}/state", token=seats[n])[1] for n in NAMES}
    assert before["Ben"]["phase"] == "legislative_governor" and len(before["Ben"]["me"]["hand"]) == 2
    srv.kill9()

    again = live_server(data)
    srv = again
    after = {n: again.request("GET", f"/api/tables/{code}/state", token=seats[n])[1] for n in NAMES}
    assert after == before  # roles, the Governor's two cards, the deck count: all back, the same
    body = act("Ben", type="sh.enact", policy=0)
    assert body["policies"][before["Ben"]["me"]["hand"][0]] == 1

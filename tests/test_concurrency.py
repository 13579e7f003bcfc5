"""Six phones entering at once against the real server: every acknowledged entry is applied
exactly once, a stale one is refused (409) and retried by its phone, never merged blindly."""
from __future__ import annotations

import threading

from conftest import SIX


def test_simultaneous_phones_lose_nothing_and_merge_nothing(live_server):
    server = live_server()
    status, body = server.request("POST", "/api/tables", {"factions": SIX})
    assert status == 201
    code, seats = body["table"], body["seats"]
    per_phone = 12
    outcomes: dict[str, list[int]] = {f: [] for f in SIX}

    def phone(f: str) -> None:
        done = 0
        while done < per_phone:
            rev = server.request("GET", f"/api/tables/{code}/state", token=seats[f])[1]["revision"]
            st, _ = server.request("POST", f"/api/tables/{code}/actions",
                                   {"type": "spice.add", "faction": f, "amount": 1, "revision": rev}, seats[f])
            outcomes[f].append(st)
            if st == 200:
                done += 1

    threads = [threading.Thread(target=phone, args=(f,)) for f in SIX]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)

    for f in SIX:
        assert set(outcomes[f]) <= {200, 409}, outcomes[f]
        assert outcomes[f].count(200) == per_phone
    state = server.request("GET", f"/api/tables/{code}/state", token=body["host_token"])[1]
    assert state["revision"] == per_phone * len(SIX)
    start = {"atreides": 10, "harkonnen": 10, "fremen": 3, "emperor": 10, "guild": 5, "bg": 5}
    for f in SIX:
        assert state["factions"][f]["spice"] == start[f] + per_phone
    history = server.request("GET", f"/api/tables/{code}/history", token=body["host_token"])[1]["entries"]
    assert [e["seq"] for e in history] == list(range(1, per_phone * len(SIX) + 1))

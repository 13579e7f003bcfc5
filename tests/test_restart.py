"""Restarts lose nothing: kill -9 the real server right after the last acknowledged entry,
start it again on the same data folder, and everything acknowledged is back."""
from __future__ import annotations

import http.client
import threading
import time

from companion import create_app
from conftest import SIX, act, bearer, create_table, state, undo

N = 40


def test_kill_9_right_after_the_last_acknowledged_entry(live_server, tmp_path):
    data = tmp_path / "data"
    srv = live_server(data)
    status, t = srv.request("POST", "/api/tables", {"factions": SIX, "turns": 10, "options": {}})
    assert status == 201
    code, host, seats = t["table"], t["host_token"], t["seats"]

    acked = []  # (revision, state seen by the host after it)
    rev = 0
    for i in range(N):
        f = SIX[i % 6]
        if i % 3 == 0:
            entry = {"type": "spice.set", "faction": f, "amount": 100 + i}
            token = seats[f]
        elif i % 3 == 1:
            entry = {"type": "storm.set", "sector": 1 + i % 18}
            token = seats[f]
        else:
            entry = {"type": "cards.set", "faction": f, "cards": [["Crysknife", "Shield", "Lasgun"][i % 3]]}
            token = host
        status, body = srv.request("POST", f"/api/tables/{code}/actions", {**entry, "revision": rev}, token)
        assert status == 200, body
        rev = body["revision"]
        acked.append(rev)
    status, body = srv.request("POST", f"/api/tables/{code}/undo", {}, host)
    assert status == 200
    rev = body["revision"]
    acked.append(rev)
    status, reissued = srv.request("POST", f"/api/tables/{code}/seats/guild/reissue", None, host)
    assert status == 200
    status, last = srv.request("POST", f"/api/tables/{code}/actions",
                               {"type": "storm.set", "sector": 5, "revision": rev}, seats["fremen"])
    assert status == 200
    acked.append(last["revision"])
    status, before = srv.request("GET", f"/api/tables/{code}/state", token=host)
    status, history_before = srv.request("GET", f"/api/tables/{code}/history", token=host)
    srv.kill9()  # at once: no shutdown, no flush

    again = live_server(data)
    assert again.port != srv.port or again.proc.pid != srv.proc.pid
    status, after = again.request("GET", f"/api/tables/{code}/state", token=host)
    assert status == 200
    assert after == before
    assert after["revision"] == acked[-1] == N + 2
    assert after["storm"]["sector"] == 5
    status, history_after = again.request("GET", f"/api/tables/{code}/history", token=host)
    assert history_after == history_before
    assert [e["seq"] for e in history_after["entries"]] == list(range(1, N + 3))
    assert history_after["entries"][N - 1]["undone_by"] == N + 1
    # every seat token is back; the re-issued one replaced the old
    for f in SIX:
        token = reissued["seat_token"] if f == "guild" else seats[f]
        status, s = again.request("GET", f"/api/tables/{code}/state", token=token)
        assert status == 200 and s["viewer"] == f
    assert again.request("GET", f"/api/tables/{code}/state", token=seats["guild"])[0] == 401
    # and the table takes new entries at the next revision
    status, body = again.request("POST", f"/api/tables/{code}/actions",
                                 {"type": "storm.set", "sector": 6, "revision": N + 2}, seats["atreides"])
    assert status == 200 and body["revision"] == N + 3


def test_kill_9_while_entries_are_in_flight(live_server, tmp_path):
    """Writers keep going while the server is killed: every acknowledged entry survives."""
    data = tmp_path / "data"
    srv = live_server(data)
    status, t = srv.request("POST", "/api/tables", {"factions": ["atreides", "fremen"]})
    code, host = t["table"], t["host_token"]
    acked: list[int] = []
    stop = threading.Event()

    def writer():
        rev = 0
        while not stop.is_set():
            try:
                status, body = srv.request("POST", f"/api/tables/{code}/actions",
                                           {"type": "storm.set", "sector": 1 + rev % 18, "revision": rev}, host)
            except (OSError, http.client.HTTPException):
                return  # the server is gone (perhaps mid-answer: an entry never acknowledged)
            if status == 200:
                acked.append(body["revision"])
                rev = body["revision"]
            elif status == 409:
                rev = body["state"]["revision"]

    th = threading.Thread(target=writer)
    th.start()
    deadline = time.monotonic() + 10
    while len(acked) < 25 and time.monotonic() < deadline:
        time.sleep(0.01)
    srv.kill9()
    stop.set()
    th.join(15)
    assert len(acked) >= 25

    again = live_server(data)
    status, s = again.request("GET", f"/api/tables/{code}/state", token=host)
    assert status == 200
    assert s["revision"] >= acked[-1]
    status, h = again.request("GET", f"/api/tables/{code}/history", token=host)
    seqs = [e["seq"] for e in h["entries"]]
    assert seqs == list(range(1, len(seqs) + 1))
    assert set(acked) <= set(seqs)


def test_a_table_survives_a_fresh_app_on_the_same_data_dir(tmp_path):
    cfg = {"DATA_DIR": str(tmp_path / "data"), "TESTING": True}
    first = create_app(cfg).test_client()
    t = create_table(first, SIX)
    act(first, t.code, t.seats["atreides"], type="spice.set", faction="atreides", amount=31)
    act(first, t.code, t.host, type="prediction.set", faction="bg", target="fremen", turn=3)
    act(first, t.code, t.host, type="storm.set", sector=9)
    act(first, t.code, t.host, type="storm.set", sector=10)
    undo(first, t.code, t.host)
    new_guild = first.post(f"/api/tables/{t.code}/seats/guild/reissue",
                           headers=bearer(t.host)).get_json()["seat_token"]
    before = {role: state(first, t.code, t.host if role == "host" else t.seats[role])
              for role in ("host", "atreides", "bg")}
    hist = first.get(f"/api/tables/{t.code}/history", headers=bearer(t.host)).get_json()

    second = create_app(cfg).test_client()  # a new service: nothing cached in memory
    for role, s in before.items():
        assert state(second, t.code, t.host if role == "host" else t.seats[role]) == s
    assert state(second, t.code, t.host)["storm"]["sector"] == 9
    assert second.get(f"/api/tables/{t.code}/history", headers=bearer(t.host)).get_json() == hist
    assert state(second, t.code, new_guild)["viewer"] == "guild"
    assert second.get(f"/api/tables/{t.code}/state", headers=bearer(t.seats["guild"])).status_code == 401
    act(second, t.code, t.host, type="storm.set", sector=11)
    assert state(second, t.code, t.host)["revision"] == 6


def test_kill_9_during_amendments_leaves_the_table_as_before_or_after_one(live_server, tmp_path):
    """A long table is corrected again and again while the server is killed: after the restart
    the table is as it was after the last acknowledged amendment, or after the next one, whole."""
    data = tmp_path / "data"
    srv = live_server(data)
    status, t = srv.request("POST", "/api/tables", {"factions": ["atreides", "fremen"]})
    code, host = t["table"], t["host_token"]
    rev = 0
    for i in range(300):
        entry = {"type": "spice.set", "faction": "atreides", "amount": i} if i % 2 else \
            {"type": "storm.set", "sector": 1 + i % 18}
        status, body = srv.request("POST", f"/api/tables/{code}/actions", {**entry, "revision": rev}, host)
        assert status == 200, body
        rev = body["revision"]
    acked: list[tuple[int, dict]] = []   # (fremen spice said by the amendment, state after it)
    sent: list[int] = []
    stop = threading.Event()

    def writer():
        nonlocal rev
        n = 0
        while not stop.is_set():
            n += 1
            sent.append(n)
            body = {"seq": 2, "entry": {"type": "spice.set", "faction": "fremen", "amount": n % 40},
                    "reason": f"correction {n}", "revision": rev}
            try:
                status, answer = srv.request("POST", f"/api/tables/{code}/amend", body, host)
            except (OSError, http.client.HTTPException):
                return
            if status == 200:
                acked.append((n % 40, answer))
                rev = answer["revision"]
            elif status == 409:
                rev = answer["state"]["revision"]

    th = threading.Thread(target=writer)
    th.start()
    deadline = time.monotonic() + 20
    while len(acked) < 8 and time.monotonic() < deadline:
        time.sleep(0.01)
    srv.kill9()
    stop.set()
    th.join(15)
    assert len(acked) >= 8

    again = live_server(data)
    status, s = again.request("GET", f"/api/tables/{code}/state", token=host)
    assert status == 200
    last_amount, last_state = acked[-1]
    status, h = again.request("GET", f"/api/tables/{code}/history", token=host)
    amends = [e for e in h["entries"] if e["type"] == "amend"]
    assert [e["seq"] for e in h["entries"]] == list(range(1, len(h["entries"]) + 1))
    if s["revision"] == last_state["revision"]:
        assert s == last_state  # as after the last acknowledged amendment
    else:  # the one in flight went in whole: its entry, its replay, nothing between
        assert s["revision"] == last_state["revision"] + 1 and len(amends) == len(acked) + 1
        n = sent[-1] if len(sent) > len(acked) else None
        assert n is not None and s["factions"]["fremen"]["spice"] == n % 40
        assert h["entries"][1]["amended_by"] == amends[-1]["seq"]
    assert s["factions"]["fremen"]["spice"] == amends[-1]["payload"]["entry"]["amount"]
    assert h["entries"][1]["amended_by"] == amends[-1]["seq"]

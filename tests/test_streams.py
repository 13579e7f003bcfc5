"""Live streams on the real server: they hold no thread, end when the phone goes away, hear
writes made by another process; and tables do not wait for each other while one loads."""
from __future__ import annotations

import argparse
import socket
import threading
import time

import pytest
from conftest import SIX, act, create_table, free_port, state

from companion.table import service as service_mod


# -- a raw SSE client: one socket per stream, like a phone ------------------------------------------

class Stream:
    def __init__(self, port: int, code: str, headers: dict | None = None, since: int | None = None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        extra = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
        query = f"?since={since}" if since is not None else ""
        self.sock.sendall(f"GET /t/{code}/events{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Accept: text/event-stream\r\n{extra}\r\n".encode())
        self.buf = b""

    def wait_for(self, text: str, timeout: float = 15) -> str:
        """Read until ``text`` has arrived (the whole stream so far is returned)."""
        deadline = time.monotonic() + timeout
        while text.encode() not in self.buf:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                raise AssertionError(f"{text!r} did not arrive; got {self.buf[-300:]!r}") from None
            if not chunk:
                raise AssertionError(f"the stream closed before {text!r}; got {self.buf[-300:]!r}")
            self.buf += chunk
        return self.buf.decode("utf-8", "replace")

    def close(self) -> None:
        self.sock.close()


def changed(rev: int) -> str:
    return f"event: changed\ndata: {rev}\n"


# -- the server in this process (to look at its presence registry) ---------------------------------

@pytest.fixture()
def served(app):
    """``app`` served by the real server stack (uvicorn + companion.web.asgi) on a thread."""
    from companion.cli import make_server

    args = argparse.Namespace(host="127.0.0.1", port=free_port(), threads=4, max_connections=300,
                              keep_alive=5, header_timeout=1.0)
    app.config["SSE_HEARTBEAT"] = 0.5
    server = make_server(app, args)
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    deadline = time.monotonic() + 15
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    yield args.port
    server.should_exit = True
    th.join(10)


def poll(predicate, timeout: float = 10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


# -- tests -------------------------------------------------------------------------------------------

def test_more_streams_than_threads_and_the_tables_still_answer(live_server):
    """120 open streams on a server with 8 worker threads (waitress needed one thread per
    stream): entries, state and pages still answer, and every stream hears the change."""
    srv = live_server(args=("--threads", "8"))
    status, t = srv.request("POST", "/api/tables", {"factions": SIX})
    assert status == 201
    code, host = t["table"], t["host_token"]
    streams = []
    try:
        for i in range(120):
            s = Stream(srv.port, code, {"Cookie": f"seat_{code}={t['seats'][SIX[i % 6]]}"} if i % 2 else None)
            streams.append(s)
        for s in streams:
            s.wait_for(changed(0))
        status, other = srv.request("POST", "/api/tables", {"factions": ["atreides", "fremen"]})
        assert status == 201
        status, body = srv.request("POST", f"/api/tables/{code}/actions",
                                   {"type": "storm.set", "sector": 4, "revision": 0}, host)
        assert status == 200 and body["revision"] == 1
        status, body = srv.request("GET", f"/api/tables/{other['table']}/state", token=other["host_token"])
        assert status == 200 and body["revision"] == 0
        assert srv.request("GET", "/api/board")[0] == 200
        for s in streams:
            s.wait_for(changed(1))
    finally:
        for s in streams:
            s.close()


def test_a_stream_ends_when_its_phone_goes_away(app, served):
    client = app.test_client()
    t = create_table(client, SIX)
    presence = app.extensions["presence"]
    board = Stream(served, t.code)  # anyone with the code may watch: no seat, not "connected"
    board.wait_for(changed(0))
    phone = Stream(served, t.code, {"Cookie": f"seat_{t.code}={t.seats['fremen']}"})
    phone.wait_for(changed(0))
    assert poll(lambda: presence.connected(t.code) == {"fremen": 1})
    text = board.wait_for("event: seats")
    phone.close()  # the phone goes away without a word
    assert poll(lambda: presence.connected(t.code) == {})
    board.wait_for("event: seats", timeout=5)
    assert board.buf.count(b"event: seats") >= 2 or "event: seats" in text
    # the board's stream is still alive and still hears entries
    act(client, t.code, t.host, type="storm.set", sector=7)
    board.wait_for(changed(1))
    board.close()
    assert poll(lambda: app.extensions["tables"].cached_revision(t.code) == 1)


def test_a_socket_that_sends_nothing_is_dropped(served):
    sock = socket.create_connection(("127.0.0.1", served), timeout=15)
    sock.sendall(b"GET /api/bo")  # half a request, then silence
    assert sock.recv(100) == b""  # the server hung up (header timeout 1 s; the recv waits up to 15 s)
    sock.close()


def test_two_processes_on_one_data_folder_hear_each_other(live_server, tmp_path):
    data = tmp_path / "shared"
    a = live_server(data)
    b = live_server(data)
    status, t = a.request("POST", "/api/tables", {"factions": SIX})
    code, host, seats = t["table"], t["host_token"], t["seats"]
    assert b.request("GET", f"/api/tables/{code}/state", token=host)[1]["revision"] == 0  # b has it cached
    listener = Stream(b.port, code, {"Cookie": f"seat_{code}={seats['atreides']}"})
    listener.wait_for(changed(0))
    on_a = Stream(a.port, code)
    on_a.wait_for(changed(0))
    status, body = a.request("POST", f"/api/tables/{code}/actions",
                             {"type": "spice.set", "faction": "atreides", "amount": 23, "revision": 0},
                             seats["atreides"])
    assert status == 200
    listener.wait_for(changed(1))  # a write through a wakes a stream on b
    status, fresh = b.request("GET", f"/api/tables/{code}/state", token=seats["atreides"])
    assert status == 200 and fresh["revision"] == 1 and fresh["factions"]["atreides"]["spice"] == 23
    # and b writes on top of it (its cache is not stale), which a hears in turn
    status, body = b.request("POST", f"/api/tables/{code}/actions",
                             {"type": "storm.set", "sector": 9, "revision": 1}, host)
    assert status == 200 and body["revision"] == 2
    on_a.wait_for(changed(2))
    status, seen_by_a = a.request("GET", f"/api/tables/{code}/state", token=host)
    assert seen_by_a["revision"] == 2 and seen_by_a["storm"]["sector"] == 9
    listener.close()
    on_a.close()


def test_a_big_table_loading_does_not_hold_up_a_small_one(app, monkeypatch):
    client = app.test_client()
    big = create_table(client, SIX)
    small = create_table(client, ["atreides", "fremen"])
    for sector in (3, 4, 5):
        act(client, big.code, big.host, type="storm.set", sector=sector)
    fresh = service_mod.TableService(app.extensions["tables"].store)  # nothing loaded yet
    release, started = threading.Event(), threading.Event()
    folds: list[str] = []
    real_fold = fresh.fold

    def slow_fold(code, config, events, **kw):
        folds.append(code)
        if code == big.code:
            started.set()
            assert release.wait(20)
        return real_fold(code, config, events, **kw)

    monkeypatch.setattr(fresh, "fold", slow_fold)
    order: list[str] = []
    loaders = [threading.Thread(target=lambda: order.append(("big", fresh.table(big.code).revision)))
               for _ in range(2)]
    loaders[0].start()
    assert started.wait(10)
    loaders[1].start()  # a second request for the big table waits for the same load
    assert fresh.table(small.code).revision == 0  # answered while the big table is still loading
    order.append(("small", 0))
    assert not any(("big", 3) == o for o in order)
    release.set()
    for th in loaders:
        th.join(20)
    assert order == [("small", 0), ("big", 3), ("big", 3)]
    assert folds.count(big.code) == 1  # loaded once, not once per waiting request


def test_a_long_table_loads_from_its_snapshot(app, monkeypatch, tmp_path):
    monkeypatch.setattr(service_mod, "SNAPSHOT_EVERY", 10)
    client = app.test_client()
    t = create_table(client, SIX)
    for i in range(25):
        act(client, t.code, t.seats["atreides"], type="spice.set", faction="atreides", amount=i)
    act(client, t.code, t.host, type="storm.set", sector=6)
    tables = app.extensions["tables"]
    snapshot = tables.snapshot_dir / f"{t.code}.json"
    assert poll(lambda: snapshot.exists())
    before = state(client, t.code, t.host)

    fresh = service_mod.TableService(tables.store, snapshot_dir=tables.snapshot_dir)
    replayed: list[int] = []
    real_replay = fresh._replay

    def counting(code, st, events, **kw):
        replayed.extend(e["seq"] for e in events)
        return real_replay(code, st, events, **kw)

    monkeypatch.setattr(fresh, "_replay", counting)
    loaded = fresh.table(t.code)
    assert loaded.revision == 26
    assert loaded.state == tables.table(t.code).state
    assert loaded.state["revision"] == before["revision"]
    assert replayed and min(replayed) > 10  # only the entries after a snapshot were replayed
    assert loaded.events[-1]["summary"] == tables.table(t.code).events[-1]["summary"]
    assert loaded.state["storm"]["sector"] == 6 and loaded.state["private"]["atreides"]["spice"] == 24
    # the entries before the snapshot are read when they are needed: history, export, undo
    assert [e["seq"] for e in fresh.history(t.code, "host")] == list(range(1, 27))
    assert len(fresh.export(t.code)["events"]) == 26
    after_undo = fresh.undo(t.code, "host", 26)
    assert after_undo["revision"] == 27
    assert after_undo["private"]["atreides"]["spice"] == 24 and after_undo["storm"]["sector"] != 6


def test_a_snapshot_made_by_other_rules_is_not_used(app, monkeypatch):
    monkeypatch.setattr(service_mod, "SNAPSHOT_EVERY", 5)
    client = app.test_client()
    t = create_table(client, SIX)
    for i in range(6):
        act(client, t.code, t.host, type="storm.set", sector=1 + i)
    tables = app.extensions["tables"]
    assert poll(lambda: (tables.snapshot_dir / f"{t.code}.json").exists())
    monkeypatch.setattr(service_mod, "_FINGERPRINT", "other-rules")
    fresh = service_mod.TableService(tables.store, snapshot_dir=tables.snapshot_dir)
    replayed: list[int] = []
    real_replay = fresh._replay
    monkeypatch.setattr(fresh, "_replay", lambda c, s, ev, **kw: (replayed.extend(e["seq"] for e in ev),
                                                                   real_replay(c, s, ev, **kw)))
    assert fresh.table(t.code).state["storm"]["sector"] == 6
    assert replayed == [1, 2, 3, 4, 5, 6]  # replayed from the start


def test_an_entry_on_a_revision_this_process_has_not_heard_of_yet_is_accepted(app, monkeypatch):
    """Behind a round-robin proxy a phone may send revision n+1 to a process that has not yet
    been told about entry n+1: it looks at the store instead of answering 409."""
    client = app.test_client()
    t = create_table(client, SIX)
    store = app.extensions["tables"].store
    with monkeypatch.context() as m:
        m.setattr(store, "subscribe", lambda callback: None)  # its notifications never arrive
        other = service_mod.TableService(store)  # "the other process"
    assert other.table(t.code).revision == 0
    act(client, t.code, t.host, type="storm.set", sector=4)  # written through this one
    assert other.table(t.code).revision == 0  # it has not heard
    state_after = other.submit(t.code, "host", {"type": "storm.set", "sector": 5, "revision": 1})
    assert state_after["revision"] == 2 and state_after["storm"]["sector"] == 5
    with pytest.raises(service_mod.Stale):
        other.submit(t.code, "host", {"type": "storm.set", "sector": 6, "revision": 1})


def test_past_the_connection_limit_the_server_says_busy_instead_of_freezing(live_server):
    srv = live_server(args=("--max-connections", "20"))
    status, t = srv.request("POST", "/api/tables", {"factions": SIX})
    code = t["table"]
    streams, statuses = [], []
    try:
        for _ in range(30):
            s = Stream(srv.port, code)
            streams.append(s)
            head = s.wait_for("\r\n")
            statuses.append(int(head.split(" ")[1]))
        assert 200 in statuses and 503 in statuses  # the extra ones were told at once
        assert statuses.count(200) < 20
        refused = streams[statuses.index(503)].wait_for("again")  # and told why, in a sentence
        assert "limit of 20 open connections" in refused and "--max-connections" in refused
        assert "Retry-After: 2" in refused or "retry-after: 2" in refused
    finally:
        for s in streams:
            s.close()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:  # the closed streams free their slots
        try:
            if srv.request("GET", f"/api/tables/{code}/state", token=t["host_token"])[0] == 200:
                break
        except (OSError, ValueError):  # refused, or the plain-text 503
            pass
        time.sleep(0.1)
    assert srv.request("GET", f"/api/tables/{code}/state", token=t["host_token"])[0] == 200


def test_a_stream_during_a_storage_fault_answers_503_and_works_once_it_clears(app, served, monkeypatch):
    from companion.table.store import StorageUnavailable

    t = create_table(app.test_client(), SIX)
    tables = app.extensions["tables"]
    real_role_for = tables.role_for

    def broken(code, token):
        raise StorageUnavailable("The table's storage is busy (another program holds it): tap Retry in a moment.")

    monkeypatch.setattr(tables, "role_for", broken)
    s = Stream(served, t.code, {"Cookie": f"seat_{t.code}={t.seats['bg']}"})
    text = s.wait_for("tap Retry")
    assert text.startswith("HTTP/1.1 503")
    s.close()
    monkeypatch.setattr(tables, "role_for", real_role_for)
    s = Stream(served, t.code, {"Cookie": f"seat_{t.code}={t.seats['bg']}"})
    s.wait_for(changed(0))
    assert poll(lambda: app.extensions["presence"].connected(t.code) == {"bg": 1})
    s.close()


def test_a_seat_reissued_through_one_process_is_announced_on_the_others_streams(live_server, tmp_path):
    data = tmp_path / "shared"
    a, b = live_server(data), live_server(data)
    status, t = a.request("POST", "/api/tables", {"factions": SIX})
    code = t["table"]
    host_page = Stream(b.port, code, {"Authorization": f"Bearer {t['host_token']}"})
    host_page.wait_for(changed(0))
    before = host_page.buf.count(b"event: seats")
    status, _ = a.request("POST", f"/api/tables/{code}/seats/guild/reissue", None, t["host_token"])
    assert status == 200
    host_page.wait_for("event: seats")
    assert host_page.buf.count(b"event: seats") > before
    host_page.close()


def test_a_snapshot_finishing_late_never_replaces_a_newer_one(app, monkeypatch):
    """Two snapshots of one table written at once (the one at 10 still writing when the one at 20
    is asked for): whichever finishes last, the file holds the newer fold, and neither loses
    its temporary file to the other."""
    import json
    monkeypatch.setattr(service_mod, "SNAPSHOT_EVERY", 10)
    started: list = []   # the writers, held so the test runs them in the worst order
    client = app.test_client()
    t = create_table(client, SIX)
    monkeypatch.setattr(service_mod, "in_background", lambda work, name: started.append(work))
    for i in range(20):
        act(client, t.code, t.host, type="storm.set", sector=1 + i % 18)
    monkeypatch.undo()
    assert len(started) == 2
    path = app.extensions["tables"].snapshot_dir / f"{t.code}.json"
    started[1]()   # the fold at 20 lands first
    assert json.loads(path.read_text())["seq"] == 20
    started[0]()   # the fold at 10 finishes later: it must not replace the one at 20
    assert json.loads(path.read_text())["seq"] == 20
    assert not list(path.parent.glob(f"{t.code}.*.tmp"))

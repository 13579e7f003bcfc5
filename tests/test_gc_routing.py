"""The server's garbage collection (``companion/cli.py``: young collections every second, the
survivors frozen) and the routing that leaves no garbage for it (``companion/web/routing.py``).

A busy server paused for every collection, up to 120 ms with 150 mid-game tables (a phone's entry
waited that long); these checks keep what made the pauses short: a request makes no reference
cycle, routing answers exactly as Werkzeug's, and a young collection frees the young garbage and
leaves the survivors out of every later collection."""
from __future__ import annotations

import gc
import subprocess
import sys
import textwrap

import pytest
from werkzeug.routing.matcher import StateMachineMatcher

from companion import create_app
from companion.web.routing import RememberingMatcher
from conftest import create_table, join_seat


def _garbage_of(fn) -> list:
    """The objects ``fn`` leaves that only the garbage collector can free (reference cycles)."""
    fn()  # warm: first-use caches are not garbage
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        fn()
        gc.collect()
        found = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    return found


@pytest.fixture
def phone_at_table(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TESTING": True})
    t = create_table(app.test_client())
    yield app, t, join_seat(app, t.code, "fremen")
    app.extensions["tables"].store.close()


def test_a_refresh_through_the_server_leaves_no_garbage_for_the_collector(phone_at_table):
    """Through the ASGI bridge the server runs (not the test client, which makes cycles of its own)."""
    import asyncio

    from companion.web.asgi import asgi_app
    app, t, phone = phone_at_table
    server = asgi_app(app, 2)
    cookie = f"seat_{t.code}={phone.get_cookie(f'seat_{t.code}').value}"
    scope = {"type": "http", "method": "GET", "path": f"/t/{t.code}/view", "raw_path": None,
             "query_string": b"", "http_version": "1.1", "scheme": "http", "root_path": "",
             "server": ("127.0.0.1", 8765), "client": ("127.0.0.1", 50000),
             "headers": [(b"host", b"127.0.0.1:8765"), (b"hx-request", b"true"), (b"cookie", cookie.encode())]}
    statuses = []

    async def refresh():
        async def receive():
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message):
            if message["type"] == "http.response.start":
                statuses.append(message["status"])
        await server(scope, receive, send)

    loop = asyncio.new_event_loop()
    try:
        garbage = _garbage_of(lambda: loop.run_until_complete(refresh()))
    finally:
        loop.close()
        server.wsgi.pool.shutdown()
    assert statuses and set(statuses) == {200}
    assert [type(o).__name__ for o in garbage] == []


def test_routes_are_found_as_werkzeug_finds_them(phone_at_table):
    app, t, _ = phone_at_table
    assert isinstance(app.url_map._matcher, RememberingMatcher)
    adapter = app.url_map.bind("localhost")
    plain = StateMachineMatcher(app.url_map.merge_slashes)
    for rule in app.url_map.iter_rules():
        plain.add(rule)
    plain.update()
    for path, method in [(f"/t/{t.code}/view", "GET"), (f"/t/{t.code}/view", "GET"), ("/", "GET"),
                         (f"/api/tables/{t.code}/actions", "POST"), ("/static/app.css", "GET")]:
        assert app.url_map._matcher.match("", path, method, False) == plain.match("", path, method, False)
    endpoint, args = adapter.match(f"/t/{t.code}/view")
    args["code"] = "CHANGED"  # a caller's copy: the next match is not affected
    assert adapter.match(f"/t/{t.code}/view")[1]["code"] == t.code


def test_refusals_are_never_remembered(phone_at_table):
    app, t, phone = phone_at_table
    c = app.test_client()
    for _ in range(2):
        assert c.get("/no/such/page").status_code == 404
        assert c.delete("/").status_code == 405
    remembered = list(app.url_map._matcher._found)
    assert not [k for k in remembered if k[1] == "/no/such/page" or k[2] == "DELETE"], remembered


def test_remembered_routes_are_bounded():
    m = RememberingMatcher(merge_slashes=True)
    from werkzeug.routing import Map, Rule
    url_map = Map([Rule("/t/<code>/view", endpoint="view")])
    m.add(next(url_map.iter_rules()))
    m.update()
    m.MAX = 10
    for i in range(25):
        rule, values = m.match("", f"/t/T{i:04d}/view", "GET", False)
        assert values == {"code": f"T{i:04d}"}
    assert len(m._found) == 10
    assert ("", "/t/T0024/view", "GET", False) in m._found  # the newest kept, the oldest forgotten
    assert ("", "/t/T0000/view", "GET", False) not in m._found


def test_a_young_collection_frees_young_cycles_and_freezes_the_survivors():
    """In its own process: freezing is for the whole interpreter."""
    code = textwrap.dedent("""
        import gc, json
        from companion.cli import tune_gc, young_collection, GC_THRESHOLDS
        tune_gc()
        assert gc.get_threshold() == GC_THRESHOLDS
        frozen0 = gc.get_freeze_count()
        keep = [[i] for i in range(3000)]                 # survivors (lists: always tracked)
        for i in range(1000):                             # garbage: reference cycles
            x = []; x.append(x)
        del x
        freed = young_collection()
        after = gc.get_freeze_count()
        young = len(gc.get_objects(0)) + len(gc.get_objects(1))
        print(json.dumps({"freed": freed, "frozen_more": after - frozen0, "young": young}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    import json
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["freed"] >= 1000          # the young cycles are freed at once
    assert figures["frozen_more"] >= 3000    # the survivors are out of every later collection
    assert figures["young"] < 200            # nothing left for the next young collection to walk

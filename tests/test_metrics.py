"""The benchmark figures a server gives (``/debug/metrics``): off unless asked for, loopback only,
and each garbage collection timed both as wall time and as the collecting thread's own CPU."""
from __future__ import annotations

import gc
import time

from companion import create_app


def test_metrics_are_a_404_unless_the_server_was_started_with_them(app, client):
    assert client.get("/debug/metrics").status_code == 404


def test_each_collection_is_timed_as_wall_and_cpu_time(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TESTING": True, "METRICS": True})
    try:
        c = app.test_client()
        since = time.time() - 1
        junk = [[i] for i in range(50_000)]
        for x in junk:  # cycles, so the collection has something to do
            x.append(x)
        del junk, x
        gc.collect()
        m = c.get(f"/debug/metrics?since={since}").get_json()
        full = [p for p in m["gc"]["pauses"] if p[1] == 2]
        assert full, m["gc"]["pauses"][-3:]
        when, gen, wall, cpu, freed = full[-1]
        assert when >= since and wall > 0 and 0 <= cpu <= wall + 0.01
        assert sum(p[4] for p in m["gc"]["pauses"]) >= 50_000  # the cycles above, counted as freed
        assert c.get("/debug/metrics", environ_base={"REMOTE_ADDR": "192.168.1.20"}).status_code == 404
    finally:
        app.extensions["tables"].store.close()


def test_the_part_caches_report_their_hits_as_a_phone_refreshes(tmp_path):
    """A seat's second refresh at an unchanged table reuses its phase card and panel: the figures
    count it (the load benchmark prints them)."""
    from conftest import create_table, join_seat
    app = create_app({"DATA_DIR": str(tmp_path), "TESTING": True, "METRICS": True})
    try:
        t = create_table(app.test_client())
        phone = join_seat(app, t.code, "fremen")
        before = app.test_client().get("/debug/metrics").get_json()["caches"]
        for _ in range(2):
            assert phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).status_code == 200
        after = app.test_client().get("/debug/metrics").get_json()["caches"]
        assert after, "no part cache reported"
        for name, c in after.items():
            c0 = before.get(name, {"hits": 0, "misses": 0})
            assert c["size"] >= 1, (name, c)
            assert c["hits"] - c0["hits"] >= 1, (name, c0, c)  # the second refresh: a hit
    finally:
        app.extensions["tables"].store.close()


def test_reclaim_counts_the_garbage_that_frozen_objects_held(tmp_path):
    """The load benchmark's leak check: cycles frozen before they became garbage are never walked
    by the tuned collector; ``?reclaim=1`` collects everything once and says how many there were."""
    app = create_app({"DATA_DIR": str(tmp_path), "TESTING": True, "METRICS": True})
    try:
        c = app.test_client()
        assert c.get("/debug/metrics").get_json()["gc"]["reclaimed"] is None  # only when asked
        held = [[i] for i in range(2_000)]
        for x in held:
            x.append(x)
        del x
        gc.freeze()
        try:
            del held  # garbage now, but frozen: no ordinary collection frees it
            gc.collect()
            m = c.get("/debug/metrics?reclaim=1").get_json()
        finally:
            gc.unfreeze()
        assert m["gc"]["reclaimed"] >= 2_000
    finally:
        app.extensions["tables"].store.close()


def test_the_pushes_report_their_jobs_views_and_waits(tmp_path):
    """Under the real server the push thread's figures are reported (jobs, views, waits); under a
    plain WSGI server there is no push thread: null."""
    from companion.web.asgi import asgi_app
    from companion.web.push import SeatPush
    from conftest import create_table
    app = create_app({"DATA_DIR": str(tmp_path), "TESTING": True, "METRICS": True})
    try:
        c = app.test_client()
        assert c.get("/debug/metrics").get_json()["pushes"] is None
        t = create_table(c)
        server = asgi_app(app, 2)
        scope = {"type": "http", "method": "GET", "path": f"/t/{t.code}/events", "root_path": "", "scheme": "http",
                 "http_version": "1.1", "query_string": b"parts=view", "server": ("127.0.0.1", 80),
                 "headers": [(b"host", b"127.0.0.1"), (b"cookie", f"seat_{t.code}={t.seats['fremen']}".encode())]}
        server.pushes.yield_for = 0.02
        server.wsgi.idle.clear()  # a request in flight: the first view waits
        server.pushes.render_all([SeatPush(scope, t.code)])
        server.wsgi.idle.set()
        server.pushes.render_all([SeatPush(scope, t.code), SeatPush(scope, t.code)])
        m = c.get("/debug/metrics").get_json()["pushes"]
        assert m["batches"] == 2 and m["views"] == 3
        assert 0.02 <= m["waited"] < 5
    finally:
        app.extensions["tables"].store.close()

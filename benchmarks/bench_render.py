"""What one refresh of a mid-game phone costs the server, in process (no network; bounded).

    python benchmarks/bench_render.py [--rounds 30] [--export benchmarks/midgame_6f.json]

Imports the mid-game table (six factions, 300 entries, Shipment & Movement), then for every seat
(the six factions and the host) times, ``--rounds`` times each:

- ``view_for`` (the seat's view of the state, the allowlist and the Dune composition), with its
  deep copies (what the JSON API does) and ``shared`` (what the pages do: no copy),
- the whole page context (``view_for`` included, legal shipments, ...),
- rendering ``dune/view.html`` from that context (Jinja),
- the whole ``GET /t/CODE/view`` through the Flask test client (all of the above, the cache if
  any, compression), with the size of the HTML and of what is sent (br),

and prints the median and p90 of each (CPU time of this thread: less noisy than wall time when
other programs load the machine). Then the same render of ``dune/view.html`` three ways,
alternated so that all see the same load: Jinja's stock ``getattr`` (attribute first: an
exception per dict lookup) without the board-part cache; the app's (``companion/web/
templating.py``: dicts read by key first) without it; the app's with it (``board_part.py``). Run it before and after a change on the
same machine; figures under load from other programs are noisy (the load average is printed).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def pct(xs, p):
    xs = sorted(xs)
    return xs[max(0, min(len(xs) - 1, round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--export", default=str(ROOT / "benchmarks" / "midgame_6f.json"))
    args = ap.parse_args(argv)
    from flask import render_template

    from companion import create_app
    from companion.games.dune.web.pages import page_context
    from companion.table.views import view_for

    tmp = Path(tempfile.mkdtemp(prefix="bench-render-"))
    try:
        app = create_app({"DATA_DIR": str(tmp), "TESTING": True})
        client = app.test_client()
        r = client.post("/api/tables/import", json=json.loads(Path(args.export).read_text("utf-8")))
        made = r.get_json()
        code = made["table"]
        seats = {"host": made["host_token"], **made["seats"]}
        t = app.extensions["tables"].table(code)
        phones = {}
        for role, token in seats.items():
            c = app.test_client()
            c.set_cookie(f"seat_{code}", token)
            phones[role] = c
        fig: dict[str, list[float]] = {k: [] for k in ("view_for", "view_for shared", "context", "render",
                                                       "request")}
        sizes, sent = [], []
        for _ in range(args.rounds):
            for role in seats:
                with app.test_request_context(f"/t/{code}/view"):
                    t0 = time.thread_time()
                    view_for(t.state, role)
                    ta = time.thread_time()
                    view_for(t.state, role, shared=True)
                    t1 = time.thread_time()
                    fig["view_for shared"].append(t1 - ta)
                    ctx = page_context(t, role)
                    t2 = time.thread_time()
                    html = render_template("dune/view.html", **ctx)
                    t3 = time.thread_time()
                fig["view_for"].append(ta - t0)
                fig["context"].append(t2 - t1)
                fig["render"].append(t3 - t2)
                t4 = time.thread_time()
                r = phones[role].get(f"/t/{code}/view", headers={"HX-Request": "true", "Accept-Encoding": "br"})
                fig["request"].append(time.thread_time() - t4)
                assert r.status_code == 200
                sizes.append(len(html.encode()))
                sent.append(len(r.data))
        print(f"mid-game view of table {code} (revision {t.revision}), {len(seats)} seats x {args.rounds} rounds")
        for k, xs in fig.items():
            print(f"  {k:16s} CPU median {statistics.median(xs) * 1000:6.2f} ms   p90 {pct(xs, 90) * 1000:6.2f} ms")
        print(f"  HTML {statistics.median(sizes) / 1024:.1f} KB, sent {statistics.median(sent) / 1024:.1f} KB (br)")
        import types

        from flask.templating import Environment
        env = app.jinja_env
        ab: dict[str, list[float]] = {"stock getattr, no board cache": [], "app getattr, no board cache": [],
                                      "app getattr, board cache": []}
        for _ in range(args.rounds):
            for role in seats:
                with app.test_request_context(f"/t/{code}/view"):
                    ctx = page_context(t, role)
                    for name in ab:
                        if name.startswith("stock"):
                            env.getattr = types.MethodType(Environment.getattr, env)
                        app.config["BOARD_PART_CACHE"] = name.endswith(", board cache")
                        t0 = time.thread_time()  # CPU time of this thread: less noise from other programs
                        render_template("dune/view.html", **ctx)
                        ab[name].append(time.thread_time() - t0)
                        env.__dict__.pop("getattr", None)
        for k, xs in ab.items():
            print(f"  render, {k:30s} median {statistics.median(xs) * 1000:6.2f} ms   p90 {pct(xs, 90) * 1000:6.2f} ms")
        try:
            print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        except OSError:
            pass
        app.extensions["tables"].store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

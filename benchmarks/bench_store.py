"""The store on its own, on both backends: append latency, concurrent writers in two processes,
how fast another process hears a write (``subscribe``), and reading a long table back.

    python benchmarks/bench_store.py [--database postgresql://...] [--appends 400] [--long 20000]

SQLite always runs (a temporary file, ``synchronous=FULL``: every append is on disk before it
returns). PostgreSQL runs when ``--database`` or ``COMPANION_TEST_DATABASE`` gives a URL (a
fresh schema is made and dropped). For each backend it prints:

  append     p50/p95/p99 of one ``append_event`` (one transaction, durable), one writer;
  2 procs    entries per second with two other processes appending to one table each, and the
             StaleWrite count when both append to the SAME table (retrying: nothing is lost);
  heard      p50/p95/max from a commit in another process to ``subscribe``'s callback here;
  read       time to read back a table of ``--long`` entries (what a restart replays).

Everything is bounded (a few seconds per backend); loopback only.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.table.store import open_store  # noqa: E402

CONFIG = {"factions": ["atreides", "fremen"], "turns": 10, "options": {}}
PAYLOAD = {"type": "storm.set", "sector": 7, "override": False, "reason": None}

WRITER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[5])
from companion.table.store import open_store, StaleWrite
store = open_store(sys.argv[1])
code, n, pause = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
done = stale = 0
t0 = time.perf_counter()
while done < n:
    try:
        store.append_event(code, store.head(code), "host", "storm.set",
                           {"type": "storm.set", "sector": 1 + done % 18, "sent": time.time()}, None, "w")
        done += 1
        if pause:
            time.sleep(pause)
    except StaleWrite:
        stale += 1
print(json.dumps({"done": done, "stale": stale, "seconds": time.perf_counter() - t0}))
"""


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def writers(target, codes, n, pause=0.0):
    procs = [subprocess.Popen([sys.executable, "-c", WRITER, target, code, str(n), str(pause), str(ROOT)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for code in codes]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        if p.returncode:
            raise SystemExit(stderr.decode())
        out.append(json.loads(stdout))
    return out


def bench(name, target, appends, long_n):
    store = open_store(target, backup_at_start=False) if "://" not in target else open_store(target)
    tag = uuid.uuid4().hex[:4].upper()
    code = "A" + tag
    store.create_table(code, CONFIG, {"host": "h" + tag})
    times = []
    for i in range(appends):
        t0 = time.perf_counter()
        store.append_event(code, i, "host", "storm.set", PAYLOAD, None, "storm")
        times.append((time.perf_counter() - t0) * 1000)
    print(f"{name:10} append    p50 {pct(times, 50):6.2f} ms  p95 {pct(times, 95):6.2f} ms  "
          f"p99 {pct(times, 99):6.2f} ms  ({appends} appends, one writer)")

    b1, b2 = "B" + tag, "C" + tag
    store.create_table(b1, CONFIG, {"host": "h1" + tag})
    store.create_table(b2, CONFIG, {"host": "h2" + tag})
    t0 = time.perf_counter()
    res = writers(target, [b1, b2], appends)
    rate = sum(r["done"] for r in res) / (time.perf_counter() - t0)
    same = "S" + tag
    store.create_table(same, CONFIG, {"host": "hs" + tag})
    res_same = writers(target, [same, same], appends // 2)
    assert store.head(same) == appends // 2 * 2
    print(f"{name:10} 2 procs   {rate:7.0f} entries/s on two tables (incl. process start); on one table: "
          f"{sum(r['stale'] for r in res_same)} StaleWrite retries, {store.head(same)} of "
          f"{appends // 2 * 2} entries stored")

    heard_code = "H" + tag
    store.create_table(heard_code, CONFIG, {"host": "hh" + tag})
    lag: list[float] = []
    done = threading.Event()
    n_heard = 60

    def on_change(code, seq):
        if code != heard_code:
            return
        now = time.time()
        ev = store.events(code)[-1] if seq else None
        if ev and "sent" in ev["payload"]:
            lag.append((now - ev["payload"]["sent"]) * 1000)
        if seq >= n_heard:
            done.set()
    unsubscribe = store.subscribe(on_change)
    writers(target, [heard_code], n_heard, pause=0.05)
    done.wait(10)
    unsubscribe()
    if lag:
        print(f"{name:10} heard     p50 {pct(lag, 50):6.1f} ms  p95 {pct(lag, 95):6.1f} ms  max {max(lag):6.1f} ms"
              f"  (another process's commit -> callback here, {len(lag)} writes)")

    long_code = "L" + tag
    events = [{"seq": i, "seat": "host", "type": "storm.set", "payload": PAYLOAD, "ts": 1.0 + i,
               "secret_for": None, "summary": "storm"} for i in range(1, long_n + 1)]
    store.import_table(long_code, CONFIG, {"host": "hl" + tag}, events)
    t0 = time.perf_counter()
    got = store.events(long_code)
    print(f"{name:10} read      {(time.perf_counter() - t0) * 1000:7.0f} ms for a {len(got)}-entry table")
    store.close()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--database", default=os.environ.get("COMPANION_TEST_DATABASE"))
    ap.add_argument("--appends", type=int, default=400)
    ap.add_argument("--long", type=int, default=20000)
    args = ap.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="bench-store-")
    try:
        bench("sqlite", str(Path(tmp) / "companion.sqlite3"), args.appends, args.long)
        if args.database:
            schema = "bench_" + uuid.uuid4().hex[:10]
            url = args.database + ("&" if "?" in args.database else "?") + f"schema={schema}"
            try:
                bench("postgresql", url, args.appends, args.long)
            finally:
                s = open_store(url)
                s.drop_schema()
                s.close()
        else:
            print("postgresql (skipped: give --database postgresql://... or COMPANION_TEST_DATABASE)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

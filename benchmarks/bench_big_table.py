"""A very long table does not hold up the others (in process; bounded; stops by itself).

    python benchmarks/bench_big_table.py [--entries 300000] [--database postgresql://...]

Stores a table of ``--entries`` entries (as an import would), then, with a fresh service (a
server that just started), times:

  1. the first read of the long table with no snapshot (a full replay), while a small table is
     read over and over from another thread: how long the small table's reads took meanwhile;
  2. the first read of the long table in another fresh service, from the snapshot the first
     load wrote (only the entries after it are replayed).
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.table import service as service_mod  # noqa: E402
from companion.table.store import open_store  # noqa: E402

SIX = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entries", type=int, default=300_000)
    ap.add_argument("--database", default=None, help="a PostgreSQL URL (default: SQLite in a temp folder)")
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-big-"))
    try:
        store = open_store(args.database or tmp / "companion.sqlite3")
        snapshots = tmp / "snapshots"
        setup = service_mod.TableService(store, snapshot_dir=snapshots)
        small = setup.create(["atreides", "fremen"])["code"]
        now = time.time()
        events = [{"seq": i, "seat": "host", "type": "storm.set", "ts": now + i * 1e-6, "secret_for": None,
                   "summary": "storm", "payload": {"type": "storm.set", "sector": 1 + i % 18}}
                  for i in range(1, args.entries + 1)]
        code = setup.new_code()
        t0 = time.perf_counter()
        store.import_table(code, {"factions": SIX, "turns": 10, "options": {}}, {"host": "bench-host"}, events)
        print(f"stored a table of {args.entries} entries in {time.perf_counter() - t0:.1f} s")

        cold = service_mod.TableService(store, snapshot_dir=snapshots)
        cold.table(small)
        small_reads: list[float] = []
        done = threading.Event()

        def reader():
            while not done.is_set():
                t = time.perf_counter()
                cold.table(small)
                store.seat_status(small)  # a little I/O, like a real request
                small_reads.append(time.perf_counter() - t)
                time.sleep(0.005)

        th = threading.Thread(target=reader)
        th.start()
        t0 = time.perf_counter()
        assert cold.table(code).revision == args.entries
        full = time.perf_counter() - t0
        done.set()
        th.join()
        small_reads.sort()
        print(f"first read of the long table, full replay:   {full:6.2f} s")
        print(f"  meanwhile the small table answered {len(small_reads)} reads, slowest "
              f"{small_reads[-1] * 1000:.1f} ms, p99 {small_reads[int(0.99 * (len(small_reads) - 1))] * 1000:.1f} ms")
        deadline = time.monotonic() + 120
        while not (snapshots / f"{code}.json").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        warm = service_mod.TableService(store, snapshot_dir=snapshots)
        t0 = time.perf_counter()
        t = warm.table(code)
        snap = time.perf_counter() - t0
        assert t.revision == args.entries and t.state == cold.table(code).state
        print(f"first read of the long table, from snapshot: {snap:6.2f} s  (same state)")
        store.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

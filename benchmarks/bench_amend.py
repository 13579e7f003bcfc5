"""How long a correction of the past takes to answer (issue 27): amend latency at 100, 1,000 and
10,000 entries (in process, through the JSON API; bounded; stops by itself).

    python benchmarks/bench_amend.py [--sizes 100,1000,10000] [--rounds 30] [--database postgresql://...]

For each size, a six-faction table of that many entries (spice, storm and phase entries, as an
import stores them) is loaded into a fresh app; then ``--rounds`` times an entry in the first
tenth of the table is corrected (``POST /api/tables/{code}/amend``, every later entry replayed
and checked, the amendment stored, the new state answered) and the wall time of each answer is
taken. Prints p50/p95/max in milliseconds. The target (issue 27): p95 <= 200 ms at 1,000 entries.
"""
from __future__ import annotations

import argparse
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion import create_app  # noqa: E402

SIX = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]
TOKEN = "bench-host-token-"  # + the table code: one credential per table, even in a shared database


def entry(i: int) -> dict:
    k = i % 4
    if k == 0:
        return {"type": "storm.set", "sector": 1 + i % 18}
    if k == 3 and i % 40 == 3:
        return {"type": "phase.set", "turn": 1 + (i // 40) % 10, "phase": "bidding"}
    return {"type": "spice.set", "faction": SIX[i % 6], "amount": i % 30}


def percentile(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))]


def measure(size: int, rounds: int, database: str | None) -> list[float]:
    tmp = Path(tempfile.mkdtemp(prefix="bench-amend-"))
    try:
        app = create_app({"DATA_DIR": str(tmp), "DATABASE": database, "TESTING": True})
        tables = app.extensions["tables"]
        now = time.time()
        events = [{"seq": i, "seat": "host", "type": e["type"], "ts": now + i * 1e-6, "secret_for": None,
                   "summary": e["type"], "payload": e} for i, e in ((i, entry(i)) for i in range(1, size + 1))]
        code = tables.new_code()
        tables.store.import_table(code, {"factions": SIX, "turns": 10, "options": {}}, {"host": TOKEN + code}, events)
        client = app.test_client()
        headers = {"Authorization": f"Bearer {TOKEN}{code}"}
        rev = client.get(f"/api/tables/{code}/state", headers=headers).get_json()["revision"]
        rng = random.Random(size)
        times = []
        for r in range(rounds):
            seq = rng.choice([e["seq"] for e in events[: max(1, size // 10)] if e["type"] == "spice.set"])
            body = {"seq": seq, "entry": {"type": "spice.set", "faction": events[seq - 1]["payload"]["faction"],
                                          "amount": r % 25}, "reason": f"bench {r}", "revision": rev}
            t0 = time.perf_counter()
            resp = client.post(f"/api/tables/{code}/amend", json=body, headers=headers)
            times.append((time.perf_counter() - t0) * 1000)
            assert resp.status_code == 200, resp.get_data(as_text=True)[:300]
            rev = resp.get_json()["revision"]
        app.extensions["tables"].store.close()
        return times
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,1000,10000")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--database", default=None, help="a PostgreSQL URL (default: SQLite in a temp folder)")
    args = ap.parse_args(argv)
    print(f"amend latency ({'PostgreSQL' if args.database else 'SQLite'}, {args.rounds} corrections per size, "
          f"an entry in the first tenth of the table)")
    for size in (int(s) for s in args.sizes.split(",")):
        rounds = args.rounds if size <= 1000 else max(5, args.rounds // 3)
        times = measure(size, rounds, args.database)
        print(f"  {size:>6} entries: p50 {statistics.median(times):7.1f} ms   p95 {percentile(times, 95):7.1f} ms"
              f"   max {max(times):7.1f} ms   ({rounds} rounds)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Rules search quality and speed: our Whoosh search vs a plain SQLite FTS5 index.

    python benchmarks/bench_search.py [--eval benchmarks/search_eval.json] [--repeat 5] [-q]

For every question of the evaluation set, both engines answer the question as typed; a
question is a top-1 (top-3) hit when an accepted id is first (in the first three). Times
are server-side: ours is one ``RuleSearch.search(q, limit=10)`` call (query analysis,
spelling, Whoosh scoring and highlighted snippets); FTS5 is one SELECT with bm25 ranking
and snippet(). Each question is run ``--repeat`` times after a warm-up pass; p50/p95 are
over all runs. Targets (issue 7): top-3 >= 95 %, top-1 >= 80 %, p95 <= 15 ms.
"""
from __future__ import annotations

import argparse
import json
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from companion.search import RuleSearch, corpus_dir, load_corpus, plain_text  # noqa: E402

TARGET_TOP3, TARGET_TOP1, TARGET_P95_MS = 0.95, 0.80, 15.0


# ---------------------------------------------------------------------------------------------
# evaluation set


def load_eval(path: Path) -> list[tuple[str, list[str]]]:
    """``[(question, accepted ids)]`` from the eval set: a JSON list of ``{"q", "accept"}``."""
    return [(item["q"], list(item["accept"])) for item in json.loads(path.read_text(encoding="utf-8"))]


# ---------------------------------------------------------------------------------------------
# engines


class Ours:
    name = "ours (whoosh)"

    def __init__(self, corpus: Path, index_dir: Path):
        t = time.perf_counter()
        self.rs = RuleSearch(index_dir, corpus)
        self.build_ms = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        RuleSearch(index_dir, corpus).close()
        self.open_ms = (time.perf_counter() - t) * 1000

    def search(self, q: str) -> list[str]:
        return [h.id for h in self.rs.search(q, limit=10)]


class Fts5:
    name = "sqlite fts5"

    def __init__(self, corpus: Path):
        t = time.perf_counter()
        self.db = sqlite3.connect(":memory:", check_same_thread=False)
        self.db.execute(
            "CREATE VIRTUAL TABLE docs USING fts5("
            "id UNINDEXED, title, aliases, body, tokenize='porter unicode61')"
        )
        self.db.executemany(
            "INSERT INTO docs (id, title, aliases, body) VALUES (?, ?, ?, ?)",
            [(e.id, e.title, " . ".join(e.aliases), plain_text(e.text))
             for e in load_corpus(corpus)],
        )
        self.db.commit()
        self.build_ms = (time.perf_counter() - t) * 1000
        self.open_ms = float("nan")

    def search(self, q: str) -> list[str]:
        tokens = re.findall(r"\w+", q.lower())
        if not tokens:
            return []
        match = " OR ".join(f'"{t}"' for t in tokens)
        rows = self.db.execute(
            "SELECT id, snippet(docs, 3, '<mark>', '</mark>', '…', 24) FROM docs "
            "WHERE docs MATCH ? ORDER BY bm25(docs, 0.0, 3.0, 2.6, 1.0) LIMIT 10",
            (match,),
        ).fetchall()
        return [r[0] for r in rows]


# ---------------------------------------------------------------------------------------------
# measuring


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    k = (len(s) - 1) * p
    lo, hi = int(k), min(int(k) + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def run(engine, questions, repeat: int) -> dict:
    for q, _ in questions:  # warm-up (caches, lazily analysed snippets)
        engine.search(q)
    times: list[float] = []
    top1 = top3 = 0
    misses = []
    for q, ids in questions:
        got: list[str] = []
        for _ in range(repeat):
            t = time.perf_counter()
            got = engine.search(q)
            times.append((time.perf_counter() - t) * 1000)
        accepted = set(ids)
        if got[:1] and got[0] in accepted:
            top1 += 1
        if accepted & set(got[:3]):
            top3 += 1
        else:
            misses.append((q, ids, got[:3]))
    n = len(questions)
    return {
        "name": engine.name,
        "top1": top1 / n if n else 0.0,
        "top3": top3 / n if n else 0.0,
        "p50": statistics.median(times) if times else float("nan"),
        "p95": percentile(times, 0.95),
        "max": max(times) if times else float("nan"),
        "build_ms": engine.build_ms,
        "misses": misses,
        "n": n,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--eval", type=Path, default=ROOT / "benchmarks" / "search_eval.json")
    ap.add_argument("--corpus", type=Path, default=None, help="corpus folder (default: rules_corpus)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per question (default 5)")
    ap.add_argument("-q", "--quiet", action="store_true", help="do not list the misses")
    ap.add_argument("--top1-misses", action="store_true", help="also list top-1 misses (ours)")
    args = ap.parse_args(argv)

    corpus = args.corpus or corpus_dir()
    questions = load_eval(args.eval)
    entries = load_corpus(corpus)
    print(f"corpus: {len(entries)} entries in {corpus}")
    print(f"eval set: {len(questions)} questions in {args.eval}")
    with tempfile.TemporaryDirectory(prefix="bench-search-") as tmp:
        ours = Ours(corpus, Path(tmp))
        fts = Fts5(corpus)
        results = [run(ours, questions, args.repeat), run(fts, questions, args.repeat)]
        print(f"index: ours built in {ours.build_ms:.0f} ms (reopened unchanged in "
              f"{ours.open_ms:.0f} ms), fts5 built in {fts.build_ms:.0f} ms")
        print()
        print(f"{'engine':<16}{'top-1':>8}{'top-3':>8}{'p50 ms':>9}{'p95 ms':>9}{'max ms':>9}")
        for r in results:
            print(f"{r['name']:<16}{r['top1']:>8.1%}{r['top3']:>8.1%}{r['p50']:>9.2f}"
                  f"{r['p95']:>9.2f}{r['max']:>9.2f}")
        r = results[0]
        ok = r["top3"] >= TARGET_TOP3 and r["top1"] >= TARGET_TOP1 and r["p95"] <= TARGET_P95_MS
        print(f"targets (top-3 >= {TARGET_TOP3:.0%}, top-1 >= {TARGET_TOP1:.0%}, "
              f"p95 <= {TARGET_P95_MS:g} ms): {'met' if ok else 'NOT met'}")
        if not args.quiet:
            for r in results:
                print(f"\ntop-3 misses, {r['name']} ({len(r['misses'])}):")
                for q, ids, got in r["misses"]:
                    print(f"  - {q!r}\n      accepted {ids}\n      got      {got}")
        if args.top1_misses:
            print("\ntop-1 misses, ours:")
            for q, ids in questions:
                got = ours.search(q)[:3]
                if not got or got[0] not in ids:
                    print(f"  - {q!r}\n      accepted {ids}\n      got      {got}")
        ours.rs.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A whole convention on one server (loopback only; bounded in time; stops by itself).

    python benchmarks/bench_load.py [--tables 50] [--phones 6] [--every 3] [--duration 60]
                                    [--fetch phone|json|view] [--idle 1000] [--processes 1]
                                    [--database postgresql://...] [--route table|spread] [--gc tuned|default]
                                    [--export benchmarks/midgame_6f.json | --fresh]
                                    [--profile [--profile-dir DIR]]

Starts the real server (``python -m companion``) on free 127.0.0.1 ports with a temporary data
folder (``--processes 2``: two servers on the same data folder, or on the same ``--database``;
``--route table``, the default, puts every phone of a table on one of them, as a proxy that hashes
on the table's code does (docs/deploy.md), ``--route spread`` spreads them phone by phone), with
``COMPANION_METRICS=1`` so each server times its garbage collections (``GET /debug/metrics``).
This script is the client, in its own process, on asyncio + aiohttp.

The tables are mid-game: ``--export`` (default ``benchmarks/midgame_6f.json``: six factions, 300
entries, Shipment & Movement, built by ``benchmarks/make_midgame.py``) imported ``--tables``
times (``--fresh``: new empty tables instead).

Part 1, busy tables: each table has ``--phones`` phones (one per faction) and makes an entry
every ``--every`` seconds, the tables spread over that period.

- ``--fetch phone`` (the default): each phone does what its page does (``benchmarks/phones.py``):
  it loads ``GET /t/CODE`` with browser headers, holds the page's stream, and on every
  ``event: changed`` refetches what the page refetches (every element listening to
  ``sse:changed``, with htmx's headers), or takes the view its stream pushes (``event: view``,
  printed as "views pushed on streams"); the entry is a tap on one of the table's phones in turn
  (a public bribe of 1 spice to the next faction, posted as the page's form to ``/t/CODE/act``,
  answered by the view that phone swaps in).
- ``--fetch json``: the older model: the host makes ``storm.set`` entries through the JSON API and
  each phone refetches ``GET /api/tables/CODE/state`` on every change (``--fetch view``: the
  HTML fragment ``GET /t/CODE/view`` instead, once per change).

Figures: tables, phones, entries/s, fetches/s (and bytes per fetch, requests per change per
phone), entry round trip p50/p95/p99, change visible on every phone p50/p95/p99 (from sending the
entry until that phone shows that revision or a later one; one sample per entry per phone),
errors (any non-200 answer, a refused or stale entry, a stream that ends, a change a phone never
shows), CPU% and peak RSS of each server process, its GC pauses during the run, this client's own
CPU and event-loop lag, and the machine's load average.

Part 2, idle streams (``--idle 0`` skips it): ``--idle`` streams are opened and held on other
tables; meanwhile one more table makes entries one after another and reads its state back.
Figures: request p50/p95/p99 on that table while the idle streams are open, how many of them
stayed open, RSS.
"""
from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
EXPORT = ROOT / "benchmarks" / "midgame_6f.json"
FACTIONS = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]

try:
    import aiohttp
except ImportError:  # pragma: no cover - a note for whoever runs it
    raise SystemExit("bench_load.py needs aiohttp: pip install aiohttp (it is in the [test] extra)")

from phones import PagePhone, read_changes  # noqa: E402
from profile_server import Sampler, available as profiler_available  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def raise_fd_limit(wanted: int) -> None:
    try:
        import resource
    except ImportError:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def start_server(port: int, data: Path, args) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1", COMPANION_METRICS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "companion", "--host", "127.0.0.1", "--port", str(port), "--data", str(data),
           "--gc", args.gc, *(["--threads", str(args.threads)] if args.threads else []), "--http", args.http, "--loop", args.loop,
           *(["--keep-alive", str(args.keep_alive)] if args.keep_alive else [])]
    if args.database:
        cmd += ["--database", args.database]
    log = open(data.parent / f"server-{port}.log", "ab")
    proc = subprocess.Popen(cmd, cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT)
    log.close()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited at start:\n{(data.parent / f'server-{port}.log').read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/board", timeout=1):
                return proc
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("the server did not start within 30 s")


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    try:
        out = subprocess.run(["ps", "-o", "rss=", "-p", str(pid)], capture_output=True, text=True, timeout=5)
        return int(out.stdout.strip()) / 1024
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc; None elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def pct(values: list[float], p: float) -> float:
    xs = sorted(values)
    if not xs:
        return float("nan")
    k = max(0, min(len(xs) - 1, round(p / 100 * (len(xs) - 1))))
    return xs[k]


def figures(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"p50 {pct(ms, 50):7.1f}  p95 {pct(ms, 95):7.1f}  p99 {pct(ms, 99):7.1f}  ms  (n={len(ms)})"


class Run:
    def __init__(self, args, ports: list[int]):
        self.args, self.ports = args, ports
        self.errors: list[str] = []
        self.stop = asyncio.Event()

    def url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.ports[i % len(self.ports)]}"

    def error(self, what: str) -> None:
        self.errors.append(what)
        if len(self.errors) <= 10:
            print(f"  error: {what}", flush=True)


class Phone:
    def __init__(self, run: Run, base: str, code: str, faction: str, token: str):
        self.run, self.base, self.code, self.faction, self.token = run, base, code, faction, token
        self.views: list[tuple[float, int]] = []  # (when, revision of the view fetched)
        self.connected = asyncio.Event()
        self.fetching = False
        self.wanted = -1
        self.fetches = 0
        self.fetch_bytes = 0

    async def main(self) -> None:
        cookies = {f"seat_{self.code}": self.token}
        conn = aiohttp.TCPConnector(limit=2, force_close=False)
        timeout = aiohttp.ClientTimeout(total=None, sock_read=None, sock_connect=10)
        async with aiohttp.ClientSession(self.base, connector=conn, cookies=cookies, timeout=timeout) as session:
            self.session = session
            try:
                async with session.get(f"/t/{self.code}/events", headers={"Accept": "text/event-stream"}) as r:
                    if r.status != 200:
                        self.run.error(f"{self.code}/{self.faction}: events HTTP {r.status}")
                        self.connected.set()
                        return
                    await read_changes(r, self)
                    if not self.run.stop.is_set():
                        self.run.error(f"{self.code}/{self.faction}: the stream ended")
            except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError) as exc:
                if not self.run.stop.is_set():
                    self.run.error(f"{self.code}/{self.faction}: stream {type(exc).__name__}: {exc}")
            finally:
                self.connected.set()

    def changed(self, rev: int) -> None:
        self.wanted = max(self.wanted, rev)
        if not self.fetching:
            self.fetching = True
            asyncio.ensure_future(self.fetch())

    async def fetch(self) -> None:
        """Fetch the view until it shows the newest revision announced (like htmx: one at a time)."""
        try:
            while True:
                path = f"/api/tables/{self.code}/state" if self.run.args.fetch == "json" else f"/t/{self.code}/view"
                async with self.session.get(path) as r:
                    body = await r.read()
                    if r.status != 200:
                        self.run.error(f"{self.code}/{self.faction}: {path} HTTP {r.status}")
                        return
                self.fetches += 1
                self.fetch_bytes += len(body)
                if self.run.args.fetch == "json":
                    m = re.search(rb'"revision":\s*(\d+)', body)
                    got = int(m.group(1)) if m else json.loads(body)["revision"]
                else:
                    m = re.search(rb'class="muted rev"[^>]*>rev (\d+)<', body)
                    got = int(m.group(1)) if m else -1
                self.views.append((time.perf_counter(), got))
                if got >= self.wanted:
                    return
                await asyncio.sleep(0.01)  # another process may not have heard of it yet
        except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError) as exc:
            if not self.run.stop.is_set():
                self.run.error(f"{self.code}/{self.faction}: fetch {type(exc).__name__}: {exc}")
        finally:
            self.fetching = False


async def create_tables(session: aiohttp.ClientSession, base: str, n: int) -> list[dict]:
    out = []
    for _ in range(n):
        async with session.post(base + "/api/tables", json={"factions": FACTIONS, "turns": 10}) as r:
            if r.status != 201:
                raise SystemExit(f"creating a table: HTTP {r.status} {await r.text()}")
            out.append(await r.json())
    return out


async def writer(run: Run, session, base: str, table: dict, offset: float, entries: list, t_end: float) -> None:
    code, host = table["table"], table["host_token"]
    rev, i = table.get("revision", 0), 0
    await asyncio.sleep(offset)
    next_at = time.perf_counter()
    while time.perf_counter() < t_end:
        i += 1
        body = {"type": "storm.set", "sector": 1 + i % 18, "revision": rev}
        t0 = time.perf_counter()
        try:
            async with session.post(f"{base}/api/tables/{code}/actions", json=body,
                                    headers={"Authorization": f"Bearer {host}"}) as r:
                data = await r.json()
                t1 = time.perf_counter()
                if r.status == 200:
                    rev = data["revision"]
                    entries.append((code, rev, t0, t1))
                else:
                    run.error(f"{code}: entry HTTP {r.status}")
                    if r.status == 409:
                        rev = data["state"]["revision"]
        except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError) as exc:
            run.error(f"{code}: entry {type(exc).__name__}: {exc}")
        next_at += run.args.every
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


async def import_tables(run: Run, session: aiohttp.ClientSession, n: int, export: dict) -> list[dict]:
    """``n`` copies of a mid-game table, imported through the API (four at a time, spread over the
    server processes): each import replays every entry and renders every seat's page once."""
    gate = asyncio.Semaphore(4)

    async def one(i: int) -> dict:
        async with gate:
            async with session.post(run.url(i) + "/api/tables/import", json=export) as r:
                if r.status != 201:
                    raise SystemExit(f"importing the mid-game table: HTTP {r.status} {(await r.text())[:300]}")
                return await r.json()
    return list(await asyncio.gather(*(one(i) for i in range(n))))


async def tap_writer(run: Run, phones: list, offset: float, entries: list, t_end: float) -> None:
    """One table's entries: its phones tap in turn, each giving 1 spice to the next faction."""
    i = 0
    await asyncio.sleep(offset)
    next_at = time.perf_counter()
    while time.perf_counter() < t_end:
        p, to = phones[i % len(phones)], phones[(i + 1) % len(phones)]
        i += 1
        done = await p.tap({"type": "bribe", "from": p.faction, "to": to.faction, "spice": "1"})
        if done is not None:
            rev, t0, t1 = done
            entries.append((p.code, rev, t0, t1))
        next_at += run.args.every
        await asyncio.sleep(max(0.0, next_at - time.perf_counter()))


async def server_metrics(session, run: Run, since: float, reclaim: bool = False) -> list[dict | None]:
    """Each process's /debug/metrics; ``reclaim``: also count (and free) the garbage its frozen
    objects held, with one full collection (after the timed part only: it pauses the process)."""
    out = []
    params = {"since": str(since), **({"reclaim": "1"} if reclaim else {})}
    for i in range(len(run.ports)):
        try:
            async with session.get(f"{run.url(i)}/debug/metrics", params=params) as r:
                out.append(await r.json() if r.status == 200 else None)
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
            out.append(None)
    return out


async def part1(run: Run, args, procs) -> dict:
    model = {"phone": "phones doing what the page does", "json": "JSON state refetch",
             "view": "HTML view refetch"}[args.fetch]
    kind = "fresh" if args.fresh else f"mid-game ({Path(args.export).name})"
    print(f"Part 1: {args.tables} {kind} tables x {args.phones} phones, an entry per table every "
          f"{args.every:g} s, {args.duration:g} s, {model}", flush=True)
    conn = aiohttp.TCPConnector(limit=0)
    async with aiohttp.ClientSession(connector=conn, timeout=aiohttp.ClientTimeout(total=120)) as admin:
        t0 = time.perf_counter()
        if args.fresh:
            tables = await create_tables(admin, run.url(0), args.tables)
        else:
            export = json.loads(Path(args.export).read_text("utf-8"))
            tables = await import_tables(run, admin, args.tables, export)
            for t in tables:
                t["revision"] = export["events"][-1]["seq"] if export["events"] else 0
        print(f"  {len(tables)} tables ready in {time.perf_counter() - t0:.1f} s", flush=True)
        phones: list = []
        k = 0
        kind_of_phone = PagePhone if args.fetch == "phone" else Phone
        for n, t in enumerate(tables):
            for f in FACTIONS[:args.phones]:
                # --route table: every phone of a table on one process (a proxy hashing on the table's
                # code); spread: phone after phone round-robin (a proxy with no affinity)
                phones.append(kind_of_phone(run, run.url(n if args.route == "table" else k), t["table"], f,
                                            t["seats"][f]))
                k += 1
        tasks = [asyncio.ensure_future(p.main()) for p in phones]
        try:
            await asyncio.wait_for(asyncio.gather(*(p.connected.wait() for p in phones)), 120)
        except asyncio.TimeoutError:
            run.error("not every phone connected within 120 s")
        print(f"  {len(phones)} phones connected", flush=True)
        if args.fetch == "phone" and phones:
            p = phones[0]
            print(f"  the page refetches on a change: {', '.join(path for _, path in p.listen) or 'nothing'}; "
                  f"skips a revision it shows: {'yes' if p.skips_shown else 'no'}; "
                  f"its stream pushes its view: {'yes' if p.takes_push else 'no'}; "
                  f"first page {p.page_bytes / 1024:.1f} KB transferred", flush=True)
        await asyncio.sleep(1)
        entries: list = []
        by_table: dict[str, list] = {}
        for p in phones:
            by_table.setdefault(p.code, []).append(p)
        fetches0 = sum(p.fetches for p in phones)
        bytes0 = sum(p.fetch_bytes for p in phones)
        pushes0 = sum(getattr(p, "pushes", 0) for p in phones)
        pushed0 = sum(getattr(p, "push_bytes", 0) for p in phones)
        metrics0 = await server_metrics(admin, run, time.time())
        cpu0 = [cpu_seconds(p.pid) for p in procs]
        wall0 = time.time()
        t_start = time.perf_counter()
        t_end = t_start + args.duration
        if args.fetch == "phone":
            writers = [asyncio.ensure_future(tap_writer(run, by_table[t["table"]], args.every * i / len(tables),
                                                        entries, t_end)) for i, t in enumerate(tables)]
        else:
            writers = [asyncio.ensure_future(writer(run, admin, run.url(i + 1), t, args.every * i / len(tables),
                                                    entries, t_end)) for i, t in enumerate(tables)]
        rss_peak = [0.0] * len(procs)
        lags: list[float] = []
        client_cpu0 = time.process_time()
        samplers = []
        if args.profile:
            Path(args.profile_dir).mkdir(parents=True, exist_ok=True)
            for i, p in enumerate(procs):
                s = Sampler(p.pid, max(1.0, args.duration - 2), Path(args.profile_dir) / f"profile-{i + 1}.txt")
                s.start()
                samplers.append(s)
        while time.perf_counter() < t_end:
            for _ in range(20):  # how late this client's own event loop wakes up (its own delay)
                t0 = time.perf_counter()
                await asyncio.sleep(0.05)
                lags.append(time.perf_counter() - t0 - 0.05)
            rss_peak = [max(a, rss_mb(p.pid) or 0) for a, p in zip(rss_peak, procs)]
        client_cpu = (time.process_time() - client_cpu0) / args.duration
        await asyncio.gather(*writers)
        cpu1 = [cpu_seconds(p.pid) for p in procs]
        busy = [None if a is None or b is None else (b - a) / args.duration for a, b in zip(cpu0, cpu1)]
        await asyncio.sleep(2)  # let the last changes arrive
        metrics = await server_metrics(admin, run, wall0, reclaim=True)
        fetches = sum(p.fetches for p in phones) - fetches0
        fetch_bytes = sum(p.fetch_bytes for p in phones) - bytes0
        pushes = sum(getattr(p, "pushes", 0) for p in phones) - pushes0
        push_bytes = sum(getattr(p, "push_bytes", 0) for p in phones) - pushed0
        run.stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    entry_times = [t1 - t0 for _, _, t0, t1 in entries]
    visible: list[float] = []
    missed = 0
    for code, rev, t0, _t1 in entries:
        for p in by_table[code]:
            seen = next((when for when, got in p.views if got >= rev and when >= t0), None)
            if seen is None:
                missed += 1
            else:
                visible.append(seen - t0)
    if missed:
        run.error(f"{missed} changes never became visible on a phone")
    profiles = []
    for s in samplers:
        err = s.wait()
        profiles.append([f"  (no profile: {err})"] if err else s.report())
    return {"profiles": profiles, "entries": entry_times, "visible": visible, "rss": rss_peak, "n_phones": len(phones), "cpu": busy,
            "lag": lags, "client_cpu": client_cpu, "fetches": fetches, "fetch_bytes": fetch_bytes,
            "pushes": pushes, "push_bytes": push_bytes,
            "metrics": metrics, "metrics0": metrics0, "n_entries": len(entries)}


def core_speed(n: int = 3_000_000) -> float:
    """Seconds one core takes for a fixed pure-Python loop (the best of three): how fast this
    machine is right now, printed beside the figures it gives."""
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        total = 0
        for i in range(n):
            total += i
        best = min(best, time.process_time() - t0)
    return best


def cache_lines(before: list[dict | None], after: list[dict | None]) -> list[str]:
    """The rendered-part caches' hit rates during the entries (each process's /debug/metrics)."""
    out = []
    for i, (m0, m1) in enumerate(zip(before, after)):
        if m0 is None or m1 is None or not m1.get("caches"):
            continue
        parts = []
        for name, c in sorted(m1["caches"].items()):
            c0 = m0.get("caches", {}).get(name, {"hits": 0, "misses": 0})
            hits, misses = c["hits"] - c0["hits"], c["misses"] - c0["misses"]
            if hits + misses:
                parts.append(f"{name} {hits / (hits + misses) * 100:.0f}% of {hits + misses}")
        out.append(f"  part caches, process {i + 1}  hits during the entries: {'; '.join(parts) or 'none asked'}")
        p0, p1 = m0.get("pushes"), m1.get("pushes")
        if p0 and p1 and p1["views"] > p0["views"]:
            views, jobs = p1["views"] - p0["views"], p1["batches"] - p0["batches"]
            out.append(f"  pushes, process {i + 1}        {views} views rendered in {jobs} jobs ({views / max(1, jobs):.1f} a "
                       f"hand-off), waiting {(p1['waited'] - p0['waited']) / views * 1000:.2f} ms a view on average "
                       f"for the requests in flight")
    return out


def gc_lines(metrics: list[dict | None], duration: float, before: list[dict | None] | None = None) -> list[str]:
    out = []
    for i, m in enumerate(metrics):
        if m is None:
            out.append(f"  GC pauses, process {i + 1}    (no /debug/metrics answer)")
            continue
        pauses = [(p[0], p[1], p[2]) for p in m["gc"]["pauses"]]
        cpu = [p[3] for p in m["gc"]["pauses"] if len(p) > 3]
        freed = [p[4] for p in m["gc"]["pauses"] if len(p) > 4]
        by_gen = {g: [s for _, gg, s in pauses if gg == g] for g in (0, 1, 2)}
        parts = []
        for g, xs in by_gen.items():
            if xs:
                parts.append(f"gen{g} {len(xs)}x p50 {pct(xs, 50) * 1000:.1f} p99 {pct(xs, 99) * 1000:.1f} "
                             f"max {max(xs) * 1000:.1f} ms")
            else:
                parts.append(f"gen{g} 0x")
        total = sum(s for _, _, s in pauses)
        long = sum(1 for _, _, s in pauses if s > 0.05)
        out.append(f"  GC pauses, process {i + 1}    {'; '.join(parts)}; {total * 1000:.0f} ms in all "
                   f"({total / duration * 100:.1f}% of the time), {long} over 50 ms; thresholds "
                   f"{tuple(m['gc']['thresholds'])}, {m['gc']['frozen']} objects frozen")
        if cpu:
            out.append(f"  GC CPU, process {i + 1}       the collecting thread's own CPU time per collection: p50 "
                       f"{pct(cpu, 50) * 1000:.1f} p99 {pct(cpu, 99) * 1000:.1f} max {max(cpu) * 1000:.1f} ms, "
                       f"{sum(cpu) * 1000:.0f} ms in all ({sum(cpu) / duration * 100:.1f}% of one core)")
        if freed:
            out.append(f"  GC garbage, process {i + 1}   objects freed per collection (kept alive by reference "
                       f"cycles until then): p50 {pct(freed, 50):.0f} max {max(freed)}, {sum(freed)} in all")
        m0 = before[i] if before and i < len(before) else None
        if m0 is not None:  # frozen objects are never walked again: a count that only grows is a leak
            grew = m["gc"]["frozen"] - m0["gc"]["frozen"]
            out.append(f"  GC frozen, process {i + 1}    {m0['gc']['frozen']} objects at the start of the entries, "
                       f"{m['gc']['frozen']} at the end ({grew:+d}, {grew / duration * 60:+.0f} a minute)")
        if m["gc"].get("reclaimed") is not None:
            out.append(f"  GC leak, process {i + 1}      garbage held by frozen objects, freed by a full collection "
                       f"after the run: {m['gc']['reclaimed']} objects")
    return out


async def part2(run: Run, args, procs) -> dict:
    print(f"Part 2: {args.idle} idle streams held while another table makes entries and reads them back",
          flush=True)
    stop = asyncio.Event()
    opened = 0
    closed_early = 0

    async def idle_stream(session, code):
        nonlocal opened, closed_early
        try:
            async with session.get(f"/t/{code}/events") as r:
                if r.status != 200:
                    run.error(f"idle stream: HTTP {r.status}")
                    return
                await r.content.readline()
                opened += 1
                async for _ in r.content:
                    pass
                if not stop.is_set():
                    closed_early += 1
        except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError) as exc:
            if not stop.is_set():
                run.error(f"idle stream {type(exc).__name__}: {exc}")

    timeout = aiohttp.ClientTimeout(total=None, sock_connect=30)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=timeout) as admin:
        idle_tables = await create_tables(admin, run.url(0), 10)
        busy = (await create_tables(admin, run.url(0), 1))[0]
        sessions = [aiohttp.ClientSession(run.url(i), connector=aiohttp.TCPConnector(limit=0), timeout=timeout)
                    for i in range(len(run.ports))]
        tasks = [asyncio.ensure_future(idle_stream(sessions[i % len(sessions)], idle_tables[i % 10]["table"]))
                 for i in range(args.idle)]
        deadline = time.perf_counter() + 60
        while opened < args.idle and time.perf_counter() < deadline and not all(t.done() for t in tasks):
            await asyncio.sleep(0.2)
        print(f"  {opened} idle streams open", flush=True)
        gc.collect()
        gc.freeze()  # this client's own garbage collection must not show up as the server's delay
        code, host = busy["table"], busy["host_token"]
        times: list[float] = []
        rev = 0
        t_end = time.perf_counter() + min(args.duration, 30)
        i = 0
        while time.perf_counter() < t_end:
            i += 1
            t0 = time.perf_counter()
            async with admin.post(f"{run.url(i)}/api/tables/{code}/actions",
                                  json={"type": "storm.set", "sector": 1 + i % 18, "revision": rev},
                                  headers={"Authorization": f"Bearer {host}"}) as r:
                data = await r.json()
                if r.status != 200:
                    run.error(f"busy table entry HTTP {r.status}")
                    rev = data.get("state", {}).get("revision", rev)
                else:
                    rev = data["revision"]
            times.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            async with admin.get(f"{run.url(i + 1)}/api/tables/{code}/state",
                                 headers={"Authorization": f"Bearer {host}"}) as r:
                await r.read()
                if r.status != 200:
                    run.error(f"busy table state HTTP {r.status}")
            times.append(time.perf_counter() - t0)
            await asyncio.sleep(0.05)
        rss = sum(rss_mb(p.pid) or 0 for p in procs)
        still = opened - closed_early
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for s in sessions:
            await s.close()
    return {"times": times, "opened": opened, "still": still, "rss": rss}


async def amain(args) -> int:
    raise_fd_limit(args.idle + args.tables * args.phones * 2 + 1024)
    tmp = Path(tempfile.mkdtemp(prefix="bench-load-"))
    data = tmp / "data"
    data.mkdir()
    ports = [free_port() for _ in range(args.processes)]
    procs = []
    try:
        for port in ports:
            procs.append(start_server(port, data, args))
        backend = "PostgreSQL" if args.database else "SQLite"
        route = (f", phones routed {'by table' if args.route == 'table' else 'round-robin'}"
                 if args.processes > 1 else "")
        sys.path.insert(0, str(ROOT))
        from companion.cli import DEFAULT_THREADS
        from companion.web.asgi import event_loop, http_protocol
        stack = f"{http_protocol(args.http).parser} on {event_loop(args.loop)}"
        print(f"Server: {args.processes} process(es) on {backend}, {stack}, --threads {args.threads or DEFAULT_THREADS}{route}, "
              f"{os.cpu_count()} CPU cores on this machine; one core's speed now: {core_speed():.2f} s for the "
              f"reference loop (lower is faster; a shared host's speed varies, so compare runs at similar speeds)",
              flush=True)
        run = Run(args, ports)
        load0 = os.getloadavg() if hasattr(os, "getloadavg") else (0, 0, 0)
        res1 = await asyncio.wait_for(part1(run, args, procs), args.duration + 600)
        errors1 = len(run.errors)
        run2 = Run(args, ports)
        res2 = await asyncio.wait_for(part2(run2, args, procs), 200) if args.idle > 0 else None
        print()
        d = args.duration
        view = {"phone": "what the page fetches", "json": "GET /api/tables/CODE/state",
                "view": "GET /t/CODE/view"}[args.fetch]
        print(f"Busy tables ({args.tables} tables x {args.phones} phones = {res1['n_phones']} live streams, "
              f"{view}; gc {args.gc}):")
        print(f"  entries                  {res1['n_entries']} ({res1['n_entries'] / d:.1f}/s)")
        per_change = res1["fetches"] / max(1, res1["n_entries"] * args.phones)
        print(f"  fetches after changes    {res1['fetches']} ({res1['fetches'] / d:.1f}/s, {per_change:.2f} per change "
              f"per phone, {res1['fetch_bytes'] / max(1, res1['fetches']) / 1024:.1f} KB each "
              f"{'transferred' if args.fetch == 'phone' else 'decoded'})")
        if args.fetch == "phone":
            per_push = res1["pushes"] / max(1, res1["n_entries"] * args.phones)
            print(f"  views pushed on streams  {res1['pushes']} ({res1['pushes'] / d:.1f}/s, {per_push:.2f} per change "
                  f"per phone, {res1['push_bytes'] / max(1, res1['pushes']) / 1024:.1f} KB each on the stream)")
        print(f"  entry round trip         {figures(res1['entries'])}   target p99 <= 150")
        print(f"  change visible on phone  {figures(res1['visible'])}   target p99 <= 500")
        print(f"  errors                   {errors1}   target 0")
        for i, p in enumerate(procs):
            cpu = res1["cpu"][i]
            print(f"  server process {i + 1}         CPU {'?' if cpu is None else f'{cpu * 100:.0f}%'} of one core, "
                  f"RSS peak {res1['rss'][i]:.0f} MB")
        for line in gc_lines(res1["metrics"], d, res1["metrics0"]) + cache_lines(res1["metrics0"], res1["metrics"]):
            print(line)
        for i, lines in enumerate(res1["profiles"]):
            print(f"  profile of server process {i + 1} (py-spy, {max(1.0, d - 2):g} s; raw stacks in "
                  f"{Path(args.profile_dir) / f'profile-{i + 1}.txt'}):")
            for line in lines:
                print(line)
        print(f"  client CPU               {res1['client_cpu'] * 100:.0f}% of one core; its event loop "
              f"woke late by {figures(res1['lag'])}")
        try:
            la = os.getloadavg()
            print(f"  machine load average     {la[0]:.1f} / {la[1]:.1f} / {la[2]:.1f} (1/5/15 min) on "
                  f"{os.cpu_count()} cores (started at {load0[0]:.1f})")
        except (OSError, AttributeError):
            pass
        print(f"  one core's speed after   {core_speed():.2f} s for the reference loop")
        if res2 is None:
            ok = errors1 == 0 and pct(res1["entries"], 99) <= 0.150 and pct(res1["visible"], 99) <= 0.500
            print("All targets met." if ok else "Some targets missed.")
            return 0 if ok else 1
        print(f"Idle streams ({res2['opened']} opened, {res2['still']} still open at the end):")
        print(f"  other table's requests   {figures(res2['times'])}   target p99 <= 50")
        print(f"  errors                   {len(run2.errors)}   target 0")
        print(f"  server RSS               {res2['rss']:.0f} MB")
        ok = (errors1 == 0 and not run2.errors and pct(res1["entries"], 99) <= 0.150
              and pct(res1["visible"], 99) <= 0.500 and pct(res2["times"], 99) <= 0.050
              and res2["still"] >= args.idle)
        print("All targets met." if ok else "Some targets missed.")
        return 0 if ok else 1
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            print(f"kept {tmp}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=50, help="busy tables (default 50)")
    ap.add_argument("--phones", type=int, default=6, help="phones per table, 1-6 (default 6)")
    ap.add_argument("--every", type=float, default=3.0, help="seconds between a table's entries (default 3)")
    ap.add_argument("--duration", type=float, default=60, help="seconds of entries in part 1 (default 60)")
    ap.add_argument("--fetch", choices=("phone", "json", "state", "view"), default="phone",
                    help="what a phone does on a change: what its page does (phone, the default), "
                         "refetch the JSON state (json; 'state' is the same) or the HTML view once (view)")
    ap.add_argument("--export", default=str(EXPORT), help="the table export imported --tables times")
    ap.add_argument("--fresh", action="store_true", help="fresh tables instead of imported mid-game ones")
    ap.add_argument("--gc", choices=("tuned", "default"), default="tuned",
                    help="the server's garbage collector settings (companion --gc)")
    ap.add_argument("--idle", type=int, default=1000, help="idle streams in part 2 (default 1000)")
    ap.add_argument("--processes", type=int, default=1, help="server processes on the same store (default 1)")
    ap.add_argument("--database", default=None, help="a PostgreSQL URL (default: SQLite in a temp folder)")
    ap.add_argument("--route", choices=("table", "spread"), default="table",
                    help="with --processes 2+: all phones of a table on one process, as a proxy that "
                         "hashes on the table code does (table, the default), or round-robin (spread)")
    ap.add_argument("--http", choices=("auto", "httptools", "h11"), default="auto",
                    help="the server's request parser (its --http; default auto: httptools when installed)")
    ap.add_argument("--loop", choices=("auto", "uvloop", "asyncio"), default="auto",
                    help="the server's event loop (its --loop; default auto: uvloop when installed)")
    ap.add_argument("--keep-alive", type=float, default=None,
                    help="the server's --keep-alive seconds (default: the server's own)")
    ap.add_argument("--threads", type=int, default=None,
                    help="server worker threads (default: the server's own, companion.cli.DEFAULT_THREADS)")
    ap.add_argument("--keep", action="store_true", help="keep the temp folder (server logs)")
    ap.add_argument("--profile", action="store_true",
                    help="sample each server process with py-spy during part 1 and print where its time goes")
    ap.add_argument("--profile-dir", default=".", help="where the raw py-spy stacks are written (default .)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    args.phones = max(1, min(6, args.phones))
    if not (1 <= args.tables <= 500 and 0 < args.duration <= 900 and 0 <= args.idle <= 20000):
        ap.error("bounded: 1-500 tables, a duration up to 900 s, up to 20000 idle streams")
    if args.profile and not profiler_available():
        ap.error("--profile needs py-spy (pip install py-spy, or the project's bench extra)")
    if args.fetch == "state":
        args.fetch = "json"
    random.seed(args.seed)
    return asyncio.run(amain(args))


if __name__ == "__main__":
    raise SystemExit(main())

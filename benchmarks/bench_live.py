"""Live-update latency with N phones connected to one table (loopback only).

    python benchmarks/bench_live.py [--phones 6] [--changes 120] [--fetch view|state]

Starts the real server (``python -m companion``: uvicorn, streams on its event loop) on a free 127.0.0.1 port with a
temporary data folder, creates a table of six factions, and connects each phone to the live
stream (``GET /t/CODE/events``) with its seat cookie, on its own thread (http.client). One seat
then makes ``--changes`` entries (``storm.set``, alternating sectors), one at a time. For every
change and every phone it measures, from the moment the POST is sent:

  (a) the time until that phone receives the ``event: changed`` message with the new revision;
  (b) the time until that phone has fetched its own filtered view afterwards
      (``GET /t/CODE/view`` with its cookie: the HTML fragment htmx swaps in; or
      ``GET /api/tables/CODE/state`` with its bearer token with ``--fetch state``).

It prints the median and p95 of (a) and (b) over all phones x changes, and of the POST round
trip. The next change is sent once every phone has its view (as at a real table, where entries
are seconds apart). Everything is bounded in time; the server is stopped at the end.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FACTIONS = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, data: Path) -> subprocess.Popen:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.Popen([sys.executable, "-m", "companion", "--host", "127.0.0.1", "--port", str(port),
                             "--data", str(data)], cwd=str(ROOT), env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit("the server exited at start")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/board", timeout=1):
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the server did not start within 20 s")


def pct(values: list[float], p: float) -> float:
    xs = sorted(values)
    k = max(0, min(len(xs) - 1, round(p / 100 * (len(xs) - 1))))
    return xs[k]


class Phone(threading.Thread):
    """One phone: a live stream, and a fetch of its own view after every `changed`."""

    def __init__(self, port: int, code: str, faction: str, token: str, fetch: str):
        super().__init__(daemon=True, name=f"phone-{faction}")
        self.port, self.code, self.faction, self.token, self.fetch = port, code, faction, token, fetch
        self.got_event: dict[int, float] = {}   # revision -> perf_counter when `changed` arrived
        self.got_view: dict[int, float] = {}    # revision -> perf_counter when the view was fetched
        self.ready = threading.Event()
        self.cond = threading.Condition()
        self.error: str | None = None
        self.view_bytes = 0

    def headers(self) -> dict:
        if self.fetch == "state":
            return {"Authorization": f"Bearer {self.token}"}
        return {"Cookie": f"seat_{self.code}={self.token}"}

    def fetch_view(self, conn: http.client.HTTPConnection, rev: int) -> bool:
        path = f"/t/{self.code}/view" if self.fetch == "view" else f"/api/tables/{self.code}/state"
        conn.request("GET", path, headers=self.headers())
        r = conn.getresponse()
        body = r.read()
        self.view_bytes = len(body)
        if r.status != 200:
            raise RuntimeError(f"{path}: HTTP {r.status}")
        if self.fetch == "state":
            return json.loads(body)["revision"] >= rev
        return f"rev {rev}".encode() in body

    def run(self) -> None:
        try:
            sse = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            sse.request("GET", f"/t/{self.code}/events", headers={**self.headers(), "Accept": "text/event-stream"})
            resp = sse.getresponse()
            if resp.status != 200:
                raise RuntimeError(f"events: HTTP {resp.status}")
            views = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
            event = None
            while True:
                line = resp.readline()
                if not line:
                    raise RuntimeError("the stream closed")
                line = line.decode().rstrip("\r\n")
                if line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:") and event == "changed":
                    rev = int(line[5:].strip())
                    now = time.perf_counter()
                    self.got_event.setdefault(rev, now)
                    if not self.ready.is_set():
                        self.ready.set()  # the first message: the current revision on connect
                        continue
                    for _ in range(3):  # the view must show at least this revision
                        if self.fetch_view(views, rev):
                            break
                    with self.cond:
                        self.got_view.setdefault(rev, time.perf_counter())
                        self.cond.notify_all()
                elif line == "":
                    event = None
        except Exception as exc:  # noqa: BLE001 - reported by the main thread
            self.error = f"{type(exc).__name__}: {exc}"
            self.ready.set()

    def wait_view(self, rev: int, timeout: float) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: rev in self.got_view or self.error is not None, timeout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--phones", type=int, default=6, help="phones on the live stream (1-6, default 6)")
    ap.add_argument("--changes", type=int, default=120, help="changes measured (default 120)")
    ap.add_argument("--warmup", type=int, default=5, help="changes made first and not measured (default 5)")
    ap.add_argument("--fetch", choices=("view", "state"), default="view",
                    help="what a phone fetches after `changed`: the HTML view (default) or the JSON state")
    ap.add_argument("--gap", type=float, default=0.02, help="seconds between changes (default 0.02)")
    ap.add_argument("--timeout", type=float, default=180, help="give up after this many seconds (default 180)")
    args = ap.parse_args(argv)
    if not 1 <= args.phones <= 6:
        ap.error("--phones: 1 to 6")

    data = Path(tempfile.mkdtemp(prefix="bench-live-"))
    port = free_port()
    proc = start_server(port, data)
    started = time.monotonic()
    try:
        api = http.client.HTTPConnection("127.0.0.1", port, timeout=10)

        def call(method, path, body=None, token=None):
            headers = {"Content-Type": "application/json"}
            if token:
                headers["Authorization"] = f"Bearer {token}"
            api.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
            r = api.getresponse()
            return r.status, json.loads(r.read() or b"null")

        status, t = call("POST", "/api/tables", {"factions": FACTIONS, "turns": 10, "options": {}})
        assert status == 201, t
        code, seats = t["table"], t["seats"]
        phones = [Phone(port, code, f, seats[f], args.fetch) for f in FACTIONS[:args.phones]]
        for p in phones:
            p.start()
        for p in phones:
            if not p.ready.wait(10) or p.error:
                raise SystemExit(f"{p.name} could not connect: {p.error}")
        writer = seats["fremen"]
        rev = 0
        post_rtt, to_event, to_view = [], [], []
        missed = 0
        total = args.warmup + args.changes
        for i in range(total):
            if time.monotonic() - started > args.timeout:
                print(f"stopped after {args.timeout:.0f} s", file=sys.stderr)
                break
            t0 = time.perf_counter()
            status, body = call("POST", f"/api/tables/{code}/actions",
                                {"type": "storm.set", "sector": 3 if i % 2 else 4, "revision": rev}, writer)
            t1 = time.perf_counter()
            if status != 200:
                raise SystemExit(f"change {i}: HTTP {status} {body}")
            rev = body["revision"]
            for p in phones:
                if not p.wait_view(rev, 5.0):
                    missed += 1
            if i >= args.warmup:
                post_rtt.append(t1 - t0)
                for p in phones:
                    if p.error:
                        raise SystemExit(f"{p.name}: {p.error}")
                    if rev in p.got_event and rev in p.got_view:
                        to_event.append(p.got_event[rev] - t0)
                        to_view.append(p.got_view[rev] - t0)
            time.sleep(args.gap)

        n = len(post_rtt)
        ms = lambda x: f"{x * 1000:7.1f} ms"  # noqa: E731
        print(f"Live-update latency: {len(phones)} phones, {n} changes (storm.set from one seat), "
              f"{len(to_event)} phone x change samples, fetch={args.fetch} ({phones[0].view_bytes} bytes)")
        print("  loopback 127.0.0.1, uvicorn via `python -m companion`; times from sending the POST")
        print(f"  {'':32} {'median':>10} {'p95':>10} {'max':>10}")
        for name, xs in (("POST round trip", post_rtt), ("(a) `changed` event received", to_event),
                         ("(b) own view fetched", to_view)):
            if xs:
                print(f"  {name:32} {ms(statistics.median(xs))} {ms(pct(xs, 95))} {ms(max(xs))}")
        if missed:
            print(f"  missed (no view within 5 s): {missed}")
        return 0 if not missed else 1
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())

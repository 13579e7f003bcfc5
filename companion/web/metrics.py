"""Server figures for benchmarks: garbage-collection pauses, memory, what is loaded.

Off unless the server is started with ``COMPANION_METRICS=1`` (or the app config ``METRICS``):
then ``GET /debug/metrics`` answers JSON, from loopback only. Pauses are timed with
``gc.callbacks`` (start/stop of each collection, per generation); the route is a 404 otherwise,
so a table server on the LAN shows nothing of it.
"""
from __future__ import annotations

import gc
import os
import threading
import time
from collections import deque

from flask import Blueprint, abort, current_app, jsonify, request

bp = Blueprint("metrics", __name__)

MAX_PAUSES = 100_000  # (wall time, generation, seconds) of the latest collections


class GCPauses:
    """Times every collection through ``gc.callbacks`` (installed once per process)."""

    def __init__(self) -> None:
        self.pauses: deque[tuple[float, int, float, float, int]] = deque(maxlen=MAX_PAUSES)
        self._started: dict[int, tuple[float, float]] = {}

    def __call__(self, phase: str, info: dict) -> None:
        # wall time from start to stop, and the collecting thread's own CPU time: the two differ
        # when finalizers run Python code during the collection and other threads take the GIL
        if phase == "start":
            self._started[threading.get_ident()] = (time.perf_counter(), time.thread_time())
        else:
            t0 = self._started.pop(threading.get_ident(), None)
            if t0 is not None:
                self.pauses.append((time.time(), int(info.get("generation", -1)), time.perf_counter() - t0[0],
                                    time.thread_time() - t0[1], int(info.get("collected", 0))))

    def since(self, when: float) -> list[tuple[float, int, float, float, int]]:
        return [p for p in list(self.pauses) if p[0] >= when]


_PAUSES: GCPauses | None = None
_LOCK = threading.Lock()


def enabled(app) -> bool:
    return bool(app.config.get("METRICS")) or os.environ.get("COMPANION_METRICS") == "1"


def install(app) -> None:
    """Start timing collections when metrics are on (once per process)."""
    global _PAUSES
    if not enabled(app):
        return
    with _LOCK:
        if _PAUSES is None:
            _PAUSES = GCPauses()
            gc.callbacks.append(_PAUSES)


def _rss_mb() -> float | None:
    try:
        with open(f"/proc/{os.getpid()}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


@bp.get("/debug/metrics")
def metrics():
    """GC pauses since ``?since=`` (seconds since 1970; default: all kept), per generation:
    ``[when, generation, wall seconds, CPU seconds of the collecting thread, objects collected]``
    (what a collection frees is garbage kept alive by reference cycles until then). ``?reclaim=1``
    also unfreezes, collects everything once and freezes again: ``reclaimed`` is the garbage that
    frozen objects held (a leak of the tuned collector, which never walks them)."""
    if _PAUSES is None or not enabled(current_app) or request.remote_addr not in ("127.0.0.1", "::1"):
        abort(404)
    try:
        since = float(request.args.get("since", 0))
    except ValueError:
        since = 0.0
    pauses = _PAUSES.since(since)
    reclaimed = None
    if request.args.get("reclaim") == "1":
        # the benchmark's leak check: garbage of reference cycles among frozen objects is never freed
        # while they stay frozen (companion.cli.tune_gc); count it with one full collection
        gc.unfreeze()
        reclaimed = gc.collect()
        gc.freeze()
    tables = current_app.extensions["tables"]
    return jsonify({
        "pid": os.getpid(), "now": time.time(), "rss_mb": _rss_mb(),
        "gc": {"counts": gc.get_count(), "thresholds": gc.get_threshold(), "frozen": gc.get_freeze_count(),
               "pauses": [[round(w, 3), g, round(s, 6), round(c, 6), n] for w, g, s, c, n in pauses],
               "reclaimed": reclaimed},
        "tables_loaded": len(getattr(tables, "_tables", {})),
        "caches": caches(current_app),
        "pushes": pushes(current_app),
    })


def pushes(app) -> dict | None:
    """The views pushed down the seats' streams (companion/web/push.py ``PushRenderer``): jobs,
    views, and the seconds they waited for requests in flight; None under a plain WSGI server."""
    p = app.extensions.get("pushes")
    return None if p is None else {"batches": p.batches, "views": p.views, "waited": round(p.waited, 6)}


def caches(app) -> dict:
    """Every rendered-part cache the app holds (an extension counting ``hits`` and ``misses``)."""
    return {name: {"hits": ext.hits, "misses": ext.misses, "size": len(ext)}
            for name, ext in app.extensions.items()
            if isinstance(getattr(ext, "hits", None), int) and isinstance(getattr(ext, "misses", None), int)}

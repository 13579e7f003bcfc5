"""Routing that leaves no garbage for the collector.

Werkzeug's state-machine matcher builds a recursive closure on every call (``_match`` refers to
itself through its own cell): a reference cycle of 8 objects per request that reference counting
cannot free, only the garbage collector. At a few hundred requests and pushed views a second
those cycles were most of what a young collection found (docs/deploy.md, "Garbage
collection"). This matcher remembers the routes it found, keyed by exactly what Werkzeug matches
on (host, path, method, websocket), so a path asked before (a phone's view, its entries, its
stream) is routed from a dict: no closure, no cycle, and less work. A path not seen yet goes
through Werkzeug's own matcher, unchanged, and so does every refusal (404, 405, a redirect to a
trailing slash): only plain matches are remembered, at most ``MAX`` of them (the oldest forgotten
first). The rules never change once the app is built; a Map updated after new rules forgets
everything remembered.
"""
from __future__ import annotations

import threading

from flask import Flask
from werkzeug.routing import Map
from werkzeug.routing.matcher import StateMachineMatcher


class RememberingMatcher(StateMachineMatcher):
    MAX = 4096

    def __init__(self, merge_slashes: bool) -> None:
        super().__init__(merge_slashes)
        self._found: dict[tuple, tuple] = {}
        self._lock = threading.Lock()

    def update(self) -> None:  # (the Map calls it after rules were added, before the next match)
        super().update()
        self._found = {}

    def match(self, domain: str, path: str, method: str, websocket: bool):
        key = (domain, path, method, websocket)
        found = self._found.get(key)
        if found is not None:
            rule, values = found
            return rule, dict(values)  # the caller may change its copy (Flask's view_args)
        rule, values = super().match(domain, path, method, websocket)
        with self._lock:
            if len(self._found) >= self.MAX:
                del self._found[next(iter(self._found))]
            self._found[key] = (rule, dict(values))
        return rule, values


class RememberingMap(Map):
    """Werkzeug's Map with the matcher above (Werkzeug has no public hook for its matcher)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if isinstance(getattr(self, "_matcher", None), StateMachineMatcher):
            self._matcher = RememberingMatcher(self._matcher.merge_slashes)


class CompanionFlask(Flask):
    url_map_class = RememberingMap

"""Rendered parts of a page kept for reuse, bounded, for any game's views.

``PartCache``: one part per (key, inputs) — e.g. (table, revision) — with a few variants per key,
for parts that are the same for every screen at one revision (reused by every seat).

``SeatParts``: the latest render of one seat's own part — e.g. (table, seat, "panel") — reused at
the next revision when the part's inputs are unchanged (most entries change one or two seats'
panels, not all of them). The revision the part's forms carry is not an input: the part is
rendered with ``MARK`` in its place and the current revision is put in on the way out
(``with_revision``), so a part is reused across revisions and its forms still say which one the
phone was shown.

Both compare the inputs themselves (``==``), never a hash of them, and render from the inputs
alone, so what is reused is a pure function of data equal to what the seat would have rendered.
"""
from __future__ import annotations

import secrets
import threading
from collections import OrderedDict

from markupsafe import Markup

MARK = f"rev{secrets.token_hex(8)}"  # stands for the revision in a part kept across revisions


def with_revision(html: str, revision) -> Markup:
    return Markup(html.replace(MARK, str(revision)))


class PartCache:
    def __init__(self, max_keys: int = 600, max_variants: int = 8):
        self.max_keys, self.max_variants = max_keys, max_variants
        self._parts: OrderedDict[tuple, list[tuple[dict, Markup]]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple, inputs: dict, render) -> Markup:
        with self._lock:
            variants = self._parts.get(key)
            if variants is not None:
                self._parts.move_to_end(key)
                for known, html in variants:
                    if known == inputs:
                        self.hits += 1
                        return html
        html = render()
        with self._lock:
            self.misses += 1
            variants = self._parts.setdefault(key, [])
            self._parts.move_to_end(key)
            if len(variants) < self.max_variants:
                variants.append((inputs, html))
            while len(self._parts) > self.max_keys:
                self._parts.popitem(last=False)
        return html

    def __len__(self) -> int:
        return len(self._parts)


class SeatParts:
    """The latest (inputs, html) per key; a render whose inputs equal the kept ones is reused."""

    def __init__(self, max_keys: int = 6000):
        self.max_keys = max_keys
        self._parts: OrderedDict[tuple, tuple[dict, str]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple, inputs: dict, render) -> str:
        with self._lock:
            kept = self._parts.get(key)
            if kept is not None:
                self._parts.move_to_end(key)
                if kept[0] == inputs:
                    self.hits += 1
                    return kept[1]
        html = render()
        with self._lock:
            self.misses += 1
            self._parts[key] = (inputs, html)
            self._parts.move_to_end(key)
            while len(self._parts) > self.max_keys:
                self._parts.popitem(last=False)
        return html

    def __len__(self) -> int:
        return len(self._parts)

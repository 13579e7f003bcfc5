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

import hashlib
import secrets
import threading
from collections import OrderedDict

from flask import has_request_context, request
from markupsafe import Markup

MARK = f"rev{secrets.token_hex(8)}"  # stands for the revision in a part kept across revisions


def with_revision(html: str, revision) -> Markup:
    return Markup(html.replace(MARK, str(revision)))


def etag(html: str) -> str:
    known = getattr(html, "etag", None)  # a kept part knows its own (KeptPart)
    return known if known is not None else hashlib.blake2s(html.encode("utf-8"), digest_size=8).hexdigest()


class KeptPart(str):
    """A kept render with its etag worked out once, when it was kept (not on every answer reusing it)."""

    __slots__ = ("etag",)

    def __new__(cls, html: str):
        part = super().__new__(cls, html)
        part.etag = hashlib.blake2s(html.encode("utf-8"), digest_size=8).hexdigest()
        return part


def parts_shown() -> dict[str, str]:
    """The parts the phone asking says it shows (``X-Have-Parts: my-panel=<etag>,board=<etag>``,
    sent by app.js with htmx's requests): element id -> etag. Empty for any other request."""
    if not has_request_context() or request.headers.get("HX-Request") != "true":
        return {}
    out = {}
    for item in request.headers.get("X-Have-Parts", "")[:400].split(","):
        key, _, value = item.strip().partition("=")
        if key and len(value) == 16:
            out[key] = value
    return out


def kept_or_sent(html: str, element_id: str, tag: str, revision, attrs: str = "") -> Markup:
    """A part (its outer element ``<tag ... id="element_id">``, rendered with ``MARK`` for the
    revision) as the answer carries it: tagged with its etag, or, when the phone already shows
    that very part, an empty element saying so (``data-same``) with the revision its kept forms
    take (``data-revision``)."""
    tagged = etag(html)
    if parts_shown().get(element_id) == tagged:
        return Markup(f'<{tag}{attrs} id="{element_id}" data-etag="{tagged}" data-revision="{revision}" '
                      f'data-same></{tag}>')
    return with_revision(html.replace(f'id="{element_id}"', f'id="{element_id}" data-etag="{tagged}"', 1), revision)


class PartCache:
    def __init__(self, max_keys: int = 600, max_variants: int = 8):
        self.max_keys, self.max_variants = max_keys, max_variants
        self._parts: OrderedDict[tuple, list[tuple[dict, Markup]]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple, inputs: dict, render) -> Markup:
        """The render kept under ``key`` whose inputs equal ``inputs``, else ``render()``, kept as
        the key's newest variant (a key keeps its ``max_variants`` latest: LRU, as the keys)."""
        with self._lock:
            variants = self._parts.get(key)
            if variants is not None:
                self._parts.move_to_end(key)
                for i, (known, html) in enumerate(variants):
                    if known == inputs:
                        self.hits += 1
                        if i:
                            variants.insert(0, variants.pop(i))
                        return html
        html = render()
        with self._lock:
            self.misses += 1
            variants = self._parts.setdefault(key, [])
            self._parts.move_to_end(key)
            variants.insert(0, (inputs, html))
            del variants[self.max_variants:]
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
        return self.keep(key, inputs, render())

    def keep(self, key: tuple, inputs: dict, html: str) -> str:
        """Keep ``html`` as the latest render for ``key`` (a miss), evicting the oldest keys."""
        html = KeptPart(html)
        with self._lock:
            self.misses += 1
            self._parts[key] = (inputs, html)
            self._parts.move_to_end(key)
            while len(self._parts) > self.max_keys:
                self._parts.popitem(last=False)
        return html

    def __len__(self) -> int:
        return len(self._parts)

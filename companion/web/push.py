"""A seat's view pushed down its live stream: no request per change.

A phone's table page opens its stream with ``?parts=view``. When the table changes, that stream
(companion/web/asgi.py) asks the Flask app for the seat's view itself, exactly as the page would
(``GET /t/<code>/view`` with the stream's own credential, ``HX-Request`` and the parts it knows
the page shows), in the same worker threads as requests, and sends the answer as
``event: view`` (the event's id is the revision the view shows). The page swaps it as it would
its own refresh (static/refresh.js) or, when it cannot right now (the player is typing, an entry of
its own is on its way, a fold that loads when opened is open, it no longer shows a part the push
calls unchanged), fetches the view as before. Nothing new decides what a seat may see: the view
is the one route every refresh uses, asked with that seat's credential, so a re-issued seat's
stream gets a refusal, not a view (and is told ``changed`` instead: its page fetches and learns).

Not pushed: the change a seat made itself (the answer to its entry brought that revision; the
stream says ``changed`` and the page fetches only if it did not get it), and anything but a plain
200 answer (the stream says ``changed``; the page's own fetch shows the error).
"""
from __future__ import annotations

import re

VIEW_PATH = "/t/{code}/view"
PUSHED = "view"  # the ``parts`` a stream asks for, and the SSE event its views come as

# request headers of the stream that the view request does not carry (the view's own are added)
_DROPPED = {b"accept-encoding", b"if-none-match", b"if-modified-since", b"last-event-id", b"cache-control",
            b"accept", b"x-have-parts", b"x-have-board", b"x-open-folds", b"hx-request", b"hx-trigger",
            b"hx-target", b"hx-current-url", b"content-length", b"content-type"}

# an element of the answer that carries an etag (the page reports those it shows: static/app.js)
_ETAG_AT = " data-etag=\""
_ETAG_IN = re.compile(r"\sdata-etag=\"([0-9a-f]{1,64})\"")
_ID = re.compile(r"(?<![\w-])id=\"([A-Za-z0-9_-]{1,64})\"")
_SAME = re.compile(r"\sdata-same[\s>=]")
_PART_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ETAG = re.compile(r"[0-9a-f]{1,64}")
_SHOWN = re.compile(r"data-shown-revision=\"(\d+)\"")


class SeatPush:
    """What one stream knows of the page it feeds: the parts (id -> etag) its last push left."""

    def __init__(self, scope, code: str, have: str = ""):
        """``have``: the parts the page showed as it opened its stream (``id=etag,...``, the
        stream's ``have`` parameter, static/refresh.js)."""
        self.scope = scope
        self.code = code
        self.shows: dict[str, str] = {}
        for item in have[:400].split(","):
            ident, _, etag = item.partition("=")
            if _PART_ID.fullmatch(ident) and _ETAG.fullmatch(etag):
                self.shows[ident] = etag

    def request_scope(self) -> dict:
        """The ASGI scope of the view request for this stream's page."""
        headers = [(k, v) for k, v in self.scope.get("headers", ()) if k not in _DROPPED]
        headers.append((b"hx-request", b"true"))
        headers.append((b"accept", b"text/html"))
        if self.shows:
            have = ",".join(f"{k}={v}" for k, v in sorted(self.shows.items()))[:400]
            headers.append((b"x-have-parts", have.encode("latin-1")))
            if "board" in self.shows:
                headers.append((b"x-have-board", self.shows["board"].encode("latin-1")))
        return {**self.scope, "method": "GET", "path": VIEW_PATH.format(code=self.code), "raw_path": None,
                "query_string": b"", "headers": headers}

    def learn(self, html: str) -> int | None:
        """Note the parts this answer leaves on the page; the revision it shows (None if none)."""
        at = html.find(_ETAG_AT)
        while at != -1:
            start, end = html.rfind("<", 0, at), html.find(">", at)
            if start == -1 or end == -1:
                break
            tag = html[start:end + 1]
            etag, ident = _ETAG_IN.search(tag), _ID.search(tag)
            if etag and ident and not _SAME.search(tag):  # (a data-same part: the page keeps its own)
                self.shows[ident.group(1)] = etag.group(1)
            at = html.find(_ETAG_AT, end)
        shown = _SHOWN.search(html)
        return int(shown.group(1)) if shown else None


def sse_message(event: str, revision: int, text: str) -> str:
    """One server-sent event carrying ``text`` (each line of it a ``data:`` line)."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return f"id: {revision}\nevent: {event}\ndata: " + text.replace("\n", "\ndata: ") + "\n\n"

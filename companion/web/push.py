"""A seat's view pushed down its live stream: no request per change.

A phone's table page opens its stream with ``?parts=view``. When the table changes, that stream
(companion/web/asgi.py) asks the Flask app for the seat's view itself, exactly as the page would
(``GET /t/<code>/view`` with the stream's own credential, ``HX-Request`` and the parts it knows
the page shows; ``SeatPush`` below), rendered by ``PushRenderer`` on a thread of its own that
lets requests go first, and sends the answer as
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

import asyncio
import logging
import re
import time
from concurrent.futures import ThreadPoolExecutor

from werkzeug.exceptions import HTTPException

from ..table.store import StorageUnavailable
from .bridge import WSGIBridge, build_environ

log = logging.getLogger(__name__)

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


class PushRenderer:
    """Renders the views pushed down the seats' streams (companion/web/push.py), apart from requests.

    - **One hand-off per change, not one per stream**: the streams a change wakes ask in the same
      turn of the event loop; their views are rendered in one job, one after another.
    - **A phone's own request first**: pushes have their own thread, and each view waits until no
      request is being answered (``yield_for`` seconds at most for a whole job: a job that waits
      holds up those queued behind it), so an entry's answer seldom shares the interpreter with a
      batch of pushes (Python runs one thread at a time). An entry's answer is what the tapping
      phone waits for; a push has half a second (the target) to be seen.
    """

    yield_for = 0.010  # seconds a job's views wait at most for the requests in flight (never starved)

    def __init__(self, bridge: WSGIBridge, threads: int = 1):
        self.bridge = bridge
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="push")
        self.pending: list[tuple[SeatPush, asyncio.Future]] = []
        self.batches = 0  # jobs run, and the views they rendered (/debug/metrics: views per hand-off)
        self.views = 0
        self.waited = 0.0  # seconds the views waited for requests in flight, in all

    async def view(self, pusher: SeatPush) -> tuple[int, str, bytes] | None:
        """``render(pusher)``, in this turn's batch."""
        loop = asyncio.get_running_loop()
        answer = loop.create_future()
        if not self.pending:  # the first of this turn: the batch goes once every stream woken has asked
            loop.call_soon(self._flush, loop)
        self.pending.append((pusher, answer))
        return await answer

    def _flush(self, loop) -> None:
        batch, self.pending = self.pending, []
        job = loop.run_in_executor(self.pool, self.render_all, [p for p, _ in batch])

        def hand_out(done: asyncio.Future) -> None:
            try:
                answers = done.result()
            except BaseException as exc:  # noqa: BLE001 - every stream hears, whatever failed
                for _, answer in batch:
                    if not answer.done():
                        answer.set_exception(exc)
                return
            for (_, answer), result in zip(batch, answers):
                if not answer.done():  # (a stream that went away meanwhile cancelled its wait)
                    answer.set_result(result)
        job.add_done_callback(hand_out)

    def render_all(self, pushers: list[SeatPush]) -> list[tuple[int, str, bytes] | None]:
        self.batches += 1
        out = []
        until = time.perf_counter() + self.yield_for  # the whole job waits that long at most: a job
        for pusher in pushers:                         # waiting holds up the ones queued behind it
            if not self.bridge.idle.is_set():
                began = time.perf_counter()
                if until > began:
                    self.bridge.idle.wait(until - began)
                self.waited += time.perf_counter() - began
            out.append(self.render(pusher))
            self.views += 1
        return out

    def render(self, pusher: SeatPush) -> tuple[int, str, bytes] | None:
        """(revision shown, html, the SSE message) of the seat's view, or None when the view route
        does not answer it a plain 200 (a re-issued seat, a storage fault: the stream then says
        ``changed`` and the page's own fetch shows what happened).

        The view route itself answers, with the stream's credential and the parts its page shows,
        in a request context of its own (nothing is shared between seats); what only a response
        going out over HTTP needs (the after-request headers, cookies, compression) is skipped:
        the view goes down the stream as an event."""
        app = self.bridge.app
        try:
            with app.request_context(build_environ(pusher.request_scope(), b"")):
                answer = app.preprocess_request()
                if answer is None:
                    answer = app.dispatch_request()
                response = app.make_response(answer)
                if response.status_code != 200 or response.is_streamed or "Content-Encoding" in response.headers:
                    return None
                html = response.get_data(as_text=True)
        except HTTPException:
            return None
        except StorageUnavailable:
            return None
        except Exception:  # noqa: BLE001 - a push never breaks a stream: the phone fetches instead
            log.exception("rendering a pushed view failed (table %s)", pusher.code)
            return None
        shown = pusher.learn(html)
        return None if shown is None else (shown, html, sse_message(PUSHED, shown, html).encode())

"""The server: an ASGI app with the live streams native and the Flask app beside it.

``/t/<code>/events`` is served on the event loop: an open stream is a coroutine waiting on an
``asyncio.Event``, so it costs memory, never a thread. Every other request goes to the Flask
app through a WSGI adapter (a2wsgi) with a bounded thread pool. Writes happen in those worker
threads (or in another process: ``TableService.listen`` hears both) and wake the streams of
their table through ``loop.call_soon_threadsafe``.

Run by uvicorn (``companion`` on the command line, see cli.py) on Linux, macOS and Windows.
"""
from __future__ import annotations

import asyncio
import re
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

from . import auth
from .live import HEARTBEAT_SECONDS

EVENTS_PATH = re.compile(r"^/t/([A-Za-z0-9]{1,16})/events$")


class LiveHub:
    """Per-table wake-ups for the streams on one event loop (thread-safe ``notify``)."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.waiters: dict[str, set[asyncio.Event]] = {}

    def notify(self, code: str, *_ignored) -> None:
        loop = self.loop
        if loop is None or loop.is_closed():
            return
        try:
            loop.call_soon_threadsafe(self._wake, code.upper())
        except RuntimeError:  # the loop is shutting down
            pass

    def _wake(self, code: str) -> None:
        for event in self.waiters.get(code, ()):
            event.set()

    def add(self, code: str, event: asyncio.Event) -> None:
        self.waiters.setdefault(code, set()).add(event)

    def remove(self, code: str, event: asyncio.Event) -> None:
        waiters = self.waiters.get(code)
        if waiters is not None:
            waiters.discard(event)
            if not waiters:
                self.waiters.pop(code, None)

    def streams(self) -> int:
        return sum(len(w) for w in self.waiters.values())


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return value.decode("latin-1")
    return None


def _stream_role(tables, code: str, scope) -> tuple[bool, str | None]:
    """(table exists, role of the seat credential sent, if any). Runs in a worker thread."""
    t = tables.table(code)
    if t is None:
        return False, None
    token = None
    authz = _header(scope, b"authorization") or ""
    if authz[:7].lower() == "bearer ":
        token = authz[7:].strip() or None
    if token is None:
        cookies = SimpleCookie()
        try:
            cookies.load(_header(scope, b"cookie") or "")
        except Exception:  # noqa: BLE001 - a malformed cookie header is no credential
            pass
        morsel = cookies.get(auth.seat_cookie(code))
        token = morsel.value if morsel else None
    return True, (tables.role_for(code, token) if token else None)


async def _send_text(send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": text.encode()})


class CompanionASGI:
    """Routes ``GET /t/<code>/events`` to the native stream, everything else to Flask."""

    def __init__(self, flask_app, threads: int = 16):
        from a2wsgi import WSGIMiddleware

        self.flask = flask_app
        self.wsgi = WSGIMiddleware(flask_app, workers=threads)
        self.tables = flask_app.extensions["tables"]
        self.presence = flask_app.extensions["presence"]
        self.hub = LiveHub()
        self.tables.listen(self.hub.notify)
        self.presence.subscribe(self.hub.notify)

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    self.hub.loop = asyncio.get_running_loop()
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] == "http" and scope["method"] in ("GET", "HEAD"):
            m = EVENTS_PATH.match(scope["path"])
            if m:
                return await self.events(scope, receive, send, m.group(1).upper())
        return await self.wsgi(scope, receive, send)

    async def events(self, scope, receive, send, code: str) -> None:
        loop = asyncio.get_running_loop()
        if self.hub.loop is None:
            self.hub.loop = loop
        exists, role = await loop.run_in_executor(None, _stream_role, self.tables, code, scope)
        if not exists:
            return await _send_text(send, 404, f"There is no table {code!r} on this server.")
        config = self.flask.config
        heartbeat = float(config.get("SSE_HEARTBEAT", HEARTBEAT_SECONDS))
        once = bool(config.get("SSE_ONCE"))
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        try:
            since = int((query.get("since") or [None])[0] or _header(scope, b"last-event-id") or -1)
        except ValueError:
            since = -1

        await send({"type": "http.response.start", "status": 200, "headers": [
            (b"content-type", b"text/event-stream; charset=utf-8"),
            (b"cache-control", b"no-cache, no-store"),
            (b"x-accel-buffering", b"no"),
        ]})
        wake = asyncio.Event()
        gone = asyncio.Event()

        async def watch_disconnect():
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone.set()
                    wake.set()
                    return

        watcher = asyncio.ensure_future(watch_disconnect())
        self.hub.add(code, wake)
        if role is not None:
            self.presence.enter(code, role)
        seats_seen = self.presence.epoch(code)
        seen = since

        async def put(text: str) -> None:
            await send({"type": "http.response.body", "body": text.encode(), "more_body": True})

        try:
            await put("retry: 1000\n\n")
            while not gone.is_set():
                wake.clear()
                revision = self.tables.cached_revision(code)
                if revision is not None and revision != seen:
                    seen = revision
                    await put(f"id: {seen}\nevent: changed\ndata: {seen}\n\n")
                    if once:
                        break
                    continue
                epoch = self.presence.epoch(code)
                if epoch != seats_seen:
                    seats_seen = epoch
                    await put(f"event: seats\ndata: {epoch}\n\n")
                    continue
                try:
                    await asyncio.wait_for(wake.wait(), heartbeat)
                except asyncio.TimeoutError:
                    if not gone.is_set():
                        await put(": ping\n\n")
            if not gone.is_set():
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the phone went away mid-write
        finally:
            self.hub.remove(code, wake)
            watcher.cancel()
            if role is not None:
                self.presence.leave(code, role)


def asgi_app(flask_app, threads: int = 16) -> CompanionASGI:
    return CompanionASGI(flask_app, threads)


def _guarded_protocol():
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        """uvicorn's HTTP/1.1 protocol, plus a deadline for request headers: a socket that
        connects and sends nothing (or a request trickled byte by byte) is dropped after
        ``header_timeout`` seconds instead of holding a connection slot."""

        header_timeout = 10.0
        _header_deadline = None

        def connection_made(self, transport):
            super().connection_made(transport)
            self._arm()

        def _arm(self):
            if self._header_deadline is None:
                self._header_deadline = self.loop.call_later(self.header_timeout, self._headers_too_slow)

        def _disarm(self):
            if self._header_deadline is not None:
                self._header_deadline.cancel()
                self._header_deadline = None

        def data_received(self, data):
            super().data_received(data)
            if self.cycle is not None and not self.cycle.response_complete:
                self._disarm()  # a whole request arrived: it is being answered
            else:
                self._arm()  # part of a request: the deadline keeps running

        def _headers_too_slow(self):
            self._header_deadline = None
            if self.cycle is None or self.cycle.response_complete:
                if not self.transport.is_closing():
                    self.transport.close()

        def connection_lost(self, exc):
            self._disarm()
            super().connection_lost(exc)

    return GuardedH11Protocol


GuardedH11Protocol = _guarded_protocol()

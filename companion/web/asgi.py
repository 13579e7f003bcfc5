"""The server: an ASGI app with the live streams native and the Flask app beside it.

``/t/<code>/events`` is served on the event loop: an open stream is a coroutine waiting on an
``asyncio.Event``, so it costs memory, never a thread. Every other request goes to the Flask
app through ``WSGIBridge`` (bridge.py): the request body is read on the loop, the Flask app runs in a
bounded thread pool, its whole answer comes back in one hand-off (every answer of this app is
small; only the stream is long, and it is native). Writes happen in those worker threads (or
in another process: ``TableService.listen`` hears both) and wake the streams of their table
through ``loop.call_soon_threadsafe``.

Run by uvicorn (``companion`` on the command line, see cli.py) on Linux, macOS and Windows.
"""
from __future__ import annotations

import asyncio
import functools
import logging
import random
import re
from http.cookies import SimpleCookie
from urllib.parse import parse_qs

from ..table.store import StorageUnavailable
from . import auth
from .bridge import WSGIBridge, send_text
from .live import HEARTBEAT_SECONDS
from .push import PUSHED, PushRenderer, SeatPush

log = logging.getLogger(__name__)
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


def _stream_role(tables, code: str, scope) -> tuple[bool, str | None, str | None]:
    """(table exists, role of the seat credential sent if any, that credential). Runs in a
    worker thread (it may load the table)."""
    t = tables.table(code)
    if t is None:
        return False, None, None
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
    role = tables.role_for(code, token) if token else None
    return True, role, (token if role else None)


def _still_seat(tables, code: str, token: str, role: str) -> bool | None:
    """False when the credential no longer holds the seat; None when the store cannot say now."""
    try:
        return tables.role_for(code, token) == role
    except StorageUnavailable:
        return None


class CompanionASGI:
    """Routes ``GET /t/<code>/events`` to the native stream, everything else to Flask."""

    def __init__(self, flask_app, threads: int):
        self.flask = flask_app
        self.wsgi = WSGIBridge(flask_app, threads)
        self.pushes = PushRenderer(self.wsgi)
        flask_app.extensions["pushes"] = self.pushes  # (its figures: /debug/metrics)
        self.tables = flask_app.extensions["tables"]
        self.presence = flask_app.extensions["presence"]
        self.hub = LiveHub()
        self.tables.listen(self.hub.notify)
        self.presence.subscribe(self.hub.notify)
        subscribe_seats = getattr(self.tables.store, "subscribe_seats", None)
        if subscribe_seats is not None:  # a seat claimed or re-issued through another process
            subscribe_seats(self._seats_changed_anywhere)

    unload_idle: float = 0.0  # seconds: a table nobody asked for that long is dropped from memory (0: never)

    async def unload_idle_tables(self) -> None:
        """Every so often, forget the tables idle for ``unload_idle`` seconds that have no live stream
        open here (a stream follows its table in memory); the next request loads one again."""
        loop = asyncio.get_running_loop()
        every = max(1.0, min(60.0, self.unload_idle / 4))
        while True:
            await asyncio.sleep(every)
            try:
                gone = await loop.run_in_executor(None, self.tables.unload_idle, self.unload_idle,
                                                  lambda code: code in self.hub.waiters)
                if gone:
                    log.info("unloaded %d idle table(s)", len(gone))
            except Exception:  # noqa: BLE001 - never stop the server over housekeeping
                log.exception("unloading idle tables failed")

    def _seats_changed_anywhere(self, code: str) -> None:
        if code.upper() in self.hub.waiters:  # only tables with a stream open here
            self.presence.bump(code)

    async def __call__(self, scope, receive, send):
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    self.hub.loop = asyncio.get_running_loop()
                    if self.unload_idle:
                        self._unloader = asyncio.ensure_future(self.unload_idle_tables())
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
        try:
            exists, role, token = await loop.run_in_executor(None, _stream_role, self.tables, code, scope)
        except StorageUnavailable as exc:  # the browser retries the stream by itself (retry: 1000)
            return await send_text(send, 503, exc.message)
        if not exists:
            return await send_text(send, 404, f"There is no table {code!r} on this server.")
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
        pusher = None
        if role not in (None, "board") and query.get("parts") == [PUSHED]:
            pusher = SeatPush(scope, code, (query.get("have") or [""])[0])

        async def put(text: str) -> None:
            await send({"type": "http.response.body", "body": text.encode(), "more_body": True})

        try:
            await put("retry: 1000\n\n")
            while not gone.is_set():
                wake.clear()
                revision = self.tables.cached_revision(code)
                if revision is not None and revision != seen:
                    seen = revision
                    pushed = None
                    if pusher is not None and self.tables.written_by(code, seen) != role:
                        pushed = await self.push_view(pusher)
                    if pushed is not None:
                        shown, _html, message = pushed
                        seen = max(seen, shown)
                        await send({"type": "http.response.body", "body": message, "more_body": True})
                    else:
                        await put(f"id: {seen}\nevent: changed\ndata: {seen}\n\n")
                    if once:
                        break
                    continue
                epoch = self.presence.epoch(code)
                if epoch != seats_seen:
                    seats_seen = epoch
                    await put(f"event: seats\ndata: {epoch}\n\n")
                    if role is not None and await loop.run_in_executor(None, _still_seat, self.tables, code,
                                                                       token, role) is False:
                        break  # this seat was re-issued: the phone is no longer connected as it
                    continue
                try:  # pings spread over time: a thousand streams opened together never ping together
                    await asyncio.wait_for(wake.wait(), heartbeat * (0.75 + 0.25 * random.random()))
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


    async def push_view(self, pusher: SeatPush) -> tuple[int, str, bytes] | None:
        """(revision, html, SSE message) of the seat's view for its stream, or None when it is not
        a plain 200 answer (the stream then says ``changed``: the page's own fetch shows what happened)."""
        return await self.pushes.view(pusher)


def asgi_app(flask_app, threads: int) -> CompanionASGI:
    return CompanionASGI(flask_app, threads)


def _notice_vanished_peers(sock) -> None:
    """A phone that leaves the Wi-Fi sends no FIN: TCP keep-alive probes, and on Linux a limit on
    how long sent data may stay unacknowledged, end its stream within a minute or so instead of
    the system's default quarter of an hour. Options a platform lacks are skipped."""
    import socket as s

    if sock is None:
        return
    options = [(s.SOL_SOCKET, s.SO_KEEPALIVE, 1)]
    for name, value in (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3),
                        ("TCP_USER_TIMEOUT", 45_000)):
        if hasattr(s, name):
            options.append((s.IPPROTO_TCP, getattr(s, name), value))
    for level, option, value in options:
        try:
            sock.setsockopt(level, option, value)
        except OSError:
            pass


def busy_message(limit: int | None) -> str:
    return (f"This server is at its limit of {limit} open connections (--max-connections; a phone holds "
            f"about three: its live stream and keep-alive connections). Nothing was done: try again in a "
            f"few seconds. The host can restart the server with a higher --max-connections.")


HEAD_LIMIT = 64 * 1024  # bytes a request head may take (h11's h11_max_incomplete_event_size)


async def connection_limit_reached(scope, receive, send) -> None:
    """uvicorn's answer past ``limit_concurrency``, saying why (its own says only "Service Unavailable")."""
    body = busy_message(GuardedProtocol.max_connections).encode()
    await send({"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode()),
        (b"retry-after", b"2"), (b"cache-control", b"no-store"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


class GuardedProtocol:
    """What both HTTP/1.1 parsers get here (mixed into uvicorn's h11 or httptools protocol): a
    deadline for request headers (a socket that connects and sends nothing, or trickles its
    request byte by byte, is dropped after ``header_timeout`` seconds instead of holding a
    connection slot), a live stream closed at once on shutdown, and uvicorn's refusal past the
    connection limit saying why."""

    parser = ""  # "h11" or "httptools": which one it is mixed into
    header_timeout = 10.0
    max_connections: int | None = None  # for the refusal's sentence (cli.make_server sets it)
    _header_deadline = None

    def connection_made(self, transport):
        super().connection_made(transport)
        self._arm()
        _notice_vanished_peers(transport.get_extra_info("socket"))

    def _arm(self):
        if self._header_deadline is None:
            self._header_deadline = self.loop.call_later(self.header_timeout, self._headers_too_slow)

    def _disarm(self):
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _answering(self) -> bool:
        return self.cycle is not None and not self.cycle.response_complete

    def data_received(self, data):
        super().data_received(data)
        if self._answering():
            self._disarm()  # a whole request arrived: it is being answered
        else:
            self._arm()  # part of a request: the deadline keeps running

    def _headers_too_slow(self):
        self._header_deadline = None
        if not self._answering():
            if not self.transport.is_closing():
                self.transport.close()

    def connection_lost(self, exc):
        self._disarm()
        super().connection_lost(exc)

    def shutdown(self):
        """The server stops: a live stream is closed at once (the phone reconnects by itself
        when the server is back); any other request in flight is finished first."""
        if self._answering() and EVENTS_PATH.match(getattr(self, "scope", {}).get("path", "")):
            self.transport.close()
            return
        super().shutdown()


@functools.cache
def _h11_protocol():
    from uvicorn.protocols.http import h11_impl

    h11_impl.service_unavailable = connection_limit_reached  # what uvicorn sends past the limit

    class GuardedH11Protocol(GuardedProtocol, h11_impl.H11Protocol):
        """uvicorn's pure-Python HTTP/1.1 protocol (h11), guarded; it refuses a head past
        ``h11_max_incomplete_event_size`` by itself."""

        parser = "h11"

    return GuardedH11Protocol


@functools.cache
def _httptools_protocol():
    """uvicorn's protocol on httptools (llhttp, in C), guarded, or None where httptools is not
    installed."""
    try:
        from uvicorn.protocols.http import httptools_impl
    except ImportError:
        return None
    httptools_impl.service_unavailable = connection_limit_reached

    class GuardedHttpToolsProtocol(GuardedProtocol, httptools_impl.HttpToolsProtocol):
        """With a limit on the request head that llhttp does not keep: past HEAD_LIMIT bytes
        before the head is complete, the request is answered 400 and the connection closed."""

        parser = "httptools"
        _head_bytes = 0   # bytes received since the last request head was complete
        _heads = 0        # request heads completed on this connection

        def data_received(self, data):
            heads = self._heads
            super().data_received(data)
            if self._heads != heads:
                self._head_bytes = 0  # (what follows a complete head is its body, or the next request)
                return
            if self._answering():
                return  # the body of the request being answered
            self._head_bytes += len(data)
            if self._head_bytes > HEAD_LIMIT and not self.transport.is_closing():
                self._disarm()
                self.send_400_response("Request head too large.")

        def on_headers_complete(self):
            self._heads += 1
            super().on_headers_complete()

    return GuardedHttpToolsProtocol


def http_protocol(name: str = "auto"):
    """The guarded protocol class for ``name``: "h11", "httptools", or "auto" (httptools when it
    is installed, else h11)."""
    if name not in ("auto", "h11", "httptools"):
        raise ValueError(f"unknown HTTP implementation {name!r}")
    if name in ("auto", "httptools"):
        cls = _httptools_protocol()
        if cls is not None:
            return cls
        if name == "httptools":
            raise RuntimeError("httptools is not installed (pip install httptools)")
    return _h11_protocol()


def event_loop(name: str = "auto") -> str:
    """uvicorn's ``loop`` setting for ``name``: "asyncio", "uvloop", or "auto" (uvloop when it is
    installed, which it is not on Windows, else asyncio)."""
    if name not in ("auto", "asyncio", "uvloop"):
        raise ValueError(f"unknown event loop {name!r}")
    if name == "asyncio":
        return "asyncio"
    try:
        import uvloop  # noqa: F401
    except ImportError:
        if name == "uvloop":
            raise RuntimeError("uvloop is not installed (pip install uvloop; not on Windows)") from None
        return "asyncio"
    return "uvloop"


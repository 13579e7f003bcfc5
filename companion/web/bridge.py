"""The bridge from the ASGI server to the Flask app: a request's body read on the event loop, the
app run in a bounded thread pool, its whole answer back in one hand-off (companion/web/asgi.py
routes every request but the live streams here; companion/web/push.py renders pushed views through
the same environ).
"""
from __future__ import annotations

import asyncio
import io
import logging
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger(__name__)


async def send_text(send, status: int, text: str) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": text.encode()})


BODY_LIMIT = 64 * 1024 * 1024  # hard ceiling for a request body when the app sets none


class WSGIBridge:
    """Runs a WSGI app for ASGI requests in a thread pool, one hand-off per request."""

    body_timeout = 30.0  # seconds a request's body has to arrive once its headers have (``--body-timeout``)

    def __init__(self, app, threads: int):
        self.app = app
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="wsgi")
        self.in_flight = 0  # requests handed to the pool and not answered yet (changed on the loop only)
        self.idle = threading.Event()  # set while none is: what pushes wait for (PushRenderer)
        self.idle.set()

    def limit(self) -> int:
        configured = getattr(self.app, "config", {}).get("MAX_CONTENT_LENGTH")
        return min(BODY_LIMIT, configured + 1) if configured else BODY_LIMIT

    async def __call__(self, scope, receive, send):
        limit, body, more = self.limit(), bytearray(), True
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.body_timeout
        while more:
            try:  # a body trickled byte by byte holds a connection slot: it gets a deadline
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except asyncio.TimeoutError:
                return await send_text(send, 408, "The request did not arrive in time: send it again.")
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) >= limit:
                break  # the app answers 413 from what it got (or we do, past the hard ceiling)
        if len(body) > BODY_LIMIT:
            return await send_text(send, 413, "That request is too large.")
        environ = build_environ(scope, bytes(body))
        self.in_flight += 1
        self.idle.clear()
        try:
            status, headers, chunks = await loop.run_in_executor(self.pool, self.run, environ)
        finally:
            self.in_flight -= 1
            if not self.in_flight:
                self.idle.set()
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": b"".join(chunks)})

    def run(self, environ) -> tuple[int, list, list]:
        answer: dict = {}

        def start_response(status, headers, exc_info=None):
            answer["status"] = int(status.split(" ", 1)[0])
            answer["headers"] = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]
            return lambda data: chunks.append(data)

        chunks: list[bytes] = []
        try:
            result = self.app(environ, start_response)
            try:
                for chunk in result:
                    if chunk:
                        chunks.append(chunk)
            finally:
                close = getattr(result, "close", None)
                if close is not None:
                    close()
        except Exception:  # noqa: BLE001 - never leave the phone without an answer
            log.exception("request failed: %s %s", environ.get("REQUEST_METHOD"), environ.get("PATH_INFO"))
            return 500, [(b"content-type", b"text/plain; charset=utf-8")], [b"Internal error: try again."]
        return answer["status"], answer["headers"], chunks


def build_environ(scope, body: bytes) -> dict:
    """A PEP 3333 environ for an ASGI HTTP scope."""
    script_name = scope.get("root_path", "").encode("utf8").decode("latin1")
    path_info = scope["path"].encode("utf8").decode("latin1")
    if script_name and path_info.startswith(script_name):
        path_info = path_info[len(script_name):]
    server = scope.get("server") or ("localhost", 80)
    environ = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": script_name,
        "PATH_INFO": path_info,
        "QUERY_STRING": scope.get("query_string", b"").decode("latin1"),
        "SERVER_NAME": str(server[0]),
        "SERVER_PORT": str(server[1] or 0),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    client = scope.get("client")
    if client:
        environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = client[0], str(client[1])
    for name, value in scope.get("headers", ()):
        name, value = name.decode("latin1"), value.decode("latin1")
        if name == "content-length":
            key = "CONTENT_LENGTH"
        elif name == "content-type":
            key = "CONTENT_TYPE"
        else:
            key = "HTTP_" + name.upper().replace("-", "_")
        if key in environ:
            value = environ[key] + ("; " if key == "HTTP_COOKIE" else ",") + value
        environ[key] = value
    if "CONTENT_LENGTH" not in environ and body:
        environ["CONTENT_LENGTH"] = str(len(body))
    return environ

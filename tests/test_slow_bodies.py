"""A request whose body trickles in is answered 408 and dropped once ``--body-timeout`` passes, so
it cannot hold a connection slot (audit finding 7); a body sent at once is answered as usual."""
from __future__ import annotations

import argparse
import socket
import threading
import time

import pytest

from conftest import free_port


@pytest.fixture(params=["httptools", "h11"])
def served(app, request):
    """``app`` served by the real server stack (uvicorn + companion.web.asgi) on a thread, with
    each of the two request parsers."""
    from companion.cli import make_server
    from companion.web.bridge import WSGIBridge

    args = argparse.Namespace(host="127.0.0.1", port=free_port(), threads=4, max_connections=300,
                              keep_alive=5, header_timeout=1.0, body_timeout=1.0,
                              http=request.param, loop="auto")
    server = make_server(app, args)
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    deadline = time.monotonic() + 15
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    yield args.port
    server.should_exit = True
    th.join(10)
    WSGIBridge.body_timeout = 30.0


def test_a_trickled_body_is_answered_408_and_the_connection_closed(served):
    sock = socket.create_connection(("127.0.0.1", served), timeout=15)
    sock.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 200\r\n\r\n{")
    answer, stop, closed = b"", time.monotonic() + 12, False
    try:
        while time.monotonic() < stop:   # one byte every 0.2 s: the body would take 40 s
            try:
                sock.sendall(b" ")
            except OSError:
                closed = True
                break
            sock.settimeout(0.2)
            try:
                chunk = sock.recv(4096)
            except socket.timeout:
                continue
            if not chunk:
                closed = True
                break
            answer += chunk
    finally:
        sock.close()
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"did not arrive in time" in answer
    assert closed  # the server hung up well before the 12 s this loop waits


def post_at_once(port: int, body: bytes) -> bytes:
    """POST /api/tables with its head and body in one write; the whole answer."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=15)
    sock.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    answer = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    sock.close()
    return answer


def test_a_body_sent_at_once_is_answered(served):
    answer = post_at_once(served, b'{"factions": ["atreides", "fremen"]}')
    assert answer.startswith(b"HTTP/1.1 201"), answer[:200]


def test_a_large_body_sent_at_once_is_not_taken_for_a_large_head(served):
    """A table import is a body of hundreds of KB arriving with its head: the limit on heads
    does not count it (the app reads it and answers: here, about the field it does not know)."""
    answer = post_at_once(served, b'{"factions": ["atreides", "fremen"], "note": "' + b"x" * 300_000 + b'"}')
    assert b"Request head too large" not in answer
    assert answer.split(b"\r\n", 1)[0] in (b"HTTP/1.1 201 Created", b"HTTP/1.1 422 Unprocessable Entity"), answer[:300]
    assert b"application/json" in answer.split(b"\r\n\r\n", 1)[0].lower()  # the app's answer


def test_an_oversized_request_head_is_refused_and_the_connection_closed(served):
    """A request head past 64 KB (HEAD_LIMIT: h11's h11_max_incomplete_event_size, kept by hand on
    httptools) is refused at once
    rather than buffered; an ordinary request on a new connection still works."""
    sock = socket.create_connection(("127.0.0.1", served), timeout=10)
    try:
        sock.sendall(b"GET /api/board HTTP/1.1\r\nHost: x\r\nX-Junk: " + b"a" * 70_000)
        answer = b""
        while True:
            try:
                chunk = sock.recv(4096)
            except (ConnectionResetError, socket.timeout):
                break
            if not chunk:
                break
            answer += chunk
    finally:
        sock.close()
    assert answer.split(b"\r\n", 1)[0] == b"HTTP/1.1 400 Bad Request", answer[:200]
    ok = socket.create_connection(("127.0.0.1", served), timeout=10)
    try:
        ok.sendall(b"GET /api/board HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert ok.recv(64).startswith(b"HTTP/1.1 200")
    finally:
        ok.close()

"""A request whose body trickles in is answered 408 and dropped once ``--body-timeout`` passes, so
it cannot hold a connection slot (audit finding 7); a body sent at once is answered as usual."""
from __future__ import annotations

import argparse
import socket
import threading
import time

import pytest

from conftest import free_port


@pytest.fixture()
def served(app):
    """``app`` served by the real server stack (uvicorn + companion.web.asgi) on a thread."""
    from companion.cli import make_server
    from companion.web.asgi import WSGIBridge

    args = argparse.Namespace(host="127.0.0.1", port=free_port(), threads=4, max_connections=300,
                              keep_alive=5, header_timeout=1.0, body_timeout=1.0)
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


def test_a_body_sent_at_once_is_answered(served):
    body = b'{"factions": ["atreides", "fremen"]}'
    sock = socket.create_connection(("127.0.0.1", served), timeout=15)
    sock.sendall(b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body)
    answer = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            break
        answer += chunk
    sock.close()
    assert answer.startswith(b"HTTP/1.1 201"), answer[:200]


def test_an_oversized_request_head_is_refused_and_the_connection_closed(served):
    """A request head past 64 KB (h11's limit, h11_max_incomplete_event_size) is refused at once
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

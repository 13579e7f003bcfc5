"""A seat's view pushed down its live stream (companion/web/push.py, on the real server): another
seat's change brings the view itself as ``event: view`` (no request needed), the same answer the
view route gives that seat; a change the seat made itself is only announced; parts the page shows
are left out; a re-issued seat's stream brings no view; and nothing is pushed to a stream that
did not ask (the board screen, an anonymous listener)."""
from __future__ import annotations

import re
import socket
import time
from urllib.parse import quote

from conftest import SIX, act, create_table
from test_streams import served  # noqa: F401 - the real server on a thread (a fixture)


class Feed:
    """A raw SSE client holding one stream, split into events."""

    def __init__(self, port: int, code: str, query: str, cookie: str | None = None):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        extra = f"Cookie: {cookie}\r\n" if cookie else ""
        self.sock.sendall(f"GET /t/{code}/events?{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                          f"Accept: text/event-stream\r\n{extra}\r\n".encode())
        self.buf = b""
        self.closed = False

    def read(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.closed:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return
            if not chunk:
                self.closed = True
                return
            self.buf += chunk

    def body(self) -> str:
        """The stream's text so far (its chunked framing taken off; a chunk not yet whole waits)."""
        head, _, rest = self.buf.partition(b"\r\n\r\n")
        if b"chunked" not in head.lower():
            return rest.decode("utf-8", "replace")
        out = bytearray()
        while True:
            size_line, sep, after = rest.partition(b"\r\n")
            if not sep:
                break
            size = int(size_line.split(b";")[0] or b"0", 16)
            if size == 0 or len(after) < size + 2:
                break
            out += after[:size]
            rest = after[size + 2:]
        return out.decode("utf-8", "replace")

    def events(self) -> list[tuple[str, str, str]]:
        """(id, event, data) of every whole event so far (pings and retry lines left out)."""
        out = []
        for block in self.body().split("\n\n")[:-1]:
            ident, name, data = "", "message", []
            for line in block.split("\n"):
                if line.startswith("id: "):
                    ident = line[4:]
                elif line.startswith("event: "):
                    name = line[7:]
                elif line.startswith("data:"):
                    data.append(line[6:] if line[5:6] == " " else line[5:])
            if name != "message" or data:
                out.append((ident, name, "\n".join(data)))
        return out

    def wait_for(self, name: str, timeout: float = 15) -> tuple[str, str, str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for e in self.events():
                if e[1] == name:
                    return e
            self.read(0.2)
            if self.closed:
                break
        raise AssertionError(f"no {name!r} event; got {self.buf[-400:]!r}")

    def close(self) -> None:
        self.sock.close()


def view_of(client, code: str, token: str, headers: dict | None = None) -> str:
    client.set_cookie(f"seat_{code}", token)
    r = client.get(f"/t/{code}/view", headers={"HX-Request": "true", **(headers or {})})
    assert r.status_code == 200
    return r.get_data(as_text=True)


def test_another_seats_change_brings_this_seats_view_down_its_stream(app, served):  # noqa: F811
    client = app.test_client()
    t = create_table(client, SIX)
    feed = Feed(served, t.code, "since=0&parts=view", f"seat_{t.code}={t.seats['atreides']}")
    try:
        feed.read(0.5)
        act(client, t.code, t.seats["harkonnen"], type="bribe", **{"from": "harkonnen"}, to="atreides", spice=1)
        ident, _, html = feed.wait_for("view")
        assert ident == "1"
        assert 'data-shown-revision="1"' in html
        # exactly what the view route answers this seat (its own hidden facts, nobody else's)
        assert html == view_of(app.test_client(), t.code, t.seats["atreides"])
        assert "changed" not in [e[1] for e in feed.events()]
    finally:
        feed.close()


def test_a_change_the_seat_made_itself_is_only_announced(app, served):  # noqa: F811
    client = app.test_client()
    t = create_table(client, SIX)
    feed = Feed(served, t.code, "since=0&parts=view", f"seat_{t.code}={t.seats['atreides']}")
    try:
        feed.read(0.5)
        act(client, t.code, t.seats["atreides"], type="bribe", **{"from": "atreides"}, to="harkonnen", spice=1)
        assert feed.wait_for("changed") == ("1", "changed", "1")  # its own answer brought the view
        assert "view" not in [e[1] for e in feed.events()]
        act(client, t.code, t.host, type="storm.set", sector=5)  # the next one is another seat's
        assert feed.wait_for("view")[0] == "2"
    finally:
        feed.close()


def test_the_parts_the_page_shows_are_left_out_of_the_push(app, served):  # noqa: F811
    client = app.test_client()
    t = create_table(client, SIX)
    page = view_of(app.test_client(), t.code, t.seats["fremen"])
    parts = dict(re.findall(r'id="([a-z-]+)" data-etag="([0-9a-f]+)"', page))
    assert "board" in parts and "my-panel" in parts, parts
    have = quote(",".join(f"{k}={v}" for k, v in parts.items()))
    feed = Feed(served, t.code, f"since=0&parts=view&have={have}", f"seat_{t.code}={t.seats['fremen']}")
    try:
        feed.read(0.5)
        act(client, t.code, t.host, type="spice.set", faction="emperor", amount=17)  # behind a shield
        html = feed.wait_for("view")[2]
        assert f'id="board" data-etag="{parts["board"]}" data-same' in html  # the page keeps its board
        assert len(html) < len(page) / 3, (len(html), len(page))
        # the next push knows what this one left: still the same board, still left out
        act(client, t.code, t.host, type="spice.set", faction="emperor", amount=18)
        deadline = time.monotonic() + 15
        while len([e for e in feed.events() if e[1] == "view"]) < 2 and time.monotonic() < deadline:
            feed.read(0.2)
        second = [e for e in feed.events() if e[1] == "view"][1][2]
        assert f'id="board" data-etag="{parts["board"]}" data-same' in second
    finally:
        feed.close()


def test_a_reissued_seats_stream_brings_no_view(app, served):  # noqa: F811
    client = app.test_client()
    t = create_table(client, SIX)
    act(client, t.code, t.seats["guild"], type="spice.set", faction="guild", amount=23)
    feed = Feed(served, t.code, "since=1&parts=view", f"seat_{t.code}={t.seats['guild']}")
    try:
        feed.read(0.5)
        app.extensions["tables"].reissue(t.code, "guild")  # the phone is no longer the Guild's
        act(client, t.code, t.host, type="storm.set", sector=9)
        feed.read(2)
        names = [e[1] for e in feed.events()]
        assert "view" not in names, names
        assert ">23<" not in feed.body()
    finally:
        feed.close()


def test_a_stream_that_did_not_ask_gets_no_view(app, served):  # noqa: F811
    client = app.test_client()
    t = create_table(client, SIX)
    anonymous = Feed(served, t.code, "since=0&parts=view")  # the board screen: no seat
    plain = Feed(served, t.code, "since=0", f"seat_{t.code}={t.seats['bg']}")  # a seat, not asking
    try:
        anonymous.read(0.3)
        act(client, t.code, t.host, type="storm.set", sector=3)
        for feed in (anonymous, plain):
            assert feed.wait_for("changed")[2] == "1"
            assert "view" not in [e[1] for e in feed.events()]
    finally:
        anonymous.close()
        plain.close()


# -- how pushes are rendered (companion/web/push.py PushRenderer) -------------------------------------

def test_one_change_renders_every_seats_push_in_one_job(app, served):  # noqa: F811
    """The six streams a change wakes are rendered in one hand-off to the push thread, not six."""
    app.config["SSE_HEARTBEAT"] = 30  # no ping lands between the streams' wake-ups
    client = app.test_client()
    t = create_table(client, SIX)
    feeds = [Feed(served, t.code, "since=0&parts=view", f"seat_{t.code}={t.seats[f]}") for f in SIX]
    try:
        for feed in feeds:
            feed.read(0.3)
        pushes = app.extensions["pushes"]
        jobs, views = pushes.batches, pushes.views
        act(client, t.code, t.host, type="storm.set", sector=4)  # the host's: every faction is pushed
        for feed, faction in zip(feeds, SIX):
            ident, _, html = feed.wait_for("view")
            assert ident == "1"
            assert html == view_of(app.test_client(), t.code, t.seats[faction])  # each its own seat's view
        assert pushes.views - views == 6
        assert pushes.batches - jobs == 1
    finally:
        for feed in feeds:
            feed.close()


def _renderer_and_pusher(app, code: str, token: str):
    from companion.web.asgi import asgi_app
    from companion.web.push import SeatPush

    server = asgi_app(app, 2)
    scope = {"type": "http", "method": "GET", "path": f"/t/{code}/events", "root_path": "", "scheme": "http",
             "http_version": "1.1", "query_string": b"parts=view", "server": ("127.0.0.1", 80),
             "headers": [(b"host", b"127.0.0.1"), (b"cookie", f"seat_{code}={token}".encode())]}
    return server, SeatPush(scope, code)


def test_a_push_waits_while_a_phones_request_is_being_answered(app):
    """An entry's answer is what the tapping phone waits for: a push is not rendered beside it
    (Python runs one thread at a time), it waits until no request is in flight."""
    import threading

    client = app.test_client()
    t = create_table(client, SIX)
    server, pusher = _renderer_and_pusher(app, t.code, t.seats["atreides"])
    server.pushes.yield_for = 30.0
    server.wsgi.idle.clear()  # a request in flight
    done = []
    worker = threading.Thread(target=lambda: done.append(server.pushes.render_all([pusher])))
    worker.start()
    worker.join(0.5)
    assert not done, "the push was rendered while a request was being answered"
    server.wsgi.idle.set()  # answered
    worker.join(10)
    assert done and done[0][0] is not None and 'data-shown-revision="0"' in done[0][0][1]


def test_a_push_is_never_starved_by_requests(app):
    """Requests that never stop coming delay a push by ``yield_for`` at most, never for ever."""
    client = app.test_client()
    t = create_table(client, SIX)
    server, pusher = _renderer_and_pusher(app, t.code, t.seats["fremen"])
    server.pushes.yield_for = 0.05
    server.wsgi.idle.clear()  # requests in flight, and they stay so
    began = time.monotonic()
    (shown, html, message), = server.pushes.render_all([pusher])
    assert time.monotonic() - began < 5
    assert shown == 0 and message.startswith(b"id: 0\nevent: view\ndata: <")
    assert server.pushes.waited >= 0.05


def test_the_bridge_says_when_a_request_is_in_flight(app):
    """What pushes wait for: ``idle`` is clear while a request is being answered, set after."""
    import asyncio

    from companion.web.bridge import WSGIBridge

    seen = []

    def wsgi(environ, start_response):
        seen.append(bridge.idle.is_set())
        start_response("200 OK", [("Content-Type", "text/plain")])
        return [b"ok"]

    bridge = WSGIBridge(wsgi, 2)
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/x", "query_string": b"", "headers": []}
    assert bridge.idle.is_set()
    asyncio.run(bridge(scope, receive, send))
    assert seen == [False]
    assert bridge.idle.is_set() and bridge.in_flight == 0
    assert sent[0]["status"] == 200 and sent[1]["body"] == b"ok"


def test_a_job_of_several_views_waits_for_requests_once_not_per_view(app):
    """The views of one job share one wait: a job that waits holds up the jobs queued behind it."""
    from companion.web.push import SeatPush

    client = app.test_client()
    t = create_table(client, SIX)
    server, _ = _renderer_and_pusher(app, t.code, t.seats["fremen"])
    scope = _renderer_and_pusher(app, t.code, t.seats["bg"])[1].scope
    server.pushes.yield_for = 0.3
    server.wsgi.idle.clear()  # requests in flight all along
    began = time.monotonic()
    answers = server.pushes.render_all([SeatPush(scope, t.code) for _ in range(4)])
    took = time.monotonic() - began
    assert all(a is not None for a in answers)
    assert 0.3 <= server.pushes.waited < 0.6, server.pushes.waited  # not 4 x 0.3
    assert took < 1.2

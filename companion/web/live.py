"""Live updates over server-sent events.

This stream carries no game content at all: only ``event: changed`` with the new revision.
Each phone then fetches its own filtered view, so a secret can never travel on it. (The real
server's native stream can bring a seat its own view instead, when the page asks for it:
companion/web/push.py; this one answers that request with ``changed`` too.)
A comment line every few seconds keeps proxies and sleepy Wi-Fi from closing the connection;
phones that wake from sleep reconnect and resync by themselves (see static/app.js).
Any browser that knows the table code may listen (the public board screen has no seat); a seat's
credential marks that seat connected (``presence``) while its stream is open, and seat changes are
announced as ``event: seats`` with the presence epoch.

The real server serves this endpoint natively on its event loop (companion/web/asgi.py, same
messages), so an open stream holds no thread. This Flask view is the same stream for plain WSGI
servers and for Flask's test client: there it holds a worker thread while it is open.
"""
from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, request, stream_with_context

from . import auth

bp = Blueprint("live", __name__)

HEARTBEAT_SECONDS = 10.0


def wake_streams_on_seat_changes(state) -> None:
    """A seat change (presence epoch) wakes the streams waiting on that table's revision."""
    tables = state.app.extensions["tables"]

    def wake(code: str, epoch: int) -> None:
        # called from the event loop too (asgi.py streams): never load a table or wait for its lock
        t = tables.loaded(code)
        if t is not None and t.lock.acquire(blocking=False):
            try:
                t.changed.notify_all()
            finally:
                t.lock.release()

    state.app.extensions["presence"].subscribe(wake)


bp.record_once(wake_streams_on_seat_changes)


@bp.get("/t/<code>/events")
def events(code):
    tables = current_app.extensions["tables"]
    table = tables.table(code)
    if table is None:
        abort(404)
    role, _ = auth.seat_role(code, api=False)  # None: an anonymous listener (the public board screen)
    presence = current_app.extensions["presence"]
    token = auth.bearer_token() or request.cookies.get(auth.seat_cookie(code))
    try:
        since = int(request.args.get("since", request.headers.get("Last-Event-ID", -1)))
    except ValueError:
        since = -1
    heartbeat = float(current_app.config.get("SSE_HEARTBEAT", HEARTBEAT_SECONDS))
    once = bool(current_app.config.get("SSE_ONCE"))  # tests: stop after the first message

    @stream_with_context
    def stream():
        seen = since
        seats = presence.enter(table.code, role) if role else presence.epoch(table.code)
        try:
            yield "retry: 1000\n\n"
            while True:
                if table.known_revision != seen:  # includes entries another process made
                    seen = table.known_revision
                    yield f"id: {seen}\nevent: changed\ndata: {seen}\n\n"
                    if once:
                        return
                    continue
                if presence.epoch(table.code) != seats:
                    seats = presence.epoch(table.code)
                    yield f"event: seats\ndata: {seats}\n\n"
                    if role and tables.role_for(table.code, token) != role:
                        return  # this seat was re-issued: the phone is no longer connected as it
                    continue
                current = tables.wait_for_change(table.code, seen, heartbeat)
                if current == seen and presence.epoch(table.code) == seats:
                    yield ": ping\n\n"
        finally:
            if role:
                presence.leave(table.code, role)

    response = Response(stream(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response

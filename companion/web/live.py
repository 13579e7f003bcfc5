"""Live updates over server-sent events.

The stream carries no game content at all: only ``event: changed`` with the new revision.
Each phone then fetches its own filtered view, so a secret can never travel on the stream.
A comment line every few seconds keeps proxies and sleepy Wi-Fi from closing the connection;
phones that wake from sleep reconnect and resync by themselves (see static/app.js).

Anyone who knows the table code may listen (the stream carries revision numbers only); a seat's
credential, when sent, marks that seat connected in the presence registry.

The real server serves this endpoint natively on its event loop (companion/web/asgi.py), so an
open stream holds no thread. This Flask view is the same stream for plain WSGI servers and for
Flask's test client: there it holds a worker thread while it is open.
"""
from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, request, stream_with_context

from . import auth

bp = Blueprint("live", __name__)

HEARTBEAT_SECONDS = 10.0


@bp.get("/t/<code>/events")
def events(code):
    tables = current_app.extensions["tables"]
    table = tables.table(code)
    if table is None:
        abort(404)
    role, _ = auth.seat_role(code, api=False)
    presence = current_app.extensions["presence"]
    try:
        since = int(request.args.get("since", request.headers.get("Last-Event-ID", -1)))
    except ValueError:
        since = -1
    heartbeat = float(current_app.config.get("SSE_HEARTBEAT", HEARTBEAT_SECONDS))
    once = bool(current_app.config.get("SSE_ONCE"))  # tests: stop after the first message

    @stream_with_context
    def stream():
        seen = since
        if role is not None:
            presence.enter(table.code, role)
        seats_seen = presence.epoch(table.code)
        try:
            yield "retry: 1000\n\n"
            while True:
                if table.known_revision != seen:
                    seen = table.known_revision
                    yield f"id: {seen}\nevent: changed\ndata: {seen}\n\n"
                    if once:
                        return
                    continue
                if presence.epoch(table.code) != seats_seen:
                    seats_seen = presence.epoch(table.code)
                    yield f"event: seats\ndata: {seats_seen}\n\n"
                    continue
                current = tables.wait_for_change(table.code, seen, heartbeat)
                if current == seen:
                    yield ": ping\n\n"
        finally:
            if role is not None:
                presence.leave(table.code, role)

    response = Response(stream(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response

"""Live updates over server-sent events.

The stream carries no game content at all: only ``event: changed`` with the new revision.
Each phone then fetches its own filtered view, so a secret can never travel on the stream.
A comment line every few seconds keeps proxies and sleepy Wi-Fi from closing the connection;
phones that wake from sleep reconnect and resync by themselves (see static/app.js).
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
    if role is None:
        abort(401)
    try:
        since = int(request.args.get("since", request.headers.get("Last-Event-ID", -1)))
    except ValueError:
        since = -1
    heartbeat = float(current_app.config.get("SSE_HEARTBEAT", HEARTBEAT_SECONDS))
    once = bool(current_app.config.get("SSE_ONCE"))  # tests: stop after the first message

    @stream_with_context
    def stream():
        seen = since
        yield "retry: 1000\n\n"
        while True:
            if table.revision != seen:
                seen = table.revision
                yield f"id: {seen}\nevent: changed\ndata: {seen}\n\n"
                if once:
                    return
                continue
            current = tables.wait_for_change(table.code, seen, heartbeat)
            if current == seen:
                yield ": ping\n\n"

    response = Response(stream(), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-cache, no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response

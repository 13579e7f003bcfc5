"""The JSON API (documented in docs/api.md); the pages use the same service underneath."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify, make_response, request, url_for

from .. import games
from ..table.once import KeyRefused, Once, fingerprint, parse_key, run_once
from ..table.service import Conflicts, EntryError, Forbidden, Stale
from ..table.views import view_for
from . import auth
from .security import read_json

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.after_request
def private_answers_are_not_cached(response):
    """Table answers may carry a seat's secrets: never keep them in a browser or proxy cache."""
    if "/tables/" in (request.path or ""):
        response.headers["Cache-Control"] = "no-store"
    return response


def tables():
    return current_app.extensions["tables"]


def error(status: int, message: str, rule: str | None = None, **extra):
    body = {"error": {"message": message, "rule": rule}}
    body["error"].update(extra)
    return make_response(jsonify(body), status)


def join_url(code: str) -> str:
    base = current_app.config.get("PUBLIC_URL")
    if base:
        return base.rstrip("/") + f"/t/{code}/join"
    return url_for("pages.join", code=code, _external=True)


def announce(url: str) -> None:
    """When serving from the terminal, print each new table's join address and QR code there."""
    if current_app.config.get("TERMINAL_QR"):
        from ..cli import terminal_qr
        print(f"\nNew table: phones join at {url}\n{terminal_qr(url)}", flush=True)


def table_or_404(code: str):
    t = tables().table(code)
    if t is None:
        abort(error(404, f"There is no table {code.upper()!r} on this server."))
    return t


def authenticated(code: str) -> str:
    """The caller's role at this table, or abort 401. Cookie callers must pass CSRF on writes."""
    table_or_404(code)
    role, via = auth.seat_role(code, api=True)
    if role is None:
        abort(error(401, "Missing or unknown credential for this table: join it first."))
    if via == "cookie" and request.method not in ("GET", "HEAD", "OPTIONS"):
        auth.require_csrf()
    return role


def entry_outcome(code: str, role: str, fn) -> tuple[int, dict]:
    """Run a write and map its outcome onto HTTP: 200, 403, 409, 422 (status, JSON body)."""
    try:
        state = fn()
    except Stale as exc:
        fresh = view_for(tables().table(code).state, role)
        return 409, {"error": {"message": str(exc), "rule": None, "revision": exc.current}, "state": fresh}
    except Conflicts as exc:  # an amendment later entries no longer survive: nothing changed
        return 409, {"error": {"message": str(exc), "rule": None, "conflicts": exc.conflicts,
                               "overridable": not exc.hard}}
    except Forbidden as exc:
        return 403, {"error": {"message": str(exc), "rule": None}}
    except EntryError as exc:
        return 422, {"error": exc.to_dict()}
    return 200, view_for(state, role)


def request_once(code: str, role: str, kind: str, body) -> Once | None:
    """The request's ``Idempotency-Key`` (None without one); a malformed key aborts with 422."""
    try:
        key = parse_key(request.headers.get("Idempotency-Key"))
    except KeyRefused as exc:
        abort(error(422, exc.message))
    if key is None:
        return None
    return Once(key, fingerprint(role, kind, body), lambda state, entry: view_for(state, role))


def run_entry(code: str, role: str, kind: str, body, fn):
    """A write, answered once per ``Idempotency-Key``: a repeat gets the first answer again."""
    once = request_once(code, role, kind, body)
    try:
        outcome = run_once(tables(), code, once, lambda o: entry_outcome(code, role, lambda: fn(o)))
    except KeyRefused as exc:
        return error(422, exc.message)
    response = make_response(jsonify(outcome.body), outcome.status)
    if outcome.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


@bp.post("/tables")
def create_table():
    """A new table of the body's ``game`` (default: the default game), its settings read by that
    game's web part (``settings_from_api``: each field checked, one sentence when refused)."""
    body = read_json()
    if not isinstance(body, dict):
        return error(422, games.web_of(games.get(None)).API_BODY_HINT)
    game_id = body.get("game")
    if game_id is not None and not isinstance(game_id, str):
        return error(422, f"game: the id of a game this server plays ({', '.join(games.game_ids())}).")
    try:
        game = games.get(game_id)
    except games.ConfigError as exc:
        return make_response(jsonify({"error": EntryError(exc.message, exc.rule).to_dict()}), 422)
    try:
        settings = games.web_of(game).settings_from_api(body)
    except games.ConfigError as exc:
        return error(422, exc.message, exc.rule, **({"fields": exc.fields} if exc.fields else {}))
    try:
        created = tables().create_table(game.id, settings)
    except EntryError as exc:
        return make_response(jsonify({"error": exc.to_dict()}), 422)
    body = {"table": created["code"], "host_token": created["host_token"], "seats": created["seats"],
            "join_url": join_url(created["code"])}
    announce(body["join_url"])
    return make_response(jsonify(body), 201)


@bp.get("/tables/<code>/state")
def state(code):
    role = authenticated(code)
    return jsonify(view_for(tables().table(code).state, role))


@bp.post("/tables/<code>/actions")
def actions(code):
    role = authenticated(code)
    body = read_json()
    if not isinstance(body, dict):
        return error(422, "Send the entry as a JSON object with a 'type' and the 'revision' you saw.")
    return run_entry(code, role, "actions", body, lambda once: tables().submit(code, role, body, once=once))


@bp.post("/tables/<code>/undo")
def undo(code):
    role = authenticated(code)
    body = read_json() if request.get_data(cache=True).strip() else {}
    if not isinstance(body, dict):
        return error(422, "Send {\"revision\": n} (the revision you saw) to undo, or an empty object.")
    revision = body.get("revision")
    if revision is not None and (not isinstance(revision, int) or isinstance(revision, bool)):
        return error(422, "revision: the number of the revision you saw.")
    extra = sorted(set(body) - {"revision"})
    if extra:
        return error(422, f"{extra[0]}: an undo takes only 'revision'.")
    return run_entry(code, role, "undo", body, lambda once: tables().undo(code, role, revision, once=once))


@bp.post("/tables/<code>/amend")
def amend(code):
    """Correct an earlier entry (or strike it, ``"entry": null``); every later entry replays."""
    role = authenticated(code)
    body = read_json()
    if not isinstance(body, dict):
        return error(422, 'Send {"seq": n, "entry": {...} or null, "reason": "...", "revision": r}.')
    return run_entry(code, role, "amend", body, lambda once: tables().amend(code, role, body))


@bp.get("/tables/<code>/history")
def history(code):
    role = authenticated(code)
    return jsonify({"entries": tables().history(code, role)})


@bp.get("/tables/<code>/story")
def story(code):
    """The whole game told, every secret included: for every seat, the host and the board once the
    game is over; 403 to everyone before."""
    authenticated(code)
    try:
        return jsonify(tables().story(code))
    except Forbidden as exc:
        return error(403, str(exc))


@bp.get("/tables/<code>/export")
def export(code):
    role = authenticated(code)
    if role != "host":
        return error(403, "Only the host can export the table (it contains every secret).")
    try:
        response = jsonify(tables().export(code))
    except Forbidden as exc:
        return error(403, str(exc))
    response.headers["Content-Disposition"] = f'attachment; filename="dune-table-{code.upper()}.json"'
    return response


def renders(state: dict, config: dict) -> None:
    """Render every seat's pages from a state with the table's game (an import is refused if one fails)."""
    games.web_of(games.of_config(config)).renders(state, config)


@bp.post("/tables/import")
def import_table():
    data = read_json()
    try:
        created = tables().import_table(data, check=renders)
    except EntryError as exc:
        return make_response(jsonify({"error": exc.to_dict()}), 422)
    return make_response(jsonify({"table": created["code"], "host_token": created["host_token"],
                                  "seats": created["seats"], "join_url": join_url(created["code"])}), 201)


@bp.post("/tables/<code>/host/reissue")
def reissue_host(code):
    """A new host credential: the old one answers 401 at once and its live streams end."""
    if authenticated(code) != "host":
        return error(403, "Only the host can re-issue the host credential.")
    token = tables().reissue_host(code)
    current_app.extensions["presence"].bump(code)
    return jsonify({"host_token": token})


@bp.post("/tables/<code>/seats/<seat>/reissue")
def reissue(code, seat):
    role = authenticated(code)
    if role != "host":
        return error(403, "Only the host can re-issue a seat.")
    try:
        token = tables().reissue(code, seat)
    except EntryError as exc:
        return make_response(jsonify({"error": exc.to_dict()}), 422)
    current_app.extensions["presence"].bump(code)  # the host page's seat list refreshes
    game = games.of_config(tables().table(code).config)
    return jsonify({game.seat_field: seat, "seat_token": token})

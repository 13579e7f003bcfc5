"""The JSON API (documented in docs/api.md); the pages use the same service underneath."""
from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify, make_response, request, url_for

from ..games.dune.rules.board import load_board
from ..table.service import EntryError, Forbidden, Stale
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


def asking_faction(code: str):
    """(table, faction) for a seat's own questions; the host names the faction with ?faction=F."""
    role = authenticated(code)
    t = tables().table(code)
    faction = request.args.get("faction") or role
    if faction not in t.state["factions_present"]:
        abort(error(422, "Say which faction is asking: ?faction=F (a faction at this table)."))
    if role not in ("host", faction):
        abort(error(403, "A seat can only ask about its own faction."))
    return t, faction


def run_entry(code: str, role: str, fn):
    """Run a write and map its outcome onto HTTP: 200, 403, 409, 422."""
    try:
        state = fn()
    except Stale as exc:
        fresh = view_for(tables().table(code).state, role)
        body = {"error": {"message": str(exc), "rule": None, "revision": exc.current}, "state": fresh}
        return make_response(jsonify(body), 409)
    except Forbidden as exc:
        return error(403, str(exc))
    except EntryError as exc:
        return make_response(jsonify({"error": exc.to_dict()}), 422)
    return jsonify(view_for(state, role))


@bp.post("/tables")
def create_table():
    body = read_json()
    if not isinstance(body, dict):
        return error(422, "Send a JSON object: {\"factions\": [...], \"turns\": 10, \"options\": {}}.")
    if body.get("game") not in (None, "dune"):  # another game: its own settings
        game = body.get("game")
        if not isinstance(game, str):
            return error(422, "game: the id of a game this server plays, e.g. \"secret-harkonnen\".")
        try:
            created = tables().create_table(game, {k: v for k, v in body.items() if k != "game"})
        except EntryError as exc:
            return make_response(jsonify({"error": exc.to_dict()}), 422)
        body = {"table": created["code"], "host_token": created["host_token"], "seats": created["seats"],
                "join_url": join_url(created["code"])}
        announce(body["join_url"])
        return make_response(jsonify(body), 201)
    factions = body.get("factions")
    turns = body.get("turns", 10)
    options = body.get("options", {})
    if not isinstance(factions, list) or not all(isinstance(f, str) for f in factions) or len(factions) > 11:
        return error(422, "factions: a list of 2 to 11 faction ids (9 KISS factions, plus CHOAM and Richese as "
                          "an add-on), e.g. [\"atreides\", \"fremen\"].")
    if not isinstance(turns, int) or isinstance(turns, bool):
        return error(422, "turns: a whole number of turns (the rules say 10).")
    if not isinstance(options, dict):
        return error(422, "options: an object, e.g. {\"discovery_tokens\": true}.")
    extra = sorted(set(body) - {"factions", "turns", "options", "game"})
    if extra:
        return error(422, f"{extra[0]}: not a field of a new table (factions, turns, options).")
    from pydantic import ValidationError

    from ..games.dune.entries import TableOptions
    from ..table.service import validation_message
    try:
        options = TableOptions.model_validate(options).model_dump(exclude_none=True)
    except ValidationError as exc:
        message, fields = validation_message(exc)
        return error(422, f"options.{message}", fields=fields)
    try:
        created = tables().create(factions, turns, options)
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
    return run_entry(code, role, lambda: tables().submit(code, role, body))


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
    return run_entry(code, role, lambda: tables().undo(code, role, revision))


@bp.get("/tables/<code>/history")
def history(code):
    role = authenticated(code)
    return jsonify({"entries": tables().history(code, role)})


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
    """Render every seat's table fragment from a state (an import is refused if one fails)."""
    from flask import render_template

    from .. import games
    from ..games.dune.state import PHASES
    if games.of_config(config).id != "dune":
        return
    for role in ["host", *config["factions"]]:
        render_template("dune/view.html", code=state["table"], role=role, s=view_for(state, role), error=None,
                        phases=PHASES)
        render_template("dune/proposals.html", code=state["table"], role=role, s=view_for(state, role))
    render_template("dune/board_status.html", code=state["table"], s=view_for(state, "board"))


@bp.post("/tables/import")
def import_table():
    data = read_json()
    try:
        created = tables().import_table(data, check=renders)
    except EntryError as exc:
        return make_response(jsonify({"error": exc.to_dict()}), 422)
    return make_response(jsonify({"table": created["code"], "host_token": created["host_token"],
                                  "seats": created["seats"], "join_url": join_url(created["code"])}), 201)


@bp.post("/tables/<code>/seats/<faction>/reissue")
def reissue(code, faction):
    role = authenticated(code)
    if role != "host":
        return error(403, "Only the host can re-issue a seat.")
    try:
        token = tables().reissue(code, faction)
    except EntryError as exc:
        return make_response(jsonify({"error": exc.to_dict()}), 422)
    current_app.extensions["presence"].bump(code)  # the host page's seat list refreshes
    return jsonify({"faction": faction, "seat_token": token})


@bp.get("/tables/<code>/reach")
def reach(code):
    """"Where can I go?": legal moves for one stack and legal shipments from reserves, with costs."""
    t, faction = asking_faction(code)
    sector = request.args.get("sector")
    try:
        sector = int(sector) if sector not in (None, "", "0") else None
    except ValueError:
        return error(422, "sector: a number from 1 to 18.")
    from ..games.dune.rules.errors import RuleViolation
    from ..games.dune.entries.moves import where_can_i_go
    try:
        with t.lock:
            body = where_can_i_go(t.state, load_board(), faction, request.args.get("territory"), sector)
    except RuleViolation as exc:
        return error(422, exc.message, exc.rule)
    return jsonify(body)


@bp.get("/tables/<code>/karama")
def table_karama(code):
    """The karama options open to the asking seat now (host: ?faction=F), current phase first."""
    t, faction = asking_faction(code)
    from ..games.dune.battles import karama_for
    with t.lock:
        return jsonify(karama_for(t.state, faction))


@bp.get("/tables/<code>/battles")
def table_battles(code):
    """The seat's battles (territories shared with an opponent, not split by the storm), every
    battle the board implies (``implied``, with the aggressor) and the battles recorded this turn."""
    t, faction = asking_faction(code)
    from ..games.dune.battles import battles_for, implied_battles
    with t.lock:
        state = t.state
        return jsonify({"faction": faction, "battles": battles_for(state, load_board(), faction),
                        "implied": implied_battles(state, load_board()),
                        "recorded": [b for b in state.get("battles", []) if b["turn"] == state["turn"]]})


@bp.get("/actions")
def action_types():
    """Every entry type with its JSON schema: the API's own reference, kept true by tests."""
    registry = tables().registry
    out = {}
    for name, at in sorted(registry.items()):
        out[name] = {"schema": at.model.model_json_schema(by_alias=True), "host_only": at.host_only,
                     "secret": at.secret, "acting_faction_field": at.faction_field}
    return jsonify(out)


@bp.get("/board")
def board():
    b = load_board()
    return jsonify({
        "sectors": b.sectors,
        "storm_start": b.storm_start,
        "territories": [
            {"name": t.name, "slug": t.slug, "type": t.type, "sectors": list(t.sectors),
             "spice_blow": t.spice_blow, "neighbours": list(t.neighbours),
             "fremen_ship_range": t.fremen_ship_range, "shield_wall_protected": t.shield_wall_protected}
            for t in b.territories.values()
        ],
        "discovery_tokens": b.discovery_tokens,
    })

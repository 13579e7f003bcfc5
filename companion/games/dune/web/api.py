"""Dune's JSON routes (documented in docs/api.md): where a stack can go, the karama options and
the battles of the asking seat, the board's facts; and Dune's part of creating and restoring a
table through the API."""
from __future__ import annotations

from flask import Blueprint, abort, jsonify, render_template, request

from ....games import ConfigError
from ....table.views import view_for
from ....web.api import authenticated, error, tables
from ..rules.board import load_board

bp = Blueprint("dune_api", __name__, url_prefix="/api")


API_BODY_HINT = "Send a JSON object: {\"factions\": [...], \"turns\": 10, \"options\": {}}."


def asking_faction(code: str):
    """(table, faction) for a seat's own questions; the host names the faction with ?faction=F."""
    role = authenticated(code)
    t = tables().table(code)
    if (t.config.get("game") or "dune") != "dune":
        abort(error(404, f"Table {t.code} plays another game: this route is for Dune tables."))
    faction = request.args.get("faction") or role
    if faction not in t.state["factions_present"]:
        abort(error(422, "Say which faction is asking: ?faction=F (a faction at this table)."))
    if role not in ("host", faction):
        abort(error(403, "A seat can only ask about its own faction."))
    return t, faction


def settings_from_api(body: dict) -> dict:
    """``POST /api/tables`` for a Dune table: the body's shape checked field by field (one sentence
    each), the options by their model; raises ConfigError (with ``fields``) when it is refused."""
    factions = body.get("factions")
    turns = body.get("turns", 10)
    options = body.get("options", {})
    if not isinstance(factions, list) or not all(isinstance(f, str) for f in factions) or len(factions) > 11:
        raise ConfigError("factions: a list of 2 to 11 faction ids (9 KISS factions, plus CHOAM and Richese as "
                          "an add-on), e.g. [\"atreides\", \"fremen\"].")
    if not isinstance(turns, int) or isinstance(turns, bool):
        raise ConfigError("turns: a whole number of turns (the rules say 10).")
    if not isinstance(options, dict):
        raise ConfigError("options: an object, e.g. {\"discovery_tokens\": true}.")
    extra = sorted(set(body) - {"factions", "turns", "options", "game"})
    if extra:
        raise ConfigError(f"{extra[0]}: not a field of a new table (factions, turns, options).")
    from pydantic import ValidationError

    from ....table.service import validation_message
    from ..entries import TableOptions
    try:
        options = TableOptions.model_validate(options).model_dump(exclude_none=True)
    except ValidationError as exc:
        message, fields = validation_message(exc)
        raise ConfigError(f"options.{message}", fields=fields) from None
    return {"factions": factions, "turns": turns, "options": options}


def renders(state: dict, config: dict) -> None:
    """Render every seat's table fragment from a state (an import is refused if one fails), with the
    context the pages give it (``pages.page_context``: the legal choices, the spice deck...)."""
    from ....table.service import Table
    from .pages import page_context
    t = Table(state["table"], config)
    t.state = state
    for role in ["host", *config["factions"]]:
        render_template("dune/view.html", **page_context(t, role))
        render_template("dune/proposals.html", code=state["table"], role=role, s=view_for(state, role))
    render_template("dune/board_status.html", code=state["table"], s=view_for(state, "board"))


@bp.get("/tables/<code>/reach")
def reach(code):
    """"Where can I go?": legal moves for one stack and legal shipments from reserves, with costs."""
    t, faction = asking_faction(code)
    sector = request.args.get("sector")
    try:
        sector = int(sector) if sector not in (None, "", "0") else None
    except ValueError:
        return error(422, "sector: a number from 1 to 18.")
    from ..entries.moves import where_can_i_go
    from ..rules.errors import RuleViolation
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
    from ..battles import karama_for
    with t.lock:
        return jsonify(karama_for(t.state, faction))


@bp.get("/tables/<code>/battles")
def table_battles(code):
    """The seat's battles (territories shared with an opponent, not split by the storm), every
    battle the board implies (``implied``, with the aggressor) and the battles recorded this turn."""
    t, faction = asking_faction(code)
    from ..battles import battles_for, implied_battles
    with t.lock:
        state = t.state
        return jsonify({"faction": faction, "battles": battles_for(state, load_board(), faction),
                        "implied": implied_battles(state, load_board()),
                        "recorded": [b for b in state.get("battles", []) if b["turn"] == state["turn"]]})


@bp.get("/actions")
def action_types():
    """Every entry type with its JSON schema: the API's own reference, kept true by tests."""
    registry = tables().registry  # the default game's entry types: Dune's
    out = {}
    for name, at in sorted(registry.items()):
        out[name] = {"schema": at.model.model_json_schema(by_alias=True), "host_only": at.host_only,
                     "secret": at.secret, "acting_faction_field": at.seat_field,
                     "public_fields": sorted(at.public_fields)}
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

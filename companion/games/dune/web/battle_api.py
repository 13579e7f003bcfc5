"""JSON API for battle questions that need no table: Simple Dialing and the karama options.

``GET /api/dial?faction=F&opponent=O&forces=N&starred=M&spice=S[&want=X][&ecaz=E]``
    Without ``want``: ``forces``/``starred`` are the troops dialed; the answer is
    ``{"strength", "troops", "cost", "affordable"}`` (``affordable`` null without ``spice``).
    With ``want``: ``forces``/``starred`` are the troops present in the territory; the answer
    adds ``"best"`` (the cheapest mix reaching the wanted strength:
    ``{"forces", "starred", "bonus", "strength", "troops", "cost", "affordable", "exact"}``)
    and the four top-level figures are those of that mix.
    ``ecaz`` (optional): Ecaz forces in the territory when the faction is Ecaz's ally; half of
    them, rounded up, are added free to the dial (and count toward the cap of 20).

``GET /api/karama?player=F&factions=a,b,c[&ally=X][&phase=P][&used_special=1]``
``[&worthless_used=1][&shrine=1]``
    The ``karama_options`` dict (see ``companion.games.dune.rules.karama``).

``POST /api/battle/outcome`` (JSON) ``{"territory", "aggressor", "plans": {F: PLAN, G: PLAN},
``"traitors": [F...], "kh": bool, "forces_present": {F: {"forces", "starred"}}}``
``[, "no_starred_bonus": [F...]][, "ecaz": {"ally": F, "forces": n}]``
    The outcome of two revealed plans (``companion.games.dune.rules.battle.outcome``): winner, loser, totals,
    leaders killed, forces lost, spice paid and to the winner, discards, explosion, cited lines.

Errors: 422 ``{"error": {"message", "rule"}}``.
"""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from companion.games.dune.rules import battle, dialing, karama
from companion.games.dune.rules.errors import RuleViolation, hard

bp = Blueprint("battle_api", __name__)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"", "0", "false", "no", "off"}


def _error(err: RuleViolation):
    return jsonify({"error": {"message": err.message, "rule": err.rule}}), 422


def _int_arg(name: str, what: str, default: int | None = None) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw.strip() == "":
        return default
    text = raw.strip()
    try:
        return int(text)  # negatives are caught by the rules layer
    except ValueError:
        pass
    try:
        value = float(text)
    except ValueError:
        raise hard(f"{what.capitalize()} must be a whole number, not {text!r}.",
                   dialing.RULE) from None
    return dialing.whole_count(value, what)  # whole floats pass; fractions, inf, nan are refused


def _bool_arg(name: str) -> bool:
    raw = (request.args.get(name) or "").strip().lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise hard(f"{name} must be 1 or 0, not {raw!r}.")


@bp.errorhandler(RuleViolation)
def _rule_violation(err: RuleViolation):
    return _error(err)


@bp.get("/api/dial")
def dial():
    faction = request.args.get("faction")
    opponent = request.args.get("opponent") or None
    forces = _int_arg("forces", "forces", 0)
    starred = _int_arg("starred", "starred forces", 0)
    spice = _int_arg("spice", "spice")
    want = _int_arg("want", "strength wanted")
    ecaz = _int_arg("ecaz", "Ecaz forces", 0)
    bonus = dialing.ecaz_bonus(ecaz)
    if want is None:
        result = dialing.dial_cost(faction, opponent, forces, starred, spice, bonus=bonus)
        return jsonify(result.to_dict())
    best = dialing.best_dial(faction, opponent, want, forces, starred, spice, bonus=bonus)
    body = best.to_dict()
    mix = best.mix()
    mix["exact"] = best.strength == want
    body["best"] = mix
    return jsonify(body)


@bp.get("/api/karama")
def karama_list():
    factions = request.args.get("factions", "")
    result = karama.karama_options(
        request.args.get("player"),
        factions,
        ally=request.args.get("ally") or None,
        used_special=_bool_arg("used_special"),
        bg_worthless_used=_bool_arg("worthless_used"),
        occupies_shrine=_bool_arg("shrine"),
        phase=request.args.get("phase") or None,
    )
    return jsonify(result)


@bp.post("/api/battle/outcome")
def battle_outcome():
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        raise hard("Send a JSON object: territory, aggressor, plans, traitors, kh, forces_present.",
                   battle.RULE_BATTLE)
    traitors = body.get("traitors") or []
    if not isinstance(traitors, list):
        raise hard("traitors is a list of the factions that call a traitor.", battle.RULE_TRAITORS)
    territory = body.get("territory")
    if territory is not None and not isinstance(territory, str):
        raise hard("territory is a territory name.", battle.RULE_BATTLE)
    stopped = body.get("no_starred_bonus") or []
    if not isinstance(stopped, list):
        raise hard("no_starred_bonus is a list of the factions whose Sardaukar/Fedaykin bonus a Karama "
                   "stopped.", battle.RULE_BATTLE)
    ecaz = body.get("ecaz")
    if ecaz is not None and not (isinstance(ecaz, dict) and "ally" in ecaz):
        raise hard('ecaz is {"ally": F, "forces": n}: the Ecaz forces beside their ally in the territory.',
                   battle.RULE_ECAZ)
    result = battle.outcome(body.get("plans"), body.get("aggressor"), territory=territory,
                            traitors=traitors, kh=body.get("kh", False),
                            forces_present=body.get("forces_present"), no_starred_bonus=stopped, ecaz=ecaz)
    return jsonify(result.to_dict())

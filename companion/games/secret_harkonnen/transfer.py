"""Secret Harkonnen's import: a finished game's export (only a game that is over can be exported:
its roles are no secret any more), checked whole before anything replays: the deal first and once,
then players' entries, undos and amendments, each naming an earlier entry it may name."""
from __future__ import annotations

from pydantic import ValidationError

from .. import ConfigError
from ...table.entries import SPINE_ENTRIES
from ...table.service import EXPORT_FORMAT, validation_message

AMEND_FIELDS = SPINE_ENTRIES["amend"] | {"entry"}  # what an amendment stores (table/amend.py)


def parse_import(game, data: dict):
    """(config, events, table code) of a finished game's export (only a game that is over can
    be exported: its roles are no secret any more), checked whole before anything replays."""
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        raise ConfigError(f"Not a table export (expected format {EXPORT_FORMAT!r}).", "sh-setup")
    if set(data) - {"format", "table", "config", "events"}:
        raise ConfigError("Not a valid table export: unknown top-level fields.", "sh-setup")
    config = data.get("config")
    if not isinstance(config, dict) or config.get("game") != game.id or set(config) - {"game", "players"}:
        raise ConfigError("Not a valid table export: config is {\"game\": \"secret-harkonnen\", "
                          "\"players\": [...]}.", "sh-setup")
    config = {"game": game.id, **game.configure({"players": config.get("players")})}
    events = data.get("events")
    if not isinstance(events, list) or not events or len(events) > 5000:
        raise ConfigError("Not a valid table export: events is a list of 1 to 5000 entries.", "sh-setup")
    players = set(config["players"])
    out = []
    for i, e in enumerate(events):
        where = f"Entry {i + 1}"
        if not isinstance(e, dict) or set(e) - {"seq", "seat", "type", "payload", "ts", "secret_for", "summary"}:
            raise ConfigError(f"{where} is not an entry.", "sh-setup")
        if e.get("seq") != i + 1 or isinstance(e.get("seq"), bool):
            raise ConfigError("The export's entries are not numbered 1, 2, 3, ...", "sh-setup")
        ts = e.get("ts")
        if isinstance(ts, bool) or not isinstance(ts, (int, float)) or not 0 <= ts <= 10**11:
            raise ConfigError(f"{where}: ts is a time in seconds.", "sh-setup")
        seat = e.get("seat")
        if e.get("type") == "undo" and i > 0:  # the host (or the entry's maker) took one back
            if seat not in players and seat != "host":
                raise ConfigError(f"{where}: {str(seat)[:20]!r} is not a player at this table.", "sh-setup")
            target = e.get("payload", {}).get("target") if isinstance(e.get("payload"), dict) else None
            if (not isinstance(target, int) or isinstance(target, bool) or not 2 <= target <= i
                    or out[target - 1]["type"] == "undo" or set(e["payload"]) != {"type", "target"}):
                raise ConfigError(f"{where}: an undo names an earlier entry (not the deal, not an undo).",
                                  "sh-setup")
            out.append({"seq": i + 1, "seat": seat, "type": "undo", "payload": {"type": "undo", "target": target},
                        "ts": float(ts), "secret_for": None, "summary": str(e.get("summary") or "undo")[:300]})
            continue
        if e.get("type") == "amend" and i > 0:  # a correction of an earlier entry (replace or strike)
            if seat not in players and seat != "host":
                raise ConfigError(f"{where}: {str(seat)[:20]!r} is not a player at this table.", "sh-setup")
            out.append({"seq": i + 1, "seat": seat, "type": "amend",
                        "payload": _amendment(game, where, e.get("payload"), i, out), "ts": float(ts),
                        "secret_for": None, "summary": str(e.get("summary") or "amend")[:300]})
            continue
        at = game.registry.get(e.get("type"))
        if at is None or (i == 0) != (at.name == "sh.deal"):
            raise ConfigError(f"{where}: the deal comes first and once; then players' entries and undos only.",
                              "sh-setup")
        if seat not in players and not (i == 0 and seat == "host"):
            raise ConfigError(f"{where}: {str(seat)[:20]!r} is not a player at this table.", "sh-setup")
        if not isinstance(e.get("payload"), dict):
            raise ConfigError(f"{where}: payload is an object.", "sh-setup")
        try:
            at.model.model_validate(e["payload"])
        except ValidationError as exc:
            raise ConfigError(f"{where} ({at.name}) is malformed: {validation_message(exc)[0]}", "sh-setup") from None
        secret = "_deal" if at.name == "sh.deal" else (seat if at.secret else None)  # as the entry says
        out.append({"seq": i + 1, "seat": seat, "type": at.name, "payload": e["payload"], "ts": float(ts),
                    "secret_for": secret, "summary": str(e.get("summary") or at.name)[:300]})
    code = data.get("table") if isinstance(data.get("table"), str) else None
    return config, out, code

def _amendment(game, where: str, payload, i: int, out: list) -> dict:
    """An exported amendment's payload, checked: it names an earlier player's entry (not the deal,
    an undo or another amendment), replaces it with an entry of this game or strikes it (null),
    and gives its reason and the later entries it forced."""
    bad = ConfigError(f"{where}: an amendment names an earlier entry (not the deal, an undo or an "
                      f"amendment), the entry that replaces it or null, a reason and what it forced.",
                      "sh-setup")
    if (not isinstance(payload, dict) or set(payload) - AMEND_FIELDS or payload.get("type", "amend") != "amend"
            or not isinstance(payload.get("override", False), bool)
            or not all(isinstance(payload.get(k, ""), str) for k in ("before", "after"))):
        raise bad
    target, entry, forced = payload.get("target"), payload.get("entry", False), payload.get("forced", [])
    if (not isinstance(target, int) or isinstance(target, bool) or not 2 <= target <= i
            or out[target - 1]["type"] in ("undo", "amend")):
        raise bad
    if entry is not None:
        at = game.registry.get(entry.get("type")) if isinstance(entry, dict) else None
        if at is None or at.name == "sh.deal":
            raise bad
        try:
            at.model.model_validate(entry)
        except ValidationError as exc:
            raise ConfigError(f"{where}: the amendment's {at.name} is malformed: {validation_message(exc)[0]}",
                              "sh-setup") from None
    if not isinstance(payload.get("reason"), str) or not isinstance(forced, list) or not all(
            isinstance(f, dict) and isinstance(f.get("seq"), int) and not isinstance(f.get("seq"), bool)
            and target < f["seq"] <= i and isinstance(f.get("message"), str) for f in forced):
        raise bad
    return payload

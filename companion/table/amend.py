"""Correcting the past: an ``amend`` entry replaces (or strikes) an earlier entry, and the table
replays every entry after it through the same handlers and checks.

The store stays append-only: an amendment is ONE new entry (``type: "amend"``) naming its
target, the entry that replaces it (``null``: struck) and the reason, so it is one transaction on
every backend, an undo of it restores everything as it was, and exports carry it. A fold applies
the amendments in force (not undone; the latest one of an entry wins) where their targets stand.

This module knows no game: every entry goes through the table's game (its registry, its context,
its refusal). The planning (``plan``) changes nothing; the service stores the plan's entry.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass, field

from pydantic import ValidationError

from .. import games

SPINE_TYPES = ("undo", "amend")  # entries of the spine itself: never replayed through a game
BODY_FIELDS = {"seq", "entry", "reason", "revision", "override"}


def in_force(events: list[dict], undone: dict[int, int] | set[int]) -> dict[int, dict]:
    """target seq -> the amend entry in force for it (the latest one not undone)."""
    out: dict[int, dict] = {}
    for e in events:
        if e["type"] == "amend" and e["seq"] not in undone:
            out[e["payload"]["target"]] = e
    return out


def effective(events: list[dict], undone) -> list[dict]:
    """The entries a fold applies, in order: undone ones and the spine's own left out, amended
    ones replaced by their amendment (struck ones left out). An entry an amendment forced
    through replays as overridden (the table did it)."""
    amended = in_force(events, undone)
    forced = {f["seq"]: a for a in amended.values() for f in a["payload"].get("forced") or []}
    out = []
    for e in events:
        if e["type"] in SPINE_TYPES or e["seq"] in undone:
            continue
        a = amended.get(e["seq"])
        if a is not None:
            entry = a["payload"]["entry"]
            if entry is None:
                continue
            e = {**e, "type": entry["type"], "payload": entry}
        if e["seq"] in forced:
            e = {**e, "forced_by": forced[e["seq"]]["seq"]}
        out.append(e)
    return out


class AmendError(Exception):
    """A refused amendment: 422 (``validation``: the replacing entry's pydantic error), or 403
    with ``forbidden``. The service turns it into its own errors."""

    def __init__(self, message: str, rule: str | None = None, overridable: bool = False, *,
                 forbidden: bool = False, validation: ValidationError | None = None):
        super().__init__(message)
        self.message, self.rule, self.overridable = message, rule, overridable
        self.forbidden, self.validation = forbidden, validation


class Conflicts(Exception):
    """An amendment that later entries no longer survive (HTTP 409, ``error.conflicts``)."""

    def __init__(self, conflicts: list[dict], hard: bool = False):
        n = len(conflicts)
        super().__init__(f"That correction breaks {n} later entr{'y' if n == 1 else 'ies'}: "
                         + ("some cannot be overridden; correct them first." if hard else
                            "correct them, or override to keep them as the table played them."))
        self.conflicts, self.hard = conflicts, hard


@dataclass
class Plan:
    """What an amendment would do: the entry it stores and the table it leaves."""
    target: dict
    entry: dict | None               # the replacing entry as stored (None: struck)
    entry_summary: str               # its history line ("struck" for a strike)
    before: dict                     # the state just after the target, as it stands now
    after_entry: dict                # the state just after the replacing entry
    state: dict                      # the table after replaying everything
    conflicts: list[dict] = field(default_factory=list)   # later entries now refused
    hard: bool = False               # some conflict cannot be overridden
    secret_for: str | None = None
    now_says: str = ""              # the target's history line as it stands (before → after)


def check_body(body) -> tuple[int, dict | None, str, int, bool]:
    if not isinstance(body, dict):
        raise AmendError('Send {"seq": n, "entry": {...} or null, "reason": "...", "revision": r}.')
    extra = sorted(set(body) - BODY_FIELDS)
    if extra:
        raise AmendError(f"{extra[0]}: an amendment takes seq, entry, reason, revision and override.")
    seq, entry, reason, revision = body.get("seq"), body.get("entry"), body.get("reason"), body.get("revision")
    override = body.get("override", False)
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise AmendError("seq: the number of the entry to correct.")
    if "entry" not in body or not (entry is None or isinstance(entry, dict)):
        raise AmendError("entry: the entry that replaces it (an object with a 'type'), or null to strike it.")
    if not isinstance(reason, str) or not reason.strip():
        raise AmendError("reason: say why, so the table's history explains the correction.")
    if len(reason) > 300:
        raise AmendError("reason: at most 300 characters.")
    if revision is None or not isinstance(revision, int) or isinstance(revision, bool):
        raise AmendError("revision: say which revision of the table this correction was made on.")
    if not isinstance(override, bool):
        raise AmendError("override: true or false.")
    return seq, entry, reason.strip(), revision, override


def plan(service, t, role: str, seq: int, entry: dict | None, override: bool, reason: str) -> Plan:
    """Replay the table with entry ``seq`` replaced by ``entry`` (called with ``t.lock`` held)."""
    game = games.of_config(t.config)
    events = service.all_events(t)
    target = events[seq - 1] if seq <= len(events) and events[seq - 1]["seq"] == seq else \
        next((e for e in events if e["seq"] == seq), None)
    if target is None:
        raise AmendError(f"There is no entry #{seq} at this table.")
    if target["type"] in SPINE_TYPES:
        raise AmendError(f"Entry #{seq} is an {target['type']}: undo it, or correct the entry it names.")
    if seq in t.undone:
        raise AmendError(f"Entry #{seq} was undone (by #{t.undone[seq]}): there is nothing to correct.")
    if role != "host" and role != target["seat"]:
        raise AmendError(f"Only the host or {game.seat_name(target['seat'])}, who made entry #{seq}, can correct it.",
                         forbidden=True)
    why = game.undoable(target)
    if why:
        raise AmendError(why)
    live = effective(events, t.undone)
    prior = [e for e in live if e["seq"] < seq]
    later = [e for e in live if e["seq"] > seq]
    current = next((e for e in live if e["seq"] == seq), None)  # None: struck already

    state = game.new_state(t.code, t.config)
    service._replay(t.code, state, prior, strict=False)
    before = copy.deepcopy(state)
    if current is not None:
        service._replay(t.code, before, [current], strict=False)

    in_place = in_force(events, t.undone).get(seq)
    now_says = in_place["payload"]["after"] if in_place else target["summary"]
    stored, summary, secret_for = None, "struck", target["secret_for"]
    if entry is not None:
        type_ = entry.get("type")
        at = game.registry.get(type_) if isinstance(type_, str) else None
        if at is None or type_ in SPINE_TYPES:
            raise AmendError(f"entry.type: unknown entry type {type_!r}.")
        body = {k: v for k, v in entry.items() if k != "revision"}
        try:
            payload = at.model.model_validate(body)
        except ValidationError as exc:
            raise AmendError("entry", validation=exc) from None
        service.authorise(role, at, payload, t)
        if payload.override and not (payload.reason or "").strip():
            raise AmendError("An override needs a short reason, so the table's history says why.")
        ctx = game.context(target["seat"], payload.override or override, payload.reason or reason)
        try:
            at.handler(ctx, state, payload)
        except game.refusal as exc:
            raise AmendError(f"The correction itself is refused: {exc.message}", exc.rule,
                             overridable=exc.overridable) from None
        stored = payload.model_dump(by_alias=True, exclude={"revision"}, exclude_defaults=False)
        summary = ctx.summary or (at.summary(payload) if at.summary else type_)
        secret_for = secret_for or game.secret_for(at, payload, target["seat"])
    after_entry = copy.deepcopy(state)

    conflicts, hard, applied = [], False, []

    def rebuild() -> dict:  # a refused handler may have changed part of the state: start again
        again = copy.deepcopy(after_entry)
        service._replay(t.code, again, applied, strict=False)
        return again

    for e in later:
        at = game.registry.get(e["type"])
        p = e["payload"]
        try:
            payload = at.model.model_validate(p)
        except (ValidationError, AttributeError) as exc:
            conflicts.append({**conflict(game, role, t.state, e, str(exc)[:200], None), "overridable": False})
            hard = True
            continue
        was_forced = "forced_by" in e and not p.get("override")
        try:
            at.handler(game.context(e["seat"], bool(p.get("override")) or was_forced, p.get("reason")),
                       state, payload)
            applied.append(e)
            continue
        except game.refusal as exc:
            message, rule, can = exc.message, exc.rule, exc.overridable
        except Exception as exc:  # noqa: BLE001 - a handler that cannot apply at all is a hard conflict
            message, rule, can = f"{type(exc).__name__}: {exc}"[:200], None, False
        state = rebuild()
        conflicts.append({**conflict(game, role, t.state, e, message, rule), "overridable": can})
        hard = hard or not can
        if override and can:  # the table does it anyway: the entry replays as overridden
            try:
                at.handler(game.context(e["seat"], True, reason), state, payload)
                applied.append(e)
            except Exception:  # noqa: BLE001
                hard = True
                state = rebuild()
    problems = game.invariants(state)
    if problems:
        raise AmendError(f"That correction would break the game's bookkeeping ({problems[0]}); it was refused.")
    return Plan(target, stored, summary, before, after_entry, state, conflicts, hard, secret_for, now_says)


def conflict(game, viewer: str, state: dict, e: dict, message: str, rule) -> dict:
    """One later entry the correction breaks, as the amending seat may read it."""
    hidden = e["secret_for"] is not None and not game.may_read(viewer, e["secret_for"], state, e["type"])
    if hidden:
        return {"seq": e["seq"], "type": e["type"], "summary": f"{game.seat_name(e['secret_for'])}: private entry",
                "message": "a private entry no longer applies", "rule": None}
    return {"seq": e["seq"], "type": e["type"], "summary": e["summary"], "message": message, "rule": rule}


def amend_entry(p: Plan, reason: str, override: bool) -> tuple[dict, str]:
    """The stored ``amend`` entry and its history line (before → after in words)."""
    forced = [{"seq": c["seq"], "message": c["message"], "rule": c["rule"]} for c in p.conflicts] if override else []
    stored = {"type": "amend", "target": p.target["seq"], "entry": p.entry, "reason": reason,
              "override": bool(forced), "forced": forced,
              "before": p.now_says, "after": p.entry_summary}
    line = f"correct #{p.target['seq']}: {p.now_says} → {p.entry_summary} ({reason})"
    if forced:
        line += " [OVERRIDE: forced " + ", ".join(f"#{f['seq']}" for f in forced) + "]"
    return stored, line[:1000]


class Marks:
    """What the history shows of the amendments in force: an amended entry names its amendment
    (struck through, linked); an entry an amendment forced through carries the waived refusal."""

    def __init__(self, events: list[dict], undone):
        self.amended = in_force(events, undone)
        self.forced = {f["seq"]: (a, f) for a in self.amended.values() for f in a["payload"].get("forced") or []}

    def mark(self, line: dict, hidden: bool) -> dict:
        a = self.amended.get(line["seq"])
        line["amended_by"] = a["seq"] if a else None
        line["forced_by"] = None
        if line["seq"] in self.forced:
            a, f = self.forced[line["seq"]]
            line["forced_by"], line["override"] = a["seq"], True
            if not hidden:
                line["summary"] += (f" [OVERRIDE by correction #{a['seq']}: {a['payload']['reason']}"
                                    f" — waived: {f['message']}]")
        return line

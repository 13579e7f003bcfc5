"""Dune's phone forms: a form's fields become an entry (typed as the entry's model says), sent
to the table; the answer is the fresh view, or the refusal beside the form."""
from __future__ import annotations

import re

from flask import Blueprint, request

from ....table.service import EntryError, Forbidden, Stale
from ....web.form_keys import run_form
from ....web.pages import tables, writing_seat as shell_writing_seat
from .guard import dune_table_or_404
from .pages import render_refusal, render_view

bp = Blueprint("dune_forms", __name__)


def writing_seat(code: str):
    dune_table_or_404(code)
    return shell_writing_seat(code)


LIST_FIELDS = ("factions", "cards", "traitors", "ambassadors", "tokens", "winners")
ROW_FIELD = re.compile(r"^([a-z_]+)-(\d+)-([a-z_]+)$")


def form_entry() -> dict:
    """Form fields -> an entry: empty fields dropped, repeated fields become lists,
    ``rows-N-field`` fields become a list of objects (rows with no forces are dropped)."""
    body: dict = {}
    rows: dict = {}
    for key in request.form:
        if key == "csrf_token":
            continue
        values = [v for v in request.form.getlist(key)]
        if key in LIST_FIELDS:
            body[key] = [x.strip() for v in values for x in v.splitlines() if x.strip()]
            continue
        value = values[-1]
        if value == "":
            continue
        if "@" in key:  # a tapped place: name="to@sector" value="Arrakeen@9" (Polar Sink has no sector)
            first, _, second = key.partition("@")
            where, _, sector = value.partition("@")
            body[first] = where
            if sector:
                body[second] = sector
            continue
        m = ROW_FIELD.match(key)
        if m:
            rows.setdefault(m.group(1), {}).setdefault(int(m.group(2)), {})[m.group(3)] = value
            continue
        body[key] = value
    for name, numbered in rows.items():
        body[name] = [row for _, row in sorted(numbered.items())
                      if any(k in ("forces", "starred") and v not in ("0", "") for k, v in row.items())]
    if "revision" in body:
        try:
            body["revision"] = int(body["revision"])
        except ValueError:
            pass
    if body.get("override") in ("on", "true", "1"):
        body["override"] = True
    return body


def typed_entry(body: dict, role: str) -> dict:
    """A form's strings converted to the entry's types (entries are checked strictly); an entry
    that needs another faction's consent becomes a proposal to that faction (``consent.request``)."""
    from pydantic import ValidationError

    from ..entries import form_types
    from ..entries.consent import as_proposal
    from ....table.service import validation_message
    at = tables().registry.get(body.get("type")) if isinstance(body.get("type"), str) else None
    try:
        typed = form_types(at.model, body) if at else body
    except ValidationError as exc:
        message, fields = validation_message(exc)
        raise EntryError(message, fields=fields) from None
    return as_proposal(typed, role)


@bp.post("/t/<code>/act")
def act(code):
    t, role = writing_seat(code)
    return submit_form_entry(t, role, form_entry())


def form_outcome(t, role, body: dict, once) -> tuple[int, dict]:
    """Make the entry; (status, outcome) as ``form_keys.run_form`` keeps it for a repeat."""
    try:
        tables().submit(t.code, role, typed_entry(body, role), once=once)
    except Stale as exc:
        return 409, {"stale": exc.current}
    except Forbidden as exc:
        return 403, {"error": {"message": str(exc), "rule": None}}
    except EntryError as exc:
        return 422, {"error": exc.to_dict()}
    with t.lock:
        last = t.events[-1] if t.events else {"seq": t.revision, "summary": None}
    return 200, {"recorded": last["seq"], "summary": last["summary"]}


def submit_form_entry(t, role, body: dict, kind: str = "act"):
    """Submit an entry built from a form and answer with the fresh view (or the refusal sheet).
    Sent again with the same key (a retry after a lost answer), the entry is not made twice: the
    phone is shown the fresh view and that the entry was recorded."""
    outcome = run_form(tables(), t.code, role, kind, lambda once: form_outcome(t, role, body, once))
    answer = outcome.body
    if outcome.status == 200:
        done = answer.get("summary")
        return render_view(t.code, role, toast=(f"Already recorded: {done}" if outcome.replayed else done))
    if outcome.status == 409:
        # the table moved on while this phone was typing: show the fresh table and offer the same
        # entry again in one tap (nothing is merged without the player seeing the new state)
        return render_view(t.code, role, {"message": "The table changed while you were typing: check the new "
                                                     "state, then send your entry again.",
                                          "rule": None, "entry": body, "resend": True}, 200)
    err = dict(answer.get("error") or {"message": "Refused.", "rule": None})
    if outcome.status == 422:
        err["entry"] = body
    return render_refusal(t.code, role, err)


@bp.post("/t/<code>/battle/act")
def battle_act(code):
    """The battle buttons' entries: the plan builder's one ``fighter`` choice (a leader's name,
    ``cheap-hero`` or nothing) becomes the plan's ``leader``/``cheap_hero``; the host's dispute
    form's ``adj-*`` figures become the ``battle.apply`` entry's ``adjust``."""
    t, role = writing_seat(code)
    body = form_entry()
    fighter = body.pop("fighter", None)
    if body.get("type") == "battle.plan":
        # a sealed plan does not rest on what the other phones did meanwhile (the other side sealing,
        # typically): it is checked against the table as it is now, so it is never refused as stale
        with t.lock:
            body["revision"] = t.revision
        body.pop("leader", None), body.pop("cheap_hero", None)
        if fighter == "cheap-hero":
            body["cheap_hero"] = "true"
        elif fighter:
            body["leader"] = fighter
    adjust: dict = {}
    for key in [k for k in body if k.startswith("adj-")]:
        value = body.pop(key)
        parts = key.split("-")  # adj-forces-F, adj-starred-F, adj-spice-F, adj-to_winner
        if parts[1] in ("forces", "starred") and len(parts) == 3:
            adjust.setdefault("forces_lost", {}).setdefault(parts[2], {})[parts[1]] = value
        elif parts[1] == "spice" and len(parts) == 3:
            adjust.setdefault("spice_paid", {})[parts[2]] = value
        elif parts[1] == "to_winner":
            adjust["spice_to_winner"] = value
    if adjust and body.get("type") == "battle.apply" and body.get("override"):
        body["adjust"] = adjust
    return submit_form_entry(t, role, body, "battle")

"""Correcting the past on a phone (issue 27): from History, "Correct…" opens the entry's form
filled with what was entered (steppers for numbers, pickers for choices), "Strike" its strike;
before confirming, the phone shows what the correction changes now and the later entries it
breaks (with the override). The table replays through the spine (``TableService.amend``)."""
from __future__ import annotations

import json
import typing

from flask import Blueprint, abort, make_response, render_template, request

from ....table.service import Conflicts, EntryError, Forbidden, Stale
from ....table.views import view_for
from ....web.pages import seat_or_join, tables
from .forms import form_entry, writing_seat
from .guard import dune_table_or_404
from .pages import correctable, no_store

bp = Blueprint("dune_correct", __name__)

SKIP = ("type", "revision", "override", "reason")
REASONS = ("Entered wrong at the table", "Miscounted", "Wrong faction or place", "Found a rule we missed")


def fields_of(at, payload: dict, s: dict) -> tuple[list[dict], dict]:
    """(the editable fields, filled, in the entry's order; the other fields, kept as entered)."""
    out, keep = [], {}
    for name, info in at.model.model_fields.items():
        key = info.alias or name
        if key in SKIP:
            continue
        value = payload.get(key, info.default if info.default is not ... else None)
        ann = info.annotation
        args = [a for a in typing.get_args(ann) if a is not type(None)]
        base = args[0] if typing.get_origin(ann) is typing.Union and len(args) == 1 else ann
        lo = next((m.ge for m in info.metadata if getattr(m, "ge", None) is not None), 0)
        hi = next((m.le for m in info.metadata if getattr(m, "le", None) is not None), 40)
        if base is bool:
            out.append({"name": key, "kind": "bool", "value": bool(value)})
        elif base is int and (value is None or isinstance(value, int)):
            out.append({"name": key, "kind": "int", "value": value or 0, "min": lo, "max": hi})
        elif typing.get_origin(base) is typing.Literal:
            options = [o for o in typing.get_args(base) if isinstance(o, str)]
            if set(s["factions_present"]) <= set(options) and len(options) > len(s["factions_present"]):
                options = list(s["factions_present"])  # a faction: the ones at this table
            out.append({"name": key, "kind": "choice", "value": value, "options": options,
                        "optional": type(None) in typing.get_args(ann)})
        elif base is str or (value is None or isinstance(value, str)) and not isinstance(value, (list, dict)):
            out.append({"name": key, "kind": "text", "value": value or ""})
        else:
            keep[key] = value
    return out, keep


def target_of(t, role: str, seq: int) -> dict:
    lines = tables().history(t.code, role)
    e = next((x for x in lines if x["seq"] == seq), None)
    if e is None or not correctable(e, role):
        abort(make_response("That entry cannot be corrected from this phone.", 403))
    if e["amended_by"]:  # corrected already: the correction in force is what stands now
        amendment = lines[e["amended_by"] - 1]["payload"]
        e = {**e, "payload": amendment["entry"] or e["payload"], "summary": amendment["after"]}
    return e


@bp.get("/t/<code>/correct/<int:seq>")
def correct_page(code, seq):
    t = dune_table_or_404(code)
    role = seat_or_join(code)
    if role in (None, "board"):
        abort(403)
    e = target_of(t, role, seq)
    at = tables().registry[e["payload"]["type"]]
    s = view_for(t.state, role)
    fields, keep = fields_of(at, e["payload"], s)
    html = render_template("dune/correct.html", code=t.code, role=role, s=s, e=e, fields=fields,
                           keep=json.dumps(keep), strike=request.args.get("strike") == "1", reasons=REASONS)
    return no_store(make_response(html))


def amend_body(t, seq: int) -> dict:
    """The posted form -> the amendment: the entry typed as its model says, or null (strike)."""
    from .forms import typed_entry
    form = form_entry()
    reason = (form.pop("reason_text", "") or "").strip() or form.pop("reason", "")
    form.pop("reason", None)
    override = bool(form.pop("override", False))
    revision = form.pop("revision", None)
    keep = json.loads(form.pop("keep", "{}") or "{}")
    strike = form.pop("strike", "") == "1"
    entry = None
    if not strike:
        entry = typed_entry({**keep, **form}, "host")
        entry.pop("revision", None)
    return {"seq": seq, "entry": entry, "reason": reason, "revision": revision, "override": override}


def changes(before: dict, after: dict, role: str) -> list[str]:
    """A short before/after of what a phone can see: storm, turn, spice, forces, cards."""
    from ..rules.factions import faction_name
    a, b = view_for(before, role), view_for(after, role)
    out = []
    if a["storm"]["sector"] != b["storm"]["sector"]:
        out.append(f"storm: sector {a['storm']['sector']} → {b['storm']['sector']}")
    if (a["turn"], a["phase"]) != (b["turn"], b["phase"]):
        out.append(f"turn {a['turn']} {a['phase_name']} → turn {b['turn']} {b['phase_name']}")
    for f in b["factions_present"]:
        x, y = a["factions"][f], b["factions"][f]
        for label, get in (("spice", lambda v: v["spice"]), ("reserves", lambda v: v["reserves"]["forces"]),
                           ("in the tanks", lambda v: v["tanks"]["forces"]), ("cards", lambda v: v["hand_size"])):
            if get(x) is not None and get(x) != get(y):
                out.append(f"{faction_name(f)} {label}: {get(x)} → {get(y)}")
    places = sorted(set(a["board"]["territories"]) | set(b["board"]["territories"]))
    for p in places:
        ta, tb = a["board"]["territories"].get(p, {}), b["board"]["territories"].get(p, {})
        for f in sorted(set(ta.get("forces", {})) | set(tb.get("forces", {}))):
            n = lambda t: sum(t.get("forces", {}).get(f, {}).get(k, 0) for k in ("forces", "starred", "advisors"))
            if n(ta) != n(tb):
                out.append(f"{p}: {faction_name(f)} {n(ta)} → {n(tb)} forces")
        if ta.get("spice", 0) != tb.get("spice", 0):
            out.append(f"{p}: spice {ta.get('spice', 0)} → {tb.get('spice', 0)}")
    return out[:14]


def render_preview(t, role, seq, body, *, error=None, conflicts=None, status=200):
    ctx = {"code": t.code, "seq": seq, "error": error, "conflicts": conflicts, "lines": None,
           "override": body.get("override")}
    if error is None:
        try:
            p = tables().amend(t.code, role, body, dry_run=True)
            ctx["lines"] = changes(t.state, p.state, role)
            ctx["conflicts"] = p.conflicts
            ctx["after"] = p.entry_summary
            ctx["before"] = p.now_says
        except Stale:
            ctx["error"] = "The table changed meanwhile: open the correction again to see it as it is now."
        except (EntryError, Forbidden) as exc:
            ctx["error"] = getattr(exc, "message", str(exc))
    html = render_template("dune/correct_preview.html", **ctx)
    return no_store(make_response(html, status))


@bp.post("/t/<code>/correct/<int:seq>/preview")
def correct_preview(code, seq):
    t, role = writing_seat(code)
    try:
        body = amend_body(t, seq)
    except EntryError as exc:
        return render_preview(t, role, seq, {}, error=exc.message)
    return render_preview(t, role, seq, body)


@bp.post("/t/<code>/correct/<int:seq>")
def correct(code, seq):
    t, role = writing_seat(code)
    try:
        body = amend_body(t, seq)
        tables().amend(t.code, role, body)
    except Conflicts as exc:
        return render_preview(t, role, seq, {}, error=str(exc), conflicts=exc.conflicts)
    except Stale:
        return render_preview(t, role, seq, {}, error="The table changed meanwhile: open the correction again.")
    except (EntryError, Forbidden) as exc:
        return render_preview(t, role, seq, {}, error=getattr(exc, "message", str(exc)))
    response = make_response("", 204)
    response.headers["HX-Redirect"] = f"/t/{t.code}"
    return response

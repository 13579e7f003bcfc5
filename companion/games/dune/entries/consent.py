"""Consent: entries that spend, move or reveal another faction's private resources.

Forming an alliance binds both factions; a revival the Emperor pays for (``emperor_pays``)
spends the Emperor's spice; spice one faction records as *received* from another (``spice.give``
made by the receiver) spends the giver's. Such an entry is accepted directly only from the host
or the faction whose resources it uses; from another seat it is a two-step proposal:

1. ``consent.request`` ``{"faction": me, "entry": {...the entry...}}``: checked at once (as far as
   it can be without looking at the other faction's secrets), then pending;
2. ``consent.give`` ``{"faction": them, "proposal": id}`` on the other faction's phone applies it
   (checked again, now with their resources); ``consent.decline`` (either of the two) drops it.

Pending proposals live in ``state["proposals"]`` and are shown to the two factions involved and
the host only (``view["proposals"]``). A refusal never tells the asking seat the other faction's
numbers: the request is checked as if the other faction could afford it.
"""
from __future__ import annotations

import copy
from typing import Any, Literal

from pydantic import Field

from ..rules.errors import hard
from ..rules.factions import faction_name
from . import REGISTRY, Ctx, FactionId, Payload, action
from .bookkeeping import add_spice, present

MAX_PENDING = 20
PLENTY = 10**6  # the other faction's spice during the requester's check: never a limit, never shown


def consent_from(type_: str, payload: Any, actor: str) -> str | None:
    """The faction whose consent ``actor`` needs to make this entry, or None."""
    if actor in ("host", "board"):
        return None
    if type_ == "alliance.form":
        a, b = payload.factions
        if actor in (a, b) and a != b:
            return b if actor == a else a
        return None
    if type_ == "revive":
        if payload.emperor_pays and payload.faction != "emperor" and actor != "emperor":
            return "emperor"
        if getattr(payload, "tleilaxu_half", False) and actor != "tleilaxu":
            return "tleilaxu"  # CHOAM add-on: the half price is the Tleilaxu's offer to make
        return None
    if type_ == "spice.give":
        if actor != payload.faction:
            return payload.faction
        return None
    if type_ == "bribe":  # CHOAM & Richese add-on: a bribe recorded by the receiver spends the payer's spice
        return payload.payer if actor != payload.payer else None
    return None


CONSENT_TYPES = ("alliance.form", "revive", "spice.give", "bribe")


def as_proposal(body: dict, role: str) -> dict:
    """A phone's form entry that needs another faction's consent, turned into the proposal
    (``consent.request``) that asks for it; any other entry unchanged."""
    type_ = body.get("type")
    if role in ("host", "board") or type_ not in CONSENT_TYPES or type_ not in REGISTRY:
        return body
    try:
        payload = REGISTRY[type_].model.model_validate(body)
    except ValueError:
        return body
    if consent_from(type_, payload, role) is None:
        return body
    inner = {k: v for k, v in body.items() if k != "revision"}
    return {"type": "consent.request", "faction": role, "entry": inner, "revision": body.get("revision")}


# -- spice between factions ----------------------------------------------------------------------

class SpiceGive(Payload):
    type: Literal["spice.give"]
    faction: FactionId  # who pays
    to: FactionId
    amount: int = Field(ge=1, le=99)

    @property
    def parties(self) -> list[str]:
        return [self.faction, self.to]


@action("spice.give", SpiceGive, public=("faction", "to", "amount"), faction_field="parties",
        summary=lambda p: f"{faction_name(p.faction)} give {p.amount} spice to {faction_name(p.to)}")
def spice_give(ctx: Ctx, state: dict, p: SpiceGive) -> None:
    present(state, p.faction), present(state, p.to)
    if p.faction == p.to:
        raise hard("A faction cannot give spice to itself.", "base-alliances")
    ctx.check(state["alliances"].get(p.faction) == p.to,
              f"{faction_name(p.faction)} and {faction_name(p.to)} are not allied: only allies share spice.",
              "emperor-alliance" if p.faction == "emperor" else "base-alliances")
    add_spice(state, p.faction, -p.amount)
    add_spice(state, p.to, p.amount)


# -- the proposals -------------------------------------------------------------------------------

class ConsentRequest(Payload):
    type: Literal["consent.request"]
    faction: FactionId  # who asks
    entry: dict


def _inner(entry: dict):
    """(entry type, validated payload) of a proposed entry."""
    type_ = entry.get("type") if isinstance(entry, dict) else None
    if type_ not in CONSENT_TYPES:
        raise hard(f"Only these entries are proposed to another faction: {', '.join(CONSENT_TYPES)}.")
    at = REGISTRY[type_]
    try:
        payload = at.model.model_validate({k: v for k, v in entry.items() if k != "revision"})
    except ValueError as exc:
        errors = getattr(exc, "errors", None)
        first = errors()[0] if errors else None
        where = ".".join(str(x) for x in first["loc"]) if first else "entry"
        raise hard(f"entry.{where}: {first['msg'] if first else exc}") from None
    return at, payload


def _summary(at, payload) -> str:
    text = at.summary(payload) if at.summary else at.name
    if payload.override:
        text += f" [OVERRIDE: {payload.reason}]"
    return text


def pending(state: dict) -> list[dict]:
    return state.setdefault("proposals", [])


@action("consent.request", ConsentRequest, public=("faction", "entry"),
        summary=lambda p: f"{faction_name(p.faction)} propose to {_other(p)}: {_request_summary(p)}")
def consent_request(ctx: Ctx, state: dict, p: ConsentRequest) -> None:
    present(state, p.faction)
    at, inner = _inner(p.entry)
    acting = getattr(inner, at.seat_field)
    if p.faction not in (acting if isinstance(acting, list) else [acting]):
        raise hard(f"{faction_name(p.faction)} cannot propose an entry for "
                   f"{' or '.join(faction_name(f) for f in (acting if isinstance(acting, list) else [acting]))}.")
    other = consent_from(at.name, inner, p.faction)
    if other is None:
        raise hard("That entry needs nobody else's consent: make it directly.")
    present(state, other)
    entry = inner.model_dump(by_alias=True, exclude={"revision"})
    if any(x["from"] == p.faction and x["to"] == other and x["entry"] == entry for x in pending(state)):
        raise hard(f"That proposal is already waiting for {faction_name(other)}.")
    if len(pending(state)) >= MAX_PENDING:
        raise hard(f"{MAX_PENDING} proposals are already waiting: answer or withdraw some first.")
    # check it now as far as the asking seat may know: the other faction is assumed to afford it
    trial = copy.deepcopy(state)
    trial["private"][other]["spice"] = PLENTY
    at.handler(Ctx(actor=p.faction, board=ctx.board, override=inner.override or ctx.override,
                   reason=inner.reason), trial, inner)
    state["proposal_seq"] = state.get("proposal_seq", 0) + 1
    pending(state).append({"id": state["proposal_seq"], "from": p.faction, "to": other, "type": at.name,
                           "entry": entry, "summary": _summary(at, inner)})


def _other(p: ConsentRequest) -> str:
    try:
        at, inner = _inner(p.entry)
        other = consent_from(at.name, inner, p.faction)
    except Exception:  # noqa: BLE001 - only a summary
        other = None
    return faction_name(other) if other else "another faction"


def _request_summary(p: ConsentRequest) -> str:
    try:
        at, inner = _inner(p.entry)
        return _summary(at, inner)
    except Exception:  # noqa: BLE001 - only a summary
        return str(p.entry.get("type"))


class ConsentAnswer(Payload):
    type: Literal["consent.give", "consent.decline"]
    faction: FactionId  # who answers (consent.give: the faction asked; decline: either of the two)
    proposal: int = Field(ge=1, le=10**9)


def _find(state: dict, pid: int) -> dict:
    for x in pending(state):
        if x["id"] == pid:
            return x
    raise hard(f"There is no pending proposal #{pid}: it was answered, withdrawn or undone.")


@action("consent.give", ConsentAnswer,
        public=("faction", "proposal"),
        summary=lambda p: f"{faction_name(p.faction)} agree to proposal #{p.proposal}")
def consent_give(ctx: Ctx, state: dict, p: ConsentAnswer) -> None:
    x = _find(state, p.proposal)
    if x["to"] != p.faction:
        raise hard(f"Proposal #{p.proposal} asks {faction_name(x['to'])}, not {faction_name(p.faction)}.")
    at, inner = _inner(x["entry"])
    at.handler(Ctx(actor=ctx.actor, board=ctx.board, override=inner.override or ctx.override,
                   reason=inner.reason), state, inner)
    state["proposals"] = [y for y in pending(state) if y["id"] != p.proposal]


@action("consent.decline", ConsentAnswer, public=("faction", "proposal"),
        summary=lambda p: f"{faction_name(p.faction)} decline or withdraw proposal #{p.proposal}")
def consent_decline(ctx: Ctx, state: dict, p: ConsentAnswer) -> None:
    x = _find(state, p.proposal)
    if p.faction not in (x["from"], x["to"]):
        raise hard(f"Proposal #{p.proposal} is between {faction_name(x['from'])} and {faction_name(x['to'])}.")
    state["proposals"] = [y for y in pending(state) if y["id"] != p.proposal]


def proposals_for(state: dict, viewer: str) -> list[dict]:
    """The pending proposals ``viewer`` may see: its own (asked or asking); the host sees all."""
    return [copy.deepcopy(x) for x in state.get("proposals", [])
            if viewer == "host" or viewer in (x["from"], x["to"])]


__all__ = ["CONSENT_TYPES", "as_proposal", "consent_from", "proposals_for"]

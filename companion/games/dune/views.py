"""The Dune game's per-seat views (the spine's ``companion.table.views`` copies the declared
public keys and calls ``compose`` for the rest).

The state keeps every secret under ``state["private"][faction]``. A view is built from the public
parts plus, for a faction seat, that faction's own private part; the host sees everything and
the board view sees only what is public. Nothing else is copied, so no other seat's secret can
reach a response by accident.
"""
from __future__ import annotations

import copy
from dataclasses import asdict

from ...rules.board import load_board, split_piece
from ...rules.phase_steps import next_pile
from ...rules.phases import phase_info, storm_order

PUBLIC_KEYS = ("table", "revision", "turn", "phase", "last_turn", "options", "factions_present", "player_dots",
               "storm", "shield_wall", "atomics_aftermath", "alliances", "turn_flags", "readings", "setup",
               "banner", "winner",
               # public entries added by the phases and later entries (spice deck, storm preview, ...)
               "overrides", "token_territories", "storm_moved", "blows", "bidding", "shipment_done",
               "storm_pending", "storm_dials", "last_shipment", "last_revealed", "nexus", "charity_claimed",
               "stronghold_cards", "proposal_seq", "jacurutu", "fremen_sent_to", "cache_auction", "bg_choice",
               "treachery", "spice_deck", "revived", "leaders_revived", "discovery_spawned", "battles",
               "ambassadors_sent", "skill_deck")
PUBLIC_PREFIXES = ("collected:",)  # collected:<turn>: that turn's Collection was applied
# filtered per seat by ``compose``: secrets under private[faction], proposals between two factions
PRIVATE_KEYS = ("private", "factions", "board", "proposals")


def can_see(viewer: str, faction: str) -> bool:
    return viewer == "host" or viewer == faction


def compose(state: dict, viewer: str, out: dict) -> None:
    """Add the per-seat parts to ``out`` (which already holds the declared public keys): each
    faction's public part plus, for its own seat (and the host), its private part."""
    from ...table.actions.consent import proposals_for
    out["proposals"] = proposals_for(state, viewer)  # only the two factions involved (and the host)
    factions = {}
    for f, pub in state["factions"].items():
        entry = copy.deepcopy(pub)
        entry["spice"] = state["private"][f]["spice"] if can_see(viewer, f) else None
        if can_see(viewer, f):
            entry["private"] = copy.deepcopy(state["private"][f])
        factions[f] = entry
    out["factions"] = factions
    out["board"] = board_view(state, viewer)
    info = phase_info(state["phase"])
    out["phase_name"] = info.name
    out["now"] = {"summary": info.summary, "rule": info.rule}
    dots = {f: d for f, d in state["player_dots"].items() if d}
    out["storm_order"] = storm_order(state["storm"]["sector"], dots) if dots else []
    out.update(turn_info(state, viewer))


def view_for(state: dict, viewer: str) -> dict:
    """The spine's per-seat view (kept here for the Dune modules that import it)."""
    from ...table.views import view_for as spine_view
    return spine_view(state, viewer)


def turn_info(state: dict, viewer: str) -> dict:
    """Computed, previewed effects of the current phase (nothing is applied here)."""
    from ...rules import economy
    from ...rules.errors import RuleViolation
    from ...rules.spice import deck_status
    from ...table.actions.turn import (
        auction, blows_this_turn, next_phase_info, preview_collection, preview_storm, preview_victory, steps_for,
        storm_dialers, whose_turn,
    )

    board = load_board()
    info: dict = {}
    deck = state.get("spice_deck", {"seen": []})
    try:
        info["spice_deck"] = deck_status(deck["seen"], state["options"].get("discovery_tokens", True))
    except RuleViolation:
        info["spice_deck"] = None
    info["spice_deck_seen"] = list(deck["seen"])
    phase = state["phase"]
    # the phase card: what the phase asks, whose turn it is, what the next phase waits for
    steps = steps_for(board, state, viewer)
    info["phase_steps"] = [x.to_dict() for x in steps]
    info["whose_turn"] = whose_turn(state)
    info["next_phase"] = next_phase_info(board, state, steps)
    blows = blows_this_turn(state)
    info["spice_blow"] = {"pile": next_pile(blows), "drawn": [{"pile": p, "card": c} for p, c in blows],
                          "cards_left": cards_left(deck["seen"], state["options"].get("discovery_tokens", True))}
    info["collection_applied"] = bool(state.get(f"collected:{state['turn']}"))
    if phase == "storm":
        storm_info = {"dialers": storm_dialers(state) if state["turn"] == 1 else [],
                      "dialled": sorted(state.get("storm_dials", {})),
                      "pending": state.get("storm_pending")}
        if state.get("storm_pending"):
            p = preview_storm(board, state, state["storm_pending"]["sectors"])
            storm_info["preview"] = asdict(p)
        info["storm_phase"] = storm_info
    if phase == "collection":
        try:
            info["collection_preview"] = preview_collection(board, state)
        except RuleViolation as exc:
            info["collection_preview"] = {"error": exc.message}
    if phase == "mentat_pause":
        info["victory_preview"] = victory_dict(preview_victory(board, state))
        if viewer in ("bg", "host") and "bg" in state["private"] and state["private"]["bg"].get("prediction"):
            info["victory_preview_bg"] = victory_dict(
                preview_victory(board, state, state["private"]["bg"]["prediction"]))
    if phase == "bidding":
        b = auction(state)
        info["cards_for_auction"] = max(0, b["cards"] - b["sold"]) if not b["ended"] else 0  # cards LEFT
        info["auction"] = {"cards": b["cards"], "sold": b["sold"], "left": info["cards_for_auction"],
                           "ended": b["ended"], "buyers": list(b["buyers"])}
    info["treachery_deck"] = treachery_deck(state)
    if phase == "battle" or any(b.get("status") == "revealed" for b in state.get("battles", [])):
        info["battles_implied"] = implied_battles_view(state, board)
        info["battle_card"] = battle_card(state, board, viewer, info["battles_implied"])
    if "choam" in state["factions_present"]:  # the CHOAM & Richese add-on
        from ...table.actions.addons import inflation_info
        info["inflation"] = inflation_info(state)
    if phase == "charity" and viewer in state["private"]:
        info["my_charity"] = economy.charity(state["turn"], viewer, state["private"][viewer]["spice"])
        if viewer == "choam":  # the add-on: CHOAM's own Charity, 2 per faction (Inflation, Karama applied)
            from ...table.actions.addons import choam_charity_now
            info["my_charity"] = choam_charity_now(state)
    return info


def treachery_deck(state: dict) -> dict:
    """The Treachery deck as the table can see it: its size (the deck less the cards in hands and
    in the discard pile) and the public discard pile, named cards."""
    from ...rules import treachery
    tr = state.get("treachery") or {}
    total = treachery.deck_size(with_kiss_cards=bool(tr.get("kiss_added")))
    in_hands = sum(f["hand_size"] for f in state["factions"].values())
    discard = list(tr.get("discard", []))
    return {"total": total, "in_hands": in_hands, "discard": discard,
            "draw": max(0, total - in_hands - len(discard))}


def implied_battles_view(state: dict, board) -> list[dict]:
    """Every battle the board implies now (derived: it follows the forces live)."""
    from ...table.battles import implied_battles
    return implied_battles(state, board)


def _record_for(state: dict, territory: str, factions: list) -> dict | None:
    """The battle of this turn recorded for the territory between these factions (the latest)."""
    found = None
    for b in state.get("battles", []):
        if b["turn"] == state["turn"] and b["territory"] == territory and set(b["sides"]) <= set(factions):
            found = b
    return found


def battle_card(state: dict, board, viewer: str, implied: list[dict]) -> list[dict]:
    """The phase card's battles: each implied or recorded battle of the turn, its state, and for a
    battler its own plan builder (its own hand, leaders and dial only: nothing of the other side)."""
    from ...rules import dialing
    from ...rules import treachery as deck
    from ...table.actions.battle import fighters, outcome_of

    items: list[dict] = []
    seen: set[str] = set()
    for b in state.get("battles", []):
        if b["turn"] != state["turn"]:
            continue
        seen.add(b["id"])
        items.append({"territory": b["territory"], "aggressor": b["aggressor"], "sides": [[f] for f in b["sides"]],
                      "opponents": [], "record": b})
    for imp in implied:
        rec = _record_for(state, imp["territory"], imp["factions"])
        if rec is not None and rec["status"] != "applied":
            continue  # listed above, with its state
        others = [side[0] for side in imp["sides"] if imp["aggressor"] not in side]
        open_to = [o for o in others if not any(
            b["turn"] == state["turn"] and b["territory"] == imp["territory"] and set(b["sides"]) == {imp["aggressor"], o}
            for b in state.get("battles", []))]
        if not open_to:
            continue
        items.append({"territory": imp["territory"], "aggressor": imp["aggressor"], "sides": imp["sides"],
                      "opponents": open_to, "record": None})
    cheap = {"cheap hero", "cheap heroine"}
    for it in items:
        b = it["record"]
        it["mine"] = viewer in (b["sides"] if b else [f for side in it["sides"] for f in side])
        if b is None:
            continue
        it["opponent_of"] = {f: next(x for x in b["sides"] if x != f) for f in b["sides"]}
        if b["status"] == "revealed":
            try:
                it["outcome"] = outcome_of(state, b).to_dict()
            except Exception as exc:  # a plan the table no longer supports (forces moved): say so
                it["outcome"] = {"error": getattr(exc, "message", str(exc)), "rule": getattr(exc, "rule", None)}
            if viewer in b["sides"]:
                opp = it["opponent_of"][viewer]
                leader = (b["plans"].get(opp) or {}).get("leader")
                held = [x.lower() for x in state["private"][viewer].get("traitors", [])]
                it["can_call_traitor"] = bool(leader) and leader.lower() in held and viewer not in b["traitors"]
        if b["status"] == "planning" and viewer in b["sides"]:
            f, opp = viewer, it["opponent_of"][viewer]
            priv = state["private"][f]
            hand = list(priv.get("cards", []))
            unknown = max(0, state["factions"][f]["hand_size"] - len(hand))
            leaders = [{"name": ld["name"], "strength": ld["strength"], "captured": False}
                       for ld in state["factions"][f]["leaders"] if ld["status"] == "alive"]
            for owner, data in state["factions"].items():
                for ld in data["leaders"]:
                    if ld["status"] == "captured" and ld.get("captured_by") == f:
                        leaders.append({"name": ld["name"], "strength": ld["strength"], "captured": True})
            named = {}
            for c in hand:
                try:
                    named[c] = deck.card(c)
                except Exception:
                    continue
            here = fighters(state, b["territory"]).get(f, {"forces": 0, "starred": 0})
            kinds = lambda pred: sorted({c.name for c in deck.cards() if pred(c)})  # noqa: E731
            it["builder"] = {
                "leaders": leaders,
                "cheap_hero": bool(cheap & {c.lower() for c in hand}) or unknown > 0,
                "weapons": sorted({c for c, k in named.items() if k.is_weapon}),
                "defenses": sorted({c for c, k in named.items() if k.is_defense}),
                "unknown": unknown,
                "deck_weapons": kinds(lambda c: c.is_weapon) if unknown else [],
                "deck_defenses": kinds(lambda c: c.is_defense) if unknown else [],
                "forces": here["forces"], "starred": here["starred"],
                "starred_worth": dialing.starred_worth(f, opp),
                "costs": [dialing.troop_cost(f, n) for n in range(21)],  # spice for 0..20 troops
                "spice": priv["spice"],
                "kh": f == "atreides" and priv.get("kh_losses", 0) >= 7,
                "sealed": priv.get("battle_plans", {}).get(b["id"]),
            }
    return items


def cards_left(seen: list, discovery: bool) -> list[str]:
    """The spice cards still in the draw deck (a worm once per copy), asked of the deck rules."""
    from ...rules.spice import cards_in_deck
    return cards_in_deck(seen)


def board_view(state: dict, viewer: str = "board") -> dict:
    board = load_board()
    territories: dict = {}
    for piece, n in state["board"]["spice"].items():
        name, _ = split_piece(piece)
        t = territories.setdefault(name, {"spice": 0, "forces": {}})
        t["spice"] += n
    for piece, stacks in state["board"]["forces"].items():
        name, sector = split_piece(piece)
        t = territories.setdefault(name, {"spice": 0, "forces": {}})
        for f, s in stacks.items():
            agg = t["forces"].setdefault(f, {"forces": 0, "starred": 0, "advisors": 0, "sectors": {}})
            agg["forces"] += s["forces"]
            agg["starred"] += s["starred"]
            agg["advisors"] += s["advisors"]
            agg["sectors"][str(sector or 0)] = dict(s)
    nofield = (state["board"].get("nofield") or {}).get("piece")
    if nofield:  # Richese's face-down No-Field: a marker for all; its number for Richese and the host only
        name, sector = split_piece(nofield)
        t = territories.setdefault(name, {"spice": 0, "forces": {}})
        agg = t["forces"].setdefault("richese", {"forces": 0, "starred": 0, "advisors": 0, "sectors": {}})
        agg["nofield"] = True
        agg["nofield_sector"] = sector
        hidden = (state["private"].get("richese") or {}).get("nofield") or {}
        if can_see(viewer, "richese") and "token" in hidden:
            agg["nofield_token"] = hidden["token"]
    for name, t in territories.items():
        t["type"] = board.territories[name].type if name in board.territories else "discovery"
        t["spice_by_sector"] = {str(split_piece(p)[1] or 0): n for p, n in state["board"]["spice"].items()
                                if split_piece(p)[0] == name}
    return {"territories": dict(sorted(territories.items())), "discovery": copy.deepcopy(state["board"]["discovery"]),
            "markers": copy.deepcopy(state["board"].get("markers", {}))}


def victory_dict(result) -> dict:
    return {"winners": list(result.winners), "reason": result.reason, "rule": result.rule,
            "strongholds": [{"side": list(side), "strongholds": sorted(held)}
                            for side, held in result.strongholds.items()]}

"""The Dune game's per-seat views (the spine's ``companion.table.views`` copies the declared
public keys and calls ``compose`` for the rest).

The state keeps every secret under ``state["private"][faction]``. A view is built from the public
parts plus, for a faction seat, that faction's own private part; the host sees everything and
the board view sees only what is public. Nothing else is copied, so no other seat's secret can
reach a response by accident.
"""
from __future__ import annotations

import copy
import threading
from collections import OrderedDict
from dataclasses import asdict

from .rules.board import load_board, split_piece
from .rules.phase_steps import next_pile
from .rules.phases import phase_info, storm_order

PUBLIC_KEYS = ("table", "revision", "turn", "phase", "last_turn", "options", "factions_present", "player_dots",
               "storm", "shield_wall", "atomics_aftermath", "alliances", "turn_flags", "readings", "setup",
               "banner", "winner",
               # public entries added by the phases and later entries (spice deck, storm preview, ...)
               "overrides", "token_territories", "storm_moved", "blows", "bidding", "shipment_done",
               "storm_pending", "storm_dials", "last_shipment", "last_revealed", "nexus", "charity_claimed",
               "stronghold_cards", "proposal_seq", "jacurutu", "fremen_sent_to", "cache_auction", "bg_choice",
               "treachery", "spice_deck", "revived", "leaders_revived", "discovery_spawned", "battles",
               "ambassadors_sent", "skill_deck", "announcements", "ended", "paranoid")
PUBLIC_PREFIXES = ("collected:",)  # collected:<turn>: that turn's Collection was applied
# filtered per seat by ``compose``: secrets under private[faction], proposals between two factions
# card_records: each owner's own records (entries/records.py), for that seat only, never the host
PRIVATE_KEYS = ("private", "factions", "board", "proposals", "card_records")


def can_see(viewer: str, faction: str) -> bool:
    return viewer == "host" or viewer == faction


def compose(state: dict, viewer: str, out: dict) -> None:
    """Add the per-seat parts to ``out`` (which already holds the declared public keys): each
    faction's public part plus, for its own seat (and the host), its private part."""
    from ...table.views import copier
    from .entries.consent import proposals_for
    cp = copier()  # deep copies, or the state's own parts for a view that is only read
    out["proposals"] = proposals_for(state, viewer)  # only the two factions involved (and the host)
    factions = {}
    for f, pub in state["factions"].items():
        entry = dict(pub) if cp is not copy.deepcopy else copy.deepcopy(pub)
        entry["spice"] = state["private"][f]["spice"] if can_see(viewer, f) else None
        if can_see(viewer, f):
            entry["private"] = cp(state["private"][f])
        factions[f] = entry
    out["factions"] = factions
    out["board"] = board_view(state, viewer, cp) if cp is copy.deepcopy else shared_board_view(state, viewer, cp)
    info = phase_info(state["phase"])
    out["phase_name"] = info.name
    out["now"] = {"summary": info.summary, "rule": info.rule}
    dots = {f: d for f, d in state["player_dots"].items() if d}
    out["storm_order"] = storm_order(state["storm"]["sector"], dots) if dots else []
    out.update(turn_info(state, viewer, shared=cp is not copy.deepcopy))
    from .entries.records import card_seen_prompt, records_view
    records = records_view(state, viewer)
    if records is not None:  # the Atreides (or, by the house rule, each seat) only
        out["records"] = records
    out["card_seen"] = card_seen_prompt(state, viewer)  # the Atreides' phone only, in Bidding


def view_for(state: dict, viewer: str, *, shared: bool = False) -> dict:
    """The spine's per-seat view (kept here for the Dune modules that import it)."""
    from ...table.views import view_for as spine_view
    return spine_view(state, viewer, shared=shared)


def turn_info(state: dict, viewer: str, shared: bool = False) -> dict:
    """Computed, previewed effects of the current phase (nothing is applied here). ``shared``: for
    a view that is only read, the parts every seat sees alike are worked out once per published
    state (``_PER_STATE``)."""
    public = _PER_STATE.get(state, "turn", lambda: public_turn_info(state)) if shared else public_turn_info(state)
    return {**public, **seat_turn_info(state, viewer, public)}


def public_turn_info(state: dict) -> dict:
    """The parts of ``turn_info`` that are the same for every seat (they read no seat's secrets)."""
    from .rules.errors import RuleViolation
    from .rules.spice import deck_status
    from .entries.bidding import auction
    from .entries.collection import preview_collection
    from .entries.phases import whose_turn
    from .entries.storm_spice import blows_this_turn, preview_storm, storm_dialers
    from .entries.victory import preview_victory

    board = load_board()
    info: dict = {}
    deck = state.get("spice_deck", {"seen": []})
    try:
        info["spice_deck"] = deck_status(deck["seen"], state["options"].get("discovery_tokens", True))
    except RuleViolation:
        info["spice_deck"] = None
    info["spice_deck_seen"] = list(deck["seen"])
    phase = state["phase"]
    info["whose_turn"] = whose_turn(state)
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
    if phase == "bidding":
        b = auction(state)
        info["cards_for_auction"] = max(0, b["cards"] - b["sold"]) if not b["ended"] else 0  # cards LEFT
        info["auction"] = {"cards": b["cards"], "sold": b["sold"], "left": info["cards_for_auction"],
                           "ended": b["ended"], "buyers": list(b["buyers"])}
    info["treachery_deck"] = treachery_deck(state)
    if phase == "battle" or any(b.get("status") == "revealed" for b in state.get("battles", [])):
        info["battles_implied"] = implied_battles_view(state, board)
    if "choam" in state["factions_present"]:  # the CHOAM & Richese add-on
        from .entries.choam import inflation_info
        info["inflation"] = inflation_info(state)
    return info


def seat_turn_info(state: dict, viewer: str, public: dict) -> dict:
    """The parts of ``turn_info`` that depend on the seat: the phase card's steps for it, the BG's
    own prediction, the card to name, its battle card, its Charity."""
    from .rules import economy
    from .entries.phases import next_phase_info, steps_for
    from .entries.victory import preview_victory

    board = load_board()
    info: dict = {}
    phase = state["phase"]
    steps = steps_for(board, state, viewer)
    info["phase_steps"] = [x.to_dict() for x in steps]
    info["next_phase"] = next_phase_info(board, state, steps)
    if phase == "mentat_pause":
        if viewer in ("bg", "host") and "bg" in state["private"] and state["private"]["bg"].get("prediction"):
            info["victory_preview_bg"] = victory_dict(
                preview_victory(board, state, state["private"]["bg"]["prediction"]))
    info["name_card"] = name_card_prompt(state, viewer)
    if "battles_implied" in public:
        info["battle_card"] = battle_card(state, board, viewer, public["battles_implied"])
    if phase == "charity" and viewer in state["private"]:
        info["my_charity"] = economy.charity(state["turn"], viewer, state["private"][viewer]["spice"])
        if viewer == "choam":  # the add-on: CHOAM's own Charity, 2 per faction (Inflation, Karama applied)
            from .entries.choam import choam_charity_now
            info["my_charity"] = choam_charity_now(state)
    return info


def addon_karamas(state: dict, viewer: str) -> dict:
    """The CHOAM & Richese advantages ``viewer`` may stop with a Karama now (``karama.addon``: the
    effects of karama.json whose phases include this one, never against the viewer's own faction),
    and the stops in force this turn, for the phase card."""
    from .rules import karama
    from .entries.karama_stops import KARAMA_ADDON, addon_stop
    present = state["factions_present"]
    out: dict = {"open": [], "stopped": []}
    for effect, (target, span, what) in KARAMA_ADDON.items():
        if target not in present or span == "battle":
            continue  # a one-battle stop is offered on that battle's card
        x = addon_stop(state, effect)
        if x:
            out["stopped"].append({"effect": effect, "what": what, "by": x["by"], "span": span})
            continue
        if viewer == target or (viewer != "host" and viewer not in present):
            continue
        if effect in ("choam-ally-trade", "richese-ally-benefit") and not state["alliances"].get(target):
            continue  # an alliance advantage needs an alliance
        if effect == "richese-black-market" and not state["options"].get("advanced"):
            continue  # the Black Market is Advanced play
        data = next(e for e in karama.faction_effects(target) if e["id"] == effect)
        if state["phase"] in data["phases"]:
            out["open"].append({"effect": effect, "what": what, "span": span, "text": data["effect"]})
    return out


def treachery_deck(state: dict) -> dict:
    """The Treachery deck as the table can see it: its size (the deck less the cards in hands and
    in the discard pile), the public discard pile (named cards), whether the 5 KISS cards have
    joined and how many reshuffles there were."""
    from .rules import treachery
    from .entries.bookkeeping import cache_out, draw_pile, read_treachery
    tr = read_treachery(state)
    in_hands = sum(f["hand_size"] for f in state["factions"].values())
    discard = list(tr.get("discard", []))
    return {"total": treachery.deck_size(with_kiss_cards=bool(tr.get("kiss_added"))) + cache_out(state),
            "in_hands": in_hands, "discard": discard, "draw": draw_pile(state),
            "kiss_added": bool(tr.get("kiss_added")), "reshuffles": tr.get("reshuffles", 0), "last": tr.get("last")}


def name_card_prompt(state: dict, viewer: str) -> dict | None:
    """For a faction's own phone only: the cards it got and has not named yet ("Name the card
    you got"), with every name it could be, grouped by kind. None for other seats, the host and
    the board screen, and when nothing waits to be named."""
    from .rules import treachery
    mine = state["private"].get(viewer)
    if not mine:
        return None
    pub = state["factions"][viewer]
    held = mine.get("cards", [])
    fresh = mine.get("to_name_at") == [state["turn"], state["phase"]]  # prompts last for the phase
    n = min(mine.get("to_name", 0), pub["hand_size"] - len(held)) if fresh else 0
    over = max(0, pub["hand_size"] - pub["hand_limit"])
    if n <= 0 and not over:
        return None
    tr = state.get("treachery") or treachery.initial_record()
    kiss = bool(tr.get("kiss_added"))
    groups = treachery.name_choices([], [], kiss)  # every name, so the buttons never move between taps
    left = {x for _, names in treachery.name_choices(list(tr.get("discard", [])), held, kiss) for x in names}
    return {"count": max(0, n), "over_limit": over, "held": list(held), "groups": groups,
            "unavailable": [x for _, names in groups for x in names if x not in left]}


def implied_battles_view(state: dict, board) -> list[dict]:
    """Every battle the board implies now (derived: it follows the forces live)."""
    from .battles import implied_battles
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
    from .rules import dialing
    from .rules import treachery as deck
    from .entries.battle import ecaz_help, fighters, outcome_of, stopped_starred, used_elsewhere

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
            side = viewer if viewer in b["sides"] else (
                state["alliances"].get("harkonnen") if viewer == "harkonnen" else None)  # in the ally's battle
            if side in b["sides"]:
                opp = it["opponent_of"][side]
                leader = (b["plans"].get(opp) or {}).get("leader")
                held = [x.lower() for x in state["private"][viewer].get("traitors", [])]
                it["can_call_traitor"] = bool(leader) and leader.lower() in held and side not in b["traitors"]
                it["traitor_against"] = leader
        if b["status"] == "planning" and viewer in b["sides"]:
            f, opp = viewer, it["opponent_of"][viewer]
            priv = state["private"][f]
            hand = list(priv.get("cards", []))
            unknown = max(0, state["factions"][f]["hand_size"] - len(hand))
            leaders = [{"name": ld["name"], "strength": ld["strength"], "captured": False}
                       for ld in state["factions"][f]["leaders"] if ld["status"] == "alive"
                       and not used_elsewhere(state, ld["name"], b["territory"])]
            for owner, data in state["factions"].items():
                for ld in data["leaders"]:
                    if ld["status"] == "captured" and ld.get("captured_by") == f and not used_elsewhere(
                            state, ld["name"], b["territory"]):
                        leaders.append({"name": ld["name"], "strength": ld["strength"], "captured": True})
            named = {}
            for c in hand:
                try:
                    named[c] = deck.card(c)
                except Exception:
                    continue
            here = fighters(state, b["territory"]).get(f, {"forces": 0, "starred": 0})
            helped = ecaz_help(state, b)
            kinds = lambda pred: sorted({c.name for c in deck.cards() if pred(c)})  # noqa: E731
            it["builder"] = {
                "leaders": leaders,
                "cheap_hero": bool(cheap & {c.lower() for c in hand}) or unknown > 0,
                # a Worthless card may be played in either slot (and the Voice may command one)
                "weapons": sorted({c for c, k in named.items() if k.is_weapon or k.kind == "worthless"}),
                "defenses": sorted({c for c, k in named.items() if k.is_defense or k.kind == "worthless"}),
                "unknown": unknown,
                "deck_weapons": kinds(lambda c: c.is_weapon) if unknown else [],
                "deck_defenses": kinds(lambda c: c.is_defense) if unknown else [],
                "forces": here["forces"], "starred": here["starred"],
                "starred_worth": 1 if f in stopped_starred(b) else dialing.starred_worth(f, opp),
                "bonus": dialing.ecaz_bonus(helped["forces"]) if helped and helped["ally"] == f else 0,
                "costs": [dialing.troop_cost(f, n) for n in range(21)],  # spice for 0..20 troops
                "spice": priv["spice"],
                "kh": f == "atreides" and priv.get("kh_losses", 0) >= 7 and not (b.get("karama") or {}).get("kh")
                and state["factions"]["atreides"].get("kh", {}).get("status", "alive") == "alive",
                "sealed": priv.get("battle_plans", {}).get(b["id"]),
            }
        if b["status"] == "planning":
            it["powers"] = _battle_powers(state, b, viewer, it.get("builder"))
    for it in items:
        b = it["record"]
        pending = (b and b["status"] == "applied" and (b.get("outcome") or {}).get("capture")
                   and not b.get("captured") and "capture" not in (b.get("karama") or {}))
        if pending and viewer in ("harkonnen", "host"):
            loser = b["outcome"]["capture"]["from"]
            fought = (b["plans"].get(loser) or {}).get("leader")
            it["capture_from"] = [ld["name"] for ld in state["factions"][loser]["leaders"]
                                  if ld["status"] == "alive" and (not ld.get("used") or ld["name"] == fought)]
        if b and viewer in state["private"] and b["status"] in ("revealed", "applied"):
            from .entries.battle_after import offers
            it["after"] = offers(state, b, viewer)
        if pending and viewer in state["private"] and viewer != "harkonnen":
            it["capture_karama"] = True  # any other seat may stop it with a Karama (karama-harkonnen)
        if (b and b["status"] != "applied" and "choam" in state["factions_present"]
                and state["options"].get("advanced") and not b.get("karama_support")
                and (viewer == "host" or (viewer in state["private"] and viewer != "choam"))):
            it["support_karama"] = True  # CHOAM's support income from this battle (karama-choam)
    _mark_next(state, items)
    return items


def _mark_next(state: dict, items: list[dict]) -> None:
    """Whose battle is next (``it["next"]``): the battle being fought, else the unopened battle of the
    first aggressor in storm order (base-battle: it resolves all its battles first). The next battle
    is listed first and the applied ones last."""
    from .battles import faction_order
    rank = {f: i for i, f in enumerate(faction_order(state))}
    live = [it for it in items if it["record"] and it["record"]["status"] != "applied"]
    waiting = sorted((it for it in items if not it["record"]), key=lambda it: rank.get(it["aggressor"], 99))
    nxt = (live or waiting or [None])[0]
    for it in items:
        it["next"] = it is nxt
    items.sort(key=lambda it: (not it["next"], bool(it["record"] and it["record"]["status"] == "applied")))


VOICE_TYPES = (("poison weapon", "Poison weapon"), ("projectile weapon", "Projectile weapon"),
               ("poison defense", "Poison defense"), ("projectile defense", "Projectile defense"),
               ("worthless", "Worthless"))


def _battle_powers(state: dict, b: dict, viewer: str, builder: dict | None) -> dict:
    """Prescience, Voice and the Karama against them, for one planning battle as ``viewer`` sees it:
    the public facts for all; the question buttons for the Atreides, the answer form for the
    side asked, the Voice buttons for the BG, the answer itself for the sides that may see it."""
    from .rules import battle_powers as powers
    from .rules import treachery as deck
    from .entries.battle import AFTER_REVEAL, OWN_SIDE_ONLY, POWER_NAME, POWER_OWNER, power_side

    karama = dict(b.get("karama") or {})
    q = b.get("prescience")
    voice = b.get("voice")
    out: dict = {"prescience": q, "voice": voice, "karama": karama,
                 "stopped": [{"power": k, "who": who, "name": POWER_NAME[k].removeprefix("the ")}
                             for k, who in karama.items()]}
    pres_side = power_side(state, b, "atreides")
    voice_side = power_side(state, b, "bg")
    # the answer: only for the seats that hold it (the host sees all)
    if q and q.get("answered"):
        holder = viewer if viewer in state["private"] else q["target"] if viewer == "host" else None
        answer = (state["private"].get(holder) or {}).get("prescience", {}).get(b["id"]) if holder else None
        if answer:
            out["answer"] = dict(answer, text=powers.answer_text(answer["element"], answer["value"]))
    if viewer == "atreides" and pres_side and not q and "prescience" not in karama:
        out["can_ask"] = True
        out["ask_for"] = pres_side
    if q and not q.get("answered") and viewer == q["target"] and builder is not None:
        sealed = builder.get("sealed")
        out["answer_form"] = {"element": q["element"],
                              "sealed": powers.plan_value(q["element"], sealed) if sealed else None}
    if viewer == "bg" and voice_side and not voice and "voice" not in karama:
        named = sorted({c.name for c in deck.cards() if (c.is_weapon or c.is_defense or c.kind == "worthless")
                        and not c.kiss_added})
        out["can_voice"] = {"types": VOICE_TYPES, "named": named, "target": next(x for x in b["sides"] if x != voice_side)}
    if viewer in state["private"]:
        stoppable = []
        for power, owner in POWER_OWNER.items():
            if power in AFTER_REVEAL:
                continue  # offered on the outcome, once there is something to stop
            side = (owner if owner in b["sides"] else None) if power in OWN_SIDE_ONLY else power_side(state, b, owner)
            used = {"prescience": q, "voice": voice}.get(power)
            if viewer != owner and side and power not in karama and not used:
                stoppable.append({"power": power, "name": POWER_NAME[power]})
        out["karama_options"] = stoppable
    # the constraints on the viewer's own plan builder
    if builder is not None:
        blocked: set = set()
        notes = []
        if voice and voice["target"] == viewer:
            notes.append({"text": "Voice: you must " + voice["text"] if voice["command"] == "play"
                          else "Voice: " + voice["text"], "rule": powers.RULE_VOICE})
            for c in builder["weapons"] + builder["defenses"] + builder["deck_weapons"] + builder["deck_defenses"]:
                if not powers.chip_allowed(voice, c):
                    blocked.add(c)
        mine = (state["private"].get(viewer) or {}).get("prescience", {}).get(b["id"]) if q else None
        if q and q["target"] == viewer and mine:
            notes.append({"text": f"Shown to the Atreides — {powers.answer_text(mine['element'], mine['value'])}. "
                                  f"Your plan plays it.", "rule": powers.RULE_PRESCIENCE})
            builder["fixed"] = {"element": mine["element"], **mine["value"]}
        builder["blocked"] = sorted(blocked)
        builder["notes"] = notes
    return out


def cards_left(seen: list, discovery: bool) -> list[str]:
    """The spice cards still in the draw deck (a worm once per copy), asked of the deck rules."""
    from .rules.spice import cards_in_deck
    return cards_in_deck(seen)


def board_view(state: dict, viewer: str = "board", cp=copy.deepcopy) -> dict:
    board = load_board()
    territories: dict = {}
    spice_by_sector: dict = {}
    for piece, n in state["board"]["spice"].items():
        name, sector = split_piece(piece)
        t = territories.setdefault(name, {"spice": 0, "forces": {}})
        t["spice"] += n
        spice_by_sector.setdefault(name, {})[str(sector or 0)] = n
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
        t["spice_by_sector"] = spice_by_sector.get(name, {})
    return {"territories": dict(sorted(territories.items())), "discovery": cp(state["board"]["discovery"]),
            "markers": cp(state["board"].get("markers", {}))}


class _PerState:
    """Values worked out once per published state and kept for every seat's read-only view. A
    published state is never changed (every entry folds into a copy), so what was worked out from
    it stays right. Keyed by the state's identity (and a name), bounded to the ``kept`` latest
    states (the phones of a table ask within a moment of each other); the states are kept alive
    with their values, so an identity is never reused while it is a key."""

    def __init__(self, kept: int):
        self.kept = kept
        self._values: OrderedDict = OrderedDict()  # id(state) -> (that state, {name: value})
        self._lock = threading.Lock()

    def get(self, state: dict, name, compute):
        key = id(state)
        with self._lock:
            kept = self._values.get(key)
            if kept is not None and kept[0] is state and name in kept[1]:
                return kept[1][name]
        value = compute()
        with self._lock:
            kept = self._values.get(key)
            if kept is None or kept[0] is not state:
                kept = self._values[key] = (state, {})
            kept[1][name] = value
            self._values.move_to_end(key)
            while len(self._values) > self.kept:
                self._values.popitem(last=False)
        return value


SHARED_STATES_KEPT = 128  # published states whose shared board views and phase facts are kept
_PER_STATE = _PerState(SHARED_STATES_KEPT)
# (table, sees Richese's number) -> the latest board view worked out for it: a new state whose board
# is equal shares that very object (the parts that compare views find it the same at once)
_LATEST_BOARDS: OrderedDict = OrderedDict()
_LATEST_BOARDS_LOCK = threading.Lock()
LATEST_BOARDS_KEPT = 2048


def shared_board_view(state: dict, viewer: str, cp) -> dict:
    """``board_view`` for a view that is only read (``view_for(shared=True)``), worked out once per
    published state for every seat that may see the same board (``_PER_STATE``); the one part of
    the board a seat may see and another may not is Richese's No-Field number, so that is in the
    key. A state whose board view equals the table's previous one gets that same object. ``cp`` is
    the spine's copier for a read-only view (it copies nothing)."""
    sees = can_see(viewer, "richese")

    def work_out() -> dict:
        board = board_view(state, viewer, cp)
        latest = (state.get("table"), sees)
        with _LATEST_BOARDS_LOCK:
            before = _LATEST_BOARDS.get(latest)
        if before is not None and before == board:
            board = before  # the table's board is as it was: the same object, so comparing it later is free
        with _LATEST_BOARDS_LOCK:
            _LATEST_BOARDS[latest] = board
            _LATEST_BOARDS.move_to_end(latest)
            while len(_LATEST_BOARDS) > LATEST_BOARDS_KEPT:
                _LATEST_BOARDS.popitem(last=False)
        return board
    return _PER_STATE.get(state, ("board", sees), work_out)


def victory_dict(result) -> dict:
    return {"winners": list(result.winners), "reason": result.reason, "rule": result.rule,
            "strongholds": [{"side": list(side), "strongholds": sorted(held)}
                            for side, held in result.strongholds.items()]}

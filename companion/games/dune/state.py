"""The derived state of one table, built by folding its events.

The state is a plain JSON-able dict. Everything secret lives under ``state["private"][faction]``
and nowhere else, so the per-seat views (``views.py``) can filter structurally: a seat gets the
public parts plus its own private part, never another's.
"""
from __future__ import annotations

from .rules.board import POLAR_SINK, load_board, piece_id, split_piece
from .rules.errors import hard
from .rules.factions import faction, faction_name
from .rules.treachery import initial_record
from .rules.phases import default_dots

PHASES = (
    "storm", "spice_blow", "charity", "bidding", "revival",
    "shipment_movement", "battle", "collection", "mentat_pause",
)

DEFAULT_OPTIONS = {"discovery_tokens": True, "advanced": False, "leader_skills": False, "stronghold_cards": False,
                   "kiss_cards_in_discard": False, "card_records": "atreides"}
# the CHOAM & Richese add-on's modules: strict booleans, default false
ADDON_OPTIONS = ("advanced", "leader_skills", "stronghold_cards")


def _stack() -> dict:
    return {"forces": 0, "starred": 0, "advisors": 0}


def default_seats(factions: list[str], dots: list[int]) -> dict[str, int]:
    """Player dots in seating order: the board's six dots for up to six factions; with seven to
    nine, dots spread evenly round the 18 sectors (the table can set its own with dots.set)."""
    if len(factions) <= len(dots):
        return default_dots(factions, dots)
    return {f: 1 + (i * 18) // len(factions) for i, f in enumerate(factions)}


def new_state(code: str, factions: list[str], turns: int = 10, options: dict | None = None) -> dict:
    board = load_board()
    opts = dict(DEFAULT_OPTIONS)
    opts.update(options or {})
    for key in ADDON_OPTIONS:
        if not isinstance(opts[key], bool):
            raise hard(f"options.{key}: true or false (not {opts[key]!r}).", "choam-richese-setup")
    if opts["stronghold_cards"] and not opts["advanced"]:
        raise hard("options.stronghold_cards: Stronghold Cards need Advanced play (options.advanced).",
                   "choam-richese-stronghold-cards")
    seats = default_seats(factions, list(board.player_dots))
    for f, dot in (opts.get("player_dots") or {}).items():
        if f not in seats or not isinstance(dot, int) or isinstance(dot, bool) or not 1 <= dot <= 18:
            raise hard(f"player_dots: give each faction at the table a sector from 1 to 18 (not {faction_name(f)}: {dot!r}).",
                       "base-turn-sequence")
        seats[f] = dot
    if opts["card_records"] not in ("atreides", "everyone"):
        raise hard(f"options.card_records: \"atreides\" (the rule) or \"everyone\" (a house rule), not "
                   f"{str(opts['card_records'])[:20]!r}.", "atreides-prescience-bidding")
    state: dict = {
        "table": code,
        "revision": 0,
        "turn": 1,
        "phase": "storm",
        "last_turn": turns,
        "options": opts,
        "factions_present": list(factions),
        "player_dots": seats,
        "storm": {"sector": board.storm_start},
        "shield_wall": True,
        "atomics_aftermath": None,
        "alliances": {},
        "board": {"forces": {}, "spice": {}, "discovery": {}},
        "factions": {},
        "private": {},
        "turn_flags": {f: {"shipped": False, "moved": False} for f in factions},
        "readings": {},
        "setup": {"pending": []},
        "banner": None,
        "overrides": 0,
        "winner": None,
        # revealed Discovery territories (Jacurutu Sietch, Cistern, ...): name -> host piece
        "token_territories": {},
        # what the phases have done this turn (rules/phase_steps.py reads them)
        "storm_moved": None,  # the turn the storm last moved: it moves once a turn
        "blows": [],  # this turn's spice cards: [{"turn", "pile", "card"}]
        "bidding": None,  # {"turn", "cards", "sold", "openers", "buyers", "ended"}
        "shipment_done": {"turn": 0, "factions": []},  # said done with Shipment & Movement
        # the Treachery deck: public discard pile, KISS cards added, reshuffles (entries/bookkeeping.py)
        "treachery": initial_record(bool(opts["kiss_cards_in_discard"])),
    }
    for f in factions:
        data = faction(f)
        starred = data.get("starred", 0)
        state["factions"][f] = {
            "name": data["name"],
            "reserves": {"forces": data["total"] - starred, "starred": starred},
            "tanks": {"forces": 0, "starred": 0},
            "total": {"forces": data["total"] - starred, "starred": starred},
            "leaders": [
                {"name": ld["name"], "strength": ld["strength"], "status": "alive", "captured_by": None, "used": False}
                for ld in data["leaders"]
            ],
            "hand_size": data.get("start_cards", 1),
            "hand_limit": data["hand_limit"],
            "spice_front": 0,
            "special_karama_used": False,
        }
        state["private"][f] = {
            "spice": data["spice"],
            "cards": [],
            "traitors": [],
            "notes": "",
        }
        for placement in data.get("start", []):
            place_forces(state, f, piece_id(placement["territory"], placement["sector"]),
                         placement["forces"], placement["starred"], 0, "reserves")
    if "choam" in factions and opts["advanced"]:  # the Auditor plays only in Advanced play
        state["factions"]["choam"]["leaders"] += [
            {"name": ld["name"], "strength": ld["strength"], "status": "alive", "captured_by": None, "used": False}
            for ld in faction("choam").get("advanced_leaders", [])]
    if "choam" in factions:
        state["factions"]["choam"]["inflation"] = None  # {"placed_turn", "side"} once placed
    if "richese" in factions:
        data = faction("richese")
        state["factions"]["richese"]["cache"] = list(data["cache"])  # outside the deck and every hand
        state["factions"]["richese"]["nofield_faceup"] = None  # the last-used token, face up
        state["private"]["richese"]["nofield"] = None  # {"piece", "token"}: the hidden number
        state["private"]["richese"]["nofield_supply"] = list(data["no_field_tokens"])
    if "atreides" in factions:
        state["private"]["atreides"]["kh_losses"] = 0
    if "bg" in factions:
        state["private"]["bg"]["prediction"] = None
        state["factions"]["bg"]["worthless_karama_used"] = False
    if "ecaz" in factions:
        state["private"]["ecaz"]["ambassadors"] = []
    if "moritani" in factions:
        from .rules.factions import load_factions
        state["private"]["moritani"]["terror_tokens"] = list(load_factions()["terror_tokens"])
    if "fremen" in factions:
        state["private"]["fremen"]["storm_card"] = None
        # Wormriders: piece -> {"forces","starred"} the storm or a worm spared, until the Nexus ends
        state["factions"]["fremen"]["saved"] = {}
    # setup choices, in the order the rules give them
    pending = []
    for f in factions:
        choice = faction(f).get("setup_choice")
        if choice:
            pending.append((choice["order"], f, choice["kind"]))
    state["setup"]["pending"] = [{"faction": f, "kind": k} for _, f, k in sorted(pending)]
    # readings where the KISS sheet and the base game disagree: default applied now
    for f in factions:
        reading = faction(f).get("readings")
        if reading:
            state["readings"][reading["id"]] = reading["default"]
            apply_reading_start(state, f, reading, reading["default"])
    return state


def apply_reading_start(state: dict, f: str, reading: dict, choice: str) -> None:
    """Lay out the start that a reading gives (forces only; used at setup)."""
    for placement in reading["options"][choice].get("start", []):
        place_forces(state, f, piece_id(placement["territory"], placement["sector"]),
                     placement["forces"], placement["starred"], 0, "reserves")


# -- forces, with conservation ---------------------------------------------------------------

def stack(state: dict, piece: str, f: str) -> dict:
    return state["board"]["forces"].get(piece, {}).get(f, _stack())


def _pool(state: dict, f: str, where: str) -> dict:
    if where not in ("reserves", "tanks"):
        raise hard(f"Forces come from and go to 'reserves' or 'tanks', not {where!r}.")
    return state["factions"][f][where]


def place_forces(state: dict, f: str, piece: str, forces: int, starred: int, advisors: int, source: str) -> None:
    """Put forces on a piece from reserves or the tanks. Advisors are Bene Gesserit forces
    placed advisor side up; they come out of the same pool as fighters."""
    pool = _pool(state, f, source)
    regular = forces + advisors
    if regular < 0 or starred < 0:
        raise hard("Force counts cannot be negative.")
    if advisors and f != "bg":
        raise hard("Only the Bene Gesserit have advisors.")
    if pool["forces"] < regular or pool["starred"] < starred:
        have = _fmt(pool["forces"], pool["starred"], f)
        raise hard(f"{faction_name(f)} has only {have} in {'reserve' if source == 'reserves' else 'the tanks'}.",
                   "base-tanks" if source == "tanks" else "base-shipment")
    pool["forces"] -= regular
    pool["starred"] -= starred
    s = state["board"]["forces"].setdefault(piece, {}).setdefault(f, _stack())
    s["forces"] += forces
    s["starred"] += starred
    s["advisors"] += advisors


def remove_forces(state: dict, f: str, piece: str, forces: int, starred: int, advisors: int, dest: str) -> None:
    pool = _pool(state, f, dest)
    s = stack(state, piece, f)
    if forces < 0 or starred < 0 or advisors < 0:
        raise hard("Force counts cannot be negative.")
    if s["forces"] < forces or s["starred"] < starred or s["advisors"] < advisors:
        territory, sector = split_piece(piece)
        where = load_board().territory(territory).label(sector)
        raise hard(f"{faction_name(f)} has only {_fmt(s['forces'], s['starred'], f, s['advisors'])} in {where}.")
    s = state["board"]["forces"][piece][f]
    s["forces"] -= forces
    s["starred"] -= starred
    s["advisors"] -= advisors
    pool["forces"] += forces + advisors
    pool["starred"] += starred
    _prune(state, piece, f)


def shift_forces(state: dict, f: str, src: str, dst: str, forces: int, starred: int, advisors: int = 0) -> None:
    """Move forces from one piece to another (movement, Guild cross-shipment)."""
    s = stack(state, src, f)
    if s["forces"] < forces or s["starred"] < starred or s["advisors"] < advisors:
        territory, sector = split_piece(src)
        where = load_board().territory(territory).label(sector)
        raise hard(f"{faction_name(f)} has only {_fmt(s['forces'], s['starred'], f, s['advisors'])} in {where}.")
    if forces + starred + advisors <= 0:
        raise hard("Move at least one force.")
    s = state["board"]["forces"][src][f]
    s["forces"] -= forces
    s["starred"] -= starred
    s["advisors"] -= advisors
    d = state["board"]["forces"].setdefault(dst, {}).setdefault(f, _stack())
    d["forces"] += forces
    d["starred"] += starred
    d["advisors"] += advisors
    _prune(state, src, f)


def _prune(state: dict, piece: str, f: str) -> None:
    pieces = state["board"]["forces"]
    if piece in pieces and f in pieces[piece] and not any(pieces[piece][f].values()):
        del pieces[piece][f]
        if not pieces[piece]:
            del pieces[piece]


def _fmt(forces: int, starred: int, f: str, advisors: int = 0) -> str:
    parts = [f"{forces} force{'s' if forces != 1 else ''}"]
    if starred:
        parts.append(f"{starred} {faction(f).get('starred_name', 'starred')}")
    if advisors:
        parts.append(f"{advisors} advisor{'s' if advisors != 1 else ''}")
    return " and ".join(parts)


def forces_on_board(state: dict, f: str) -> dict:
    total = {"forces": 0, "starred": 0}
    for stacks in state["board"]["forces"].values():
        s = stacks.get(f)
        if s:
            total["forces"] += s["forces"] + s["advisors"]
            total["starred"] += s["starred"]
    return total


def conservation_errors(state: dict) -> list[str]:
    """Every faction's forces on the board + reserves + tanks = its total."""
    problems = []
    for f, data in state["factions"].items():
        on = forces_on_board(state, f)
        for kind in ("forces", "starred"):
            n = on[kind] + data["reserves"][kind] + data["tanks"][kind]
            if n != data["total"][kind]:
                problems.append(f"{f} {kind}: {n} != {data['total'][kind]}")
    return problems


def territory_forces(state: dict, territory: str) -> dict:
    """faction -> {"forces","starred","advisors"} summed over a territory's pieces."""
    board = load_board()
    out: dict = {}
    for piece in board.territory(territory).pieces():
        for f, s in state["board"]["forces"].get(piece, {}).items():
            t = out.setdefault(f, _stack())
            for k in t:
                t[k] += s[k]
    return out


def nofield_piece(state: dict) -> str | None:
    """The piece holding Richese's face-down No-Field token (public: everyone sees the marker)."""
    return (state["board"].get("nofield") or {}).get("piece")


def forces_with_nofield(state: dict) -> dict:
    """The board's forces with a face-down No-Field counted as one Richese force (occupancy,
    movement, collection: CHOAM & Richese rules). The state itself is not changed."""
    piece = nofield_piece(state)
    forces = state["board"]["forces"]
    if not piece:
        return forces
    out = {p: dict(stacks) for p, stacks in forces.items()}
    s = dict(out.setdefault(piece, {}).get("richese") or _stack())
    s["forces"] += 1
    out[piece]["richese"] = s
    return out


def occupants(state: dict) -> dict:
    """territory -> faction -> fighting forces (advisors excluded; a No-Field counts as one)."""
    out: dict = {}
    for piece, stacks in forces_with_nofield(state).items():
        territory, _ = split_piece(piece)
        for f, s in stacks.items():
            n = s["forces"] + s["starred"]
            if n:
                out.setdefault(territory, {}).setdefault(f, 0)
                out[territory][f] += n
    return out


def advisors_by_territory(state: dict) -> dict:
    out: dict = {}
    for piece, stacks in state["board"]["forces"].items():
        s = stacks.get("bg")
        if s and s["advisors"]:
            territory, _ = split_piece(piece)
            out[territory] = out.get(territory, 0) + s["advisors"]
    return out


def position_of(state: dict):
    """The snapshot the shipment and movement rules read (rules/position.py)."""
    from .rules.position import Position
    return Position(
        storm_sector=state["storm"]["sector"],
        occupants=occupants(state),
        advisors=advisors_by_territory(state),
        alliances=dict(state["alliances"]),
        atomics_aftermath=state.get("atomics_aftermath"),
        token_territories=dict(state.get("token_territories", {})),
        shield_wall_standing=state.get("shield_wall", True),
    )


__all__ = ["position_of", 
    "PHASES", "POLAR_SINK", "new_state", "place_forces", "remove_forces", "shift_forces", "stack",
    "forces_on_board", "conservation_errors", "territory_forces", "occupants", "advisors_by_territory",
]

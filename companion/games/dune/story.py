"""The story of a Dune game, told once it is over (``GET /api/tables/{code}/story``, ``/t/{code}/story``):
every entry with its secrets, the series of each faction's figures at the end of each turn (the
entries folded to that turn's end), every battle with both plans and its outcome, the traitors held
and called, and the Bene Gesserit prediction."""
from __future__ import annotations

import copy

from .rules.board import load_board
from .state import occupants

SERIES = ("spice", "forces_on_board", "strongholds", "cards_in_hand")


def replay(code: str, config: dict, events: list[dict], undone: dict):
    """Yield (event, state after it) for every entry that stands (undone ones and undos skipped)."""
    from . import GAME
    state = GAME.new_state(code, config)
    skip = set(undone) | {e["seq"] for e in events if e["type"] == "undo"}
    for e in events:
        if e["seq"] in skip:
            continue
        at = GAME.registry.get(e["type"])
        try:
            at.handler(GAME.context(e["seat"], True, None), state, at.model.model_validate(e["payload"]))
        except Exception:  # noqa: BLE001 - as the table's own fold: an entry that no longer applies is skipped
            continue
        yield e, state


def turns_of(code: str, config: dict, events: list[dict], undone: dict) -> dict[int, int]:
    """seq -> the turn the table was in once that entry applied (entries that stand only)."""
    return {e["seq"]: state["turn"] for e, state in replay(code, config, events, undone)}


def turn_ends(code: str, config: dict, events: list[dict], undone: dict,
              turn_of: dict | None = None) -> list[tuple[int, dict]]:
    """(turn, the state at that turn's end) for every turn played: a turn ends with the last entry
    before the next turn begins; the last turn ends with the game's last entry. (Two replays: the
    first finds each turn's last entry, the second copies the state there and nowhere else.)"""
    from . import GAME
    turn_of = turns_of(code, config, events, undone) if turn_of is None else turn_of
    order = [seq for seq in sorted(turn_of)]
    last_of = {}  # seq -> the turn it ends
    for i, seq in enumerate(order):
        nxt = turn_of[order[i + 1]] if i + 1 < len(order) else None
        if nxt is None or nxt > turn_of[seq]:
            last_of[seq] = turn_of[seq]
    first = GAME.new_state(code, config)
    out: list[tuple[int, dict]] = []
    if order and turn_of[order[0]] > first["turn"]:
        out.append((first["turn"], copy.deepcopy(first)))
    for e, state in replay(code, config, events, undone):
        if e["seq"] in last_of:
            out.append((last_of[e["seq"]], copy.deepcopy(state)))
    return out or [(first["turn"], first)]


def figures(state: dict) -> dict[str, dict[str, int]]:
    """Each faction's figures in a state: spice behind the shield, forces on the board (advisors
    too), strongholds held (with fighting forces), cards in hand."""
    board = load_board()
    occ = occupants(state)
    out: dict = {k: {} for k in SERIES}
    for f in state["factions_present"]:
        out["spice"][f] = state["private"][f]["spice"]
        out["forces_on_board"][f] = sum(s["forces"] + s["starred"] + s["advisors"]
                                        for stacks in state["board"]["forces"].values()
                                        for g, s in stacks.items() if g == f)
        out["strongholds"][f] = sum(1 for t, per in occ.items() if f in per
                                    and t in board.territories and board.territories[t].is_stronghold)
        out["cards_in_hand"][f] = state["factions"][f]["hand_size"]
    return out


def series_of(ends: list[tuple[int, dict]]) -> dict:
    factions = ends[-1][1]["factions_present"]
    out = {k: {f: [] for f in factions} for k in SERIES}
    for _, state in ends:
        fig = figures(state)
        for k in SERIES:
            for f in factions:
                out[k][f].append(fig[k][f])
    return out


def battles_of(state: dict) -> list[dict]:
    out = []
    for b in state.get("battles", []):
        out.append({"id": b["id"], "turn": b["turn"], "territory": b["territory"], "aggressor": b["aggressor"],
                    "sides": list(b["sides"]), "plans": copy.deepcopy(b.get("plans") or {}),
                    "traitors": list(b.get("traitors") or []), "status": b["status"],
                    "outcome": copy.deepcopy(b.get("outcome"))})
    return out


def secrets_of(state: dict) -> dict:
    called: dict = {}
    for b in state.get("battles", []):
        for f in b.get("traitors") or []:
            opp = next((x for x in b["sides"] if x != f), None)
            leader = ((b.get("plans") or {}).get(opp) or {}).get("leader")
            if leader:
                called.setdefault(f, []).append(leader)
    traitors = {f: {"held": list(p.get("traitors") or []), "called": called.get(f, [])}
                for f, p in state["private"].items()}
    prediction = copy.deepcopy((state["private"].get("bg") or {}).get("prediction")) if "bg" in state["private"] else None
    return {"traitors": traitors, "prediction": prediction}


def build_story(code: str, config: dict, events: list[dict], undone: dict, ends=None) -> dict:
    """The story's JSON (``GET /api/tables/{code}/story``); ``ends``: ``turn_ends`` if already made."""
    ends = ends or turn_ends(code, config, events, undone)
    final = ends[-1][1]
    winner = copy.deepcopy(final.get("winner"))
    if winner is None and final.get("ended"):
        winner = {"factions": [], "summary": f"The game ended: {final['ended']['reason']}"}
    entries = [{"seq": e["seq"], "seat": e["seat"], "type": e["type"], "summary": e["summary"],
                "payload": copy.deepcopy(e["payload"]), "secret_for": e.get("secret_for"),
                "undone": e["seq"] in undone} for e in events]
    return {"winner": winner, "turns": [t for t, _ in ends], "entries": entries, "series": series_of(ends),
            "battles": battles_of(final), "secrets": secrets_of(final)}


__all__ = ["build_story", "turn_ends", "turns_of", "figures", "series_of", "SERIES"]

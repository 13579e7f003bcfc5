"""The story of a Secret Harkonnen game, told once it is over (the same ``/story`` route and page as
every game): every role, every sealed vote, every policy hand and what was discarded from it, and what
the executive powers showed."""
from __future__ import annotations

import copy


def build_story(code: str, config: dict, events: list[dict], undone: dict) -> dict:
    from . import GAME
    state = GAME.new_state(code, config)
    votes, legislative, powers, entries = [], [], [], []
    ballot: dict = {}
    for e in events:
        entries.append({"seq": e["seq"], "seat": e["seat"], "type": e["type"], "summary": e["summary"],
                        "payload": copy.deepcopy(e["payload"]), "secret_for": e.get("secret_for")})
        if e["seq"] in undone or e["type"] == "undo":
            continue
        at = GAME.registry.get(e["type"])
        before = copy.deepcopy(state)
        try:
            at.handler(GAME.context(e["seat"], False, None), state, at.model.model_validate(e["payload"]))
        except Exception:  # noqa: BLE001 - as the table's fold: skip an entry that no longer applies
            continue
        actor, p = e["seat"], e["payload"]
        if e["type"] == "sh.vote":
            ballot[actor] = p["vote"]
            if len(before["voted"]) + 1 == len(before["alive"]):  # the ballot closed: every vote is revealed
                votes.append({"emperor": before["emperor"], "governor": before["nominee"], "votes": dict(ballot),
                              "result": "confirmed" if state["governor"] == before["nominee"] and
                              state.get("government") else "denied"})
                ballot = {}
        elif e["type"] == "sh.discard":
            hand = list(before["private"][actor]["hand"] or [])
            legislative.append({"by": actor, "role": "emperor", "hand": hand, "discarded": hand[p["policy"]]})
        elif e["type"] == "sh.enact":
            hand = list(before["private"][actor]["hand"] or [])
            legislative.append({"by": actor, "role": "governor", "hand": hand, "enacted": hand[p["policy"]],
                                "discarded": hand[1 - p["policy"]]})
        elif e["type"] == "sh.power":
            mine = state["private"][actor]
            result = {"consult": lambda: mine["consult"], "trance": lambda: mine["trance"].get(p.get("target")),
                      }.get(p["power"], lambda: p.get("target"))()
            powers.append({"by": actor, "power": p["power"], "target": p.get("target"), "result": copy.deepcopy(result)})
    return {"winner": {"team": state["winner"], "summary": state["win_reason"]}, "roles": dict(state["secret"]["roles"]),
            "entries": entries, "votes": votes, "legislative": legislative, "powers": powers,
            "policies": dict(state["policies"])}

"""Secret Harkonnen secrets: over random games, no phone ever receives another player's role,
a vote before the reveal, or a policy card it was not dealt.

The property is non-interference: for each phone, change everything that phone may not know
(the other players' sealed votes and hands, the deck order and the discards, the roles of the
players it was not told about) and its state JSON and its history must not change at all."""
from __future__ import annotations

import copy
import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games.secret_harkonnen import rules as R
from companion.table.views import view_for
from sh_helpers import SH

FLIP = {"landsraad": "choam", "choam": "landsraad", "confirm": "deny", "deny": "confirm"}


def what_they_cannot_know(state: dict, viewer: str, rng: random.Random) -> dict:
    s = copy.deepcopy(state)
    for p, mine in s["private"].items():
        if p == viewer:
            continue
        if mine["vote"]:
            mine["vote"] = FLIP[mine["vote"]]
        if mine["hand"]:
            mine["hand"] = [FLIP[c] for c in mine["hand"]]
        mine["consult"] = [FLIP[c] for c in mine["consult"]] if mine["consult"] else ["choam"]
        mine["trance"] = {viewer: "imperial"}
    sec = s["secret"]
    sec["deck"] = [FLIP[c] for c in reversed(sec["deck"])]
    sec["discard"] = [FLIP[c] for c in sec["discard"]]
    sec["seed"] = "0" * 32
    if viewer in s["players"]:
        known = set(R.knows(sec["roles"], viewer))
        unknown = [p for p in s["players"] if p not in known]
        roles = [sec["roles"][p] for p in unknown]
        rng.shuffle(roles)
        sec["roles"].update(zip(unknown, roles))
    else:  # host and board know no role at all
        roles = list(sec["roles"].values())
        rng.shuffle(roles)
        sec["roles"] = dict(zip(s["players"], roles))
    return s


def random_step(g: SH, rng: random.Random) -> None:
    s = g.raw
    phase, emp = s["phase"], s["emperor"]
    if phase == "nomination":
        v = g.view(emp)
        g.act(emp, type="sh.nominate", governor=rng.choice([p for p in s["alive"] if p not in v["ineligible"]]))
    elif phase == "election":
        voter = next(p for p in s["alive"] if p not in s["voted"])
        g.act(voter, type="sh.vote", vote=rng.choice(["confirm", "deny", "confirm"]))
    elif phase == "legislative_emperor":
        g.act(emp, type="sh.discard", policy=rng.randrange(3))
    elif phase == "legislative_governor":
        if s["veto"] is not None and rng.random() < 0.4:
            g.act(rng.choice([emp, s["governor"]]), type="sh.veto", agree=rng.random() < 0.8)
        else:
            g.act(s["governor"], type="sh.enact", policy=rng.randrange(2))
    elif phase == "executive":
        power = rng.choice(s["power_options"])
        target = rng.choice([p for p in s["alive"] if p != emp])
        g.act(emp, type="sh.power", power=power, **({} if power == "consult" else {"target": target}))


def check_every_phone(g: SH, rng: random.Random) -> None:
    state = g.raw
    if state["phase"] == "over":
        return
    for viewer in [*state["players"], "host", "board"]:
        seen = view_for(state, viewer)
        if viewer != "board":
            assert g.view(viewer) == json.loads(json.dumps(seen))  # the API sends exactly the view
        other = view_for(what_they_cannot_know(state, viewer, rng), viewer)
        assert other == seen, f"{viewer}'s view depends on something they may not know"
        if viewer in state["players"]:
            assert set(seen["me"]["knows"]) == set(R.knows(state["secret"]["roles"], viewer))
        else:
            assert "me" not in seen and "roles" not in seen
    for viewer in [*state["players"], "host"]:
        for e in g.history(viewer):
            if e["type"] in ("sh.deal", "sh.vote", "sh.discard") and e["seat"] != viewer:
                assert e["payload"] is None and "private entry" in e["summary"], (viewer, e)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(n=st.integers(min_value=5, max_value=10), seed=st.integers(min_value=0, max_value=2**32))
def test_no_phone_learns_what_it_may_not_know(app, client, n, seed):
    rng = random.Random(seed)
    g = SH(app, client, n)
    for _ in range(80):
        if g.raw["phase"] == "over":
            break
        random_step(g, rng)
        if rng.random() < 0.5:
            check_every_phone(g, rng)
    check_every_phone(g, rng)
    assert g.app.extensions["tables"].table(g.code).state["revision"] > 1

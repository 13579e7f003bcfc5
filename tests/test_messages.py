"""Issue 13 item 6: refusals name factions as players say them ("Atreides", "Bene Gesserit"),
never by their raw ids ("atreides", "bg"), and read as English ("holds an ambassador").

The scan makes many entries of every registered entry type, for every faction, in several phases
and on two tables (fresh, and one with full hands, empty purses and forces everywhere), runs them
through the handlers and reads every refusal sentence.
"""
from __future__ import annotations

import copy
import itertools
import re
import typing

import pytest
from pydantic import ValidationError

from companion.games.dune.rules.board import load_board
from companion.games.dune.rules.errors import RuleViolation
from companion.games.dune.rules.factions import FACTION_IDS
from companion.games.dune.entries import Ctx, load_all
from companion.games.dune.state import new_state

RAW_ID = re.compile(r"(?<![\w.'-])(" + "|".join(FACTION_IDS) + r")(?![\w-])")
BAD_ENGLISH = re.compile(r"\ba [aeiou]\w+|\ban [b-df-hj-np-tv-z]\w+", re.IGNORECASE)
SAMPLES = {
    "territory": ["Arrakeen", "The Great Flat", "Polar Sink", "Carthag"],
    "to": ["Arrakeen", "Polar Sink", "reserves", "tanks"],
    "from_": ["Carthag", "Arrakeen", "tanks"],
    "card": ["Shai-Hulud", "Red Chasm"],
    "leader": ["Duncan Idaho", "Nobody"],
    "token": ["Cistern", "Spice Stash"],
}
PHASES = ["storm", "spice_blow", "bidding", "revival", "shipment_movement", "battle", "collection",
          "mentat_pause"]


def _values(name: str, ann, f: str, big: bool) -> list:
    if name.endswith("sector"):
        return [None]  # let the territory name it (one-sector territories) or refuse it
    origin, args = typing.get_origin(ann), typing.get_args(ann)
    if origin is typing.Union or type(ann).__name__ == "UnionType":
        inner = [a for a in args if a is not type(None)]
        return _values(name, inner[0], f, big) if inner else [None]
    if origin is typing.Literal:
        if set(args) <= set(FACTION_IDS):
            return [f] if f in args else [args[0]]
        return list(args)[:3]
    if ann is bool:
        return [big]
    if ann is int:
        return [25 if big else 1]
    if ann is str:
        return SAMPLES.get(name, ["x"])[:2]
    if origin is list:
        return [[f, "harkonnen" if f == "atreides" else "atreides"]]
    if origin is dict:
        return [{f: 3}]
    return [None]


def _tables() -> list[dict]:
    fresh = new_state("SCAN1", list(FACTION_IDS))
    rich = copy.deepcopy(fresh)
    for f, fs in rich["factions"].items():
        fs["tanks"]["forces"] = 5
        fs["hand_size"] = fs["hand_limit"]
        rich["private"][f]["spice"] = 0
        rich["board"]["forces"].setdefault("Polar Sink", {})[f] = {"forces": 1, "starred": 0, "advisors": 0}
        fs["reserves"]["forces"] -= 1
    rich["board"]["markers"] = {"Arrakeen": {"ambassador": True, "terror": True}}
    return [fresh, rich]


def refusals() -> list[tuple[str, str, dict]]:
    registry, board = load_all(), load_board()
    out = []
    for base in _tables():
        for phase in PHASES:
            for type_, at in registry.items():
                fields = {k: v for k, v in at.model.model_fields.items()
                          if k not in ("type", "revision", "override", "reason")}
                for f in FACTION_IDS:
                    for big in (False, True):
                        choices = [[(fld.alias or k, v) for v in _values(k, fld.annotation, f, big)]
                                   for k, fld in fields.items()]
                        for combo in itertools.islice(itertools.product(*choices), 4):
                            payload = {"type": type_, **{k: v for k, v in combo if v is not None}}
                            try:
                                p = at.model.model_validate(payload)
                            except ValidationError:
                                continue
                            state = copy.deepcopy(base)
                            state["phase"], state["turn"] = phase, 2
                            try:
                                at.handler(Ctx(actor="host", board=board), state, p)
                            except RuleViolation as exc:
                                out.append((type_, exc.message, payload))
    return out


@pytest.fixture(scope="module")
def scanned():
    return refusals()


def test_the_scan_reaches_many_entry_types_and_sentences(scanned):
    types = {t for t, _, _ in scanned}
    assert len(types) >= 40, sorted(types)
    assert len({m for _, m, _ in scanned}) >= 120


def test_no_refusal_names_a_faction_by_its_raw_id(scanned):
    bad = sorted({(t, m) for t, m, _ in scanned if RAW_ID.search(m)})
    assert not bad, "\n".join(f"{t}: {m}" for t, m in bad[:20])


def test_refusals_use_the_right_article(scanned):
    bad = sorted({(t, m) for t, m, _ in scanned if BAD_ENGLISH.search(m.replace("a one", "").replace("an hour", ""))})
    assert not bad, "\n".join(f"{t}: {m}" for t, m in bad[:20])


@pytest.mark.parametrize("fid", FACTION_IDS)
def test_the_raw_id_pattern_finds_ids_and_spares_names(fid):
    from companion.games.dune.rules.factions import faction_name
    assert RAW_ID.search(f"{fid} may revive 3 forces.")
    assert not RAW_ID.search(f"{faction_name(fid)} may revive 3 forces (rule {fid}-free-revival).")

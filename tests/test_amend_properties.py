"""Hypothesis: for a random table, amending entry N to itself changes nothing, and striking
entry N then undoing the strike gives back the same state (the amendment machinery replays
exactly what the table played)."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.table.service import Conflicts, EntryError

FACTIONS = ["atreides", "harkonnen", "fremen"]
PLACES = ["The Great Flat", "Imperial Basin", "Arrakeen", "Sietch Tabr", "Red Chasm", "Habbanya Erg"]

entry = st.one_of(
    st.builds(lambda f, n: {"type": "spice.set", "faction": f, "amount": n}, st.sampled_from(FACTIONS),
              st.integers(0, 30)),
    st.builds(lambda s: {"type": "storm.set", "sector": s}, st.integers(1, 18)),
    st.builds(lambda n: {"type": "storm.move", "sectors": n}, st.integers(0, 6)),
    st.builds(lambda t, p: {"type": "phase.set", "turn": t, "phase": p}, st.integers(1, 3),
              st.sampled_from(["storm", "shipment_movement", "spice_blow"])),
    st.builds(lambda f, to, n, o: {"type": "ship", "faction": f, "to": to, "forces": n,
                                   **({"override": True, "reason": "the table agreed"} if o else {})},
              st.sampled_from(FACTIONS), st.sampled_from(PLACES), st.integers(1, 4), st.booleans()),
    st.builds(lambda f: {"type": "turn.done", "faction": f}, st.sampled_from(FACTIONS)),
)


def play(svc, entries) -> str:
    code = svc.create(FACTIONS)["code"]
    svc.submit(code, "fremen", {"type": "setup.fremen", "placements": [{"territory": "Sietch Tabr", "forces": 10}],
                                "revision": 0})
    for e in entries:
        try:
            svc.submit(code, "host", {**e, "revision": svc.table(code).revision})
        except EntryError:
            pass  # refused at the table: never entered
    return code


def same(a: dict, b: dict) -> bool:
    return {k: v for k, v in a.items() if k != "revision"} == {k: v for k, v in b.items() if k != "revision"}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(entry, min_size=1, max_size=25), pick=st.integers(0, 10**6))
def test_amending_an_entry_to_itself_changes_nothing(app, entries, pick):
    svc = app.extensions["tables"]
    code = play(svc, entries)
    t = svc.table(code)
    before = t.state
    target = t.events[pick % len(t.events)]
    after = svc.amend(code, "host", {"seq": target["seq"], "entry": target["payload"], "reason": "same",
                                     "revision": t.revision})
    assert same(after, before)
    assert svc.history(code, "host")[-1]["type"] == "amend"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(entries=st.lists(entry, min_size=1, max_size=25), pick=st.integers(0, 10**6))
def test_striking_an_entry_then_undoing_the_strike_gives_back_the_same_state(app, entries, pick):
    svc = app.extensions["tables"]
    code = play(svc, entries)
    t = svc.table(code)
    before = t.state
    target = t.events[pick % len(t.events)]
    try:
        svc.amend(code, "host", {"seq": target["seq"], "entry": None, "reason": "strike", "revision": t.revision,
                                 "override": True})
    except (Conflicts, EntryError):  # later entries that cannot be forced: nothing changed
        assert same(svc.table(code).state, before) and svc.table(code).revision == before["revision"]
        return
    after = svc.undo(code, "host", svc.table(code).revision)
    assert same(after, before)

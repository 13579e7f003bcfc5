"""Small helpers shared by the table-layer API tests (test_table_*.py).

They sit on top of conftest's helpers (``act``, ``state``, ``create_table`` ...) and add what the
table tests keep needing: refusals with their rule id, host-side shortcuts, reading stacks.
"""
from __future__ import annotations

from conftest import act, bearer, state

TOTAL_FORCES = 20


def refused(client, t, who: str, rule: str | None, needle: str | None = None, /, *, _status: int = 422,
            **entry) -> dict:
    """Make an entry that must be refused; check the rule id and a piece of the sentence."""
    r = act(client, t.code, t.token(who), expect=_status, **entry)
    err = r.get_json()["error"]
    assert err["message"], err
    if _status == 422:
        assert err["rule"] == rule, err
    if needle is not None:
        assert needle.lower() in err["message"].lower(), err["message"]
    return err


def ok(client, t, who: str = "host", /, **entry) -> dict:
    """Make an entry that must be accepted; return the new state as ``who`` sees it."""
    return act(client, t.code, t.token(who), **entry).get_json()


def host_state(client, t) -> dict:
    return state(client, t.code, t.host)


def set_phase(client, t, phase: str, turn: int = 1) -> dict:
    return ok(client, t, type="phase.set", turn=turn, phase=phase)


def stack(s: dict, territory: str, faction: str) -> dict:
    """The faction's aggregated stack in a territory (zeros when absent)."""
    t = s["board"]["territories"].get(territory, {})
    return t.get("forces", {}).get(faction, {"forces": 0, "starred": 0, "advisors": 0, "sectors": {}})


def board_spice(s: dict, territory: str) -> int:
    return s["board"]["territories"].get(territory, {}).get("spice", 0)


def spice(s: dict, faction: str):
    return s["factions"][faction]["spice"]


def forces_total(s: dict, faction: str) -> int:
    """Board + reserves + tanks, every kind of force, read from the state JSON."""
    f = s["factions"][faction]
    n = sum(f["reserves"].values()) + sum(f["tanks"].values())
    for t in s["board"]["territories"].values():
        st = t.get("forces", {}).get(faction)
        if st:
            n += st["forces"] + st["starred"] + st.get("advisors", 0)
    return n


def finish_setup(client, t) -> None:
    """Fremen (10 in Sietch Tabr) then Bene Gesserit (1 in the Polar Sink), when present."""
    if "fremen" in t.seats:
        ok(client, t, "fremen", type="setup.fremen",
           placements=[{"territory": "Sietch Tabr", "forces": 10}])
    if "bg" in t.seats:
        ok(client, t, "bg", type="setup.bg", faction="bg", territory="Polar Sink")


def history(client, t, who: str = "host") -> list[dict]:
    r = client.get(f"/api/tables/{t.code}/history", headers=bearer(t.token(who)))
    assert r.status_code == 200
    return r.get_json()["entries"]


def get(client, t, who: str, path: str, status: int = 200, **params):
    r = client.get(f"/api/tables/{t.code}/{path}", headers=bearer(t.token(who)), query_string=params)
    assert r.status_code == status, r.get_data(as_text=True)
    return r.get_json()


def skip_phase(client, t, reason: str = "the test skips this phase's steps") -> dict:
    """phase.next past the phase's unfinished steps: an override with its reason, as a table would."""
    return ok(client, t, type="phase.next", override=True, reason=reason)


def its_turn(client, t, faction: str) -> dict:
    """Shipment & Movement goes in storm order: the factions whose turn comes before ``faction``'s
    say they are done (``turn.done``), so ``faction`` may ship and move now. The Guild goes when
    it wishes: only a faction in the middle of its turn is closed for it."""
    for _ in range(12):
        s = host_state(client, t)
        w = s["whose_turn"]
        current = w and w["faction"]
        if current in (None, faction):
            return s
        if faction == "guild" and not s["turn_flags"][current]["shipped"]:
            return s
        ok(client, t, type="turn.done", faction=current)
    raise AssertionError(f"{faction} never got its turn")


NEXUS = {"type": "nexus.open", "override": True, "reason": "a Shai-Hulud came (the test skips the spice cards)"}


def open_nexus(client, t, turn: int = 1) -> dict:
    """The Spice Blow phase with a Nexus open (KISS Single Nexus: only after a Shai-Hulud), where
    alliances are made and broken."""
    set_phase(client, t, "spice_blow", turn=turn)
    return ok(client, t, **NEXUS)

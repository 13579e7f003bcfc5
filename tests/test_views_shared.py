"""The pages read views that share what every seat sees alike (issue 30): the board and the phase's
public facts (whose turn, the decks, the auction, the battles the board implies) are worked out
once per published state for every seat. A shared view is equal to the view worked out alone for
that seat, in every phase; the seat's own facts (its steps, the card it may name, its Charity) are
its own; and the next entry's state is worked out again."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SIX, act, create_table

MIDGAME = Path(__file__).resolve().parents[1] / "benchmarks" / "midgame_6f.json"
SEATS = (*SIX, "host", "board")
PUBLIC = ("whose_turn", "treachery_deck", "spice_deck", "spice_blow")


def current(client, code):
    return client.application.extensions["tables"].table(code).state


@pytest.mark.parametrize("phase", ["storm", "bidding", "charity", "shipment_movement", "battle", "collection",
                                   "mentat_pause"])
def test_a_shared_view_is_the_seats_own_view_in_every_phase(client, phase):
    from companion.games.dune.views import view_for
    t = create_table(client, SIX)
    act(client, t.code, t.host, type="phase.set", turn=2, phase=phase)
    state = current(client, t.code)
    shared = {who: view_for(state, who, shared=True) for who in SEATS}
    for who in SEATS:
        assert shared[who] == view_for(state, who), (phase, who)
    for key in PUBLIC:  # worked out once for every seat
        assert len({id(v[key]) for v in shared.values()}) == 1, key
    # a seat's own phase steps are not another seat's
    assert shared["atreides"]["phase_steps"] is not shared["harkonnen"]["phase_steps"]


def test_a_mid_game_tables_shared_views_follow_each_entry(client):
    from companion.games.dune.views import view_for
    made = client.post("/api/tables/import", json=json.loads(MIDGAME.read_text("utf-8"))).get_json()
    code, host = made["table"], made["host_token"]
    state = current(client, code)
    before = {who: view_for(state, who, shared=True) for who in SEATS}
    turn = before["host"]["whose_turn"]["faction"]
    act(client, code, made["seats"][turn], type="turn.done", faction=turn)
    later = current(client, code)
    assert later is not state
    after = {who: view_for(later, who, shared=True) for who in SEATS}
    for who in SEATS:
        assert after[who] == view_for(later, who), who
        assert after[who]["whose_turn"] != before[who]["whose_turn"], who  # worked out again, not kept
    assert view_for(state, "fremen", shared=True)["whose_turn"] is before["fremen"]["whose_turn"]

"""Controls follow the state (issue 23, points 4 and 5): a step done is shown done and offers no
control to do it again; a phase that is over offers nothing to do in it."""
from __future__ import annotations

from conftest import SIX, act, create_table, join_seat, state


def ready(client):
    t = create_table(client, SIX)
    act(client, t.code, t.host, type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    act(client, t.code, t.host, type="setup.bg", faction="bg", territory="Polar Sink")
    return t


PHONES: dict = {}


def card(app, t, seat) -> str:
    """The phase card (#now) as the phone of ``seat`` shows it (one phone per seat, joined once)."""
    if (t.code, seat) not in PHONES:
        PHONES[(t.code, seat)] = join_seat(app, t.code, seat)
    html = PHONES[(t.code, seat)].get(f"/t/{t.code}/view").get_data(as_text=True)
    start = html.index('id="now"')
    return html[start:html.index("</section>", start)]


def dial_and_move(client, t):
    dialers = state(client, t.code, t.host)["storm_phase"]["dialers"]
    for f, d in zip(dialers, (3, 2)):
        act(client, t.code, t.host, type="storm.dial", faction=f, dial=d)
    return dialers


def test_after_the_storm_moved_the_card_says_so_and_offers_no_dial(app, client):
    t = ready(client)
    dialers = dial_and_move(client, t)
    before = card(app, t, dialers[0])
    assert "Apply storm" in before
    act(client, t.code, t.host, type="storm.move", sectors=5)
    after = card(app, t, dialers[0])
    assert 'id="storm-done"' in after and "sector <b>5</b>" in after
    assert "Enter my dial" not in after and "Move the storm by hand" not in after and "Apply storm" not in after


def test_when_bidding_is_over_no_card_can_be_bought(app, client):
    t = ready(client)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="bidding")
    assert "Bought a card" in card(app, t, "atreides")
    act(client, t.code, t.host, type="bid.unsold")
    after = card(app, t, "atreides")
    assert 'id="bidding-done"' in after and "Bought a card" not in after and "bidding ends" not in after


def test_collection_is_offered_once(app, client):
    t = ready(client)
    act(client, t.code, t.host, type="forces.place", faction="atreides", territory="The Minor Erg", sector=5,
        forces=2, **{"from": "reserves"})
    act(client, t.code, t.host, type="phase.set", turn=1, phase="spice_blow")
    act(client, t.code, t.host, type="spice.blow", card="The Minor Erg", pile="A")
    act(client, t.code, t.host, type="phase.set", turn=1, phase="collection")
    assert "Apply collection" in card(app, t, "atreides")
    act(client, t.code, t.host, type="collection.apply")
    after = card(app, t, "atreides")
    assert 'id="collection-done"' in after and "Apply collection" not in after


def test_not_your_turn_yet_goes_once_a_faction_is_done(app, client):
    t = ready(client)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="shipment_movement")
    order = state(client, t.code, t.host)["whose_turn"]["order"]
    second = order[1]
    assert "Not your turn yet" in card(app, t, second)
    for f in order:
        act(client, t.code, t.host, type="turn.done", faction=f)
    for f in order:
        after = card(app, t, f)
        assert "Not your turn yet" not in after, f
        assert 'id="my-turn-done"' in after and "everyone has finished" in after


def test_after_both_blows_the_spice_card_offers_no_more_cards(app, client):
    t = ready(client)
    act(client, t.code, t.host, type="phase.set", turn=1, phase="spice_blow")
    assert "tap it to preview" in card(app, t, "bg")
    act(client, t.code, t.host, type="spice.blow", card="Old Gap", pile="A")
    assert "tap it to preview" in card(app, t, "bg")
    act(client, t.code, t.host, type="spice.blow", card="Broken Land", pile="B")
    after = card(app, t, "bg")
    assert "tap it to preview" not in after and 'class="place blow-card"' not in after
    assert 'id="blow-done"' in after and "(2/2)" in after and "Old Gap" in after and "Broken Land" in after


def test_undo_names_the_entry_it_will_undo(app, client):
    t = ready(client)
    phone = join_seat(app, t.code, "atreides")
    act(client, t.code, t.host, type="spice.set", faction="atreides", amount=17)
    html = phone.get(f"/t/{t.code}/view").get_data(as_text=True)
    summary = client.get(f"/api/tables/{t.code}/history",
                         headers={"Authorization": f"Bearer {t.host}"}).get_json()["entries"][-1]
    import re
    confirm = re.search(r'hx-confirm="Undo entry #(\d+): ([^"]*)\?"', html)
    assert confirm and int(confirm.group(1)) == summary["seq"]
    # a secret entry of another faction is named without its secret
    act(client, t.code, t.seats["harkonnen"], type="spice.set", faction="harkonnen", amount=23)
    html = phone.get(f"/t/{t.code}/view").get_data(as_text=True)
    confirm = re.search(r'hx-confirm="Undo entry #(\d+): ([^"]*)\?"', html)
    assert confirm and "23" not in confirm.group(2) and "private entry" in confirm.group(2)


def test_revival_shows_its_cost_before_the_tap(app, client):
    """KISS: each faction revives some forces free each turn (Atreides 2), further forces cost 2
    spice each, up to 3 in all."""
    t = ready(client)
    act(client, t.code, t.host, type="forces.remove", faction="atreides", territory="Arrakeen", forces=5,
        to="tanks")
    act(client, t.code, t.host, type="phase.set", turn=1, phase="revival")
    html = card(app, t, "atreides")
    assert 'id="revival-cost"' in html
    assert "Free this turn: <b>2</b>" in html and "costs 2 spice" in html
    assert "2 free, 1 paid: 2 spice" in html   # the stepper starts at 3
    fremen = card(app, t, "fremen")
    assert "Free this turn: <b>3</b>" in fremen and "costs" not in fremen.split('id="revival-cost"')[1][:200]

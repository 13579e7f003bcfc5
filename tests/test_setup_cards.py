"""Issue 23, point 5: setup asks each faction, on its own card, for what setup needs from it: the
traitor picks as taps (each faction keeps 1 of its 4 traitor cards; the Harkonnen keep all 4), the
Bene Gesserit prediction with faction and turn as taps, the Bene Gesserit start as the place buttons
(sectors in numeric order, not a select sorted 1, 18, 2). Seed text: "TRAITORS: ... each player
secretly selects one and returns the others"; Harkonnen: "keep all four traitor cards"."""
from __future__ import annotations

import re

from conftest import SIX, create_table, csrf, join_seat, state


def post(phone, code, rev, **fields):
    r = phone.post(f"/t/{code}/act", data={**fields, "revision": str(rev)},
                   headers={"X-CSRF-Token": csrf(phone), "HX-Request": "true"})
    assert r.status_code == 200, r.get_data(as_text=True)
    body = r.get_data(as_text=True)
    assert 'id="refusal"' not in body, body
    return body


def test_each_faction_picks_its_traitor_with_one_tap_and_harkonnen_keep_four(app, client):
    t = create_table(client, SIX)
    atreides, harkonnen, fremen = (join_seat(app, t.code, f) for f in ("atreides", "harkonnen", "fremen"))
    page = atreides.get(f"/t/{t.code}").get_data(as_text=True)
    assert 'id="setup-mine"' in page and "tap the one you keep" in page
    assert re.search(r'<button type="submit" class="place" name="traitors" value="Duncan Idaho">', page)
    rev = state(client, t.code, t.host)["revision"]
    body = post(atreides, t.code, rev, type="traitors.set", faction="atreides", traitors=["", "Piter de Vries"])
    assert "✓ Traitor: Piter de Vries" in body
    mine = atreides.get(f"/api/tables/{t.code}/state").get_json()
    assert mine["factions"]["atreides"]["private"]["traitors"] == ["Piter de Vries"]
    other = fremen.get(f"/t/{t.code}").get_data(as_text=True)
    assert "✓ Traitor: Piter de Vries" not in other and "tap the one you keep" in other   # the Fremen's own card
    page = harkonnen.get(f"/t/{t.code}").get_data(as_text=True)
    assert "keep all 4 traitor cards" in page and 'type="checkbox" name="traitors"' in page
    four = ["Duncan Idaho", "Thufir Hawat", "Otheym", "Bashar"]
    rev = state(client, t.code, t.host)["revision"]
    body = post(harkonnen, t.code, rev, type="traitors.set", faction="harkonnen", traitors=[""] + four)
    assert "✓ Traitors: " + ", ".join(four) in body


def test_bene_gesserit_prediction_and_start_are_taps(app, client):
    t = create_table(client, SIX)
    bg = join_seat(app, t.code, "bg")
    page = bg.get(f"/t/{t.code}").get_data(as_text=True)
    assert 'name="target" value="atreides"' in page and 'name="turn" value="10"' in page
    rev = state(client, t.code, t.host)["revision"]
    body = post(bg, t.code, rev, type="prediction.set", faction="bg", target="emperor", turn="7")
    assert "✓ Prediction: Emperor wins on turn 7" in body
    # the Fremen place first; then the Bene Gesserit start is a button per place
    rev = state(client, t.code, t.host)["revision"]
    client.post(f"/api/tables/{t.code}/actions", json={"type": "setup.fremen", "revision": rev,
                "placements": [{"territory": "Sietch Tabr", "forces": 10}]},
                headers={"Authorization": f"Bearer {t.host}"})
    page = bg.get(f"/t/{t.code}").get_data(as_text=True)
    form = page.split('class="entry bg-start"')[1].split("</form>")[0]
    assert "<select" not in form
    pieces = re.findall(r'data-piece="([^"]+)"', form)
    assert "Polar Sink" in pieces and len(pieces) > 80
    imperial = [int(p.split("@")[1]) for p in pieces if p.startswith("Imperial Basin@")]
    assert imperial == sorted(imperial) and len(imperial) == 3
    rev = state(client, t.code, t.host)["revision"]
    post(bg, t.code, rev, type="setup.bg", faction="bg", **{"territory@sector": "Imperial Basin@9"})
    s = state(client, t.code, t.host)
    assert not s["setup"]["pending"]

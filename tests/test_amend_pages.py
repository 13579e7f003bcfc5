"""Correcting the past on the phones (issue 27): History offers "Correct…" and "Strike" on my
entries (every entry for the host); the correction form is the entry's own, filled in; the
preview says what changes now and which later entries break; confirming corrects the table."""
from __future__ import annotations

import re

from conftest import create_table, csrf, join_seat, state
from table_helpers import its_turn, ok, set_phase, stack


def host_phone(app, t):
    laptop = app.test_client()
    laptop.set_cookie(f"seat_{t.code}", t.host)
    assert laptop.get(f"/t/{t.code}").status_code == 200
    return laptop


def table_with_a_storm(client):
    t = create_table(client, ["atreides", "harkonnen"])
    set_phase(client, t, "shipment_movement")
    its_turn(client, t, "atreides")
    t.ship = ok(client, t, "atreides", type="ship", faction="atreides", to="The Great Flat", forces=3)["revision"]
    ok(client, t, type="phase.set", turn=2, phase="storm")
    ok(client, t, type="storm.set", sector=12)
    t.storm = ok(client, t, type="storm.move", sectors=1)["revision"]
    ok(client, t, type="phase.set", turn=2, phase="spice_blow")
    return t


def test_history_offers_correct_and_strike_on_my_entries_and_every_entry_for_the_host(app, client):
    t = table_with_a_storm(client)
    host = host_phone(app, t)
    html = host.get(f"/t/{t.code}/history").get_data(as_text=True)
    assert f'data-correct="{t.storm}"' in html and f'data-correct="{t.ship}"' in html
    atreides = join_seat(app, t.code, "atreides")
    html = atreides.get(f"/t/{t.code}/history").get_data(as_text=True)
    assert f'data-correct="{t.ship}"' in html and f'data-strike="{t.ship}"' in html
    assert f'data-correct="{t.storm}"' not in html  # the host's entry
    assert atreides.get(f"/t/{t.code}/correct/{t.storm}").status_code == 403


def test_the_form_is_filled_the_preview_says_what_changes_and_confirming_corrects(app, client):
    t = table_with_a_storm(client)
    host = host_phone(app, t)
    page = host.get(f"/t/{t.code}/correct/{t.storm}").get_data(as_text=True)
    assert re.search(r'name="sectors"[^>]*value="1"', page)  # filled with what was entered
    assert "data-stepper" in page and 'data-set="3"' in page  # the same stepper and chips
    rev = state(client, t.code, t.host)["revision"]
    form = {"type": "storm.move", "sectors": "3", "adjust": "0", "revision": str(rev), "keep": "{}",
            "reason": "Entered wrong at the table"}
    headers = {"X-CSRF-Token": csrf(host, t.code), "HX-Request": "true"}
    preview = host.post(f"/t/{t.code}/correct/{t.storm}/preview", data=form, headers=headers).get_data(as_text=True)
    assert "storm: sector 13 → 15" in preview
    assert "The Great Flat: Atreides 3 → 0 forces" in preview
    assert "storm moves 1 sectors" in preview and "storm moves 3 sectors" in preview
    assert state(client, t.code, t.host)["revision"] == rev  # a preview changes nothing
    r = host.post(f"/t/{t.code}/correct/{t.storm}", data=form, headers=headers)
    assert r.status_code == 204 and r.headers["HX-Redirect"] == f"/t/{t.code}"
    s = state(client, t.code, t.host)
    assert s["storm"]["sector"] == 15 and stack(s, "The Great Flat", "atreides")["forces"] == 0
    html = host.get(f"/t/{t.code}/history").get_data(as_text=True)
    assert f'<s class="what">storm moves 1 sectors</s> <a class="tag" href="#e-{rev + 1}">corrected by #{rev + 1}' in html
    view = host.get(f"/t/{t.code}/view").get_data(as_text=True)
    assert f'id="amend-note" hidden data-seq="{rev + 1}"' in view  # every phone toasts it


def test_the_preview_names_the_later_entries_it_breaks_and_offers_the_override(app, client):
    t = table_with_a_storm(client)
    ok(client, t, type="phase.set", turn=2, phase="shipment_movement")
    its_turn(client, t, "atreides")
    shipped = ok(client, t, "atreides", type="ship", faction="atreides", to="The Great Flat", forces=2)["revision"]
    host = host_phone(app, t)
    rev = state(client, t.code, t.host)["revision"]
    form = {"type": "storm.move", "sectors": "2", "revision": str(rev), "keep": "{}", "reason": "Miscounted"}
    headers = {"X-CSRF-Token": csrf(host, t.code), "HX-Request": "true"}
    preview = host.post(f"/t/{t.code}/correct/{t.storm}/preview", data=form, headers=headers).get_data(as_text=True)
    assert f"#{shipped}" in preview and 'id="amend-override"' in preview
    refused = host.post(f"/t/{t.code}/correct/{t.storm}", data=form, headers=headers)
    assert refused.status_code == 200 and "breaks 1 later entry" in refused.get_data(as_text=True)
    assert state(client, t.code, t.host)["revision"] == rev
    r = host.post(f"/t/{t.code}/correct/{t.storm}", data={**form, "override": "true"}, headers=headers)
    assert r.status_code == 204
    assert state(client, t.code, t.host)["storm"]["sector"] == 14


def test_strike_from_the_phone(app, client):
    t = table_with_a_storm(client)
    atreides = join_seat(app, t.code, "atreides")
    page = atreides.get(f"/t/{t.code}/correct/{t.ship}?strike=1").get_data(as_text=True)
    assert 'name="strike" value="1"' in page
    rev = state(client, t.code, t.host)["revision"]
    r = atreides.post(f"/t/{t.code}/correct/{t.ship}", headers={"X-CSRF-Token": csrf(atreides), "HX-Request": "true"},
                      data={"strike": "1", "type": "ship", "revision": str(rev), "keep": "{}",
                            "reason": "Entered wrong at the table"})
    assert r.status_code == 204, r.get_data(as_text=True)
    s = state(client, t.code, t.host)
    assert stack(s, "The Great Flat", "atreides")["forces"] == 0 and s["factions"]["atreides"]["reserves"]["forces"] == 10

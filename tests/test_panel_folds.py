""""My secrets" and "Leaders" in a seat's panel are opened rarely: the page renders them closed and
empty, their insides load when opened (GET /t/CODE/secrets, /leaders), and a refresh or an entry's
answer while one is open renders it open and whole (X-Open-Folds), as for "Enter by hand"."""
from __future__ import annotations

import pytest

from conftest import act, create_table, csrf, join_seat

FOLDS = {"secrets": ("cards.set", "Traitors:"), "leaders": ("leader.tanks", "Thufir Hawat")}


@pytest.mark.parametrize("fold", sorted(FOLDS))
def test_a_panel_fold_is_empty_until_opened_and_whole_while_open(app, client, fold):
    entry, text = FOLDS[fold]
    t = create_table(client, ["atreides", "harkonnen"])
    phone = join_seat(app, t.code, "atreides")
    closed = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    assert f'id="{fold}" data-lazy>' in closed and f'hx-get="/t/{t.code}/{fold}"' in closed
    assert f'value="{entry}"' not in closed
    r = phone.get(f"/t/{t.code}/{fold}")
    assert r.status_code == 200 and "no-store" in r.headers["Cache-Control"]
    assert f'value="{entry}"' in r.get_data(as_text=True) and text in r.get_data(as_text=True)
    opened = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true", "X-Open-Folds": fold}
                       ).get_data(as_text=True)
    assert f'id="{fold}" data-lazy open>' in opened and f'value="{entry}"' in opened


def test_an_entry_from_an_open_fold_answers_with_the_fold_open_and_current(app, client):
    t = create_table(client, ["atreides", "harkonnen"])
    phone = join_seat(app, t.code, "atreides")
    phone.get(f"/t/{t.code}")
    r = phone.post(f"/t/{t.code}/act", data={"type": "leader.tanks", "faction": "atreides", "leader": "Thufir Hawat",
                                              "revision": "0", "csrf_token": csrf(phone, t.code)},
                   headers={"HX-Request": "true", "X-Open-Folds": "leaders"})
    assert r.status_code == 200, r.get_data(as_text=True)
    html = r.get_data(as_text=True)
    assert 'id="leaders" data-lazy open>' in html
    leaders = html[html.index('id="leaders-body"'):]
    thufir = leaders[leaders.index("Thufir Hawat"):]
    assert thufir[:thufir.index("</li>")].count("tanks") >= 1 and 'value="leader.revive"' in thufir[:thufir.index("</li>")]


@pytest.mark.parametrize("fold", sorted(FOLDS))
def test_a_panel_fold_is_only_for_a_faction_seat(app, client, fold):
    t = create_table(client, ["atreides", "harkonnen"])
    assert join_seat(app, t.code, "board").get(f"/t/{t.code}/{fold}").status_code == 403
    r = app.test_client().get(f"/t/{t.code}/{fold}")
    assert r.status_code in (302, 401, 403) and "Traitors:" not in r.get_data(as_text=True)
    host = app.test_client()
    host.set_cookie(f"seat_{t.code}", t.host)
    assert host.get(f"/t/{t.code}/{fold}").status_code == 403
    assert app.test_client().get(f"/t/NOPE1/{fold}").status_code == 404
    act(client, t.code, t.host, type="traitors.set", faction="harkonnen", traitors=["Thufir Hawat"])
    mine = join_seat(app, t.code, "atreides").get(f"/t/{t.code}/secrets").get_data(as_text=True)
    assert "Thufir Hawat" in mine and "Traitors: —" in mine  # the Harkonnen pick is theirs alone

"""A seat's panel (spice, reserves, cards, stacks, leaders, My secrets) is rendered again only when
what it shows changed (issue 30): at every revision of a game each seat's page is the same with and
without the kept panels, its forms carry the revision shown, and a panel is never another seat's."""
from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import act, create_table, seat_clients as phones

MIDGAME = Path(__file__).resolve().parents[1] / "benchmarks" / "midgame_6f.json"
FOLDS = ({"HX-Request": "true"}, {"HX-Request": "true", "X-Open-Folds": "secrets"},
         {"HX-Request": "true", "X-Open-Folds": "leaders,secrets"})


def pages(app, code: str, clients: dict, kept: bool) -> dict:
    app.config["PANEL_PART_CACHE"] = kept
    return {(role, i): c.get(f"/t/{code}/view", headers=h).get_data(as_text=True)
            for role, c in clients.items() for i, h in enumerate(FOLDS)}


def panel(html: str) -> str:
    at = html.index('id="my-panel"')
    return html[at:html.index("</section>", at)]


def compare(app, code, clients, revision):
    kept = pages(app, code, clients, True)
    plain = pages(app, code, clients, False)
    for key, html in kept.items():
        assert html == plain[key], f"{key}: the page with kept panels differs"
        if key[0] != "host":
            forms = re.findall(r'name="revision" value="([^"]+)"', panel(html))
            assert forms and set(forms) == {str(revision)}, key


def test_every_seat_sees_the_same_page_at_every_revision(app, client):
    t = create_table(client, ["atreides", "harkonnen", "fremen", "emperor", "bg"])
    clients = phones(app, t.code, {"host": t.host, **t.seats})
    from companion.games.dune.web.panel_part import memo
    s = act(client, t.code, t.host, type="phase.set", turn=1, phase="shipment_movement").get_json()
    compare(app, t.code, clients, s["revision"])
    steps = [
        dict(type="spice.add", faction="atreides", amount=3),                      # one panel changes
        dict(type="bribe", **{"from": "harkonnen"}, to="fremen", spice=2),        # two panels
        dict(type="ship", faction="emperor", to="Arrakeen", forces=2, override=True, reason="test"),
        dict(type="traitors.set", faction="bg", traitors=["Duncan Idaho"]),        # a secret
        dict(type="hand.set", faction="harkonnen", size=3),
    ]
    for step in steps:
        r = act(client, t.code, t.host, expect=None, **step)
        assert r.status_code == 200, (step, r.get_data(as_text=True))
        hits = memo(app).hits
        compare(app, t.code, clients, r.get_json()["revision"])
        assert memo(app).hits > hits  # the panels that did not change were reused


def test_a_mid_game_table_with_and_without_kept_panels(app, client):
    made = client.post("/api/tables/import", json=json.loads(MIDGAME.read_text("utf-8"))).get_json()
    clients = phones(app, made["table"], {"host": made["host_token"], **made["seats"]})
    t = app.extensions["tables"].table(made["table"])
    compare(app, made["table"], clients, t.revision)


def test_a_kept_panel_is_only_ever_its_own_seats(app, client):
    t = create_table(client, ["atreides", "harkonnen"])
    act(client, t.code, t.host, type="spice.add", faction="atreides", amount=7)
    clients = phones(app, t.code, t.seats)
    app.config["PANEL_PART_CACHE"] = True
    for _ in range(2):  # the second round reuses every panel
        a = clients["atreides"].get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
        h = clients["harkonnen"].get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
        assert 'class="card mine f-atreides" id="my-panel"' in a and 'class="card mine f-harkonnen"' not in a
        assert 'class="card mine f-harkonnen" id="my-panel"' in h and 'class="card mine f-atreides"' not in h
        assert 'value="atreides"' in panel(a) and 'value="harkonnen"' not in panel(a)
        assert 'value="harkonnen"' in panel(h) and 'value="atreides"' not in panel(h)
        assert 'id="my-spice">17<' in a and 'id="my-spice">10<' in h


def test_a_panel_the_phone_already_shows_is_not_sent_again(app, client):
    t = create_table(client, ["atreides", "harkonnen", "fremen"])
    phone = phones(app, t.code, t.seats)["atreides"]
    first = phone.get(f"/t/{t.code}/view", headers={"HX-Request": "true"}).get_data(as_text=True)
    etag = re.search(r'id="my-panel" data-etag="([0-9a-f]{16})"', first).group(1)
    have = {"HX-Request": "true", "X-Have-Parts": f"my-panel={etag}"}
    # another faction's change: the same panel, so only its place and the revision its forms take
    r = act(client, t.code, t.host, type="spice.add", faction="harkonnen", amount=2).get_json()
    again = phone.get(f"/t/{t.code}/view", headers=have).get_data(as_text=True)
    assert (f'<section class="card mine f-atreides" id="my-panel" data-etag="{etag}" '
            f'data-revision="{r["revision"]}" data-same></section>') in again
    assert 'id="my-spice"' not in again
    # a page that is not htmx's, or an etag the phone does not have, gets the whole panel
    for headers in ({"X-Have-Parts": f"my-panel={etag}"}, {"HX-Request": "true", "X-Have-Parts": "my-panel=" + "0" * 16}):
        full = phone.get(f"/t/{t.code}/view", headers=headers).get_data(as_text=True)
        assert "data-same></section>" not in full.split('id="board"')[0] and 'id="my-spice"' in full
    # my own change: a new panel, sent whole with its new etag
    act(client, t.code, t.host, type="spice.add", faction="atreides", amount=1)
    mine = phone.get(f"/t/{t.code}/view", headers=have).get_data(as_text=True)
    assert 'id="my-spice">11<' in mine
    assert re.search(r'id="my-panel" data-etag="([0-9a-f]{16})"', mine).group(1) != etag

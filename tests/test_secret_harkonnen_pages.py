"""Secret Harkonnen pages: start form, join by name, the phone's #now card, the public board,
and a whole 5-player game played through the phones' forms to a win."""
from __future__ import annotations

import re

from conftest import csrf
from sh_helpers import NAMES


def make_table(app, client, names=NAMES[:5]):
    client.get("/")
    token = csrf(client)
    r = client.post("/tables/secret-harkonnen", data={"players": "\n".join(names), "csrf_token": token})
    assert r.status_code == 302, r.get_data(as_text=True)
    code = r.headers["Location"].rstrip("/").split("/")[-2]
    return code


def phone_for(app, code, name):
    c = app.test_client()
    c.get(f"/t/{code}/join")
    token = csrf(c)
    r = c.post(f"/t/{code}/join", data={"seat": name, "csrf_token": token})
    assert r.status_code == 302, r.get_data(as_text=True)
    return c


def test_start_page_offers_secret_harkonnen_and_refuses_four_names(client):
    html = client.get("/").get_data(as_text=True)  # (sets the csrf cookie)
    assert "Secret Harkonnen (5–10 players)" in html and 'name="players"' in html
    r = client.post("/tables/secret-harkonnen", data={"players": "A\nB\nC\nD", "csrf_token": csrf(client)})
    assert r.status_code == 422 and "5 to 10 players" in r.get_data(as_text=True)
    assert "A\nB\nC\nD" in r.get_data(as_text=True)  # nothing typed is lost


def test_each_phone_joins_by_name_and_sees_its_own_role_only(app, client):
    code = make_table(app, client)
    join = app.test_client().get(f"/t/{code}/join").get_data(as_text=True)
    assert all(f'value="{n}"' in join for n in NAMES[:5])
    roles = app.extensions["tables"].table(code).state["secret"]["roles"]
    names = {"atreides": "You are Atreides", "imperial": "You are Imperial Family",
             "baron": "You are the Baron"}
    for name in NAMES[:5]:
        html = phone_for(app, code, name).get(f"/t/{code}").get_data(as_text=True)
        assert 'id="now"' in html and names[roles[name]] in html
        assert "<script>" not in html and "onclick" not in html
    host_html = client.get(f"/t/{code}/host").get_data(as_text=True)
    assert "You are" not in host_html.replace("You are the host", "")
    assert "Baron" not in host_html


def submit(phone, code, **fields):
    html = phone.get(f"/t/{code}/view").get_data(as_text=True)
    revision = re.search(r'name="revision" value="(\d+)"', html).group(1)
    token = csrf(phone, code)
    r = phone.post(f"/t/{code}/sh/act", data={**fields, "revision": revision, "csrf_token": token},
                   headers={"HX-Request": "true"})
    assert r.status_code == 200
    body = r.get_data(as_text=True)
    assert 'class="error"' not in body, body[:600]
    return body


def test_a_whole_five_player_game_on_five_phones_to_a_win(app, client):
    code = make_table(app, client)
    phones = {n: phone_for(app, code, n) for n in NAMES[:5]}
    board = app.test_client()
    service = app.extensions["tables"]
    for _ in range(60):
        s = service.table(code).state
        if s["phase"] == "over":
            break
        emp = s["emperor"]
        if s["phase"] == "nomination":
            html = phones[emp].get(f"/t/{code}").get_data(as_text=True)
            assert "You are Emperor: nominate" in html
            choice = re.findall(r'name="governor" value="([^"]+)"', html)[0]
            submit(phones[emp], code, type="sh.nominate", governor=choice)
        elif s["phase"] == "election":
            for n in s["alive"]:
                assert "Confirm" in phones[n].get(f"/t/{code}/view").get_data(as_text=True)
                submit(phones[n], code, type="sh.vote", vote="confirm")
        elif s["phase"] == "legislative_emperor":
            html = phones[emp].get(f"/t/{code}/view").get_data(as_text=True)
            assert html.count('name="policy"') == 3
            hand = s["private"][emp]["hand"]
            drop = next((i for i, c in enumerate(hand) if c == "landsraad"), 0)
            submit(phones[emp], code, type="sh.discard", policy=str(drop))
        elif s["phase"] == "legislative_governor":
            gov = s["governor"]
            hand = s["private"][gov]["hand"]
            keep = next((i for i, c in enumerate(hand) if c == "choam"), 0)
            submit(phones[gov], code, type="sh.enact", policy=str(keep))
        elif s["phase"] == "executive":
            html = phones[emp].get(f"/t/{code}/view").get_data(as_text=True)
            assert "Use your power" in html
            roles = s["secret"]["roles"]
            target = next(p for p in s["alive"] if p != emp and roles[p] != "baron")
            power = s["power_options"][0]
            submit(phones[emp], code, type="sh.power", power=power,
                   **({} if power == "consult" else {"target": target}))
        screen = board.get(f"/t/{code}/board").get_data(as_text=True)
        assert "Failed elections" in screen and "Deck" in screen
    s = service.table(code).state
    assert s["phase"] == "over" and s["winner"]
    screen = board.get(f"/t/{code}/board").get_data(as_text=True)
    assert "win" in screen and "Roles:" in screen


def test_the_host_may_shuffle_the_seats(app, client):
    names = [f"P{i}" for i in range(10)]
    orders = set()
    for _ in range(4):
        client = app.test_client()
        client.get("/")
        r = client.post("/tables/secret-harkonnen", data={"players": "\n".join(names), "shuffle": "on",
                                                          "csrf_token": csrf(client)})
        assert r.status_code == 302
        code = r.headers["Location"].rstrip("/").split("/")[-2]
        players = app.extensions["tables"].table(code).state["players"]
        assert sorted(players) == sorted(names)
        orders.add(tuple(players))
    assert len(orders) > 1  # 4 shuffles of 10 names: the same order every time is 1 in 10^19


def test_a_refused_entry_says_why_on_the_phone(app, client):
    code = make_table(app, client)
    ben = phone_for(app, code, "Ben")
    html = ben.get(f"/t/{code}/view").get_data(as_text=True)
    token = csrf(ben, code)
    r = ben.post(f"/t/{code}/sh/act", data={"type": "sh.nominate", "governor": "Cat", "revision": "1",
                                            "csrf_token": token}, headers={"HX-Request": "true"})
    assert "Only the Emperor (Ann)" in r.get_data(as_text=True)
    assert "Talk: Ann is choosing" in html


def test_the_big_screen_gets_each_reveal_to_hold_for_the_room(app, client):
    """The board screen's fragment carries the revealed votes (all of them, together) and each
    enacted policy as a numbered reveal; static/reveal.js holds it on the big screen for a moment."""
    from sh_helpers import SH
    g = SH(app, client, 5)
    board = app.test_client()
    frag = board.get(f"/t/{g.code}/board/view").get_data(as_text=True)
    assert "sh-reveal" not in frag  # nothing revealed yet
    emp = g.raw["emperor"]
    nominee = next(n for n in g.raw["alive"] if n != emp)
    g.act(emp, type="sh.nominate", governor=nominee)
    voters = list(g.raw["alive"])
    for name in voters[:-1]:
        g.act(name, type="sh.vote", vote="confirm")
        assert "sh-reveal" not in board.get(f"/t/{g.code}/board/view").get_data(as_text=True)  # not before all
    g.act(voters[-1], type="sh.vote", vote="deny")
    frag = board.get(f"/t/{g.code}/board/view").get_data(as_text=True)
    assert f'data-reveal="{g.code}:1"' in frag and "4 confirm · 1 deny" in frag
    assert all(name in frag[frag.index("sh-reveal"):] for name in voters)
    page = board.get(f"/t/{g.code}/board").get_data(as_text=True)
    assert "reveal.js" in page


def test_a_third_failed_vote_reveals_the_votes_and_the_forced_policy_together(app, client):
    from sh_helpers import SH
    g = SH(app, client, 5)
    for i in range(3):
        g.elect(g.eligible(), default="deny")
    s = g.raw
    assert s["reveals"] == 3 and s["last_reveal"] == ["vote", "policy"]
    frag = app.test_client().get(f"/t/{g.code}/board/view").get_data(as_text=True)
    assert "0 confirm · 5 deny" in frag and "policy enacted" in frag

"""Drive a Secret Harkonnen table through the JSON API (tests only)."""
from __future__ import annotations

NAMES = ["Ann", "Ben", "Cat", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon"]


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


class SH:
    def __init__(self, app, client, n: int = 5):
        self.app, self.client = app, client
        r = client.post("/api/tables", json={"game": "secret-harkonnen", "players": NAMES[:n]})
        assert r.status_code == 201, r.get_json()
        body = r.get_json()
        self.code, self.host, self.seats, self.body = body["table"], body["host_token"], body["seats"], body

    # the server's own state: only tests peek at it, to play sensible games
    @property
    def raw(self) -> dict:
        return self.app.extensions["tables"].table(self.code).state

    def roles(self) -> dict:
        return self.raw["secret"]["roles"]

    def view(self, name: str) -> dict:
        token = self.host if name == "host" else self.seats[name]
        r = self.client.get(f"/api/tables/{self.code}/state", headers=bearer(token))
        assert r.status_code == 200
        return r.get_json()

    def act(self, name: str, expect: int | None = 200, **entry):
        token = self.host if name == "host" else self.seats[name]
        entry["revision"] = self.raw["revision"]
        r = self.client.post(f"/api/tables/{self.code}/actions", json=entry, headers=bearer(token))
        if expect is not None:
            assert r.status_code == expect, r.get_json()
        return r

    def history(self, name: str) -> list:
        token = self.host if name == "host" else self.seats[name]
        return self.client.get(f"/api/tables/{self.code}/history", headers=bearer(token)).get_json()["entries"]

    # -- whole steps -----------------------------------------------------------------------------
    def elect(self, governor: str, votes: dict | None = None, default: str = "confirm"):
        s = self.raw
        self.act(s["emperor"], type="sh.nominate", governor=governor)
        for name in list(self.raw["alive"]):
            self.act(name, type="sh.vote", vote=(votes or {}).get(name, default))

    def legislate(self, want: str):
        """Emperor and Governor pass ``want`` if they can (else the other policy)."""
        s = self.raw
        emp, gov = s["emperor"], s["governor"]
        hand = s["private"][emp]["hand"]
        drop = next((i for i, c in enumerate(hand) if c != want), 0)
        self.act(emp, type="sh.discard", policy=drop)
        hand = self.raw["private"][gov]["hand"]
        keep = next((i for i, c in enumerate(hand) if c == want), 0)
        self.act(gov, type="sh.enact", policy=keep)

    def eligible(self, avoid=()) -> str:
        s = self.raw
        v = self.view(s["emperor"])
        return next(p for p in s["alive"] if p not in v["ineligible"] and p not in avoid)

    def use_power(self):
        s = self.raw
        emp, opts = s["emperor"], s["power_options"]
        roles = self.roles()
        baron = next(p for p, r in roles.items() if r == "baron")
        target = next(p for p in s["alive"] if p != emp and p != baron)
        power = opts[0]
        self.act(emp, type="sh.power", power=power, **({} if power == "consult" else {"target": target}))

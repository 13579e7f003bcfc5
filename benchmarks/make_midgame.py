"""Build the mid-game table the load benchmarks import: ``benchmarks/midgame_6f.json``.

    python benchmarks/make_midgame.py [--entries 300] [--out benchmarks/midgame_6f.json]

A scripted game of six factions (Atreides, Harkonnen, Fremen, Emperor, Guild, Bene Gesserit),
played in process through the JSON API as a table would enter it: setup, then turns of storm,
spice blows, cards bought, forces shipped onto the board and moved, spice collected, until about
``--entries`` entries, ending in the Shipment & Movement phase. Refused entries (a rule says no)
are simply skipped: the script is deterministic, so the file is the same every time it is built
with the same rules. The export is written as ``GET /api/tables/CODE/export`` answers it.
"""
from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SIX = ["atreides", "harkonnen", "fremen", "emperor", "guild", "bg"]
PLACES = ["Arrakeen@9", "Carthag@10", "Imperial Basin@9", "The Great Flat@14", "Hole In The Rock@8",
          "Rock Outcroppings@13", "Habbanya Ridge Flat@17", "Old Gap@9", "False Wall East@6",
          "The Minor Erg@5", "Cielago North@1", "Red Chasm@6", "Tuek's Sietch@4", "Sietch Tabr@13",
          "Basin@8", "Broken Land@11", "Funeral Plain@14", "Wind Pass@15", "Plastic Basin@12",
          "South Mesa@3"]
BLOWS = ["The Great Flat@14", "Funeral Plain@14", "Broken Land@11", "Old Gap@9", "Red Chasm@6", "South Mesa@4",
         "Cielago North@1", "Hole In The Rock@8", "Rock Outcroppings@13", "Habbanya Ridge Flat@17"]


class Game:
    def __init__(self, client, table: dict):
        self.client, self.code = client, table["table"]
        self.tokens = {"host": table["host_token"], **table["seats"]}
        self.accepted = 0
        self.refused = 0

    def rev(self) -> int:
        r = self.client.get(f"/api/tables/{self.code}/state",
                            headers={"Authorization": f"Bearer {self.tokens['host']}"})
        return r.get_json()["revision"]

    def entry(self, who: str = "host", **body) -> bool:
        body.setdefault("revision", self.rev())
        r = self.client.post(f"/api/tables/{self.code}/actions", json=body,
                             headers={"Authorization": f"Bearer {self.tokens[who]}"})
        if r.status_code == 200:
            self.accepted += 1
            return True
        self.refused += 1
        return False


def place(p: str) -> dict:
    where, _, sector = p.partition("@")
    return {"territory": where, "sector": int(sector)}


def play(g: Game, target: int, rng: random.Random) -> None:
    g.entry("fremen", type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    g.entry("bg", type="setup.bg", faction="bg", territory="Polar Sink")
    turn = 0
    while g.accepted < target - 30:
        turn += 1
        g.entry(type="phase.set", turn=turn, phase="storm")
        g.entry(type="storm.set", sector=1 + (turn * 5) % 18)
        g.entry(type="phase.set", turn=turn, phase="spice_blow")
        for card in rng.sample(BLOWS, 2):
            g.entry(type="board.spice", amount=rng.choice([6, 8, 10, 12]), **place(card))
        g.entry(type="phase.set", turn=turn, phase="bidding")
        for f in SIX:
            g.entry(type="spice.add", faction=f, amount=rng.choice([1, 2, 3]))
        for f in rng.sample(SIX, 4):
            g.entry(type="hand.set", faction=f, size=rng.randint(1, 4))
            g.entry(type="spice.add", faction=f, amount=-rng.randint(1, 2))
        g.entry(type="phase.set", turn=turn, phase="shipment_movement")
        for f in SIX:
            for p in rng.sample(PLACES, 2):
                g.entry(type="forces.place", faction=f, forces=rng.randint(1, 2), **place(p))
            g.entry(type="spice.add", faction=f, amount=-1)
            g.entry(type="turn.done", faction=f)
        g.entry(type="phase.set", turn=turn, phase="battle")
        for f in rng.sample(SIX, 3):
            for p in PLACES:
                if g.entry(type="forces.remove", faction=f, forces=1, **place(p)):
                    break
        g.entry(type="phase.set", turn=turn, phase="collection")
        for f in rng.sample(SIX, 3):
            g.entry(type="spice.add", faction=f, amount=rng.randint(2, 6))
        g.entry(type="rule.show", rule="base-shipment", title="Shipment")
    g.entry(type="phase.set", turn=turn + 1, phase="storm")
    g.entry(type="storm.set", sector=1 + ((turn + 1) * 5) % 18)
    g.entry(type="phase.set", turn=turn + 1, phase="spice_blow")
    g.entry(type="board.spice", amount=10, **place(BLOWS[0]))
    g.entry(type="phase.set", turn=turn + 1, phase="shipment_movement")
    i = 0
    while g.accepted < target and i < 200:  # a few shipments so the phase is under way
        i += 1
        f = SIX[i % 6]
        if not g.entry(type="forces.place", faction=f, forces=1, **place(PLACES[i % len(PLACES)])):
            g.entry(type="spice.add", faction=f, amount=1)


def build(target: int, seed: int = 30) -> dict:
    from companion import create_app
    tmp = Path(tempfile.mkdtemp(prefix="midgame-"))
    try:
        app = create_app({"DATA_DIR": str(tmp), "TESTING": True})
        client = app.test_client()
        r = client.post("/api/tables", json={"factions": SIX, "turns": 10})
        g = Game(client, r.get_json())
        play(g, target, random.Random(seed))
        r = client.get(f"/api/tables/{g.code}/export", headers={"Authorization": f"Bearer {g.tokens['host']}"})
        data = r.get_json()
        r = client.get(f"/api/tables/{g.code}/state", headers={"Authorization": f"Bearer {g.tokens['host']}"})
        s = r.get_json()
        print(f"{len(data['events'])} entries ({g.refused} refused and skipped), turn {s['turn']}, "
              f"phase {s['phase']}", file=sys.stderr)
        app.extensions["tables"].store.close()
        return data
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--entries", type=int, default=300)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "midgame_6f.json"))
    args = ap.parse_args(argv)
    data = build(args.entries)
    Path(args.out).write_text(json.dumps(data, separators=(",", ":")) + "\n", "utf-8")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

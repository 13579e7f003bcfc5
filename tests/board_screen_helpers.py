"""A six-faction table put through every phase for the board-screen measurements (issue 24): used by
tests/test_browser_board_screen.py and benchmarks/bench_board_screen.py."""
from __future__ import annotations

from conftest import SIX

PHASES = ["storm", "spice_blow", "bidding", "revival", "shipment_movement", "battle", "battle revealed",
          "collection"]

# every <text> of the map: its font size as drawn on the screen (user units x the map's scale)
MAP_TEXT = """() => {
  const svg = document.querySelector('svg.dune-map');
  if (!svg) return null;
  const r = svg.getBoundingClientRect();
  const vb = svg.viewBox.baseVal;
  const k = r.width / vb.width;
  const out = {labels: [], chips: [], map_h: r.height, map_w: r.width};
  for (const t of svg.querySelectorAll('text')) {
    if (!t.getClientRects().length || getComputedStyle(t).display === 'none') continue;  // not drawn
    const fs = parseFloat(getComputedStyle(t).fontSize) * k;
    const tr = t.getBoundingClientRect();
    // only what is on the screen counts (a zoomed map shows part of itself)
    if (tr.right < r.left || tr.left > r.right || tr.bottom < r.top || tr.top > r.bottom) continue;
    if (t.closest('.chips')) out.chips.push(fs); else out.labels.push(fs);
  }
  return out;
}"""
PAGE = """() => ({h: document.documentElement.scrollHeight, w: document.documentElement.scrollWidth,
  vh: window.innerHeight})"""


def api(server, method, path, body=None, token=None):
    status, out = server.request(method, path, body, token)
    assert status in (200, 201), (path, body, out)
    return out


class Table:
    def __init__(self, server):
        self.server = server
        t = api(server, "POST", "/api/tables", {"factions": SIX})
        self.code, self.host, self.seats = t["table"], t["host_token"], t["seats"]

    def state(self, token=None):
        return api(self.server, "GET", f"/api/tables/{self.code}/state", token=token or self.host)

    def act(self, token=None, **entry):
        entry["revision"] = self.state()["revision"]
        return api(self.server, "POST", f"/api/tables/{self.code}/actions", entry, token or self.host)

    def seat(self, f):
        return self.seats[f]


def set_up(server) -> Table:
    t = Table(server)
    t.act(t.seat("fremen"), type="setup.fremen", placements=[{"territory": "Sietch Tabr", "forces": 10}])
    t.act(t.seat("bg"), type="setup.bg", faction="bg", territory="Polar Sink")
    for f, where, n in [("harkonnen", "Carthag", 6), ("emperor", "Tuek's Sietch", 4),
                        ("guild", "Habbanya Sietch", 3), ("atreides", "The Great Flat", 2)]:
        t.act(type="forces.place", faction=f, territory=where, forces=n, override=True, reason="bench")
    return t


def put_in(t: Table, phase: str) -> None:
    if phase == "battle revealed":
        bid = t.state()["battles"][-1]["id"]
        t.act(t.seat("harkonnen"), type="battle.plan", battle=bid, faction="harkonnen", leader="Feyd-Rautha", forces=3)
        t.act(t.seat("atreides"), type="battle.plan", battle=bid, faction="atreides", leader="Duncan Idaho", forces=2)
        t.act(type="battle.reveal", battle=bid)
        return
    t.act(type="phase.set", turn=2, phase=phase)
    if phase == "battle":
        t.act(type="forces.place", faction="harkonnen", territory="Arrakeen", forces=4, override=True, reason="bench")
        t.act(t.seat("harkonnen"), type="battle.open", territory="Arrakeen", aggressor="harkonnen",
              opponent="atreides", override=True, reason="the table lets this aggressor attack first")



"""What a table tells a reader, filtered for that reader: the entry an undo would take back, the
history (another seat's secret entries hidden, of its other entries only the payload fields their
type declares public) and, once the game is over, its story. A mixin of ``TableService``."""
from __future__ import annotations

from .. import games
from . import amend as amending
from .entries import public_part
from .errors import Forbidden


class Reading:
    def undo_target(self, code: str, viewer: str) -> dict | None:
        """The entry an undo would take back now, as ``viewer`` may read it: {seq, seat, summary}."""
        t = self.table(code)
        with t.lock:
            e = next((e for e in reversed(self.all_events(t)) if e["type"] != "undo" and e["seq"] not in t.undone), None)
        if e is None:
            return None
        game = games.of_config(t.config)
        hidden = e["secret_for"] is not None and not game.may_read(viewer, e["secret_for"], t.state, e["type"])
        return {"seq": e["seq"], "seat": e["seat"],
                "summary": f"{game.seat_name(e['secret_for'])}: private entry" if hidden else e["summary"]}

    def history(self, code: str, viewer: str) -> list[dict]:
        """Every entry: who, what, when. Another seat's secret entries are not shown (the game
        says who may read a secret entry), and of another seat's other entries only the payload
        fields their type declares public (``ActionType.public_fields``); the host reads everything."""
        t = self.table(code)
        with t.lock:
            events = list(self.all_events(t))
            undone = dict(t.undone)
            state = t.state
        game = games.of_config(t.config)
        marks = amending.Marks(events, undone)
        out = []
        for e in events:
            readable = e["secret_for"] is not None and game.may_read(viewer, e["secret_for"], state, e["type"])
            hidden = e["secret_for"] is not None and not readable
            if hidden:
                payload = None
            elif viewer == "host" or viewer == e["seat"] or readable:
                payload = e["payload"]
            else:  # another seat's entry, or the board: only the fields its type declares public
                payload = public_part(game.registry.get(e["type"]), e["type"], e["payload"])
            line = {
                "seq": e["seq"], "seat": e["seat"], "type": e["type"], "ts": e["ts"],
                "summary": f"{game.seat_name(e['secret_for'])}: private entry" if hidden else e["summary"],
                "payload": payload,
                "undone_by": undone.get(e["seq"]),
                "override": bool(e["payload"].get("override")) if not hidden else False,
            }
            out.append(marks.mark(line, hidden))
        return out

    def story(self, code: str) -> dict:
        """The whole game told, secrets included: only once the game is over (else Forbidden)."""
        t = self.table(code)
        game = games.of_config(t.config)
        if not game.story_open(t.state):
            raise Forbidden("The story is told when the game is over: until then every secret stays with its seat.")
        with t.lock:
            events = list(self.all_events(t))
            undone = dict(t.undone)
        return game.story(t.code, t.config, events, undone)

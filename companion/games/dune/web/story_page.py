"""Dune's story page (``/t/{code}/story``): the series drawn server-side as SVG line charts (each
faction in its colour, its line ending in its letters), the battles with both plans side by side,
the traitors and the prediction, and a timeline with the map at the end of each turn. No image
files, no script, no network."""
from __future__ import annotations

from flask import make_response, render_template
from markupsafe import Markup

from ....table.views import view_for
from ..rules.factions import faction_name
from .board_svg import SHORT, escape

COLOURS = {"atreides": "#3d9a4c", "harkonnen": "#b8b8b8", "fremen": "#c9a25b", "emperor": "#c0392b",
           "guild": "#e67e22", "bg": "#3b5bb5", "ecaz": "#c05fa0", "moritani": "#5a8f8f", "tleilaxu": "#8a7f6a",
           "choam": "#d4b43c", "richese": "#7a6fc9"}
CLOSED = "The story is told when the game is over: until then every secret stays with its seat."
TITLES = {"spice": "Spice behind the shield", "forces_on_board": "Forces on the board",
          "strongholds": "Strongholds held", "cards_in_hand": "Treachery cards in hand"}


def line_chart(key: str, turns: list[int], per: dict[str, list[int]], w: int = 560, h: int = 260) -> Markup:
    """One series as an SVG line chart: x the turns, y the value; a line per faction in its colour,
    labelled with its letters at the end of the line."""
    left, right, top, bottom = 40, 44, 30, 30
    top_value = max([v for vals in per.values() for v in vals] + [1])
    n = max(1, len(turns) - 1)

    def x(i):
        return left + (w - left - right) * (i / n if len(turns) > 1 else 0.5)

    def y(v):
        return top + (h - top - bottom) * (1 - v / top_value)

    parts = [f'<svg class="chart" data-series="{key}" viewBox="0 0 {w} {h}" role="img" '
             f'aria-label="{escape(TITLES[key])} by turn">',
             f'<text class="chart-title" x="{left}" y="20">{escape(TITLES[key])}</text>']
    for frac in (0, 0.5, 1):
        v = round(top_value * frac)
        parts.append(f'<line class="grid" x1="{left}" x2="{w - right}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>'
                     f'<text class="axis" x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
    for i, t in enumerate(turns):
        parts.append(f'<text class="axis" x="{x(i):.1f}" y="{h - 8}" text-anchor="middle">{t}</text>')
    # each line's letters at its end, pushed apart where two lines end together
    ends = sorted((y(vals[-1]), f) for f, vals in per.items() if vals)
    label_y: dict = {}
    for i, (yy, f) in enumerate(ends):
        label_y[f] = max(yy, label_y[ends[i - 1][1]] + 15) if i else yy
    for f, vals in per.items():
        colour = COLOURS.get(f, "#ddd")
        pts = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(vals))
        parts.append(f'<g class="line" data-faction="{f}"><title>{escape(faction_name(f))}: '
                     f'{", ".join(str(v) for v in vals)}</title>'
                     f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="3"/>')
        for i, v in enumerate(vals):
            parts.append(f'<circle cx="{x(i):.1f}" cy="{y(v):.1f}" r="3.5" fill="{colour}"/>')
        if vals:
            parts.append(f'<text class="tag" x="{x(len(vals) - 1) + 6:.1f}" y="{label_y[f] + 4:.1f}" '
                         f'style="fill: {colour}">{SHORT.get(f, f[:2].upper())}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return Markup("".join(parts))


def story(t, role):
    from .. import GAME
    from ..story import build_story, turn_ends, turns_of
    from ....web.pages import tables
    if not GAME.story_open(t.state):  # the same gate as the JSON: 403 before the game is over
        return make_response(render_template("dune/story_closed.html", code=t.code, message=CLOSED), 403)
    with t.lock:
        events = list(tables().all_events(t))
        undone = dict(t.undone)
    turn_of = turns_of(t.code, t.config, events, undone)
    ends = turn_ends(t.code, t.config, events, undone, turn_of)
    data = build_story(t.code, t.config, events, undone, ends)
    charts = [line_chart(k, data["turns"], data["series"][k]) for k in ("spice", "forces_on_board", "strongholds", "cards_in_hand")]
    timeline = _timeline(events, undone, ends, turn_of)
    response = make_response(render_template("dune/story.html", code=t.code, role=role, d=data, charts=charts,
                                             timeline=timeline, colours=COLOURS))
    response.headers["Cache-Control"] = "no-store"
    return response


def _timeline(events, undone, ends, turn_of) -> list[dict]:
    """The entries grouped by the turn they were made in (in the order of play)."""
    groups: dict[int, list] = {turn: [] for turn, _ in ends}
    current = 1
    for e in events:
        current = turn_of.get(e["seq"], current)
        shown = {k: v for k, v in e["payload"].items() if k not in ("type", "override", "reason", "revision")
                 or (k == "reason" and v)}
        groups.setdefault(current, []).append(e | {"undone": e["seq"] in undone, "shown": shown})
    return [{"turn": turn, "entries": groups.get(turn, []), "map": view_for(state, "board")} for turn, state in ends]

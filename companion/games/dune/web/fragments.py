"""Dune's live fragments: where a stack can go, the battle panel, a spice card's preview, the
pending proposals, and the spice deck as a phone shows it."""
from __future__ import annotations

from flask import Blueprint, abort, make_response, render_template, request

from ....table.views import view_for
from ....web.pages import no_store, seat_or_join
from ..rules.board import load_board
from .guard import dune_table_or_404 as table_or_404

bp = Blueprint("dune_fragments", __name__)


class LegalChoices:
    """The seat's legal shipments right now (territory, sectors, cost), from the reach rules, so
    the phone offers buttons instead of a territory to type: ``legal.ship`` (None when the seat
    has nothing to ship or the rules refuse it).

    Worked out only when a template reads it: the shipment fold of a seat whose turn it is not
    is rendered closed and empty (it loads when opened), so its rules are not run on every refresh.
    """

    def __init__(self, t, role: str):
        self._t, self._role = t, role
        self._done = False
        self._value: dict = {}

    def _get(self) -> dict:
        if not self._done:
            self._value, self._done = _legal_choices(self._t, self._role), True
        return self._value

    @property
    def ship(self):
        return self._get().get("ship")

    def __bool__(self) -> bool:
        return bool(self._get())


def legal_choices(t, role: str) -> LegalChoices:
    return LegalChoices(t, role)


def _legal_choices(t, role: str) -> dict:
    if role in ("host", "board") or role not in t.state["factions_present"]:
        return {}
    if t.state["phase"] not in ("shipment_movement",):
        return {}
    from ..rules.errors import RuleViolation
    from ..entries.moves import where_can_i_go
    try:
        with t.lock:
            return where_can_i_go(t.state, load_board(), role, None, None)
    except RuleViolation:
        return {}


@bp.get("/t/<code>/proposals")
def proposals(code):
    """The pending proposals this seat answers or waits on (partials/proposals.html)."""
    t = table_or_404(code)
    role = seat_or_join(code)
    if role in (None, "board"):
        abort(401)
    return no_store(make_response(render_template("dune/proposals.html", code=t.code, role=role,
                                                  s=view_for(t.state, role, shared=True), proposals_only=True)))


@bp.get("/t/<code>/reach")
def reach(code):
    t = table_or_404(code)
    role = seat_or_join(code)
    if role in (None, "board"):
        abort(401)
    faction = request.args.get("faction") or role
    if faction == "host" or faction not in t.state["factions_present"]:
        return "<p class=muted>Choose a faction's stack.</p>"
    if role not in ("host", faction):
        abort(403)
    try:
        sector = int(request.args.get("sector") or 0) or None
    except ValueError:
        sector = None
    from ..rules.errors import RuleViolation
    from ..entries.moves import where_can_i_go
    try:
        with t.lock:
            info = where_can_i_go(t.state, load_board(), faction, request.args.get("territory"), sector)
    except RuleViolation as exc:
        return render_template("dune/reach.html", info=None, error=exc.message, code=t.code, s=None, role=role)
    held = {"forces": 0, "starred": 0, "advisors": 0}
    if info.get("move"):
        from ..rules.board import piece_id
        piece = piece_id(info["move"]["from"], info["move"]["from_sector"])
        held = dict(t.state["board"]["forces"].get(piece, {}).get(faction, held))
    return render_template("dune/reach.html", info=info, error=None, code=t.code, held=held,
                           only=request.args.get("only"), s=view_for(t.state, role), role=role)


@bp.get("/t/<code>/battle")
def battle(code):
    """The seat's battle panel: its battles, a live dial control and its karama options."""
    t = table_or_404(code)
    role = seat_or_join(code)
    if role in (None, "board", "host"):
        abort(403)
    from ..rules.errors import RuleViolation
    from ..battles import battles_for, dial_for, karama_for
    with t.lock:
        state = t.state
        battles = battles_for(state, load_board(), role)
        territory = request.args.get("territory")
        # a territory carried over from before a change may be fought out by now: the first battle then
        here = next((b for b in battles if b["territory"] == territory), battles[0] if battles else None)
        # ...and what was dialled for it is dropped with it
        args = request.args if not territory or (here and here["territory"] == territory) else {}
        dial = None
        error = None
        if here:
            opponent = request.args.get("opponent")
            opponent = opponent if opponent in here["opponents"] else here["opponents"][0]
            try:
                forces = int(args.get("forces") or 0)
                starred = int(args.get("starred") or 0)
                want = args.get("want")
                want = int(want) if want not in (None, "", "0") else None  # 0: no strength asked for
            except ValueError:
                forces = starred = 0
                want = None
                error = "Dial whole numbers."
            if error is None:
                try:
                    if forces > here["forces"] or starred > here["starred"]:
                        raise RuleViolation(f"You have {here['forces']} forces and {here['starred']} starred in "
                                            f"{here['territory']}.", "kiss-simple-dialing")
                    if want is not None:  # the cheapest mix of the forces PRESENT that reaches it
                        dial = dial_for(state, role, opponent, here["forces"], here["starred"], want,
                                        here["ecaz_forces"])
                    else:
                        dial = dial_for(state, role, opponent, forces, starred, None, here["ecaz_forces"])
                except RuleViolation as exc:
                    error = exc.message
        else:
            opponent = None
        options = karama_for(state, role)
        in_phase = state["phase"] == "battle"
        # once this seat has a battle open, its plan builder on the phase card has the dial: fold this away
        fighting = any(b["turn"] == state["turn"] and role in b["sides"] and b["status"] != "applied"
                       for b in state.get("battles", []))
    html = render_template("dune/battle.html", code=t.code, role=role, battles=battles, here=here, in_phase=in_phase, fighting=fighting,
                           opponent=opponent, dial=dial, error=error, karama=options, args=args)
    return no_store(make_response(html))


@bp.get("/t/<code>/preview/blow")
def preview_blow(code):
    """What turning this spice card on this pile would do, before anyone applies it."""
    t = table_or_404(code)
    role = seat_or_join(code)
    if role is None:
        abort(401)
    from ..rules.errors import RuleViolation
    from ..entries.storm_spice import preview_blow as preview
    card, pile = request.args.get("card", ""), request.args.get("pile", "A")
    pile = pile if pile in ("A", "B") else "A"
    try:
        with t.lock:
            b = preview(load_board(), t.state, card, pile)
            revision = t.revision
    except RuleViolation as exc:
        return render_template("dune/blow_preview.html", b=None, error=exc.message)
    apply = {"card": card, "pile": pile} if role != "board" else None
    return render_template("dune/blow_preview.html", b=b, error=None, apply=apply, code=t.code,
                           s={"revision": revision})



def deck_left(s: dict, raw_deck: dict | None) -> dict:
    """The spice blow as a phone shows it: the cards still in the deck (each once, with how many
    copies are left) and the pile the next card goes on (A until a territory card lands there).
    Uses the phase helper's ``view["spice_blow"]`` when it is there."""
    from ..rules.spice import SHAI_HULUD, card_name, deck_cards
    sb = s.get("spice_blow") or {}
    board = load_board()
    discovery = (s.get("options") or {}).get("discovery_tokens", True)
    counts: dict[str, int] = {}
    for c in deck_cards(board, discovery):
        counts[c.name] = counts.get(c.name, 0) + 1
    total = sum(counts.values())
    seen = list(s.get("spice_deck_seen") or [])
    drawn = 0
    left = dict(counts)
    for raw in seen:
        if drawn == total:
            left, drawn = dict(counts), 0
        name = card_name(board, raw)
        if left.get(name):
            left[name] -= 1
        drawn += 1
    if drawn == total:
        left = dict(counts)
    if "cards_left" in sb:
        left = {c: left.get(c, 1) for c in sb["cards_left"]}
    this_phase = list((raw_deck or {}).get("this_phase") or sb.get("this_phase") or [])
    pile = sb.get("next_pile") or sb.get("pile") or ("B" if any(card_name(board, c) != SHAI_HULUD for c in this_phase)
                                                      else "A")
    cards = [(name, n) for name, n in sorted(left.items(), key=lambda x: (x[0] != SHAI_HULUD, x[0])) if n > 0]
    return {"cards": cards, "pile": pile if pile in ("A", "B") else "A"}


def spice_cards() -> list[str]:
    from ..rules.spice import SHAI_HULUD, deck_cards
    names = sorted({c.name for c in deck_cards(load_board(), True) if c.name != SHAI_HULUD})
    return [SHAI_HULUD] + names

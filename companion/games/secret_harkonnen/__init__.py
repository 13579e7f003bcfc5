"""Secret Harkonnen behind the spine's game interface: the phones are the moderator.

State layout (top-level keys; see ``PUBLIC_KEYS`` / ``PRIVATE_KEYS``):
- public: the seats in order, who is alive, the phase, Emperor, nominee, last government,
  both policy tracks, the failed-election counter, who has voted (not how), the last revealed
  vote, the executive power open now, the winner;
- ``private[name]``: that player's own role, what they were told, their hand of policies, their
  sealed vote and their power results (a seat's view gets only its own);
- ``secret``: the roles of everyone, the deck order and the discards, the reshuffle seed: no
  seat ever gets it (the view gives counts; at the end everyone sees the roles).

The roles and the deck are dealt once, with ``secrets``, when the table is created, and stored
in a secret ``sh.deal`` entry that no seat can read until the game is over: replay folds that
entry, it never deals again.
"""
from __future__ import annotations

import copy
import secrets as _secrets
from dataclasses import dataclass
from typing import Literal

from pydantic import Field

from .. import ConfigError
from . import rules as R
from .rules import Refused

NAME_MAX = 20
RESERVED = {"host", "board", "_deal"}
PUBLIC_KEYS = ("game", "table", "revision", "players", "alive", "phase", "emperor", "nominee", "governor",
               "government", "policies", "failed_elections", "voted", "last_vote", "power_options",
               "powers_used", "veto", "rotation", "last_enacted", "banner", "winner", "win_reason", "log",
               "reveals", "last_reveal")
PRIVATE_KEYS = ("private", "secret")
PHASES = ("nomination", "election", "legislative_emperor", "legislative_governor", "executive", "over")


@dataclass
class Ctx:
    actor: str
    override: bool = False
    reason: str | None = None
    waived: list | None = None
    summary: str | None = None


def _models():
    from ...table.entries import Name, Payload

    class Deal(Payload):
        type: Literal["sh.deal"]
        roles: dict[str, Literal["atreides", "imperial", "baron"]]
        deck: list[Literal["landsraad", "choam"]] = Field(max_length=17)
        seed: str = Field(min_length=16, max_length=64)

    class Nominate(Payload):
        type: Literal["sh.nominate"]
        governor: Name

    class Vote(Payload):
        type: Literal["sh.vote"]
        vote: Literal["confirm", "deny"]

    class Discard(Payload):
        type: Literal["sh.discard"]
        policy: int = Field(ge=0, le=2)

    class Enact(Payload):
        type: Literal["sh.enact"]
        policy: int = Field(ge=0, le=1)

    class Veto(Payload):
        type: Literal["sh.veto"]
        agree: bool

    class Power(Payload):
        type: Literal["sh.power"]
        power: Literal["consult", "trance", "special_election", "sardaukar"]
        target: Name | None = None

    return Deal, Nominate, Vote, Discard, Enact, Veto, Power


# -- the state --------------------------------------------------------------------------------------

def new_state(code: str, players: list[str]) -> dict:
    return {
        "game": "secret-harkonnen", "table": code, "revision": 0,
        "players": list(players), "alive": list(players),
        "phase": "nomination", "emperor": None, "nominee": None, "governor": None, "government": None,
        "policies": {R.LANDSRAAD: 0, R.CHOAM: 0}, "failed_elections": 0,
        "voted": [], "last_vote": None, "power_options": [], "powers_used": {}, "veto": None,
        "rotation": 0, "last_enacted": None, "banner": "Dealing roles...", "winner": None, "win_reason": None,
        "log": [],
        # the moments the room should see together on the big screen: votes revealed, a policy enacted
        "reveals": 0, "last_reveal": None,
        "private": {p: {"hand": None, "vote": None, "consult": None, "trance": {}} for p in players},
        "secret": {"roles": {}, "deck": [], "discard": [], "seed": "", "reshuffles": 0},
    }


def _refuse(message: str, rule: str):
    raise Refused(message, rule)


def _roles(state) -> dict:
    return state["secret"]["roles"]


def _note(state: dict, text: str) -> None:
    state["banner"] = text
    state["log"] = (state["log"] + [text])[-12:]


def _check_win(state: dict, elected: str | None = None) -> bool:
    won = R.winner(state["policies"], state["alive"], _roles(state), elected)
    if won:
        team, why = won
        state["winner"], state["win_reason"], state["phase"] = team, why, "over"
        state["power_options"], state["veto"] = [], None
        for p in state["private"].values():
            p["hand"] = None
        _note(state, f"{'The Atreides' if team == R.ATREIDES else 'The Imperial Family'} win: {why}")
    return bool(won)


def _refill(state: dict) -> None:
    sec = state["secret"]
    if R.reshuffle_needed(sec["deck"]):
        sec["deck"] = R.reshuffle(sec["deck"], sec["discard"], sec["seed"], sec["reshuffles"])
        sec["discard"] = []
        sec["reshuffles"] += 1
        _note(state, "The policy deck was reshuffled with the discards.")


def _next_government(state: dict) -> None:
    """The Imperial Office passes on (after a special election it returns to the rotation)."""
    i = R.next_living(state["players"], state["alive"], state["rotation"])
    state["rotation"], state["emperor"] = i, state["players"][i]
    state["nominee"] = state["governor"] = None
    state["voted"], state["veto"], state["power_options"] = [], None, []
    state["phase"] = "nomination"


def _reveal(state: dict, kind: str, joined: bool = False) -> None:
    """A moment the big screen holds for the room: votes revealed together, a policy enacted.
    ``joined``: part of the moment just revealed (a third failed vote forcing the top policy)."""
    if not joined:
        state["reveals"] = state.get("reveals", 0) + 1
        state["last_reveal"] = []
    state["last_reveal"] = list(state.get("last_reveal") or []) + [kind]


def _enact(state: dict, policy: str, how: str, joined: bool = False) -> None:
    state["policies"][policy] += 1
    state["last_enacted"] = {"policy": policy, "how": how, "number": state["policies"][policy]}
    _reveal(state, "policy", joined)
    state["failed_elections"] = 0
    _note(state, f"A {'Landsraad' if policy == R.LANDSRAAD else 'CHOAM'} policy was enacted ({how}).")


def _failed(state: dict, why: str, after_vote: bool = False) -> None:
    state["failed_elections"] += 1
    _note(state, why)
    if state["failed_elections"] >= R.FORCED_AFTER:
        top = state["secret"]["deck"].pop(0)
        _enact(state, top, "the top card, after three failed governments", joined=after_vote)
        _refill(state)
        if _check_win(state):
            return
    _next_government(state)


def _living_player(ctx, state):
    if ctx.actor not in state["players"]:
        _refuse("Only a player at this table makes this entry, on their own phone.", "sh-seats")
    if ctx.actor not in state["alive"]:
        _refuse(f"{ctx.actor} was assassinated and takes no further part.", "sh-sardaukar")
    if state["phase"] == "over":
        _refuse("The game is over.", "sh-winning")


def _expect(state, phase: str, rule: str, doing: str):
    if state["phase"] != phase:
        _refuse(f"Not now: {doing} comes in the {phase.replace('_', ' ')} step; the table is at "
                f"{state['phase'].replace('_', ' ')}.", rule)


def _target(state, name: str | None, ctx, rule: str, what: str) -> str:
    if not name or name not in state["players"]:
        _refuse(f"{what}: name a player at this table ({', '.join(state['players'])}).", rule)
    if name not in state["alive"]:
        _refuse(f"{name} was assassinated and takes no further part.", rule)
    if name == ctx.actor:
        _refuse(f"{what}: the Emperor cannot choose themself.", rule)
    return name


# -- the entries ------------------------------------------------------------------------------------

def deal(ctx, state, p) -> None:
    if state["secret"]["roles"]:
        _refuse("The roles and the deck were dealt when the table was made.", "sh-setup")
    if sorted(p.roles) != sorted(state["players"]) or sorted(p.deck) != sorted(R.DECK):
        _refuse("A deal names every player once and holds the 17 policies.", "sh-setup")
    sizes = R.team_sizes(len(state["players"]))
    if any(list(p.roles.values()).count(r) != n for r, n in sizes.items()):
        _refuse("A deal follows the team sizes for this many players.", "sh-teams")
    state["secret"].update({"roles": dict(p.roles), "deck": list(p.deck), "seed": p.seed})
    state["emperor"], state["rotation"] = state["players"][0], 0
    _note(state, f"Roles dealt. {state['players'][0]} is the first Emperor.")
    ctx.summary = "Roles and the policy deck dealt (secret)"


def nominate(ctx, state, p) -> None:
    _living_player(ctx, state)
    _expect(state, "nomination", "sh-election", "a nomination")
    if ctx.actor != state["emperor"]:
        _refuse(f"Only the Emperor ({state['emperor']}) nominates the Governor of Arrakis.", "sh-election")
    who = _target(state, p.governor, ctx, "sh-eligibility", "governor")
    if who in R.ineligible(state["alive"], state["emperor"], state["government"]):
        _refuse(f"{who} was in the last government and cannot be Governor now"
                f"{' (with 5 or fewer players left, only the last Governor is barred)' if len(state['alive']) <= 5 else ''}.",
                "sh-eligibility")
    state["nominee"], state["phase"], state["voted"] = who, "election", []
    _note(state, f"{ctx.actor} nominates {who} as Governor of Arrakis. Everyone votes.")
    ctx.summary = f"{ctx.actor} nominates {who}"


def vote(ctx, state, p) -> None:
    _living_player(ctx, state)
    _expect(state, "election", "sh-election", "voting")
    if ctx.actor in state["voted"]:
        _refuse("You have voted in this election already.", "sh-election")
    state["private"][ctx.actor]["vote"] = p.vote
    state["voted"] = state["voted"] + [ctx.actor]
    ctx.summary = f"{ctx.actor} voted"
    if len(state["voted"]) < len(state["alive"]):
        return
    votes = {n: state["private"][n]["vote"] for n in state["alive"]}
    for n in state["alive"]:
        state["private"][n]["vote"] = None
    state["last_vote"] = {"emperor": state["emperor"], "nominee": state["nominee"], "votes": votes}
    _reveal(state, "vote")
    nominee = state["nominee"]
    passed = R.election(votes, _roles(state)[nominee] == R.BARON, state["policies"][R.CHOAM])
    yes = sum(v == "confirm" for v in votes.values())
    if not passed:
        state["nominee"] = None
        _failed(state, f"The government is denied ({yes} to {len(votes) - yes}).", after_vote=True)
        return
    state["governor"] = nominee
    state["government"] = {"emperor": state["emperor"], "governor": nominee}
    _note(state, f"The government is confirmed ({yes} to {len(votes) - yes}): {nominee} is Governor of Arrakis.")
    if _check_win(state, elected=nominee):
        return
    sec = state["secret"]
    hand, sec["deck"] = sec["deck"][:3], sec["deck"][3:]
    state["private"][state["emperor"]]["hand"] = hand
    _refill(state)
    state["phase"] = "legislative_emperor"


def discard(ctx, state, p) -> None:
    _living_player(ctx, state)
    _expect(state, "legislative_emperor", "sh-legislative", "discarding a policy")
    if ctx.actor != state["emperor"]:
        _refuse(f"Only the Emperor ({state['emperor']}) discards a policy now.", "sh-legislative")
    hand = state["private"][ctx.actor]["hand"]
    if p.policy >= len(hand):
        _refuse(f"policy: 0 to {len(hand) - 1}, one of the cards in your hand.", "sh-legislative")
    state["secret"]["discard"].append(hand[p.policy])
    rest = hand[:p.policy] + hand[p.policy + 1:]
    state["private"][ctx.actor]["hand"] = None
    state["private"][state["governor"]]["hand"] = rest
    state["phase"] = "legislative_governor"
    state["veto"] = {"emperor": None, "governor": None} if R.veto_unlocked(state["policies"][R.CHOAM]) else None
    _note(state, f"The Emperor passed two policies to {state['governor']}.")
    ctx.summary = f"{ctx.actor} discarded a policy"


def enact(ctx, state, p) -> None:
    _living_player(ctx, state)
    _expect(state, "legislative_governor", "sh-legislative", "enacting a policy")
    if ctx.actor != state["governor"]:
        _refuse(f"Only the Governor of Arrakis ({state['governor']}) enacts a policy now.", "sh-legislative")
    hand = state["private"][ctx.actor]["hand"]
    chosen = hand[p.policy]
    state["secret"]["discard"].append(hand[1 - p.policy])
    state["private"][ctx.actor]["hand"] = None
    _enact(state, chosen, f"by {state['emperor']} and {state['governor']}")
    ctx.summary = f"{ctx.actor} enacted a {'Landsraad' if chosen == R.LANDSRAAD else 'CHOAM'} policy"
    state["veto"] = None
    if _check_win(state):
        return
    if chosen == R.CHOAM:
        options = R.power_choice(len(state["players"]), state["policies"][R.CHOAM], state["powers_used"])
        if options:
            state["power_options"] = list(options)
            state["phase"] = "executive"
            _note(state, f"{state['emperor']} now uses a power: "
                         f"{' or '.join(R.POWER_NAMES[o] for o in options)}.")
            return
    _next_government(state)


def veto(ctx, state, p) -> None:
    _living_player(ctx, state)
    _expect(state, "legislative_governor", "sh-veto", "a veto")
    if state["veto"] is None:
        _refuse("The veto is unlocked by the fifth CHOAM policy (or was already refused this session).", "sh-veto")
    who = "emperor" if ctx.actor == state["emperor"] else "governor" if ctx.actor == state["governor"] else None
    if who is None:
        _refuse("Only the Emperor and the Governor of Arrakis decide a veto.", "sh-veto")
    ctx.summary = f"{ctx.actor} {'agrees to' if p.agree else 'refuses'} a veto"
    if not p.agree:
        state["veto"] = None
        _note(state, f"{ctx.actor} refuses the veto: the Governor enacts a policy.")
        return
    state["veto"][who] = True
    if not all(state["veto"].values()):
        _note(state, f"{ctx.actor} asks for a veto.")
        return
    gov = state["governor"]
    state["secret"]["discard"].extend(state["private"][gov]["hand"])
    state["private"][gov]["hand"] = None
    _failed(state, "The Emperor and the Governor vetoed the agenda: both policies are discarded.")


def power(ctx, state, p) -> None:
    _living_player(ctx, state)
    _expect(state, "executive", "sh-powers", "an executive power")
    if ctx.actor != state["emperor"]:
        _refuse(f"Only the Emperor ({state['emperor']}) uses the executive power.", "sh-powers")
    if p.power not in state["power_options"]:
        _refuse(f"The power now is {' or '.join(R.POWER_NAMES[o] for o in state['power_options'])}.", "sh-powers")
    state["powers_used"][str(state["policies"][R.CHOAM])] = p.power
    me = state["private"][ctx.actor]
    name = R.POWER_NAMES[p.power]
    if p.power == "consult":
        me["consult"] = list(state["secret"]["deck"][:3])
        _note(state, f"{ctx.actor} consulted the Spacing Guild (the next three policies).")
        ctx.summary = f"{ctx.actor}: {name}"
    elif p.power == "trance":
        who = _target(state, p.target, ctx, "sh-powers", "target")
        role = _roles(state)[who]
        me["trance"][who] = R.ATREIDES if role == R.ATREIDES else R.IMPERIAL
        _note(state, f"{ctx.actor} entered a Spice Trance to learn about {who}.")
        ctx.summary = f"{ctx.actor}: {name} on {who}"
    elif p.power == "special_election":
        who = _target(state, p.target, ctx, "sh-powers", "target")
        state["power_options"] = []
        state["emperor"], state["nominee"], state["governor"] = who, None, None
        state["voted"], state["phase"] = [], "nomination"
        _note(state, f"Special Election: {ctx.actor} chooses {who} as the next Emperor.")
        ctx.summary = f"{ctx.actor}: {name}, {who}"
        return
    else:
        who = _target(state, p.target, ctx, "sh-powers", "target")
        state["alive"] = [x for x in state["alive"] if x != who]
        state["private"][who]["hand"] = None
        _note(state, f"{ctx.actor} ordered the Sardaukar to kill {who}.")
        ctx.summary = f"{ctx.actor}: {name} on {who}"
        if _check_win(state):
            return
    _next_government(state)


# -- the game -------------------------------------------------------------------------------------------

class SecretHarkonnen:
    id = "secret-harkonnen"
    name = "Secret Harkonnen"
    templates = "sh"  # templates/sh/
    web = "companion.games.secret_harkonnen.web"
    seat_field = "faction"  # the API's re-issue answer names the seat as for Dune
    rule_filters: list = []

    @staticmethod
    def rulesets(config: dict) -> str:
        return "secret-harkonnen"
    public_keys = frozenset(PUBLIC_KEYS)
    public_prefixes = ()
    private_keys = frozenset(PRIVATE_KEYS)
    refusal = Refused
    seat_ids = None  # the seats are the players' names, chosen when the table is set up

    def __init__(self):
        from ...table.entries import ActionType
        Deal, Nominate, Vote, Discard, Enact, Veto, Power = _models()
        # the last field: the payload fields any seat may read in the history (``public_fields``);
        # which of the two passed policies the governor enacts is an index into a secret hand
        self.registry = {
            "sh.deal": ActionType("sh.deal", Deal, deal, None, True, True, None, frozenset()),
            "sh.nominate": ActionType("sh.nominate", Nominate, nominate, None, False, False, None,
                                      frozenset({"governor"})),
            "sh.vote": ActionType("sh.vote", Vote, vote, None, True, False, None, frozenset()),
            "sh.discard": ActionType("sh.discard", Discard, discard, None, True, False, None, frozenset()),
            "sh.enact": ActionType("sh.enact", Enact, enact, None, False, False, None, frozenset()),
            "sh.veto": ActionType("sh.veto", Veto, veto, None, False, False, None, frozenset({"agree"})),
            "sh.power": ActionType("sh.power", Power, power, None, False, False, None,
                                   frozenset({"power", "target"})),
        }

    # -- a new table ---------------------------------------------------------------------------
    @staticmethod
    def settings(players) -> dict:
        return {"players": list(players)}

    def configure(self, body: dict) -> dict:
        extra = sorted(set(body) - {"players"})
        if extra:
            raise ConfigError(f"{extra[0]}: not a setting of a Secret Harkonnen table (players).", "sh-setup")
        players = body.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ConfigError("players: a list of 5 to 10 display names, in seat order.", "sh-setup")
        names = [" ".join(p.split()) for p in players]
        if not R.MIN_PLAYERS <= len(names) <= R.MAX_PLAYERS:
            raise ConfigError(f"Secret Harkonnen is for 5 to 10 players, not {len(names)}.", "sh-teams")
        for n in names:
            if not 1 <= len(n) <= NAME_MAX or not n.isprintable():
                raise ConfigError(f"Each name is 1 to {NAME_MAX} printable characters ({n[:NAME_MAX]!r} is not).",
                                  "sh-setup")
            if n.lower() in RESERVED:
                raise ConfigError(f"{n!r} is a word the table uses itself: choose another name.", "sh-setup")
        if len({n.lower() for n in names}) != len(names):
            raise ConfigError("Each player needs a different name.", "sh-setup")
        return {"players": names}

    def seats(self, config: dict) -> list[str]:
        return list(config["players"])

    def new_state(self, code: str, config: dict) -> dict:
        return new_state(code, config["players"])

    def opening_entries(self, config: dict) -> list[dict]:
        """The deal, with ``secrets``: stored as a secret entry, folded on replay, never re-rolled."""
        rng = _secrets.SystemRandom()
        deck = list(R.DECK)
        rng.shuffle(deck)
        payload = {"type": "sh.deal", "roles": R.deal_roles(config["players"], rng), "deck": deck,
                   "seed": _secrets.token_hex(16)}
        return [{"type": "sh.deal", "payload": payload, "secret_for": "_deal",
                 "summary": "Roles and the policy deck dealt (secret)"}]

    # -- entries -------------------------------------------------------------------------------
    def context(self, actor: str, override: bool = False, reason: str | None = None) -> Ctx:
        return Ctx(actor=actor, override=override, reason=reason)

    def seat_name(self, role: str) -> str:
        return "The dealer" if role == "_deal" else role

    def forbidden(self, role: str, at, payload, state: dict) -> str | None:
        if at.name == "sh.deal":
            return "The roles and the deck are dealt by the server when the table is made."
        if role == "host":
            return "The host runs the table but does not play for anyone: each player acts on their own phone."
        if getattr(payload, "override", False):
            return "Secret Harkonnen has no overrides: the moderator's rules are the rules."
        return None

    def secret_for(self, at, payload, role: str) -> str | None:
        return role if at.secret else None

    def may_read(self, viewer: str, secret_for: str, state: dict, type_: str | None = None) -> bool:
        return viewer == secret_for or state.get("phase") == "over"

    def invariants(self, state: dict) -> list[str]:
        sec = state["secret"]
        if not sec["roles"]:
            return []
        cards = list(sec["deck"]) + list(sec["discard"])
        for p in state["private"].values():
            cards += p["hand"] or []
        problems = []
        for policy, total in ((R.LANDSRAAD, 6), (R.CHOAM, 11)):
            n = cards.count(policy) + state["policies"][policy]
            if n != total:
                problems.append(f"{n} {policy} policies instead of {total}")
        return problems

    def export_refused(self, state: dict) -> str | None:
        if state.get("phase") != "over":
            return "A Secret Harkonnen table is exported once the game is over: the file holds every role."
        return None

    def story_open(self, state: dict) -> bool:
        return state.get("phase") == "over"

    def story(self, code: str, config: dict, events: list[dict], undone: dict) -> dict:
        from .story import build_story
        return build_story(code, config, events, undone)

    def undoable(self, event: dict) -> str | None:
        if event["type"] == "sh.deal":
            return "The deal cannot be undone: start a new table to deal again."
        return None

    # -- views ---------------------------------------------------------------------------------
    def view(self, state: dict, viewer: str, out: dict) -> None:
        sec = state["secret"]
        out["deck_count"] = len(sec["deck"])
        out["discard_count"] = len(sec["discard"])
        out["ineligible"] = sorted(R.ineligible(state["alive"], state["emperor"], state["government"])) \
            if state["emperor"] else []
        out["powers_table"] = [list(x) for x in R.POWER_TABLE[R.bracket(len(state["players"]))]]
        out["teams"] = R.team_sizes(len(state["players"]))
        out["veto_unlocked"] = R.veto_unlocked(state["policies"][R.CHOAM])
        if viewer in state["players"] and sec["roles"]:
            mine = state["private"][viewer]
            me = {"name": viewer, "role": sec["roles"][viewer], "knows": R.knows(sec["roles"], viewer),
                  "alive": viewer in state["alive"], "vote": mine["vote"],
                  "consult": copy.deepcopy(mine["consult"]), "trance": copy.deepcopy(mine["trance"])}
            if mine["hand"] is not None:
                me["hand"] = list(mine["hand"])
            out["me"] = me
        if state["phase"] == "over":  # the end: everyone sees every role
            out["roles"] = dict(sec["roles"])

    # -- import --------------------------------------------------------------------------------
    def parse_import(self, data: dict):
        """(config, events, table code) of a finished game's export (transfer.py)."""
        from .transfer import parse_import
        return parse_import(self, data)


GAME = SecretHarkonnen()

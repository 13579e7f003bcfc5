"""Battle entries: open a battle, seal plans on the phones, reveal them together, call traitors
and confirm the outcome (applying it is battle_apply.py; the powers' own entries, Prescience, the
Voice, the Karama that stops a power and the Harkonnen capture, are battle_powers.py). A sealed
plan is checked here against what the powers recorded.

Where things live (so the per-seat views filter structurally):

- ``state["battles"]`` (public): the battles of the turn, each
  ``{"id", "turn", "territory", "aggressor", "sides", "status", "sealed", "plans", "traitors",
  "kh", "confirmed", "outcome"}``. ``status`` runs ``planning`` → ``revealed`` → ``applied``.
  Before the reveal, ``sealed`` only says *who* has sealed; ``plans`` is null.
- ``state["private"][f]["battle_plans"][battle_id]`` (secret): a sealed plan, until the reveal
  moves both plans into the public record at once.
- ``state["treachery"]["discard"]`` (public): the Treachery discard pile, named cards.

The outcome is computed by the pure rules (``companion.games.dune.rules.battle.outcome``); this module only
reads the table (forces present, leaders, spice, cards) and applies what the outcome says.
"""
from __future__ import annotations

from typing import Literal

from pydantic import Field

from ..rules import battle as rules
from ..rules import dialing
from ..rules import battle_powers as powers
from ..rules.board import POLAR_SINK
from ..rules.errors import RuleViolation, hard
from ..rules.factions import faction_name
from ..state import territory_forces
from .. import announce
from . import Ctx, FactionId, Payload, action
from .bookkeeping import present


RULE = rules.RULE_BATTLE
RULE_ORDER = "base-battle"  # "the first player in storm order is the aggressor ... resolves all its battles first"
BattleId = Field(min_length=1, max_length=20, pattern=r"^[0-9]+-[0-9]+$")


def name(f: str) -> str:
    return faction_name(f)


def side_of(state: dict, battle_id: str, faction: str, rule: str = RULE) -> dict:
    """The battle, when ``faction`` is one of its two sides (a hard refusal otherwise)."""
    b = find_battle(state, battle_id)
    if faction not in b["sides"]:
        raise hard(f"{name(faction)} is not in the battle in {b['territory']}.", rule)
    return b


def battles(state: dict) -> list:
    return state.setdefault("battles", [])


def find_battle(state: dict, battle_id: str) -> dict:
    for b in battles(state):
        if b["id"] == battle_id:
            return b
    raise hard(f"There is no battle {battle_id!r} at this table.", RULE)


def fighters(state: dict, territory: str) -> dict:
    """faction -> {"forces", "starred"} that can fight in the territory (BG advisors do not)."""
    return {f: {"forces": s["forces"], "starred": s["starred"]}
            for f, s in territory_forces(state, territory).items() if s["forces"] + s["starred"] > 0}


# -- open ------------------------------------------------------------------------------------

class BattleOpen(Payload):
    type: Literal["battle.open"]
    territory: str = Field(min_length=1, max_length=60)
    aggressor: FactionId
    opponent: FactionId

    @property
    def sides(self) -> list[str]:
        return [self.aggressor, self.opponent]


@action("battle.open", BattleOpen, public=("territory", "aggressor", "opponent"), faction_field="sides",
        summary=lambda p: f"Battle in {p.territory}: {name(p.aggressor)} against {name(p.opponent)}")
def battle_open(ctx: Ctx, state: dict, p: BattleOpen) -> None:
    present(state, p.aggressor), present(state, p.opponent)
    if p.aggressor == p.opponent:
        raise hard("A faction cannot battle itself.", RULE)
    territory = ctx.board.resolve(p.territory)
    ctx.check(territory != POLAR_SINK, "Nobody battles in the Polar Sink.", "base-polar-sink")
    ctx.check(state["phase"] == "battle", "Battles are fought in the Battle phase.", RULE)
    here = fighters(state, territory)
    for f in p.sides:
        ctx.check(f in here, f"{name(f)} has no forces that can fight in {territory}.", RULE)
    from ..battles import battle_problem, faction_order, implied_battles
    problem = battle_problem(state, ctx.board, territory, p.aggressor, p.opponent)
    ctx.check(not problem, problem or "", "base-alliances" if problem and "Allies" in problem else RULE)
    for b in battles(state):
        if b["status"] != "applied" and b["territory"] == territory and set(b["sides"]) == set(p.sides):
            raise hard(f"This battle in {territory} is already open.", RULE)
    order = faction_order(state)
    rank = {f: i for i, f in enumerate(order)}
    ctx.check(rank.get(p.aggressor, 99) < rank.get(p.opponent, 99),
              f"{name(p.opponent)} come first in storm order: they are the aggressor in this battle.", RULE_ORDER)
    pending = [b for b in battles(state) if b["turn"] == state["turn"] and b["status"] != "applied"
               and b["aggressor"] != p.aggressor]
    earlier = sorted({i["aggressor"] for i in implied_battles(state, ctx.board)
                      if rank.get(i["aggressor"], 99) < rank.get(p.aggressor, 99)}, key=lambda f: rank.get(f, 99))
    waiting = [b["aggressor"] for b in pending] + earlier
    ctx.check(not waiting, f"{name(waiting[0]) if waiting else ''} resolve all their battles first: the "
              f"aggressors fight in storm order.", RULE_ORDER)
    n = sum(1 for b in battles(state) if b["turn"] == state["turn"]) + 1
    state["battles"].append({
        "id": f"{state['turn']}-{n}", "turn": state["turn"], "territory": territory,
        "aggressor": p.aggressor, "sides": [p.aggressor, p.opponent], "status": "planning",
        "sealed": [], "plans": None, "traitors": [], "kh": False, "confirmed": [], "outcome": None,
    })


# -- sealed plans ----------------------------------------------------------------------------

class BattlePlan(Payload):
    type: Literal["battle.plan"]
    battle: str = BattleId
    faction: FactionId
    leader: str | None = Field(default=None, max_length=60)
    cheap_hero: bool = False
    forces: int = Field(default=0, ge=0, le=20)
    starred: int = Field(default=0, ge=0, le=20)
    weapon: str | None = Field(default=None, max_length=60)
    defense: str | None = Field(default=None, max_length=60)
    kh: bool = False


def _leader_available(state: dict, f: str, leader: str) -> tuple[str, int | None]:
    """The leader ``f`` may field: its own alive leader, or one it holds captured."""
    wanted = leader.strip().lower()
    for owner, data in state["factions"].items():
        for ld in data["leaders"]:
            if ld["name"].lower() != wanted:
                continue
            if owner == f and ld["status"] == "alive":
                return ld["name"], ld["strength"]
            if ld["status"] == "captured" and ld.get("captured_by") == f:
                return ld["name"], ld["strength"]
            where = {"tanks": "is in the Tleilaxu Tanks", "captured": "is held by another faction"}.get(
                ld["status"], f"belongs to {name(owner)}")
            raise hard(f"{ld['name']} {where}: {name(f)} cannot put that leader in a battle plan.", RULE)
    raise hard(f"{name(f)} has no leader called {leader!r}.", RULE)


def _check_cards(ctx: Ctx, state: dict, f: str, plan: rules.Plan) -> None:
    """Named cards must be in the hand; a hand whose cards are not all named may hold them."""
    hand = [c.lower() for c in state["private"][f].get("cards", [])]
    unknown = state["factions"][f]["hand_size"] - len(hand)
    wanted = plan.cards()
    missing = [c for c in wanted if c.lower() not in hand and not (c == "Cheap Hero" and
                                                                     {"cheap hero", "cheap heroine"} & set(hand))]
    ctx.check(len(missing) <= unknown,
              f"{name(f)} does not hold {', '.join(missing)} (hand: {len(hand)} named, {max(unknown, 0)} unnamed).",
              "kiss-treachery-deck")
    ctx.check(len(wanted) <= state["factions"][f]["hand_size"],
              f"{name(f)} holds {state['factions'][f]['hand_size']} Treachery cards and cannot play {len(wanted)}.",
              "kiss-treachery-deck")


@action("battle.plan", BattlePlan, public=(), secret=True,
        summary=lambda p: f"{name(p.faction)} seal a battle plan")
def battle_plan(ctx: Ctx, state: dict, p: BattlePlan) -> None:
    b = side_of(state, p.battle, p.faction)
    if b["status"] != "planning":
        raise hard("The plans of this battle are already revealed.", RULE)
    opponent = next(f for f in b["sides"] if f != p.faction)
    raw = {"leader": None, "cheap_hero": p.cheap_hero, "forces": p.forces, "starred": p.starred,
           "weapon": p.weapon or None, "defense": p.defense or None}
    if p.leader:
        leader, strength = _leader_available(state, p.faction, p.leader)
        raw["leader"] = leader
        if strength is not None:
            raw["leader_strength"] = strength
        elsewhere = used_elsewhere(state, leader, b["territory"])
        ctx.check(not elsewhere, f"{leader} already fought in {elsewhere} this turn: a leader fights in one "
                  f"territory per turn.", RULE_LEADER_TURN)
    plan = rules.read_plan(p.faction, raw)
    plan.spice = state["private"][p.faction]["spice"]
    if p.faction in stopped_starred(b):
        plan.starred_worth = 1
    helped = ecaz_help(state, b)
    if helped and helped["ally"] == p.faction:
        plan.bonus = dialing.ecaz_bonus(helped["forces"])
    here = fighters(state, b["territory"]).get(p.faction, {"forces": 0, "starred": 0})
    rules.check_dial(plan, opponent, here)
    _check_cards(ctx, state, p.faction, plan)
    if not plan.has_fighter:
        ctx.check(not _can_field(state, p.faction, b["territory"]),
                  f"{name(p.faction)} must play a leader or a Cheap Hero: a leader of theirs is alive and has "
                  f"not fought elsewhere this turn.", RULE_LEADER_TURN)
    if p.kh:
        if p.faction != "atreides":
            raise hard("Only the Atreides bring the Kwisatz Haderach.", rules.RULE_KH)
        ctx.check(state["private"]["atreides"].get("kh_losses", 0) >= 7,
                  "The Kwisatz Haderach is not active yet: Atreides have lost fewer than 7 forces.", rules.RULE_KH)
        ctx.check(plan.has_fighter, "The Kwisatz Haderach cannot fight alone: it joins a leader or a Cheap Hero.",
                  rules.RULE_KH)
        kh = kh_record(state)
        ctx.check(kh["status"] == "alive", "The Kwisatz Haderach was killed in an explosion: revive it like a "
                  "leader first.", rules.RULE_KH)
        ctx.check(not (kh.get("turn") == state["turn"] and kh.get("territory") not in (None, b["territory"])),
                  f"The Kwisatz Haderach already fought in {kh.get('territory')} this turn: it adds to leaders in "
                  f"one territory per turn.", rules.RULE_KH)
    if p.kh:
        _not_stopped(b, "kh")
    _check_powers(ctx, state, b, p.faction, dict(raw, weapon=plan.weapon, defense=plan.defense))
    stored = dict(raw, weapon=plan.weapon, defense=plan.defense, kh=p.kh)
    state["private"][p.faction].setdefault("battle_plans", {})[b["id"]] = stored
    if p.faction not in b["sealed"]:
        b["sealed"].append(p.faction)


# -- reveal, traitors, confirm -------------------------------------------------------------

class BattleReveal(Payload):
    type: Literal["battle.reveal"]
    battle: str = BattleId


class BattleConfirm(Payload):
    type: Literal["battle.confirm"]
    battle: str = BattleId
    faction: FactionId


@action("battle.reveal", BattleReveal,
        public=("battle",), faction_field=None, summary=lambda p: f"Battle {p.battle}: plans revealed")
def battle_reveal(ctx: Ctx, state: dict, p: BattleReveal) -> None:
    b = find_battle(state, p.battle)
    _only_sides(ctx, b)
    if b["status"] != "planning":
        raise hard("The plans of this battle are already revealed.", RULE)
    waiting = [f for f in b["sides"] if f not in b["sealed"]]
    if waiting:
        raise hard(f"Waiting for {' and '.join(name(f) for f in waiting)} to seal a plan.", RULE)
    b["plans"] = {}
    for f in b["sides"]:
        plan = state["private"][f]["battle_plans"].pop(b["id"])
        kh = bool(plan.pop("kh", False))
        if kh and (b.get("karama") or {}).get("kh"):
            kh = False  # a Karama stopped the Kwisatz Haderach in this battle after the plan was sealed
        b["kh"] = b["kh"] or kh
        b["plans"][f] = plan
    b["status"] = "revealed"
    try:
        result = outcome_of(state, b)
    except RuleViolation:  # an outcome the rules cannot work out yet still gets its reveal on the board screen
        result = None
    announce.battle_revealed(state, b, result)


def _only_sides(ctx: Ctx, b: dict) -> None:
    """Only the two battlers (or the host) act on a battle."""
    if not ctx.is_host and ctx.actor not in b["sides"]:
        raise hard(f"{name(ctx.actor)} is not in the battle in {b['territory']}.", RULE)


class BattleTraitor(Payload):
    type: Literal["battle.traitor"]
    battle: str = BattleId
    faction: FactionId


@action("battle.traitor", BattleTraitor, public=("battle", "faction"),
        summary=lambda p: f"Battle {p.battle}: {name(p.faction)} call a traitor")
def battle_traitor(ctx: Ctx, state: dict, p: BattleTraitor) -> None:
    b = find_battle(state, p.battle)
    side = p.faction
    if p.faction == "harkonnen" and p.faction not in b["sides"] and state["alliances"].get("harkonnen") in b["sides"]:
        # KISS: "Harkonnen using traitors in allied battles": the call serves the ally's side
        side = state["alliances"]["harkonnen"]
    b = side_of(state, p.battle, side, rules.RULE_TRAITORS)
    if b["status"] != "revealed":
        raise hard("A traitor is called once the plans are revealed, before the outcome is applied.",
                   rules.RULE_TRAITORS)
    if side in b["traitors"]:
        raise hard(f"{name(side)} already called a traitor in this battle.", rules.RULE_TRAITORS)
    opponent = next(f for f in b["sides"] if f != side)
    leader = b["plans"][opponent].get("leader")
    if not leader:
        raise hard(f"{name(opponent)} fights without a leader disc: there is no traitor to call.",
                   rules.RULE_TRAITORS)
    if b.get("kh") and opponent == "atreides":
        raise hard(f"{leader} fights beside the Kwisatz Haderach and cannot turn traitor.", rules.RULE_KH)
    held = [t.lower() for t in state["private"][p.faction].get("traitors", [])]
    ctx.check(not held or leader.lower() in held,
              f"{leader} is not among the traitors {name(p.faction)} recorded.", rules.RULE_TRAITORS)
    b["traitors"].append(side)
    if p.faction == "moritani":  # "You may reveal a Traitor Card normally, but then this advantage is lost."
        owner = next((f for f, d in state["factions"].items() for ld in d["leaders"] if ld["name"] == leader), None)
        if owner:
            state["factions"]["moritani"].setdefault("assassinated", {}).setdefault(owner, None)
    if side != p.faction:
        b.setdefault("traitor_by", {})[side] = p.faction
    b["confirmed"] = []
    b["outcome"] = None
    try:
        result = outcome_of(state, b)
    except RuleViolation:
        result = None
    announce.traitor_called(state, b, p.faction, side, leader, result)


@action("battle.confirm", BattleConfirm, public=("battle", "faction"),
        summary=lambda p: f"Battle {p.battle}: {name(p.faction)} confirm the outcome")
def battle_confirm(ctx: Ctx, state: dict, p: BattleConfirm) -> None:
    b = side_of(state, p.battle, p.faction)
    if b["status"] != "revealed":
        raise hard("Only a revealed battle's outcome can be confirmed.", RULE)
    if p.faction not in b["confirmed"]:
        b["confirmed"].append(p.faction)


def stopped_starred(b: dict) -> list[str]:
    """The factions whose starred-force bonus a Karama stopped in this battle."""
    return [POWER_OWNER[k] for k in ("sardaukar", "fedaykin") if k in (b.get("karama") or {})]


def ecaz_help(state: dict, b: dict) -> dict | None:
    """``{"ally", "forces"}`` when Ecaz's ally is a side and Ecaz forces stand in the territory."""
    ally = state["alliances"].get("ecaz")
    if not ally or ally not in b["sides"] or "ecaz" in b["sides"]:
        return None
    n = fighters(state, b["territory"]).get("ecaz", {}).get("forces", 0)
    return {"ally": ally, "forces": n} if n else None


def outcome_of(state: dict, b: dict) -> rules.Outcome:
    """The outcome the rules give for a revealed battle, from the table's forces present."""
    present_ = fighters(state, b["territory"])
    out = rules.outcome(b["plans"], b["aggressor"], territory=b["territory"], traitors=b["traitors"],
                         kh=b["kh"], forces_present={f: present_.get(f, {"forces": 0, "starred": 0})
                                                     for f in b["sides"]},
                         no_starred_bonus=stopped_starred(b), ecaz=ecaz_help(state, b),
                         facedancers=[] if "facedancers" in (b.get("karama") or {}) else
                         [f for f in b["sides"] if f == "tleilaxu" or state["alliances"].get("tleilaxu") == f],
                         leader_gap=list(b.get("special_karama") or ()),
                         keeps_one=[f for f in b["sides"] if state["alliances"].get("moritani") == f])
    stopper = (b.get("karama") or {}).get("facedancers")
    if stopper and out.leaders_killed:  # karama-tleilaxu: the killed leaders add nothing to either side
        out.say(f"{name(stopper)} played a Karama: no Facedancers in this battle, the killed leaders add nothing.",
                POWER_RULE["facedancers"])
    return out


# -- battle powers: what Prescience, the Voice and a Karama recorded, for the plans ------------------


POWER_OWNER = {"prescience": "atreides", "voice": "bg", "kh": "atreides", "sardaukar": "emperor",
               "fedaykin": "fremen", "facedancers": "tleilaxu", "capture": "harkonnen"}
POWER_NAME = {"prescience": "Prescience", "voice": "Voice", "kh": "the Kwisatz Haderach",
              "sardaukar": "the Sardaukar bonus", "fedaykin": "the Fedaykin bonus", "facedancers": "the Facedancers",
              "capture": "the Harkonnen capture"}
POWER_RULE = {"prescience": "karama-atreides", "voice": "karama-bg", "kh": "karama-atreides",
              "sardaukar": "karama-emperor", "fedaykin": "karama-fremen",
              "facedancers": "karama-tleilaxu", "capture": "karama-harkonnen"}
OWN_SIDE_ONLY = ("kh", "sardaukar", "fedaykin", "capture")  # powers used only in the owner's own battle
# a Karama on the capture may wait until the Harkonnen have won (the others stop a power before plans show)
AFTER_REVEAL = ("capture",)


def _not_stopped(b: dict, power: str) -> None:
    who = (b.get("karama") or {}).get(power)
    if who:
        raise hard(f"{name(who)} played a Karama: {POWER_NAME[power]} cannot be used in this battle.",
                   POWER_RULE[power])


def power_side(state: dict, b: dict, owner: str) -> str | None:
    """The side ``owner``'s power serves in this battle: the owner itself when it fights, or its
    ally when the ally fights (``atreides-alliance``, ``bg-alliance``); None otherwise."""
    if owner in b["sides"]:
        return owner
    ally = state["alliances"].get(owner)
    return ally if ally in b["sides"] else None


def _hand(state: dict, f: str) -> tuple[list[str], int]:
    hand = list(state["private"][f].get("cards", []))
    return hand, max(0, state["factions"][f]["hand_size"] - len(hand))


def _can_field(state: dict, f: str, territory: str | None = None) -> bool:
    """Whether ``f`` can field a leader or a Cheap Hero (a card is played only beside one); with a
    ``territory`` (the plan's own check), only a named Cheap Hero counts among the cards, and a
    leader who fought elsewhere this turn does not count."""
    hand, unknown = _hand(state, f)
    if (unknown and territory is None) or {"cheap hero", "cheap heroine"} & {c.lower() for c in hand}:
        return True
    for owner, data in state["factions"].items():
        for ld in data["leaders"]:
            if (owner == f and ld["status"] == "alive") or (ld["status"] == "captured" and ld.get("captured_by") == f):
                if territory is None or not used_elsewhere(state, ld["name"], territory):
                    return True
    return False


RULE_LEADER_TURN = "base-battle"
KH_NAME = "Kwisatz Haderach"


def used_elsewhere(state: dict, leader: str, territory: str) -> str | None:
    """The territory where ``leader`` already fought this turn, when it is not ``territory``
    (a leader marked used by hand, somewhere unsaid, counts as elsewhere)."""
    for data in state["factions"].values():
        for ld in data["leaders"]:
            if ld["name"] == leader and ld.get("used"):
                where = ld.get("used_in")
                return None if where == territory else (where or "another territory")
    return None


def kh_record(state: dict) -> dict:
    """The Kwisatz Haderach's public record: ``{"status": "alive"|"tanks", "turn", "territory"}``
    (where it fought this turn). Dead only when blown up by a Lasgun/Shield explosion."""
    return state["factions"]["atreides"].setdefault(
        "kh", {"name": KH_NAME, "strength": 2, "status": "alive", "turn": None, "territory": None})


def _answer_of(state: dict, b: dict) -> dict | None:
    """The Prescience answer of this battle (``{"element", "value"}``), read from the answering side."""
    q = b.get("prescience")
    if not q or not q.get("answered"):
        return None
    return state["private"][q["target"]].get("prescience", {}).get(b["id"])


def _check_powers(ctx: Ctx, state: dict, b: dict, f: str, plan: dict) -> None:
    """A plan must play what its side showed to Prescience and obey the Voice."""
    answer = _answer_of(state, b) if (b.get("prescience") or {}).get("target") == f else None
    fixed: tuple = ()
    can_field = _can_field(state, f)
    if answer:
        problem = powers.answer_problem(answer["element"], answer["value"], plan)
        if problem:
            raise problem
        if answer["element"] in ("weapon", "defense"):
            fixed = (answer["element"],)
        if answer["element"] == "leader" and not answer["value"]["leader"]:
            can_field = False
    voice = b.get("voice")
    if voice and voice["target"] == f:
        hand, unknown = _hand(state, f)
        problem = powers.voice_problem(voice, plan, hand, unknown, can_field=can_field, fixed=fixed)
        if problem:
            ctx.waive(problem)


__all__ = ["battles", "find_battle", "kh_record", "used_elsewhere", "KH_NAME", "fighters", "outcome_of", "ecaz_help", "stopped_starred", "power_side",
           "POWER_OWNER", "POWER_NAME", "POWER_RULE", "OWN_SIDE_ONLY", "AFTER_REVEAL"]

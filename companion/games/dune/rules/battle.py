"""A battle's outcome from two revealed battle plans (GF9 2019 battle rules with KISS Simple Dialing).

Pure rules, no Flask, no table state: :func:`outcome` takes the two plans, who is the
aggressor, any traitor calls, the Kwisatz Haderach and the forces present, and returns what the
rules say follows, each line citing its rule id. It decides nothing the players decide
(whether the winner keeps its cards, what the Harkonnen do with a captured leader): it says
what is open to them.

The order the rules settle a battle in, and the readings chosen where the texts leave room:

1. **Traitors** (``base-traitors``) come first. One call: the caller wins, loses nothing and
   pays nothing for its dial; the betrayed leader dies and the caller takes its strength in
   spice; the betrayed side loses every force there, discards every card it played and pays its
   dial (``qa-dial-spice-traitor``). Two calls: both leaders die, both sides lose every force
   there and every card played, nobody is paid for the leaders; *reading:* both pay their dials,
   since both dials were revealed. A leader with the Kwisatz Haderach cannot turn traitor.
2. **Lasgun and shield** (``base-battle-weapons``): a Lasgun meeting a Shield on either side
   blows up the territory: every force of both sides there, both leaders (and the Kwisatz
   Haderach) die, every card played is discarded, nobody wins and nobody is paid for leaders.
   *Reading:* the dials are still paid (the explosion does not refund the wheel).
3. **Weapons against defences**: a projectile weapon kills unless the other side plays a
   projectile defence (Shield), a poison weapon unless it plays a poison defence (Snooper);
   a Lasgun kills whatever the defence (a shield there means step 2). Worthless cards do nothing.
4. **Totals**: the dial (``kiss-simple-dialing``: Sardaukar and Fedaykin count 2, a Sardaukar 1
   against the Fremen; never above 20) plus the leader's strength if it lives, plus 2 for the
   Kwisatz Haderach if its leader or Cheap Hero lives. The Tleilaxu add half of each killed
   leader's strength, rounded up separately (``tleilaxu-facedancers``). Higher total wins; a tie
   goes to the aggressor (``qa-battle-tie``).
5. **Losses**: the loser loses every force there and discards every card it played; the winner
   loses the troops it dialed and may keep its weapon and defence (*reading:* a Cheap Hero is
   always discarded once played). Each side pays its dial to the bank (the Fremen never pay).
   The winner takes spice for every leader killed, its own included.
6. **After**: the Harkonnen, winning, capture one of the loser's leaders at random
   (``harkonnen-captured-leaders``); Atreides losses count toward the Kwisatz Haderach.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from . import dialing
from .errors import hard
from .factions import faction, faction_name
from .treachery import card

RULE_BATTLE = "base-battle"
RULE_WEAPONS = "base-battle-weapons"
RULE_TRAITORS = "base-traitors"
RULE_DIAL = "kiss-simple-dialing"
RULE_TIE = "qa-battle-tie"
RULE_KH = "atreides-kwisatz-haderach"
RULE_TLEILAXU = "tleilaxu-facedancers"
RULE_CAPTURE = "harkonnen-captured-leaders"
RULE_TRAITOR_SPICE = "qa-dial-spice-traitor"
CAP = 20
KH_BONUS = 2


@dataclass
class Plan:
    faction: str
    leader: str | None = None
    leader_strength: int | None = 0   # None: Zoal, until he meets the opposing leader
    cheap_hero: bool = False
    forces: int = 0
    starred: int = 0
    weapon: str | None = None     # canonical card names
    weapon_kind: str | None = None
    defense: str | None = None
    defense_kind: str | None = None
    spice: int | None = None      # what the faction has, when given: the dial must be payable
    starred_worth: int | None = None  # 1 when a Karama stops the Sardaukar/Fedaykin bonus in this battle
    bonus: int = 0                # free strength on the dial: the Ecaz alliance bonus (``ecaz-occupy``)

    @property
    def has_fighter(self) -> bool:
        return self.leader is not None or self.cheap_hero

    @property
    def troops(self) -> int:
        return self.forces + self.starred

    def cards(self) -> list[str]:
        out = [c for c in (self.weapon, self.defense) if c]
        if self.cheap_hero:
            out.insert(0, "Cheap Hero")
        return out


@dataclass
class Outcome:
    territory: str | None
    aggressor: str
    winner: str | None = None
    loser: str | None = None
    totals: dict = field(default_factory=dict)
    leaders_killed: list = field(default_factory=list)
    forces_lost: dict = field(default_factory=dict)
    spice_paid: dict = field(default_factory=dict)
    spice_to_winner: int = 0
    discard: dict = field(default_factory=dict)
    may_keep: dict = field(default_factory=dict)
    explosion: bool = False
    traitors: list = field(default_factory=list)
    capture: dict | None = None
    kh_losses: int = 0
    may_keep_one: dict = field(default_factory=dict)
    lines: list = field(default_factory=list)

    def say(self, text: str, rule: str) -> None:
        self.lines.append({"text": text, "rule": rule})

    def to_dict(self) -> dict:
        return {
            "territory": self.territory, "aggressor": self.aggressor,
            "winner": self.winner, "loser": self.loser, "totals": self.totals,
            "leaders_killed": self.leaders_killed, "forces_lost": self.forces_lost,
            "spice_paid": self.spice_paid, "spice_to_winner": self.spice_to_winner,
            "discard": self.discard, "may_keep": self.may_keep, "explosion": self.explosion,
            "traitors": self.traitors, "capture": self.capture, "kh_losses": self.kh_losses,
            "may_keep_one": self.may_keep_one, "lines": self.lines,
        }


# -- reading and checking the plans ------------------------------------------------------------

def _count(value, what: str, rule: str = RULE_DIAL) -> int:
    return dialing.whole_count(0 if value is None else value, what, rule)


def _leader(fid: str, raw: dict) -> tuple[str | None, int]:
    name = raw.get("leader")
    given = raw.get("leader_strength")
    if name is None or (isinstance(name, str) and not name.strip()):
        if given not in (None, 0):
            raise hard(f"{faction_name(fid)}: a leader strength was given without a leader.", RULE_BATTLE)
        return None, 0
    if not isinstance(name, str):
        raise hard(f"{faction_name(fid)}: the leader must be a name.", RULE_BATTLE)
    name = name.strip()
    if given is not None:  # a captured leader, a ghola, a leader outside the data
        return name, _count(given, "leader strength", RULE_BATTLE)
    for leader in faction(fid)["leaders"] + faction(fid).get("advanced_leaders", []):  # + CHOAM's Auditor
        if leader["name"].lower() == name.lower():
            # Zoal has no fixed strength: he takes the opposing leader's (settled in outcome())
            return leader["name"], (None if leader["strength"] is None else int(leader["strength"]))
    raise hard(f"{faction_name(fid)} has no leader called {name!r}; for a captured leader give its "
               f"strength as leader_strength.", RULE_BATTLE)


def read_plan(fid: str, raw: object) -> Plan:
    """A plan from its JSON shape, every part checked on its own (hard refusals)."""
    if not isinstance(raw, dict):
        raise hard(f"{_poss(fid)} battle plan must be an object.", RULE_BATTLE)
    leader, strength = _leader(fid, raw)
    cheap = raw.get("cheap_hero", False)
    if not isinstance(cheap, bool):
        raise hard(f"{faction_name(fid)}: cheap_hero is true or false.", RULE_BATTLE)
    if leader and cheap:
        raise hard(f"{faction_name(fid)} plays a leader or a Cheap Hero, not both.", RULE_BATTLE)
    plan = Plan(fid, leader, strength, cheap, _count(raw.get("forces"), "forces dialed"),
                _count(raw.get("starred"), "starred forces dialed"))
    for slot in ("weapon", "defense"):
        name = raw.get(slot)
        if name is None or name == "":
            continue
        c = card(name, slot)
        ok = c.is_weapon if slot == "weapon" else c.is_defense
        if not ok and c.kind != "worthless":
            article = "a weapon" if slot == "weapon" else "a defence"
            raise hard(f"{c.name} is not {article}: it cannot be played in {_poss(fid)} "
                       f"{slot} slot.", RULE_WEAPONS)
        setattr(plan, slot, c.name)
        setattr(plan, f"{slot}_kind", c.kind)
    if (plan.weapon or plan.defense) and not plan.has_fighter:
        raise hard(f"{faction_name(fid)} has no leader and no Cheap Hero, so it cannot play a weapon or "
                   f"a defence.", RULE_BATTLE)
    if raw.get("spice") is not None:
        plan.spice = _count(raw.get("spice"), "spice", RULE_DIAL)
    return plan


def _strength(plan: Plan, opponent: str) -> int:
    if plan.starred and dialing.starred_info(plan.faction) is None:
        raise hard(f"{faction_name(plan.faction)} has no starred forces to dial.", RULE_DIAL)
    worth = plan.starred_worth if plan.starred_worth is not None else dialing.starred_worth(plan.faction, opponent)
    return plan.forces + plan.starred * worth + plan.bonus


def check_dial(plan: Plan, opponent: str, present: dict | None) -> tuple[int, int]:
    strength = _strength(plan, opponent)
    who = faction_name(plan.faction)
    if present is not None:
        have_f, have_s = _count(present.get("forces"), "forces present"), _count(present.get("starred"),
                                                                                   "starred forces present")
        if plan.forces > have_f or plan.starred > have_s:
            raise hard(f"{who} dials {plan.forces} forces and {plan.starred} starred but has only "
                       f"{have_f} and {have_s} in the territory.", RULE_BATTLE)
    if strength > CAP:
        raise hard(f"{who} dials {strength}: nobody can dial more than {CAP} in a battle.", RULE_DIAL)
    cost = dialing.troop_cost(plan.faction, plan.troops)
    if plan.spice is not None and cost > plan.spice:
        raise hard(f"{who} would pay {cost} spice for {plan.troops} troops but has {plan.spice}: "
                   f"you cannot dial what you cannot pay for.", RULE_DIAL)
    return strength, cost


def _kills(weapon_kind: str | None, defense_kind: str | None) -> bool:
    if weapon_kind == "weapon-lasgun":
        return True
    if weapon_kind == "weapon-projectile":
        return defense_kind != "defense-projectile"
    if weapon_kind == "weapon-poison":
        return defense_kind != "defense-poison"
    return False


def _poss(fid: str) -> str:
    name = faction_name(fid)
    return name + ("'" if name.endswith("s") else "'s")


def _fighter_name(plan: Plan) -> str:
    return plan.leader or ("the Cheap Hero" if plan.cheap_hero else "no leader")


# -- the outcome ---------------------------------------------------------------------------------

RULE_ECAZ = "ecaz-occupy"
RULE_ECAZ_KARAMA = "ecaz-special-karama"
RULE_MORITANI_ALLY = "moritani-alliance"
STARRED_KARAMA = {"emperor": "karama-emperor", "fremen": "karama-fremen"}


def outcome(plans: dict, aggressor: str, *, territory: str | None = None, traitors=(), kh: bool = False,
            forces_present: dict | None = None, no_starred_bonus=(), ecaz: dict | None = None,
            facedancers=None, leader_gap=(), keeps_one=()) -> Outcome:
    """What follows from two revealed plans. ``plans`` maps the two faction ids to their plans in
    the JSON shape of ``POST /api/battle/outcome``; ``forces_present`` (optional) maps a faction
    to ``{"forces", "starred"}`` in the territory, used to check the dial and to count the loser's
    losses. ``no_starred_bonus``: the factions whose Sardaukar/Fedaykin bonus a Karama stopped in
    this battle (their starred forces count 1). ``ecaz``: ``{"ally": F, "forces": n}`` when Ecaz's
    ally fights with n Ecaz forces in the territory (``ecaz-occupy``): half of them, rounded up,
    are added to the ally's dial for free (within the cap of 20); if the side loses, the Ecaz forces
    there are lost; if it wins, half of them (rounded down) stay and the rest go to the tanks.
    *Reading:* when Ecaz's ally wins by a traitor call, its side loses nothing, Ecaz included.
    ``facedancers``: the sides that add half of each killed leader (``tleilaxu-facedancers``): the
    Tleilaxu when they fight (the default) and, by ``tleilaxu-alliance``, the Tleilaxu's ally.
    ``leader_gap``: the sides that played the Ecaz Special Karama (``ecaz-special-karama``): with a
    leader disc and neither a weapon nor a defence, they add the difference between their leader
    disc and the opponent's to their number dialed (what it takes to reach the opponent's leader).
    ``keeps_one``: the sides that, losing a battle that had a winner, may keep one card they played
    that they could have kept had they won (the Moritani's ally, ``moritani-alliance``): listed in
    ``may_keep_one`` (the cards are still discarded; keeping one is the ``battle.keep`` entry).
    Raises a hard RuleViolation for an impossible plan."""
    stopped = [dialing.faction_id(f) for f in no_starred_bonus or ()]
    dancers = ["tleilaxu"] if facedancers is None else [dialing.faction_id(f) for f in facedancers]
    gap = [dialing.faction_id(f) for f in leader_gap or ()]
    out = _outcome(plans, aggressor, territory, traitors, kh, forces_present, stopped, ecaz, dancers, gap)
    if ecaz:
        _ecaz_losses(out, ecaz)
    keepers = [dialing.faction_id(f) for f in keeps_one or ()]
    if out.winner and out.loser in keepers and not out.explosion:
        raw = dict(zip([dialing.faction_id(f) for f in plans], plans.values()))[out.loser]
        cards = [c for c in (read_plan(out.loser, raw).weapon, read_plan(out.loser, raw).defense) if c]
        if cards:
            out.may_keep_one[out.loser] = cards
            out.say(f"{faction_name(out.loser)}, the Moritani's ally, may keep one of {' or '.join(cards)} "
                    f"(the other is discarded).", RULE_MORITANI_ALLY)
    return out


def _leader_gap(p: dict, f: str, o: str) -> int:
    """What the Ecaz Special Karama adds to ``f``'s dial: the difference to reach ``o``'s leader disc."""
    mine, theirs = p[f], p[o]
    if mine.weapon or mine.defense:
        raise hard(f"{faction_name(f)} played a weapon or a defence: the Special Karama needs neither.",
                   RULE_ECAZ_KARAMA)
    if not mine.leader or not theirs.leader:
        raise hard("The Special Karama adds the difference between two leader discs: both sides need one.",
                   RULE_ECAZ_KARAMA)
    return max(0, (theirs.leader_strength or 0) - (mine.leader_strength or 0))


def _ecaz_losses(out: Outcome, ecaz: dict) -> None:
    n, ally = ecaz["forces"], ecaz["ally"]
    if not n:
        return
    if out.winner == ally and ally in out.traitors:
        lost = 0
    elif out.winner == ally:
        lost = n - n // 2
        out.say(f"Ecaz keep {n // 2} of their {n} forces in the territory (half, rounded down); "
                f"{lost} go to the tanks.", RULE_ECAZ)
    else:
        lost = n
        out.say(f"Ecaz lose their {n} forces in the territory with their ally.", RULE_ECAZ)
    out.forces_lost["ecaz"] = {"forces": lost, "starred": 0}


def _outcome(plans, aggressor, territory, traitors, kh, forces_present, stopped, ecaz, dancers=("tleilaxu",),
             gap=()) -> Outcome:
    if not isinstance(plans, dict) or len(plans) != 2:
        raise hard("A battle has exactly two sides: give two battle plans.", RULE_BATTLE)
    sides = [dialing.faction_id(f) for f in plans]
    if sides[0] == sides[1]:
        raise hard("A faction cannot battle itself.", RULE_BATTLE)
    raw = dict(zip(sides, plans.values()))
    aggressor = dialing.faction_id(aggressor, "aggressor")
    if aggressor not in sides:
        raise hard(f"The aggressor, {faction_name(aggressor)}, is not one of the two sides.", RULE_BATTLE)
    present: dict = {}
    for f, v in (forces_present or {}).items():
        fid = dialing.faction_id(f)
        if fid not in sides:
            raise hard(f"{faction_name(fid)} is not in this battle.", RULE_BATTLE)
        if not isinstance(v, dict):
            raise hard(f"forces_present for {faction_name(fid)} is {{\"forces\": n, \"starred\": m}}.",
                       RULE_BATTLE)
        present[fid] = v
    p = {f: read_plan(f, raw[f]) for f in sides}
    other = {sides[0]: sides[1], sides[1]: sides[0]}
    for f in stopped:
        if f in p and dialing.starred_info(f):
            p[f].starred_worth = 1
    if ecaz:
        ally = dialing.faction_id(ecaz.get("ally"), "Ecaz ally")
        if ally not in sides or ally == "ecaz" or "ecaz" in sides:
            raise hard("The Ecaz alliance bonus goes to Ecaz's ally when it is one of the two sides.", RULE_ECAZ)
        ecaz = {"ally": ally, "forces": _count(ecaz.get("forces"), "Ecaz forces", RULE_ECAZ)}
        p[ally].bonus = dialing.ecaz_bonus(ecaz["forces"])
    zoal = [f for f in sides if p[f].leader is not None and p[f].leader_strength is None]
    for f in zoal:  # two Zoals cannot meet: only the Tleilaxu have him
        p[f].leader_strength = p[other[f]].leader_strength or 0
    dial = {f: check_dial(p[f], other[f], present.get(f)) for f in sides}
    added = {f: _leader_gap(p, f, other[f]) for f in gap if f in p}
    for f, n in added.items():  # added to the number dialed, past the check of what was dialed
        dial[f] = (dial[f][0] + n, dial[f][1])
    if not isinstance(kh, bool):
        raise hard("kh is true or false.", RULE_KH)
    if kh:
        if "atreides" not in sides:
            raise hard("The Kwisatz Haderach fights only beside Atreides.", RULE_KH)
        if not p["atreides"].has_fighter:
            raise hard("The Kwisatz Haderach cannot fight alone: it joins a leader or a Cheap Hero.", RULE_KH)
    callers = []
    for t in traitors or ():
        fid = dialing.faction_id(t, "traitor caller")
        if fid not in sides:
            raise hard(f"{faction_name(fid)} is not in this battle and cannot call a traitor in it.", RULE_TRAITORS)
        if fid in callers:
            raise hard(f"{faction_name(fid)} can call only one traitor in a battle.", RULE_TRAITORS)
        target = p[other[fid]]
        if target.leader is None:
            raise hard(f"{faction_name(other[fid])} fights without a leader disc: there is no leader to "
                       f"call as a traitor.", RULE_TRAITORS)
        if kh and target.faction == "atreides":
            raise hard(f"{target.leader} fights beside the Kwisatz Haderach and cannot turn traitor.", RULE_KH)
        callers.append(fid)

    out = Outcome(territory, aggressor, traitors=callers)
    out.say(f"{faction_name(aggressor)} is the aggressor.", RULE_BATTLE)
    for f in stopped:
        if f in p and p[f].starred:
            out.say(f"A Karama stops the {dialing.starred_info(f)['name']} bonus in this battle: each counts 1.",
                    STARRED_KARAMA.get(f, RULE_DIAL))
    if ecaz and p[ecaz["ally"]].bonus:
        out.say(f"Ecaz add {p[ecaz['ally']].bonus} to {_poss(ecaz['ally'])} dial for free (half their "
                f"{ecaz['forces']} forces there, rounded up).", RULE_ECAZ)
    for f, n in added.items():
        out.say(f"{faction_name(f)} play their Special Karama: {p[f].leader} ({p[f].leader_strength}) against "
                f"{p[other[f]].leader} ({p[other[f]].leader_strength}) adds {n} to their dial.", RULE_ECAZ_KARAMA)
    for f in zoal:
        out.say(f"{p[f].leader} takes the strength of the leader he faces: {p[f].leader_strength}.",
                "tleilaxu-at-start")
    for f in sides:
        pl = p[f]
        out.say(f"{faction_name(f)}: {_fighter_name(pl)}, dial {dial[f][0]} "
                f"({pl.troops} troop{'s' if pl.troops != 1 else ''}), weapon {pl.weapon or 'none'}, "
                f"defence {pl.defense or 'none'}.", RULE_BATTLE)

    def lose_all(f: str) -> None:
        if f in present:
            out.forces_lost[f] = {"forces": _count(present[f].get("forces"), "forces present"),
                                  "starred": _count(present[f].get("starred"), "starred forces present")}
        else:
            out.forces_lost[f] = {"forces": p[f].forces, "starred": p[f].starred, "all_in_territory": True}

    def pay(f: str, owed: bool = True) -> None:
        cost = dial[f][1] if owed else 0
        out.spice_paid[f] = cost
        if owed and cost:
            out.say(f"{faction_name(f)} pays {cost} spice to the bank for dialing {p[f].troops} troops.", RULE_DIAL)
        elif owed and p[f].troops and f == "fremen":
            out.say("The Fremen never pay for their dial.", "fremen-battles")

    # 1. traitors
    if callers:
        if len(callers) == 2:
            out.say("Both sides call a traitor: both leaders die, both sides lose every force in the "
                    "territory and every card they played, and nobody is paid for the leaders.", RULE_TRAITORS)
            for f in sides:
                out.leaders_killed.append(p[f].leader)
                lose_all(f)
                out.discard[f] = p[f].cards()
                pay(f)
            out.totals = {f: None for f in sides}
            _kh_count(out, p)
            return out
        caller = callers[0]
        loser = other[caller]
        out.winner, out.loser = caller, loser
        betrayed = p[loser]
        out.leaders_killed.append(betrayed.leader)
        out.spice_to_winner = betrayed.leader_strength
        out.say(f"{faction_name(caller)} reveals {betrayed.leader} as a traitor and wins outright: "
                f"{betrayed.leader} dies and {faction_name(caller)} takes {betrayed.leader_strength} spice.",
                RULE_TRAITORS)
        out.say(f"{faction_name(caller)} loses nothing: no forces, no cards, no spice for its dial.",
                RULE_TRAITOR_SPICE)
        out.forces_lost[caller] = {"forces": 0, "starred": 0}
        out.spice_paid[caller] = 0
        out.discard[caller] = ["Cheap Hero"] if p[caller].cheap_hero else []
        out.may_keep[caller] = [c for c in (p[caller].weapon, p[caller].defense) if c]
        lose_all(loser)
        out.discard[loser] = betrayed.cards()
        out.say(f"{faction_name(loser)} loses every force in the territory and discards the cards it played.",
                RULE_TRAITORS)
        pay(loser)
        out.totals = {caller: None, loser: None}
        _after(out, p)
        return out

    # 2. lasgun and shield
    kinds = [p[f].weapon_kind for f in sides] + [p[f].defense_kind for f in sides]
    if "weapon-lasgun" in kinds and "defense-projectile" in kinds:
        out.explosion = True
        out.say("A Lasgun meets a Shield: the explosion kills every force in the territory (of every faction, "
                "Bene Gesserit advisors too) and the spice there, both leaders and the Kwisatz Haderach; every "
                "card played is discarded and nobody wins.", RULE_WEAPONS)
        for f in sides:
            if p[f].leader:
                out.leaders_killed.append(p[f].leader)
            lose_all(f)
            out.discard[f] = p[f].cards()
            pay(f)
        if kh:
            out.leaders_killed.append("Kwisatz Haderach")
        _kh_count(out, p)
        return out

    # 3. weapons against defences
    alive = {f: p[f].has_fighter for f in sides}
    for f in sides:
        o = other[f]
        if p[f].weapon and _kills(p[f].weapon_kind, p[o].defense_kind) and p[o].has_fighter:
            alive[o] = False
            out.say(f"{_poss(f)} {p[f].weapon} kills {_fighter_name(p[o])}"
                    + (f" ({p[o].defense} does not stop it)." if p[o].defense else "."), RULE_WEAPONS)
            if p[o].leader:
                out.leaders_killed.append(p[o].leader)
        elif p[f].weapon and p[f].weapon_kind != "worthless" and p[o].has_fighter:
            out.say(f"{_poss(o)} {p[o].defense} stops {_poss(f)} {p[f].weapon}.", RULE_WEAPONS)

    # 4. totals
    for f in sides:
        pl = p[f]
        total = dial[f][0]
        if alive[f] and pl.leader:
            total += pl.leader_strength
        if kh and f == "atreides":
            if alive[f]:
                total += KH_BONUS
                out.say(f"The Kwisatz Haderach adds {KH_BONUS} beside {_fighter_name(pl)}.", RULE_KH)
            else:
                out.say("The Kwisatz Haderach adds nothing: its leader was killed.", RULE_KH)
        out.totals[f] = total
    for f in sides:
        if f not in dancers:
            continue
        bonus = sum((_strength_of_killed(p, name) + 1) // 2 for name in out.leaders_killed)
        if bonus:
            out.totals[f] += bonus
            who = "The Tleilaxu add" if f == "tleilaxu" else f"{faction_name(f)}, the Tleilaxu's ally, add"
            out.say(f"{who} {bonus}: half of each killed leader's strength, rounded up.",
                    RULE_TLEILAXU if f == "tleilaxu" else "tleilaxu-alliance")
    a, b = sides
    if out.totals[a] == out.totals[b]:
        winner = aggressor
        out.say(f"Totals are tied at {out.totals[a]}: a tie goes to the aggressor, {faction_name(aggressor)}.",
                RULE_TIE)
    else:
        winner = a if out.totals[a] > out.totals[b] else b
        out.say(f"{faction_name(winner)} wins, {out.totals[winner]} to {out.totals[other[winner]]}.", RULE_BATTLE)
    loser = other[winner]
    out.winner, out.loser = winner, loser

    # 5. losses, spice, cards
    lose_all(loser)
    out.say(f"{faction_name(loser)} loses every force in the territory and discards the cards it played.",
            RULE_BATTLE)
    out.discard[loser] = p[loser].cards()
    w = p[winner]
    out.forces_lost[winner] = {"forces": w.forces, "starred": w.starred}
    out.say(f"{faction_name(winner)} loses the {w.troops} troop{'s' if w.troops != 1 else ''} it dialed.",
            RULE_BATTLE)
    out.discard[winner] = ["Cheap Hero"] if w.cheap_hero else []
    out.may_keep[winner] = [c for c in (w.weapon, w.defense) if c]
    if out.may_keep[winner]:
        out.say(f"{faction_name(winner)} may keep or discard {' and '.join(out.may_keep[winner])}.", RULE_BATTLE)
    for f in sides:
        pay(f)
    killed_value = sum(_strength_of_killed(p, name) for name in out.leaders_killed)
    out.spice_to_winner = killed_value
    if killed_value:
        out.say(f"{faction_name(winner)} takes {killed_value} spice for the leaders killed "
                f"({', '.join(out.leaders_killed)}).", RULE_BATTLE)
    _after(out, p)
    return out


def _strength_of_killed(p: dict, name: str) -> int:
    for pl in p.values():
        if pl.leader == name:
            return pl.leader_strength
    return 0


def _kh_count(out: Outcome, p: dict) -> None:
    lost = out.forces_lost.get("atreides")
    if lost:
        out.kh_losses = lost["forces"] + lost["starred"]
        if out.kh_losses:
            out.say(f"Atreides count {out.kh_losses} lost forces toward the Kwisatz Haderach (active from 7).",
                    RULE_KH)


def _after(out: Outcome, p: dict) -> None:
    if out.winner == "harkonnen" and not out.explosion:
        out.capture = {"from": out.loser}
        out.say(f"Harkonnen may capture one of {_poss(out.loser)} leaders at random: keep it for a "
                f"battle or kill it for 2 spice.", RULE_CAPTURE)
    _kh_count(out, p)

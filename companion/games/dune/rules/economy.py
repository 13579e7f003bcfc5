"""Spice economy: CHOAM charity, bidding bookkeeping, revival, spice collection.

Pure rules: plain inputs, plain outputs.

Decisions
- Charity: a faction at 0 or 1 spice may claim enough to bring it to 2 (0 -> 2, 1 -> 1). The
  Bene Gesserit get 2 whatever they hold from turn 2 on, and nothing on turn 1 (KISS reverts
  to the Avalon Hill rule: "no CHOAM charity on Turn 1"; we apply it even if BG were at 0-1).
- Collection: the battle phase has settled every territory, so every faction with forces
  (fighters and starred; never BG advisors) in a territory with spice collects 2 per force,
  3 per force if it occupies Arrakeen or Carthag (ornithopters), up to the spice there.
  Sectors do not matter inside a territory. If two non-allied factions still share one
  (storm-separated, so they did not fight), they collect in ``order`` (storm order) until the
  spice runs out, and the proposals are marked ``contested`` for the table to confirm.
- Ecaz and its ally in the same desert territory pool their collection (each force at its own
  faction's rate, capped by the spice) and split it evenly, the ally taking the odd one.
- Stronghold income (base advanced "increased spice flow", which the Ecaz sheet relies on):
  each occupant of Arrakeen and of Carthag takes 2, of Tuek's Sietch 1; Ecaz and its ally
  co-occupying both take the full amount. ``stronghold_income=False`` turns it off.
- Cistern: each occupant takes 2 from the bank. Orgiz Processing Station: its occupant takes 1
  spice, once per Collection phase, from one territory another faction is collecting from,
  before that faction collects (``orgiz_take_from`` picks it; default: the largest such pile).
- Tleilaxu Spice Substitute: after collection, 2 per spice-blow territory that still has spice,
  plus 4 per spice blow of this turn that could not spawn (``unspawned_blows``, e.g. in storm).
- Revival: free revival per KISS sheet; at most 3 forces a turn in all, the rest at 2 spice
  each to the bank; 1 Sardaukar / 1 Fedaykin a turn; Fremen never buy; the Fremen ally may get
  3 free if the Fremen allow; the Emperor may pay (to the bank) for up to 3 forces of its ally
  beyond that ally's limit of 3 (6 in all). Reading: NOT for a Fremen ally. The Fremen sheet
  says "you cannot buy additional revivals"; under the limit of 3 a turn, with 3 free, that
  clause would say nothing unless it bars revivals beyond the free 3 bought by anyone, and the
  Emperor's payment is exactly that (see the corpus entry fremen-free-revival).
- Leader revival costs the leader's strength; with the Tleilaxu at the table the payment goes
  to them (Axolotl Tanks), otherwise to the bank. One leader a turn, and only when all the
  faction's leaders are in the tanks (Ecaz: at least 5 in the tanks counting Duke Vidal; Duke
  Vidal always for 5).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .board import Board
from .errors import RuleViolation, hard
from .factions import FACTION_NAMES
from .storm import check_spice, counts, parse_piece

FACTIONS = ("atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu", "choam", "richese")

CHARITY_LEVEL = 2
BG_CHARITY = 2


def _check_faction(faction: str) -> str:
    if faction not in FACTIONS:
        raise hard(f"{faction!r} is not a faction ({', '.join(FACTIONS)}).", "base-setup")
    return faction


def _check_n(n, what: str, rule: str = "base-spice") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise hard(f"{what} must be a whole number 0 or more, not {n!r}.", rule)
    return n


# -- charity -----------------------------------------------------------------------------
def charity(turn: int, faction: str, spice: int) -> int:
    """Spice this faction may claim as CHOAM Charity now."""
    _check_faction(faction)
    _check_n(spice, "Spice")
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < 1:
        raise hard(f"Turn must be 1 or more, not {turn!r}.", "base-turn-sequence")
    if faction == "bg":
        return 0 if turn == 1 else BG_CHARITY
    return max(0, CHARITY_LEVEL - spice) if spice <= 1 else 0


def charity_rule(faction: str) -> str:
    return "bg-charity" if faction == "bg" else "base-charity"


# -- bidding -----------------------------------------------------------------------------
def hand_limit(faction: str, atomics_used_by_moritani_or_ally: bool = False) -> int:
    """Harkonnen 8, others 4; Moritani and its ally lose 1 once Moritani's Atomics went off
    (pass True only for Moritani or its ally)."""
    _check_faction(faction)
    base = {"harkonnen": 8, "choam": 5}.get(faction, 4)
    return base - 1 if atomics_used_by_moritani_or_ally else base


def hand_limit_rule(faction: str) -> str:
    return {"harkonnen": "harkonnen-treachery", "choam": "choam-hand-limit"}.get(faction, "base-hand-limit")


def harkonnen_bonus_card(hand_size_after_buy: int, limit: int = 8) -> bool:
    """After buying, Harkonnen draws a free card unless that would exceed the hand limit."""
    _check_n(hand_size_after_buy, "Hand size", "harkonnen-treachery")
    return hand_size_after_buy < limit


def purchase_payee(buyer: str, factions_present: Iterable[str]) -> str:
    """Who receives the price of a Treachery Card: the Emperor when at the table (and not the
    buyer), else the bank."""
    _check_faction(buyer)
    return "emperor" if "emperor" in set(factions_present) and buyer != "emperor" else "bank"


def check_purchase(buyer: str, hand_size: int, limit: int) -> None:
    """A faction at its hand limit must pass."""
    _check_n(hand_size, "Hand size", "base-hand-limit")
    if hand_size >= limit:
        raise RuleViolation(
            f"{FACTION_NAMES[_check_faction(buyer)]} holds {hand_size} Treachery Cards, its limit of {limit}: "
            f"it must pass.",
            hand_limit_rule(buyer),
        )


def cards_for_auction(hand_sizes: Mapping[str, int], limits: Mapping[str, int] | None = None) -> int:
    """Cards dealt for bidding: one per faction not at its hand limit."""
    n = 0
    for f, size in hand_sizes.items():
        limit = (limits or {}).get(f, hand_limit(f))
        if _check_n(size, "Hand size", "base-hand-limit") < limit:
            n += 1
    return n


# -- revival -----------------------------------------------------------------------------
FREE_REVIVAL = {
    "atreides": 2, "harkonnen": 2, "fremen": 3, "emperor": 1, "guild": 1,
    "bg": 1, "ecaz": 2, "moritani": 2, "tleilaxu": 1, "choam": 0, "richese": 2,
}
CHOAM_REVIVAL_COST = 1  # CHOAM: no free revival, any number of forces at 1 spice each
CHOAM_KARAMA_TLEILAXU_LIMIT = 5  # Karama on CHOAM's revival: 3 forces, or 5 if the Tleilaxu permit
REVIVAL_LIMIT = 3
FORCE_REVIVAL_COST = 2
EMPEROR_ALLY_EXTRA = 3
STARRED_PER_TURN = {"emperor": 1, "fremen": 1}
STARRED_RULE = {"emperor": "emperor-sardaukar", "fremen": "fremen-fedaykin"}


@dataclass(frozen=True)
class RevivalLimits:
    faction: str
    free: int  # forces revived for free
    max_forces: int  # forces revived in all this turn (free + paid), own payment
    can_buy: bool
    cost_per_force: int
    max_starred: int | None  # starred forces per turn (None: no starred forces)
    emperor_may_pay: int  # extra forces the Emperor may pay for (ally of the Emperor only)
    rules: tuple[str, ...]

    @property
    def max_total(self) -> int:
        return self.max_forces + self.emperor_may_pay


def revival_limits(
    faction: str,
    turn: int = 1,
    ally: str | None = None,
    *,
    fremen_grants_ally: bool = False,
    emperor_ally_pays: bool = True,
    karama_on_choam: bool = False,
    tleilaxu_raised: bool = False,
) -> RevivalLimits:
    """This turn's force-revival limits for ``faction``.

    ``fremen_grants_ally``: the Fremen (ally) raise this faction's free revival to 3.
    ``emperor_ally_pays``: the Emperor (ally) is willing to pay for up to 3 extra forces."""
    _check_faction(faction)
    rules = ["base-revival", f"{faction}-free-revival"]
    free = FREE_REVIVAL[faction]
    if ally == "fremen" and fremen_grants_ally and faction != "fremen":
        free = max(free, 3)
        rules.append("fremen-alliance")
    can_buy = faction != "fremen"
    max_forces = REVIVAL_LIMIT if can_buy else free
    cost_per_force = FORCE_REVIVAL_COST
    if faction == "choam" and karama_on_choam:  # the advantage stopped: 3 (5 if the Tleilaxu allow) at 2
        max_forces = CHOAM_KARAMA_TLEILAXU_LIMIT if (tleilaxu_raised and ally == "tleilaxu") else REVIVAL_LIMIT
        rules = ["choam-revival", "karama-choam"]
    elif faction == "choam":  # no per-turn cap, 1 spice a force (choam-richese.txt)
        max_forces, cost_per_force = 20, CHOAM_REVIVAL_COST
        rules = ["choam-revival"]
    emperor_extra = EMPEROR_ALLY_EXTRA if (ally == "emperor" and emperor_ally_pays and faction != "emperor") else 0
    if emperor_extra:
        rules.append("emperor-alliance")
    if faction in STARRED_RULE:
        rules.append(STARRED_RULE[faction])
    return RevivalLimits(
        faction=faction,
        free=free,
        max_forces=max_forces,
        can_buy=can_buy,
        cost_per_force=cost_per_force,
        max_starred=STARRED_PER_TURN.get(faction),
        emperor_may_pay=emperor_extra,
        rules=tuple(rules),
    )


@dataclass(frozen=True)
class RevivalCost:
    free: int
    paid: int
    cost: int  # paid by the reviving faction, to the bank
    emperor_paid: int  # forces the Emperor pays for
    emperor_cost: int  # paid by the Emperor, to the bank
    payee: str = "bank"  # who receives ``cost`` (the Tleilaxu for CHOAM's half-price revival)


def check_revival(
    faction: str,
    turn: int,
    forces: int = 0,
    starred: int = 0,
    *,
    ally: str | None = None,
    fremen_grants_ally: bool = False,
    emperor_pays: int = 0,
    spice: int | None = None,
    emperor_spice: int | None = None,
    in_tanks: int | None = None,
    starred_in_tanks: int | None = None,
    tleilaxu_half: bool = False,
    karama_on_choam: bool = False,
    tleilaxu_raised: bool = False,
) -> RevivalCost:
    """Check a force revival (``forces`` normal + ``starred``) and return what it costs.

    Raises RuleViolation (overridable for game rules, hard for impossible bookkeeping)."""
    _check_n(forces, "Forces revived", "base-revival")
    _check_n(starred, "Starred forces revived", "base-revival")
    _check_n(emperor_pays, "Forces the Emperor pays for", "emperor-alliance")
    lim = revival_limits(faction, turn, ally, fremen_grants_ally=fremen_grants_ally,
                         karama_on_choam=karama_on_choam, tleilaxu_raised=tleilaxu_raised)
    if tleilaxu_half and (faction != "choam" or ally != "tleilaxu"):
        raise RuleViolation("Only CHOAM, allied with the Tleilaxu, may be offered half-price revival by them.",
                            "choam-revival")
    total = forces + starred
    if in_tanks is not None and forces > in_tanks:
        raise hard(f"Only {in_tanks} {FACTION_NAMES[faction]} forces are in the tanks.", "base-tanks")
    if starred_in_tanks is not None and starred > starred_in_tanks:
        raise hard(f"Only {starred_in_tanks} starred {FACTION_NAMES[faction]} forces are in the tanks.", "base-tanks")
    if starred:
        if lim.max_starred is None:
            raise hard(f"{FACTION_NAMES[faction]} has no starred forces.", "base-revival")
        if starred > lim.max_starred:
            raise RuleViolation(
                f"{FACTION_NAMES[faction]} may revive only {lim.max_starred} starred force per turn.",
                STARRED_RULE[faction],
            )
    if emperor_pays:
        if ally != "emperor" or faction == "emperor":
            raise RuleViolation(
                "Only the Emperor's ally can have revivals paid for by the Emperor.", "emperor-alliance"
            )
        if faction == "fremen":
            raise RuleViolation(
                "The Fremen cannot buy additional revivals, and their ally the Emperor cannot buy them "
                "for them either: the Fremen get their 3 free forces only.",
                "fremen-free-revival",
            )
        if emperor_pays > EMPEROR_ALLY_EXTRA:
            raise RuleViolation(
                f"The Emperor may pay for at most {EMPEROR_ALLY_EXTRA} extra forces of its ally.",
                "emperor-alliance",
            )
    own = total - emperor_pays
    if own < 0:
        raise RuleViolation("The Emperor cannot pay for more forces than are revived.", "emperor-alliance")
    if faction == "fremen" and own > lim.free:
        raise RuleViolation(
            f"The Fremen revive only their {lim.free} free forces and cannot buy more.",
            "fremen-free-revival",
        )
    if own > lim.max_forces:
        raise RuleViolation(
            f"{FACTION_NAMES[faction]} may revive at most {lim.max_forces} forces this turn"
            + (" (plus up to 3 the Emperor pays for)." if ally == "emperor" else "."),
            "base-revival",
        )
    free = min(own, lim.free)
    paid = own - free
    cost = paid * lim.cost_per_force
    payee = "bank"
    if tleilaxu_half and cost:  # the whole bill halved, rounded up, paid to the Tleilaxu
        cost, payee = -(-cost // 2), "tleilaxu"
    emperor_cost = emperor_pays * FORCE_REVIVAL_COST
    if spice is not None and cost > _check_n(spice, "Spice"):
        raise hard(f"{FACTION_NAMES[faction]} has {spice} spice and cannot pay {cost} for revival.", "base-revival")
    if emperor_spice is not None and emperor_cost > _check_n(emperor_spice, "Spice"):
        raise hard(f"The Emperor has {emperor_spice} spice and cannot pay {emperor_cost}.", "emperor-alliance")
    return RevivalCost(free=free, paid=paid, cost=cost, emperor_paid=emperor_pays, emperor_cost=emperor_cost,
                       payee=payee)


DUKE_VIDAL = "Duke Vidal"
AUDITOR = "The Auditor"
DUKE_VIDAL_COST = 5


def leader_revival(
    faction: str,
    strength: int,
    factions_present: Iterable[str],
    *,
    leaders_outside_tanks: int = 0,
    leaders_in_tanks: int | None = None,
    revived_this_turn: int = 0,
    leader: str | None = None,
) -> dict:
    """Check a leader revival and return {"cost", "payee", "rule"}.

    ``leaders_outside_tanks``: the faction's leaders alive (not in the tanks)."""
    _check_faction(faction)
    _check_n(strength, "Leader strength", "base-leader-revival")
    present = set(factions_present)
    payee = "tleilaxu" if "tleilaxu" in present and faction != "tleilaxu" else "bank"
    rule = "tleilaxu-axolotl-tanks" if payee == "tleilaxu" else "base-leader-revival"
    if faction == "ecaz" and leader == DUKE_VIDAL:
        return {"cost": DUKE_VIDAL_COST, "payee": payee, "rule": "ecaz-revival"}
    if revived_this_turn >= 1:
        raise RuleViolation(f"{FACTION_NAMES[faction]} already revived a leader this turn.", "base-leader-revival")
    if faction == "choam" and leader == AUDITOR:  # its one leader revival, even while others live
        return {"cost": strength, "payee": payee, "rule": "choam-auditor"}
    if faction == "ecaz":
        if leaders_in_tanks is None or leaders_in_tanks < 5:
            raise RuleViolation(
                "Ecaz revive leaders only when at least 5 of them (Duke Vidal counted) are in the tanks.",
                "ecaz-revival",
            )
    elif leaders_outside_tanks > 0:
        raise RuleViolation(
            f"{FACTION_NAMES[faction]} can revive a leader only when all of its leaders are in the tanks.",
            "base-leader-revival",
        )
    return {"cost": strength, "payee": payee, "rule": rule}


def axolotl_revival_cost(strength: int) -> int:
    """Tleilaxu Axolotl Tanks: the owner may buy back the revealed leader for strength + 1
    (outside the normal leader-revival limit)."""
    return _check_n(strength, "Leader strength", "tleilaxu-axolotl-tanks") + 1


# -- collection --------------------------------------------------------------------------
STRONGHOLD_INCOME = {"Arrakeen": 2, "Carthag": 2, "Tuek's Sietch": 1}
ORNITHOPTER_STRONGHOLDS = ("Arrakeen", "Carthag")
CISTERN = "Cistern"
ORGIZ = "Orgiz Processing Station"
CISTERN_INCOME = 2
ORGIZ_TAKE = 1
SUBSTITUTE_PER_REMAINING = 2
SUBSTITUTE_PER_UNSPAWNED = 4


def collection_rate(faction: str, occupied_by: Mapping[str, Iterable[str]]) -> int:
    """2 spice per force, 3 with ornithopters (occupying Arrakeen or Carthag)."""
    return 3 if any(faction in set(occupied_by.get(s, ())) for s in ORNITHOPTER_STRONGHOLDS) else 2


def _ally_of(alliances: Mapping[str, str], f: str) -> str | None:
    return alliances.get(f)


def collection(
    board: Board,
    forces_by_piece: Mapping[str, Mapping[str, Mapping[str, int]]],
    spice_by_piece: Mapping[str, int],
    occupied_by: Mapping[str, Iterable[str]],
    alliances: Mapping[str, str] | None = None,
    *,
    factions_present: Iterable[str] = (),
    order: Sequence[str] | None = None,
    stronghold_income: bool = True,
    unspawned_blows: int = 0,
    orgiz_take_from: str | None = None,
    tleilaxu_karama: bool = False,
    protected_territories: Iterable[str] = (),
) -> list[dict]:
    """Proposals for the Spice Collection phase, in the order they are applied.

    Each: {"faction", "territory", "sector", "amount", "source", "rule"} (+ "contested" on
    collections shared by non-allied factions). ``territory``/``sector`` name where the spice
    comes from (None for bank income: stronghold, Cistern, Spice Substitute).
    ``occupied_by``: territory -> factions occupying it now (advisors excluded), for
    ornithopters, strongholds and Discovery territories."""
    alliances = dict(alliances or {})
    present = set(factions_present)
    _check_n(unspawned_blows, "Unspawned blows", "tleilaxu-spice-substitute")
    occ = {k: set(v) for k, v in occupied_by.items()}
    order = list(order or sorted(FACTIONS))
    rank = {f: i for i, f in enumerate(order)}
    protected = tuple(protected_territories)
    from .spice import discovery_territories

    protected += discovery_territories()

    # spice per territory, piece by piece (sector order)
    spice_pieces: dict[str, list[list]] = {}
    for pid, n in spice_by_piece.items():
        check_spice(n, f"in {pid}")
        territory, sector = parse_piece(board, pid, protected)
        if n:
            spice_pieces.setdefault(territory, []).append([sector, n])
    for plist in spice_pieces.values():
        plist.sort(key=lambda x: (x[0] is None, x[0] or 0))

    # collecting forces per territory and faction
    collectors: dict[str, dict[str, int]] = {}
    for pid, per in forces_by_piece.items():
        territory, _ = parse_piece(board, pid, protected)
        for faction, raw in per.items():
            c = counts(raw, f"in {pid} for {FACTION_NAMES.get(faction, faction)}")
            n = c["forces"] + c["starred"]  # advisors never collect
            if n:
                collectors.setdefault(territory, {}).setdefault(faction, 0)
                collectors[territory][faction] += n

    proposals: list[dict] = []

    def take(territory: str, amount: int) -> list[tuple[int | None, int]]:
        """Remove ``amount`` from the territory's pieces; [(sector, n), ...]."""
        out = []
        for p in spice_pieces.get(territory, []):
            if amount <= 0:
                break
            k = min(p[1], amount)
            if k:
                p[1] -= k
                amount -= k
                out.append((p[0], k))
        return out

    def emit(faction, territory, amount, source, rule, **extra):
        for sector, k in take(territory, amount):
            proposals.append(
                {"faction": faction, "territory": territory, "sector": sector, "amount": k,
                 "source": source, "rule": rule, **extra}
            )

    # 1. Orgiz Processing Station: 1 spice from a blow another faction collects, first.
    for f in sorted(occ.get(ORGIZ, ()), key=lambda x: rank.get(x, 99)):
        candidates = [
            t for t, per in collectors.items()
            if t in spice_pieces and sum(p[1] for p in spice_pieces[t]) > 0
            and any(g != f for g in per)
        ]
        if orgiz_take_from is not None:
            chosen = board.resolve(orgiz_take_from)
            if chosen not in candidates:
                raise RuleViolation(
                    f"No other faction collects spice in {chosen}, so the Orgiz Processing "
                    "Station cannot take from it.",
                    "discovery-orgiz-processing-station",
                )
        else:
            chosen = max(candidates, key=lambda t: (sum(p[1] for p in spice_pieces[t]), t), default=None)
        if chosen:
            emit(f, chosen, ORGIZ_TAKE, "orgiz", "discovery-orgiz-processing-station")

    # 2. Forces on spice.
    for territory in sorted(collectors):
        per = collectors[territory]
        available = sum(p[1] for p in spice_pieces.get(territory, []))
        if not available:
            continue
        factions = sorted(per, key=lambda f: rank.get(f, 99))
        cap = {f: per[f] * collection_rate(f, occ) for f in factions}
        ecaz_pair = (
            len(factions) == 2 and "ecaz" in factions
            and alliances.get("ecaz") in factions
        )
        if ecaz_pair:
            ally = alliances["ecaz"]
            total = min(available, cap["ecaz"] + cap[ally])
            emit("ecaz", territory, total // 2, "collection", "ecaz-collection")
            emit(ally, territory, total - total // 2, "collection", "ecaz-collection")
            continue
        contested = len(factions) > 1
        for f in factions:
            amount = min(cap[f], sum(p[1] for p in spice_pieces[territory]))
            if amount:
                extra = {"contested": True} if contested else {}
                emit(f, territory, amount, "collection", "base-collection", **extra)

    # 3. Bank incomes: strongholds (advanced spice flow), Cistern.
    if stronghold_income:
        for s, n in STRONGHOLD_INCOME.items():
            for f in sorted(occ.get(s, ()), key=lambda x: rank.get(x, 99)):
                rule = "ecaz-collection" if (
                    f in ("ecaz", alliances.get("ecaz")) and {"ecaz", alliances.get("ecaz")} <= occ[s]
                ) else "base-collection"
                proposals.append({"faction": f, "territory": s, "sector": None, "amount": n,
                                  "source": "stronghold", "rule": rule})
    for f in sorted(occ.get(CISTERN, ()), key=lambda x: rank.get(x, 99)):
        proposals.append({"faction": f, "territory": CISTERN, "sector": None, "amount": CISTERN_INCOME,
                          "source": "cistern", "rule": "discovery-cistern"})

    # 4. Tleilaxu Spice Substitute, at the end, on what is left.
    if "tleilaxu" in present and not tleilaxu_karama:
        remaining = sum(
            1 for t in board.territories.values()
            if t.spice_blow and sum(p[1] for p in spice_pieces.get(t.name, [])) > 0
        )
        amount = SUBSTITUTE_PER_REMAINING * remaining + SUBSTITUTE_PER_UNSPAWNED * unspawned_blows
        if amount:
            proposals.append({"faction": "tleilaxu", "territory": None, "sector": None, "amount": amount,
                              "source": "spice_substitute", "rule": "tleilaxu-spice-substitute",
                              "blows_with_spice": remaining, "unspawned_blows": unspawned_blows})
    return proposals


def totals(proposals: Iterable[Mapping]) -> dict[str, int]:
    """Sum of proposed spice per faction."""
    out: dict[str, int] = {}
    for p in proposals:
        out[p["faction"]] = out.get(p["faction"], 0) + p["amount"]
    return out

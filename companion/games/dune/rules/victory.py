"""Victory at the Mentat Pause (pure rules; the table confirms).

``occupancy``: ``{stronghold: set(factions occupying it)}``, BG advisors already excluded.
Keys other than the five strongholds and (once revealed) "Jacurutu Sietch" are ignored.

Precedence and decisions
1. Stronghold victory, every turn. A stronghold counts for a side (a faction alone, or a
   faction and its ally) when every occupant belongs to that side ("control"); a stronghold
   shared with a non-allied faction counts for nobody.
   - unallied faction: 3 strongholds; alliance: 4 between the two (a stronghold both allies
     occupy counts once);
   - Ecaz and its ally: also 3 when both co-occupy each of the three (ecaz-occupy);
   - Jacurutu Sietch is a stronghold once revealed (discovery-jacurutu-sietch).
   - On the last turn the Guild is unallied (KISS: it breaks every alliance at the end of the
     last turn's Spice Blow phase), whatever ``alliances`` says.
   - Several sides qualifying at once: only the side first in storm order wins (base rule);
     ``storm_order`` must then be given.
2. Bene Gesserit prediction: if the predicted faction's side met the stronghold requirement
   (alone or allied, even with the BG) on the predicted turn, the BG win alone instead. It is
   checked against every qualifying side, before the storm-order tie-break. It never applies
   to the Fremen or Guild special victories.
3. After the last turn with no stronghold winner:
   a. Fremen special victory (checked first): Sietch Tabr and Habbanya Sietch are each held by
      the Fremen or by nobody, and none of Harkonnen, Atreides, Emperor (or Richese) occupies
      Tuek's Sietch. The Fremen ally never blocks it (KISS: allies cannot block by occupying
      sietches - we read "sietches" as all three, Tuek's included) and wins with the Fremen.
      Unlike GF9, KISS words the condition without "when the Guild is in the game", and we
      give the Fremen no unconditional default win when the Guild is absent.
   b. Otherwise the Guild, if at the table, wins alone (guild-special-victory; never shared).
   c. Otherwise the base default: the faction(s) occupying the most strongholds win together
      (nobody if no stronghold is occupied).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Mapping, Sequence

from .board import Board, load_board
from .errors import RuleViolation, hard
from .factions import faction_name

JACURUTU = "Jacurutu Sietch"
SIETCH_TABR = "Sietch Tabr"
HABBANYA_SIETCH = "Habbanya Sietch"
TUEKS_SIETCH = "Tuek's Sietch"
TUEKS_BLOCKERS = ("harkonnen", "atreides", "emperor", "richese")


@dataclass(frozen=True)
class VictoryResult:
    winners: tuple[str, ...]
    reason: str
    rule: str | None
    # side (sorted tuple of factions) -> strongholds it controls, for display
    strongholds: dict = field(default_factory=dict)

    @property
    def won(self) -> bool:
        return bool(self.winners)


def _sides(present: Sequence[str], alliances: Mapping[str, str]) -> list[tuple[str, ...]]:
    seen: set[str] = set()
    out = []
    for f in present:
        if f in seen:
            continue
        ally = alliances.get(f)
        side = (f, ally) if ally in present and ally != f and alliances.get(ally) == f else (f,)
        seen.update(side)
        out.append(tuple(sorted(side)))
    return out


def _name(side: tuple[str, ...]) -> str:
    return " and ".join(side)


def check_victory(
    turn: int,
    last_turn: int,
    occupancy: Mapping[str, Iterable[str]],
    alliances: Mapping[str, str],
    factions_present: Iterable[str],
    jacurutu_revealed: bool = False,
    bg_prediction: Mapping | tuple | None = None,
    *,
    storm_order: Sequence[str] | None = None,
    board: Board | None = None,
) -> VictoryResult:
    """Who the rules say has won at this Mentat Pause (winners empty: the war goes on).

    ``bg_prediction``: {"faction": f, "turn": n} or (f, n)."""
    if not isinstance(last_turn, int) or last_turn < 1 or not isinstance(turn, int) or not 1 <= turn <= last_turn:
        raise hard(f"Turn {turn!r} is outside this game's turns 1 to {last_turn!r}.", "base-turn-sequence")
    board = board or load_board()
    present = list(dict.fromkeys(factions_present))
    alliances = {k: v for k, v in alliances.items() if k in present and v in present}
    if turn == last_turn and "guild" in alliances:
        g_ally = alliances.pop("guild")
        alliances.pop(g_ally, None)
    strongholds = list(board.strongholds()) + ([JACURUTU] if jacurutu_revealed else [])
    occ = {s: set(occupancy.get(s, ())) for s in strongholds}
    for s, fs in occ.items():
        unknown = fs - set(present)
        if unknown:
            raise hard(f"{', '.join(sorted(faction_name(f) for f in unknown))} occupy {s} but are not at the "
                       f"table.", "base-victory")

    sides = _sides(present, alliances)
    controlled = {side: [s for s in strongholds if occ[s] and occ[s] <= set(side)] for side in sides}

    qualifying: list[tuple[tuple[str, ...], str, str]] = []
    for side in sides:
        held = controlled[side]
        if len(side) == 1 and len(held) >= 3:
            qualifying.append((side, f"{side[0]} alone controls {len(held)} strongholds: {', '.join(held)}.", "base-victory"))
        elif len(side) == 2:
            co = [s for s in held if occ[s] == set(side)]
            if len(held) >= 4:
                qualifying.append((side, f"The alliance {_name(side)} controls {len(held)} strongholds: {', '.join(held)}.", "base-alliances"))
            elif "ecaz" in side and len(co) >= 3:
                qualifying.append((side, f"Ecaz and its ally co-occupy {len(co)} strongholds: {', '.join(co)}.", "ecaz-occupy"))

    shown = {side: held for side, held in controlled.items() if held}

    if qualifying:
        pred = _prediction(bg_prediction)
        if pred and "bg" in present:
            pf, pt = pred
            if pt == turn and any(pf in side for side, _, _ in qualifying):
                return VictoryResult(
                    ("bg",),
                    f"The Bene Gesserit predicted that {pf} would win on turn {turn}: they win alone instead.",
                    "bg-prediction",
                    shown,
                )
        if len(qualifying) > 1:
            if not storm_order:
                raise RuleViolation(
                    "Several sides meet a victory condition at once; storm order decides, so give it.",
                    "base-victory",
                )
            rank = {f: i for i, f in enumerate(storm_order)}
            qualifying.sort(key=lambda q: min(rank.get(f, 10**6) for f in q[0]))
            side, reason, rule = qualifying[0]
            return VictoryResult(side, reason + " Other sides qualified too; it is first in storm order.", rule, shown)
        side, reason, rule = qualifying[0]
        return VictoryResult(side, reason, rule, shown)

    if turn < last_turn:
        return VictoryResult((), "Nobody has won yet; the war goes on.", None, shown)

    # -- after the last turn --
    if "fremen" in present:
        ally = alliances.get("fremen")
        friends = {"fremen"} | ({ally} if ally else set())
        sietches_ok = all(occ.get(s, set()) <= friends for s in (SIETCH_TABR, HABBANYA_SIETCH))
        tueks_blocked = (occ.get(TUEKS_SIETCH, set()) - friends) & set(TUEKS_BLOCKERS)
        if sietches_ok and not tueks_blocked:
            winners = tuple(["fremen"] + ([ally] if ally else []))
            return VictoryResult(
                winners,
                "Last turn over with no winner: only the Fremen (or nobody) hold Sietch Tabr and Habbanya "
                "Sietch and no Harkonnen, Atreides or Emperor forces hold Tuek's Sietch.",
                "fremen-special-victory",
                shown,
            )
    if "guild" in present:
        return VictoryResult(
            ("guild",),
            "Last turn over with no winner: the Spacing Guild has prevented control of Dune and wins alone.",
            "guild-special-victory",
            shown,
        )
    counts = {f: sum(1 for s in strongholds if f in occ[s]) for f in present}
    best = max(counts.values(), default=0)
    if best == 0:
        return VictoryResult((), "Last turn over: nobody won and nobody holds a stronghold.", "base-victory", shown)
    winners = tuple(f for f in present if counts[f] == best)
    return VictoryResult(
        winners,
        f"Last turn over with no winner: {', '.join(winners)} occupy the most strongholds ({best}).",
        "base-victory",
        shown,
    )


def _prediction(p) -> tuple[str, int] | None:
    if p is None:
        return None
    if isinstance(p, Mapping):
        return p["faction"], p["turn"]
    f, t = p
    return f, t

"""Powers entered on a battle before the reveal: Atreides Prescience and Bene Gesserit Voice.

Pure rules, no Flask, no table state. The table layer (``companion.games.dune.entries.battle``)
records the question, the answer and the command; these functions say what they allow.

**Prescience** (``atreides-prescience-battle``, ``atreides-alliance``): the Atreides ask the
opponent (or, in an alliance, their ally's opponent) for one of four elements of its plan:
``leader``, ``weapon``, ``defense`` or ``dial``. One question per battle; when the question was
the weapon or the defense and the answer is "none", the question is spent and no other element
may be asked (the KISS text). The answer binds: the plan must play what was shown.

*Readings chosen:* the answer is given by the opponent on its own phone; if it has already
sealed a plan, the answer must be that plan's element (so the answer never contradicts what is
sealed); a plan sealed after the answer must agree with it. "Leader" answers a leader's name,
"Cheap Hero" or "none". "Dial" answers the forces and starred forces dialed.

**Voice** (``bg-voice``, ``bg-alliance``, ``qa-bg-voice-cheap-hero``): the BG command the
opponent to play, or not to play, one card: a poison or projectile weapon, a poison or
projectile defense, a Worthless card, or a card named (e.g. the Lasgun). A Cheap Hero cannot be
Voiced. "Do not play X" refuses any plan with such a card (a card named also falls under its
type). "Play X" refuses a plan without one when the opponent can comply: a card named in its
hand fits, and it can field a leader or Cheap Hero to carry it. When the hand has unnamed cards
the companion cannot know: the refusal is overridable, the override being the player's "I cannot
comply". If the opponent cannot comply, it plays as it likes.

*Reading chosen:* when Prescience already fixed the slot the Voiced card would go in (the
opponent showed "no weapon", say), the opponent cannot comply with "play a poison weapon": the
shown answer stands and the Voice yields.
"""
from __future__ import annotations

from .errors import RuleViolation, hard
from .treachery import card

RULE_PRESCIENCE = "atreides-prescience-battle"
RULE_VOICE = "bg-voice"
RULE_VOICE_CHEAP_HERO = "qa-bg-voice-cheap-hero"

ELEMENTS = ("leader", "weapon", "defense", "dial")
ELEMENT_WORDS = {"leader": "the leader", "weapon": "the weapon", "defense": "the defense", "dial": "the dial"}

# the card types the Voice may name by type (command text -> card kind)
VOICE_KINDS = {
    "poison weapon": "weapon-poison",
    "projectile weapon": "weapon-projectile",
    "poison defense": "defense-poison",
    "projectile defense": "defense-projectile",
    "worthless": "worthless",
}
NONE_WORDS = ("", "none", "no", "nothing")


# -- Voice ---------------------------------------------------------------------------------------

def read_voice(command: str, subject: str) -> dict:
    """A Voice command checked and made canonical: ``{"command", "card", "kind", "name", "text"}``.
    ``kind`` is set for a type ("poison weapon"), ``name`` for a card named ("Lasgun")."""
    if command not in ("play", "not_play"):
        raise hard("The Voice commands to play or not to play a card.", RULE_VOICE)
    if not isinstance(subject, str) or not subject.strip():
        raise hard("Say which card the Voice is about: a weapon or defense type, Worthless, or a card by name.",
                   RULE_VOICE)
    s = subject.strip().lower().replace("defence", "defense")
    if s in ("cheap hero", "cheap heroine", "cheap-hero", "cheap-heroine"):
        raise hard("A Cheap Hero cannot be Voiced.", RULE_VOICE_CHEAP_HERO)
    if s in ("worthless card", "a worthless card"):
        s = "worthless"
    if s in VOICE_KINDS:
        kind, name = VOICE_KINDS[s], None
        what = "a Worthless card" if kind == "worthless" else f"a {s}"
    else:
        c = card(subject, "card the Voice names")
        if c.kind == "cheap-hero":
            raise hard("A Cheap Hero cannot be Voiced.", RULE_VOICE_CHEAP_HERO)
        if c.kind == "special":
            raise hard(f"{c.name} is not played in a battle plan: the Voice names a card of the plan.", RULE_VOICE)
        kind, name, what = None, c.name, f"the {c.name}"
        s = c.name
    text = ("play " if command == "play" else "do not play ") + what
    return {"command": command, "card": s, "kind": kind, "name": name, "text": text}


def voice_matches(voice: dict, card_name: str | None) -> bool:
    """Whether a card falls under the Voice (a type covers every card of that type)."""
    if not card_name:
        return False
    try:
        c = card(card_name)
    except RuleViolation:
        return False
    if voice.get("name"):
        return c.name == voice["name"]
    return c.kind == voice["kind"]


def _slots_for(voice: dict) -> tuple[str, ...]:
    """The plan slots a Voiced card would go in."""
    kind = voice.get("kind") or card(voice["name"]).kind
    if kind.startswith("weapon-"):
        return ("weapon",)
    if kind.startswith("defense-"):
        return ("defense",)
    return ("weapon", "defense")  # a Worthless card goes in either


def voice_problem(voice: dict, plan: dict, hand: list[str], unknown: int = 0, *, can_field: bool = True,
                  fixed: tuple[str, ...] = ()) -> RuleViolation | None:
    """What is wrong with ``plan`` (``{"weapon", "defense", ...}``, card names) under the Voice, or
    None. ``hand`` holds the named cards the opponent has, ``unknown`` its unnamed cards;
    ``can_field`` whether it can field a leader or Cheap Hero (no card is played without one);
    ``fixed`` the slots a Prescience answer already fixed."""
    played = [plan.get("weapon"), plan.get("defense")]
    what = voice["text"].split("play ", 1)[1]
    if voice["command"] == "not_play":
        bad = [c for c in played if voice_matches(voice, c)]
        if bad:
            return hard(f"The Voice commands you not to play {what}: {bad[0]} cannot be in your plan.", RULE_VOICE)
        return None
    if any(voice_matches(voice, c) for c in played):
        return None
    slots = _slots_for(voice)
    if not can_field or all(s in fixed for s in slots):
        return None  # cannot comply: they play as they like
    held = [c for c in hand if voice_matches(voice, c)]
    if held:
        return hard(f"The Voice commands you to play {what} and you hold {held[0]}: put it in your plan.",
                    RULE_VOICE)
    if unknown > 0:
        return RuleViolation(f"The Voice commands you to play {what}: if none of your unnamed cards is one, "
                             f"you cannot comply and may override.", RULE_VOICE)
    return None


def chip_allowed(voice: dict | None, card_name: str) -> bool:
    """Whether a card chip stays tappable in the plan builder under the Voice (``not_play``)."""
    return not (voice and voice["command"] == "not_play" and voice_matches(voice, card_name))


# -- Prescience ----------------------------------------------------------------------------------

def read_element(element: str) -> str:
    if element not in ELEMENTS:
        raise hard("Prescience asks for one element: the leader, the weapon, the defense or the dial.",
                   RULE_PRESCIENCE)
    return element


def ask_problem(asked: dict | None, element: str) -> RuleViolation | None:
    """Why a Prescience question may not be asked, given the question already asked in this battle."""
    read_element(element)
    if not asked:
        return None
    if asked.get("answered") and asked.get("none") and asked["element"] in ("weapon", "defense"):
        return hard(f"They answered they play no {asked['element']}: the question is spent and no other "
                    f"element may be asked.", RULE_PRESCIENCE)
    return hard(f"Prescience asks one element per battle, and {ELEMENT_WORDS[asked['element']]} was already asked.",
                RULE_PRESCIENCE)


def _none(value) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in NONE_WORDS)


def plan_value(element: str, plan: dict) -> dict:
    """The element of a plan (``{"leader", "cheap_hero", "forces", "starred", "weapon", "defense"}``),
    as an answer shows it."""
    if element == "leader":
        return {"leader": plan.get("leader") or ("Cheap Hero" if plan.get("cheap_hero") else None)}
    if element == "dial":
        return {"forces": plan.get("forces", 0) or 0, "starred": plan.get("starred", 0) or 0}
    return {element: plan.get(element) or None}


def read_answer(element: str, raw: dict) -> dict:
    """An answer made canonical: ``{"leader": name|"Cheap Hero"|None}``, ``{"weapon": card|None}``,
    ``{"defense": card|None}`` or ``{"forces": n, "starred": m}``."""
    read_element(element)
    if element == "dial":
        forces, starred = raw.get("forces"), raw.get("starred")
        if forces is None and starred is None:
            raise hard("Answer the dial: how many forces (and starred forces) you dial.", RULE_PRESCIENCE)
        return {"forces": int(forces or 0), "starred": int(starred or 0)}
    value = raw.get(element)
    if _none(value):
        return {element: None}
    if element == "leader":
        v = value.strip()
        if v.lower() in ("cheap hero", "cheap heroine", "cheap-hero"):
            return {"leader": "Cheap Hero"}
        return {"leader": v}
    c = card(value, element)
    ok = c.is_weapon if element == "weapon" else c.is_defense
    if not ok and c.kind != "worthless":
        raise hard(f"{c.name} is not a {element}: it cannot be the answer for the {element}.", RULE_PRESCIENCE)
    return {element: c.name}


def answer_text(element: str, value: dict) -> str:
    if element == "dial":
        return f"dial {value['forces']}" + (f" + {value['starred']}★" if value.get("starred") else "")
    v = value.get(element)
    return f"{element}: {v}" if v else f"no {element}"


def answer_problem(element: str, value: dict, plan: dict) -> RuleViolation | None:
    """Why a plan contradicts the Prescience answer, or None."""
    shown = plan_value(element, plan)
    if element == "leader":
        same = (shown["leader"] or "").lower() == (value["leader"] or "").lower()
    elif element == "dial":
        same = shown == value
    else:
        same = (shown[element] or "").lower() == (value[element] or "").lower()
    if same:
        return None
    return hard(f"You showed the Atreides {answer_text(element, value)}; your plan must play exactly that "
                f"({answer_text(element, shown)} is not it).", RULE_PRESCIENCE)


__all__ = ["ELEMENTS", "VOICE_KINDS", "read_voice", "voice_matches", "voice_problem", "chip_allowed",
           "read_element", "ask_problem", "read_answer", "plan_value", "answer_problem", "answer_text",
           "RULE_PRESCIENCE", "RULE_VOICE", "RULE_VOICE_CHEAP_HERO"]

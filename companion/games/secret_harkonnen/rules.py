"""Secret Harkonnen: the pure rules (no Flask, no storage), from the forum game in
``shared/seeds/secret-harkonnen-forum-game.txt``.

Roles: Atreides, the Imperial Family and the Baron (the Secret Harkonnen, an Imperial).
Policies: 6 Landsraad and 11 CHOAM. Rule ids are ``sh-...`` (see the corpus entries).
"""
from __future__ import annotations

import random

MIN_PLAYERS, MAX_PLAYERS = 5, 10
ATREIDES, IMPERIAL, BARON = "atreides", "imperial", "baron"
LANDSRAAD, CHOAM = "landsraad", "choam"
DECK = (LANDSRAAD,) * 6 + (CHOAM,) * 11
# players -> (Atreides, Imperials besides the Baron); the Baron is always one more
TEAMS = {5: (3, 1), 6: (4, 1), 7: (4, 2), 8: (5, 2), 9: (5, 3), 10: (6, 3)}
LANDSRAAD_TO_WIN, CHOAM_TO_WIN, BARON_ELECTION_AFTER = 5, 6, 3
VETO_AFTER = 5
FORCED_AFTER = 3  # failed elections in a row
POWERS = ("consult", "trance", "special_election", "sardaukar")
POWER_NAMES = {"consult": "Consult the Spacing Guild", "trance": "Enter a Spice Trance",
               "special_election": "Special Election", "sardaukar": "Employ the Sardaukar"}
# the executive power after the 1st..5th CHOAM policy, by table size: each slot is the choice
# open to the Emperor; ("rest", k) is whichever power of slot k was not used then
POWER_TABLE = {
    "5-6": [(), ("consult",), ("special_election",), ("consult", "sardaukar"), ("rest", 4)],
    "7-8": [("consult",), ("consult", "trance"), ("special_election",), ("trance", "sardaukar"),
            ("consult", "sardaukar")],
    "9-10": [("consult", "trance"), ("rest", 1), ("special_election",), ("trance", "sardaukar"), ("sardaukar",)],
}


class Refused(Exception):
    """An entry the rules do not allow: one sentence, with a rule id."""

    overridable = False

    def __init__(self, message: str, rule: str):
        super().__init__(message)
        self.message, self.rule = message, rule

    def to_dict(self) -> dict:
        return {"message": self.message, "rule": self.rule, "overridable": False}


def team_sizes(n: int) -> dict[str, int]:
    if n not in TEAMS:
        raise Refused(f"Secret Harkonnen is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}.", "sh-teams")
    atreides, imperial = TEAMS[n]
    return {ATREIDES: atreides, IMPERIAL: imperial, BARON: 1}


def deal_roles(players: list[str], rng) -> dict[str, str]:
    """Roles at the seed's team sizes, shuffled with ``rng`` (the server uses ``secrets``)."""
    sizes = team_sizes(len(players))
    roles = [ATREIDES] * sizes[ATREIDES] + [IMPERIAL] * sizes[IMPERIAL] + [BARON]
    rng.shuffle(roles)
    return dict(zip(players, roles))


def knows(roles: dict[str, str], me: str) -> dict[str, str]:
    """What a role is told at the start: Imperials see their team and the Baron; the Baron sees
    the Imperials only at 5-6 players; an Atreides knows only themself."""
    mine = roles[me]
    out = {me: mine}
    if mine == IMPERIAL or (mine == BARON and len(roles) <= 6):
        out.update({p: r for p, r in roles.items() if r in (IMPERIAL, BARON)})
    return out


def bracket(n: int) -> str:
    return "5-6" if n <= 6 else "7-8" if n <= 8 else "9-10"


def power_choice(n_players: int, choam: int, used: dict) -> tuple[str, ...]:
    """The powers the Emperor may use after the ``choam``-th CHOAM policy (``used``: slot -> power)."""
    if not 1 <= choam <= 5:
        return ()
    slot = POWER_TABLE[bracket(n_players)][choam - 1]
    if slot and slot[0] == "rest":
        k = slot[1]
        earlier = POWER_TABLE[bracket(n_players)][k - 1]
        return tuple(p for p in earlier if p != used.get(str(k)))[:1] or earlier[:1]
    return slot


def veto_unlocked(choam: int) -> bool:
    return choam >= VETO_AFTER


def next_living(players: list[str], alive: list[str], index: int) -> int:
    """The seat index after ``index`` (round the table), skipping the assassinated."""
    n = len(players)
    for step in range(1, n + 1):
        i = (index + step) % n
        if players[i] in alive:
            return i
    raise Refused("Nobody is left alive to be Emperor.", "sh-rotation")


def ineligible(alive: list[str], emperor: str, government: dict | None) -> set[str]:
    """Who cannot be nominated Governor: the Emperor, the assassinated, and the previous
    government (with 5 or fewer living players, only the previous Governor)."""
    out = {emperor}
    if government:
        if government.get("governor"):
            out.add(government["governor"])
        if government.get("emperor") and len(alive) > 5:
            out.add(government["emperor"])
    return out


def election(votes: dict[str, str], nominee_is_baron: bool, choam: int) -> bool:
    """A majority of Confirm passes; a tie fails, except (Feyd-Rautha rule) at an even number of
    voters with 3 or more CHOAM policies passed when the nominee is the Baron."""
    yes = sum(1 for v in votes.values() if v == "confirm")
    no = len(votes) - yes
    if yes != no:
        return yes > no
    return len(votes) % 2 == 0 and choam >= BARON_ELECTION_AFTER and nominee_is_baron


def reshuffle_needed(deck: list) -> bool:
    return len(deck) < 3


def reshuffle(deck: list, discard: list, seed: str, count: int) -> list:
    """The remaining deck and the discards, shuffled into a new deck (``seed`` is secret; the
    ``count``-th reshuffle of a game always gives the same order, so a replay is exact)."""
    cards = list(deck) + list(discard)
    random.Random(f"{seed}:{count}").shuffle(cards)
    return cards


def winner(policies: dict, alive: list[str], roles: dict[str, str], elected_governor: str | None = None
           ) -> tuple[str, str] | None:
    """(team, why) once a side has won, else None."""
    if policies[LANDSRAAD] >= LANDSRAAD_TO_WIN:
        return ATREIDES, "Five Landsraad policies were passed."
    if policies[CHOAM] >= CHOAM_TO_WIN:
        return IMPERIAL, "Six CHOAM policies were passed."
    baron = next(p for p, r in roles.items() if r == BARON)
    if baron not in alive:
        return ATREIDES, "The Baron was assassinated."
    if elected_governor == baron and policies[CHOAM] >= BARON_ELECTION_AFTER:
        return IMPERIAL, "The Baron was elected Governor of Arrakis after three CHOAM policies."
    return None

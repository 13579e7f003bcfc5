"""Errors raised by the pure rules layer."""
from __future__ import annotations


class RuleViolation(Exception):
    """An entry that does not fit the rules or the current state.

    ``message`` is one sentence a player can read at the table; ``rule`` is the id of
    the entry in ``rules_corpus/`` that decides it (``/rules/<rule>``), or None.
    ``overridable`` is True when the table may accept the entry anyway with an explicit
    override (a game rule such as storm or occupancy), False when accepting it would
    break the bookkeeping itself (forces that do not exist, negative spice).
    """

    def __init__(self, message: str, rule: str | None = None, *, overridable: bool = True):
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.overridable = overridable

    def to_dict(self) -> dict:
        return {"message": self.message, "rule": self.rule, "overridable": self.overridable}


def hard(message: str, rule: str | None = None) -> RuleViolation:
    """A violation no override can accept (conservation, non-negative spice, bad names)."""
    return RuleViolation(message, rule, overridable=False)

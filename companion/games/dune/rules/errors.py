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
        self.also: list[RuleViolation] = []  # further rules the same check found broken (``Soft``)

    def every(self) -> list[RuleViolation]:
        """This refusal and the further rules found broken with it: all an override waives."""
        return [self, *self.also]

    def to_dict(self) -> dict:
        return {"message": self.message, "rule": self.rule, "overridable": self.overridable}


class Soft:
    """Runs a check's overridable steps to the end instead of stopping at the first broken rule,
    so that a refusal names every rule an override would waive (a second shipment into the storm:
    both "already shipped" and the storm). A hard violation still stops at once; ``done()`` raises
    the first overridable one, carrying the others in ``also``."""

    def __init__(self):
        self.found: list[RuleViolation] = []

    def __call__(self, fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except RuleViolation as exc:
            if not exc.overridable:
                raise
            self.found.extend(exc.every())
            return None

    def done(self) -> None:
        if self.found:
            first = self.found[0]
            first.also = self.found[1:]
            raise first


def hard(message: str, rule: str | None = None) -> RuleViolation:
    """A violation no override can accept (conservation, non-negative spice, bad names)."""
    return RuleViolation(message, rule, overridable=False)

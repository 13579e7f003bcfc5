"""The service's refusals: a malformed or illegal entry (422), a seat that may not (403), a phone
that saw an older revision (409)."""
from __future__ import annotations


class EntryError(Exception):
    """A malformed or illegal entry (HTTP 422)."""

    def __init__(self, message: str, rule: str | None = None, *, fields: list | None = None,
                 overridable: bool = False, waives: list | None = None):
        super().__init__(message)
        self.message, self.rule, self.fields, self.overridable = message, rule, fields, overridable
        # every rule an override of this entry would waive ({message, rule}), this one first
        self.waives = waives

    def to_dict(self) -> dict:
        d = {"message": self.message, "rule": self.rule, "overridable": self.overridable}
        if self.fields:
            d["fields"] = self.fields
        if self.overridable and self.waives:
            d["waives"] = self.waives
        return d


class Forbidden(Exception):
    pass


class Stale(Exception):
    def __init__(self, current: int):
        super().__init__(f"The table has moved on to revision {current}: look again and retry.")
        self.current = current

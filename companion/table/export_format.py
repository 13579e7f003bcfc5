"""The schema of a table export (``GET /api/tables/{code}/export``), checked whole before an import
replays a single entry: the right types everywhere, bounded counts and texts, entries numbered
1, 2, 3... with known types, undo entries pointing back at an earlier entry."""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from ..games.dune.entries import TableConfig, no_controls

EXPORT_FORMAT = "dune-table-companion/1"
MAX_IMPORT_EVENTS = 50_000
Seat = Literal["host", "atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu"]
Faction = Literal["atreides", "harkonnen", "fremen", "emperor", "guild", "bg", "ecaz", "moritani", "tleilaxu"]


class ExportEvent(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    seq: int = Field(ge=1)
    seat: Seat
    type: Annotated[str, Field(min_length=1, max_length=40), AfterValidator(no_controls)]
    payload: dict
    ts: float = Field(ge=0, le=10**11, allow_inf_nan=False)  # seconds since 1970
    secret_for: Faction | None = None
    summary: Annotated[str, Field(max_length=1000)] = ""


class ExportFile(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    format: Literal["dune-table-companion/1"]
    table: Annotated[str, Field(max_length=10)] | None = None
    config: TableConfig
    events: list[ExportEvent] = Field(max_length=MAX_IMPORT_EVENTS)

    @model_validator(mode="after")
    def _consistent(self):
        present = set(self.config.factions)
        if len(present) != len(self.config.factions):
            raise ValueError("config.factions: each faction at most once")
        for i, e in enumerate(self.events):
            where = f"events.{i}"
            if e.seq != i + 1:
                raise ValueError(f"{where}.seq: the entries are numbered 1, 2, 3, ... (found {e.seq})")
            if e.seat != "host" and e.seat not in present:
                raise ValueError(f"{where}.seat: {e.seat} is not at this table")
            if e.secret_for is not None and e.secret_for not in present:
                raise ValueError(f"{where}.secret_for: {e.secret_for} is not at this table")
            if e.type == "undo":
                target = e.payload.get("target")
                if (not isinstance(target, int) or isinstance(target, bool) or not 1 <= target < e.seq
                        or self.events[target - 1].type == "undo"):
                    raise ValueError(f"{where}.payload.target: an undo names an earlier entry that is not an undo")
        return self


def parse_export(data) -> tuple[ExportFile | None, str | None]:
    """(the checked export, None) or (None, one sentence saying what is wrong)."""
    if not isinstance(data, dict) or data.get("format") != EXPORT_FORMAT:
        return None, f"Not a table export (expected format {EXPORT_FORMAT!r})."
    if not isinstance(data.get("config"), dict) or not isinstance(data.get("events"), list):
        return None, "A table export needs 'config' and 'events'."
    try:
        return ExportFile.model_validate(data), None
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(x) for x in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return None, (f"{loc}: {msg}" if loc else msg) + more
